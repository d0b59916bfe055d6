/**
 * The authorization stage (the reference's `WithAuthorization`): asks the authorizer chain
 * about the request's attributes and answers 403 unless it allows.
 * @module
 */
import type { UserInfo } from "@orch/authn";
import type { Attributes, AuthorizationResult, Authorizer } from "@orch/authz";
import { forbidden, parseFieldSelector, type StatusError } from "@orch/meta";
import type { MetricsRecorder } from "../metrics.js";
import type { RequestInfo } from "./request-info-stage.js";
import { userOf, type Stage } from "./stage.js";

/**
 * The name a list or watch is limited to by `fieldSelector=metadata.name=<name>`, as the
 * reference's request info reads it (so a rule with `resourceNames` covers `kubectl get cm x -w`
 * and single-object informers); `""` otherwise, and for a selector that does not parse (the
 * handler answers that one 400).
 */
function selectedName(info: RequestInfo & { isResourceRequest: true }): string {
  if (info.name || (info.verb !== "list" && info.verb !== "watch")) return info.name;
  const selector = info.parsed.query.get("fieldSelector");
  if (!selector) return "";
  try {
    return parseFieldSelector(selector).exactValue("metadata.name") ?? "";
  } catch {
    return "";
  }
}

/** The attributes the authorizers see of a request by `user` (the reference's `GetAuthorizerAttributes`). */
export function attributesOf(info: RequestInfo, user: UserInfo): Attributes {
  if (!info.isResourceRequest) return { user, verb: info.verb, resourceRequest: false, path: info.path };
  return {
    user,
    verb: info.verb,
    resourceRequest: true,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: selectedName(info),
  };
}

/**
 * The 403 of a refused request, worded as the reference's: `pods "web" is forbidden: User
 * "alice" cannot get resource "pods" in API group "" in the namespace "dev"`, or `forbidden:
 * User "alice" cannot get path "/metrics"`, with `: <reason>` when the authorizer gave one.
 */
export function forbiddenError(attributes: Attributes, reason: string): StatusError {
  const who = JSON.stringify(attributes.user.name);
  const because = reason ? `: ${reason}` : "";
  if (!attributes.resourceRequest)
    return forbidden({ group: "", resource: "" }, "", `User ${who} cannot ${attributes.verb} path ${JSON.stringify(attributes.path ?? "")}${because}`);
  const resource = attributes.subresource ? `${attributes.resource ?? ""}/${attributes.subresource}` : (attributes.resource ?? "");
  const scope = attributes.namespace ? `in the namespace ${JSON.stringify(attributes.namespace)}` : "at the cluster scope";
  return forbidden(
    { group: attributes.apiGroup ?? "", resource: attributes.resource ?? "" },
    attributes.name ?? "",
    `User ${who} cannot ${attributes.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attributes.apiGroup ?? "")} ${scope}${because}`,
  );
}

/** Throws the 403 of `attributes` unless `result` allows them. */
export function requireAllowed(attributes: Attributes, result: AuthorizationResult): void {
  if (result.decision !== "allow") throw forbiddenError(attributes, result.reason);
}

/** Options of {@link withAuthorization}. */
export interface AuthorizationStageOptions {
  /** The product domain of the audit annotations (`authorization.<domain>/...`); `orch.io` by default. */
  domain?: string;
  /** Counts and times the decisions; nothing is measured without it. */
  metrics?: MetricsRecorder;
  /** A monotonic clock in milliseconds; `performance.now()` by default. */
  now?: () => number;
}

/** The paths served without authorization by default: the health checks (the reference's `--authorization-always-allow-paths`). */
export const defaultAlwaysAllowPaths: readonly string[] = ["/healthz", "/readyz", "/livez"];

/**
 * Authorizes each request with `authorizer` (the chain of `--authorization-mode`): an `allow`
 * goes on; a `deny` or no opinion from every authorizer is 403 Forbidden, worded as the
 * reference words it. Non-resource requests for `alwaysAllowPaths` (exact, or a prefix ending
 * in `*`; the health checks by default) skip authorization, so probes work before RBAC has
 * loaded and while the store is away. Runs after authentication and impersonation.
 *
 * An audited request gets the annotations `authorization.<domain>/decision` (`allow` or
 * `forbid`) and `authorization.<domain>/reason`. With `options.metrics`, each decision is
 * counted and timed (`apiserver_authorization_decisions_total`, `..._duration_seconds`).
 */
export function withAuthorization(
  authorizer: Authorizer,
  alwaysAllowPaths: readonly string[] = defaultAlwaysAllowPaths,
  options: AuthorizationStageOptions = {},
): Stage {
  const metrics = options.metrics;
  const now = options.now ?? (() => performance.now());
  // Built once per server, not per request.
  const decisionKey = `authorization.${options.domain ?? "orch.io"}/decision`;
  const reasonKey = `authorization.${options.domain ?? "orch.io"}/reason`;
  const exact = new Set(alwaysAllowPaths.filter((p) => !p.endsWith("*")));
  const prefixes = alwaysAllowPaths.filter((p) => p.endsWith("*")).map((p) => p.slice(0, -1));
  const alwaysAllowed = (path: string) => exact.has(path) || prefixes.some((p) => path.startsWith(p));
  // No async frame: a request pays one reaction to the authorizer's answer, nothing more.
  return (request, next) => {
    const info = request.info;
    if (!info) return Promise.reject(new TypeError("the request info stage must run before authorization"));
    if (!info.isResourceRequest && alwaysAllowed(info.path)) return next(request);
    let attributes: Attributes;
    let deciding: Promise<AuthorizationResult>;
    const started = metrics ? now() : 0;
    try {
      attributes = attributesOf(info, userOf(request));
      deciding = authorizer.authorize(attributes);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return deciding.then(
      (result) => {
        metrics?.authorized(result.decision === "allow" ? "allowed" : "denied", Math.max(0, now() - started) / 1000);
        if (request.auditAnnotations) {
          request.auditAnnotations[decisionKey] = result.decision === "allow" ? "allow" : "forbid";
          request.auditAnnotations[reasonKey] = result.reason;
        }
        requireAllowed(attributes, result);
        return next(request);
      },
      (error: unknown) => {
        metrics?.authorized("error", Math.max(0, now() - started) / 1000);
        throw error;
      },
    );
  };
}
