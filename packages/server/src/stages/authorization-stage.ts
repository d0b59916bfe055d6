/**
 * The authorization stage (the reference's `WithAuthorization`): asks the authorizer chain
 * about the request's attributes and answers 403 unless it allows.
 * @module
 */
import type { UserInfo } from "@orch/authn";
import type { Attributes, AuthorizationResult, Authorizer } from "@orch/authz";
import { forbidden, type StatusError } from "@orch/meta";
import type { RequestInfo } from "./request-info-stage.js";
import { userOf, type Stage } from "./stage.js";

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
    name: info.name,
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
  if (!attributes.resourceRequest) return forbidden({ group: "", resource: "" }, "", `User ${who} cannot ${attributes.verb} path ${JSON.stringify(attributes.path ?? "")}${because}`);
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

/**
 * Authorizes each request with `authorizer` (the chain of `--authorization-mode`): an `allow`
 * goes on; a `deny` or no opinion from every authorizer is 403 Forbidden, worded as the
 * reference words it. Runs after authentication and impersonation.
 */
export function withAuthorization(authorizer: Authorizer): Stage {
  return async (request, next) => {
    const info = request.info;
    if (!info) throw new TypeError("the request info stage must run before authorization");
    const attributes = attributesOf(info, userOf(request));
    requireAllowed(attributes, await authorizer.authorize(attributes));
    return next(request);
  };
}
