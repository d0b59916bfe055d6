/**
 * The webhook authorizer: asks a remote service about each request by POSTing it a
 * SubjectAccessReview, and caches the service's answers (the reference's
 * `--authorization-webhook-config-file` authorizer).
 * @module
 */
import { ExpiringCache, untilAborted, type HTTPClient, type HTTPResponse, type UserInfo } from "@orch/authn";
import { systemClock, type Clock } from "@orch/store";
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from "./authorizer.js";

/** Options of {@link webhookAuthorizer}. */
export interface WebhookAuthorizerOptions {
  /** The webhook's URL: an absolute `https:` (or `http:`) URL the SubjectAccessReview is POSTed to. */
  server: string;
  /** How the request is sent: `httpsClient` from `@orch/node` carries the webhook's CA and client certificate. */
  http: HTTPClient;
  /** The product domain: the SubjectAccessReview's group is `authorization.<domain>` (default `orch.io`). */
  domain?: string;
  /**
   * The SubjectAccessReview version sent and expected back (default `v1beta1`, the reference's
   * default). The user's groups are `spec.group` in `v1beta1` and `spec.groups` in `v1`.
   */
  version?: "v1beta1" | "v1";
  /** How long an `allowed` answer is cached, in milliseconds (default 300 000; 0 disables). */
  authorizedTTLMs?: number;
  /** How long any other answer (denied, no opinion) is cached, in milliseconds (default 30 000; 0 disables). */
  unauthorizedTTLMs?: number;
  /**
   * How long the webhook has to answer, in milliseconds (default 10 000). A webhook that does
   * not answer in time is a failure; the request is aborted.
   */
  timeoutMs?: number;
  /**
   * What a failed call decides (`--authorization-webhook` failure policy): `NoOpinion` (the
   * default, as the reference: the next authorizer of the chain decides) or `Deny`.
   */
  failurePolicy?: "NoOpinion" | "Deny";
  /** The most answers cached at once (default 8192, as the reference); the oldest is dropped first. */
  maxCacheEntries?: number;
  /** Time and timers for the cache and the deadline (default the system clock). */
  clock?: Clock;
  /** Receives one line per failed webhook call, naming the webhook URL and the cause (default: dropped). */
  log?: (message: string) => void;
  /** Sent as `Authorization: Bearer <bearerToken>` to the webhook (the webhook kubeconfig's `token`). */
  bearerToken?: string;
}

/** The parts of a SubjectAccessReview status the authorizer reads. */
interface ReviewStatus {
  readonly allowed: boolean;
  readonly denied: boolean;
  readonly reason: string;
  readonly evaluationError: string;
}

/** What one webhook call gave: the review's status, or why there is none. */
type Outcome = { readonly ok: true; readonly status: ReviewStatus } | { readonly ok: false; readonly cause: string };

/** The abort reason of a call whose deadline passed. */
class Deadline extends Error {}

/**
 * Requester-controlled attributes at least this long (in characters, summed) are not cached,
 * as the reference guards its cache against being filled by huge names.
 */
const maxCachedAttributeLength = 10_000;

/** The evaluation error a rules review reports for this authorizer (the reference's wording). */
const noRuleResolution = "webhook authorizer does not support user rule resolution";

/**
 * An {@link Authorizer} that asks a webhook about every request, as the reference's
 * `--authorization-mode=Webhook` does: it POSTs a SubjectAccessReview
 * (`authorization.<domain>/<version>`) whose `spec` holds the user (`user`, `uid`, the groups,
 * `extra`) and either `resourceAttributes` (`namespace`, `verb`, `group`, `version`,
 * `resource`, `subresource`, `name`) or `nonResourceAttributes` (`path`, `verb`), empty fields
 * left out; the groups are `spec.group` in `v1beta1` (as the reference's v1beta1 type names
 * them) and `spec.groups` in `v1`.
 *
 * What a caller must know:
 * - The answer must be a 2xx JSON SubjectAccessReview of the version sent. Its
 *   `status.allowed` allows, `status.denied` denies, neither is no opinion, each with
 *   `status.reason` as the reason; both at once deny with `error` set (as the reference).
 *   A non-empty `status.evaluationError` is passed on as the result's `error`, whatever the
 *   decision.
 * - A failure (no answer within `timeoutMs`, a failed connection, another status, a body that
 *   is not such a review, a field of the wrong type) decides as `failurePolicy` says (no
 *   opinion by default, or deny), with an empty reason and `error` naming the cause, logs one
 *   line naming the webhook, and is not cached: the next call asks again. A call never hangs
 *   past `timeoutMs` and never rejects. Unlike the reference, a failed call is not retried.
 * - Answers are cached per question (the whole spec: user and attributes) for
 *   `authorizedTTLMs` when allowed and `unauthorizedTTLMs` otherwise, by the clock; questions
 *   whose names and paths sum to 10 000 characters or more are never cached. Identical
 *   questions asked while a call is under way share it.
 * - It cannot list a user's rules: {@link RuleResolver.rulesFor} reports `incomplete`.
 * - Every result is a fresh object the caller may change.
 *
 * @throws RangeError when `server` is not an absolute http(s) URL, `version` or
 *   `failurePolicy` is unknown, or a number option is out of range.
 */
export function webhookAuthorizer(options: WebhookAuthorizerOptions): Authorizer & RuleResolver {
  const server = options.server;
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new RangeError(`authorization webhook: server ${JSON.stringify(server)} is not an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new RangeError(`authorization webhook: server ${JSON.stringify(server)} is not an http(s) URL`);
  const version = options.version ?? "v1beta1";
  if (version !== "v1beta1" && version !== "v1") throw new RangeError(`authorization webhook: version must be v1beta1 or v1, got ${JSON.stringify(version)}`);
  const apiVersion = `authorization.${options.domain ?? "orch.io"}/${version}`;
  const failurePolicy = options.failurePolicy ?? "NoOpinion";
  if (failurePolicy !== "NoOpinion" && failurePolicy !== "Deny") {
    throw new RangeError(`authorization webhook: failurePolicy must be NoOpinion or Deny, got ${JSON.stringify(failurePolicy)}`);
  }
  const authorizedTTLMs = nonNegative("authorizedTTLMs", options.authorizedTTLMs ?? 300_000);
  const unauthorizedTTLMs = nonNegative("unauthorizedTTLMs", options.unauthorizedTTLMs ?? 30_000);
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new RangeError(`authorization webhook: timeoutMs must be a positive number, got ${timeoutMs}`);
  const maxCacheEntries = options.maxCacheEntries ?? 8192;
  if (!Number.isInteger(maxCacheEntries) || maxCacheEntries < 1)
    throw new RangeError(`authorization webhook: maxCacheEntries must be a positive integer, got ${maxCacheEntries}`);
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => {});
  const http = options.http;
  const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
  if (options.bearerToken !== undefined && options.bearerToken !== "") headers["Authorization"] = `Bearer ${options.bearerToken}`;
  const groupsField = version === "v1" ? "groups" : "group";

  /** Answers by question, oldest write first (a rewrite moves an entry to the end). */
  const cache = new ExpiringCache<string, ReviewStatus>(clock, maxCacheEntries);
  /** Calls under way by question. */
  const flights = new Map<string, Promise<Outcome>>();

  /** One SubjectAccessReview round trip; never rejects. */
  async function review(body: string, signal: AbortSignal): Promise<Outcome> {
    let response: HTTPResponse;
    try {
      response = await untilAborted(http(server, { method: "POST", headers: { ...headers }, body, signal }), signal);
    } catch (error) {
      if (signal.aborted && signal.reason instanceof Deadline) return { ok: false, cause: `no answer within ${timeoutMs} ms` };
      return { ok: false, cause: `request failed: ${messageOf(error)}` };
    }
    if (response.status < 200 || response.status > 299) return { ok: false, cause: `answered HTTP ${response.status}${snippet(response.body)}` };
    let answer: unknown;
    try {
      answer = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(response.body));
    } catch (error) {
      return { ok: false, cause: `the answer is not JSON: ${messageOf(error)}` };
    }
    if (!isRecord(answer)) return { ok: false, cause: "the answer is not a JSON object" };
    if (answer["kind"] !== "SubjectAccessReview" || answer["apiVersion"] !== apiVersion) {
      return {
        ok: false,
        cause: `the answer is not a ${apiVersion} SubjectAccessReview (got kind ${JSON.stringify(answer["kind"])}, apiVersion ${JSON.stringify(answer["apiVersion"])})`,
      };
    }
    const status = statusOf(answer["status"]);
    if (typeof status === "string") return { ok: false, cause: `malformed SubjectAccessReview status: ${status}` };
    return { ok: true, status };
  }

  function remember(key: string, status: ReviewStatus): void {
    cache.set(key, status, status.allowed ? authorizedTTLMs : unauthorizedTTLMs);
  }

  /** Starts the webhook call for `key`, shared until it settles; its answer is cached when `cacheable`. */
  function startFlight(key: string, body: string, cacheable: boolean): Promise<Outcome> {
    const controller = new AbortController();
    let cancelTimer: () => void = () => {};
    const deadline = new Promise<Outcome>((resolve) => {
      cancelTimer = clock.setTimer(timeoutMs, () => {
        controller.abort(new Deadline("deadline"));
        resolve({ ok: false, cause: `no answer within ${timeoutMs} ms` });
      });
    });
    const flight: Promise<Outcome> = Promise.race([review(body, controller.signal), deadline]).then((outcome) => {
      cancelTimer();
      if (flights.get(key) === flight) flights.delete(key);
      if (!outcome.ok) {
        log(`authorization webhook ${server}: ${outcome.cause}`);
        return outcome;
      }
      if (outcome.status.allowed && outcome.status.denied) log(`authorization webhook ${server}: the SubjectAccessReview is both allowed and denied`);
      if (cacheable) remember(key, outcome.status);
      return outcome;
    });
    flights.set(key, flight);
    return flight;
  }

  function failed(cause: string): AuthorizationResult {
    return { decision: failurePolicy === "Deny" ? "deny" : "noOpinion", reason: "", error: `authorization webhook: ${cause}` };
  }

  return {
    async authorize(attributes: Attributes): Promise<AuthorizationResult> {
      let spec: Record<string, unknown>;
      try {
        spec = specOf(attributes, groupsField);
      } catch (error) {
        return failed(`cannot describe the request: ${messageOf(error)}`);
      }
      const key = JSON.stringify(spec);
      const cached = cache.get(key);
      if (cached !== undefined) return resultOf(cached);
      const flight = flights.get(key) ?? startFlight(key, JSON.stringify({ apiVersion, kind: "SubjectAccessReview", spec }), cacheable(attributes));
      const outcome = await flight;
      return outcome.ok ? resultOf(outcome.status) : failed(outcome.cause);
    },
    rulesFor: async (): Promise<RulesResult> => ({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: noRuleResolution }),
  };
}

/**
 * The SubjectAccessReview spec of `attributes`, empty fields left out (as the reference's JSON
 * has them), the user's groups under `groupsField`, `extra` sorted by key so equal questions
 * give equal JSON.
 */
function specOf(attributes: Attributes, groupsField: "group" | "groups"): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (attributes.resourceRequest) {
    const resource: Record<string, string> = {};
    const fields: Array<[string, string | undefined]> = [
      ["namespace", attributes.namespace],
      ["verb", attributes.verb],
      ["group", attributes.apiGroup],
      ["version", attributes.apiVersion],
      ["resource", attributes.resource],
      ["subresource", attributes.subresource],
      ["name", attributes.name],
    ];
    for (const [field, value] of fields) if (value !== undefined && value !== "") resource[field] = value;
    spec["resourceAttributes"] = resource;
  } else {
    const nonResource: Record<string, string> = {};
    if (attributes.path !== undefined && attributes.path !== "") nonResource["path"] = attributes.path;
    if (attributes.verb !== "") nonResource["verb"] = attributes.verb;
    spec["nonResourceAttributes"] = nonResource;
  }
  const user: UserInfo = attributes.user;
  if (user.name !== "") spec["user"] = user.name;
  if (user.groups.length > 0) spec[groupsField] = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) {
    const extra: Record<string, string[]> = {};
    for (const k of Object.keys(user.extra).sort()) extra[k] = [...(user.extra[k] ?? [])];
    spec["extra"] = extra;
  }
  if (user.uid !== undefined && user.uid !== "") spec["uid"] = user.uid;
  return spec;
}

/** Whether the answer to `attributes` may be cached: their requester-controlled parts are not huge. */
function cacheable(attributes: Attributes): boolean {
  const parts = [
    attributes.namespace,
    attributes.verb,
    attributes.apiGroup,
    attributes.apiVersion,
    attributes.resource,
    attributes.subresource,
    attributes.name,
    attributes.path,
  ];
  let length = 0;
  for (const part of parts) length += part?.length ?? 0;
  return length < maxCachedAttributeLength;
}

/** The status a SubjectAccessReview states; a string saying what is wrong when it is malformed. */
function statusOf(status: unknown): ReviewStatus | string {
  if (status === undefined || status === null) status = {};
  if (!isRecord(status)) return "status is not an object";
  const allowed = status["allowed"] ?? false;
  if (typeof allowed !== "boolean") return "status.allowed is not a boolean";
  const denied = status["denied"] ?? false;
  if (typeof denied !== "boolean") return "status.denied is not a boolean";
  const reason = status["reason"] ?? "";
  if (typeof reason !== "string") return "status.reason is not a string";
  const evaluationError = status["evaluationError"] ?? "";
  if (typeof evaluationError !== "string") return "status.evaluationError is not a string";
  return { allowed, denied, reason, evaluationError };
}

/** A caller's fresh result of a webhook's answer. */
function resultOf(status: ReviewStatus): AuthorizationResult {
  let result: AuthorizationResult;
  if (status.allowed && status.denied) {
    result = { decision: "deny", reason: status.reason, error: "authorization webhook: the SubjectAccessReview is both allowed and denied" };
  } else if (status.denied) {
    result = { decision: "deny", reason: status.reason };
  } else if (status.allowed) {
    result = { decision: "allow", reason: status.reason };
  } else {
    result = { decision: "noOpinion", reason: status.reason };
  }
  if (status.evaluationError !== "") {
    const evaluation = `authorization webhook: evaluation error: ${status.evaluationError}`;
    result.error = result.error === undefined ? evaluation : `${result.error}; ${evaluation}`;
  }
  return result;
}

/** The start of a response body, for a log line (at most 200 characters, on one line). */
function snippet(body: Uint8Array): string {
  const text = new TextDecoder().decode(body.subarray(0, 400)).replace(/\s+/g, " ").trim();
  return text === "" ? "" : `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

function nonNegative(name: string, value: number): number {
  if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`authorization webhook: ${name} must be a non-negative number, got ${value}`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
