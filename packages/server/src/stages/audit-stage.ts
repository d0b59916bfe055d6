/**
 * The audit stage (the reference's `WithAudit` and `WithFailedAuthenticationAudit`): records
 * each request the policy selects as `audit.<domain>/v1` Events, at the policy's level, in a
 * {@link AuditSink}.
 * @module
 */
import { isFailureStatus, StatusError, toStatusError, type Status } from "@orch/meta";
import type { Clock } from "@orch/store";
import { systemClock } from "@orch/store";
import type { APIResponse } from "../api-request.js";
import type { AuditEvent, AuditObjectReference, AuditResponseStatus, AuditSink, AuditStage } from "../audit/event.js";
import { evaluatePolicy, type AuditAttributes, type AuditPolicy } from "../audit/policy.js";
import type { MetricsRecorder } from "../metrics.js";
import { errorResponse } from "../responses.js";
import type { ServerRequest, Stage } from "./stage.js";

/** Options of {@link auditStages}. */
export interface AuditStageOptions {
  /** Which requests are recorded, at which level. */
  policy: AuditPolicy;
  /** Where events go. */
  sink: AuditSink;
  /** The product domain: events are `audit.<domain>/v1`. */
  domain: string;
  /** Timestamps; `systemClock` by default. */
  clock?: Clock;
  /** Makes the audit IDs (a random UUID by default); a request's `Audit-ID` header is used when present. */
  newID?: () => string;
  /** Counts each event handed to the sink (`apiserver_audit_event_total`). */
  metrics?: MetricsRecorder;
}

/** The two audit stages: one before authentication (for 401s), one right after it. */
export interface AuditStages {
  /** Records a request refused with 401 (no user), as `ResponseComplete` with an empty user. */
  failedAuthentication: Stage;
  /**
   * Records every authenticated request: `RequestReceived` before the rest of the pipeline runs,
   * `ResponseStarted` when a watch starts streaming, `ResponseComplete` with the final code
   * (errors of later stages included), or `Panic` when the handler throws something that is not
   * a Status (rethrown). With impersonation, the events after `RequestReceived` record the caller
   * as `user` and the impersonated user as `impersonatedUser`.
   */
  audit: Stage;
}

const decoder = new TextDecoder();

let lastMs = Number.NaN;
let lastTime = "";

/** RFC 3339 with microseconds, as the reference writes timestamps (the last one is reused: requests come many per millisecond). */
function microTime(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastTime = `${new Date(ms).toISOString().slice(0, -1)}000Z`;
  }
  return lastTime;
}

/** A body parsed as JSON, `undefined` when it is not. */
function jsonBody(body: Uint8Array | string | undefined): unknown {
  if (body === undefined || body.length === 0) return undefined;
  try {
    return JSON.parse(typeof body === "string" ? body : decoder.decode(body)) as unknown;
  } catch {
    return undefined;
  }
}

/** The `responseStatus` of a code and, for a failure, its Status. */
function responseStatus(code: number, status?: Status): AuditResponseStatus {
  const out: AuditResponseStatus = { metadata: {}, code };
  if (status && status.status === "Failure") {
    out.status = "Failure";
    if (status.reason) out.reason = status.reason;
    if (status.message) out.message = status.message;
  }
  return out;
}

/** The policy's view of `request`. */
function attributesOf(request: ServerRequest): AuditAttributes {
  const info = request.info;
  const user = request.user ?? { name: "", groups: [] };
  const path = info?.path ?? request.url.split("?")[0] ?? "";
  if (!info?.isResourceRequest) return { user, verb: info?.verb ?? request.method.toLowerCase(), resourceRequest: false, path };
  return {
    user,
    verb: info.verb,
    resourceRequest: true,
    path,
    apiGroup: info.group,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

function objectRefOf(request: ServerRequest, requestObject: unknown): AuditObjectReference | undefined {
  const info = request.info;
  if (!info?.isResourceRequest) return undefined;
  const ref: AuditObjectReference = { resource: info.resource };
  if (info.namespace) ref.namespace = info.namespace;
  const bodyName = (requestObject as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
  const name = info.name || (info.verb === "create" && typeof bodyName === "string" ? bodyName : "");
  if (name) ref.name = name;
  if (info.group) ref.apiGroup = info.group;
  ref.apiVersion = info.version;
  if (info.subresource) ref.subresource = info.subresource;
  return ref;
}

/**
 * The `sourceIPs` of a request, as the reference lists them: the `X-Forwarded-For` entries, then
 * `X-Real-Ip` when it is not among them, then the peer's address (which a client cannot forge)
 * unless it is already the last entry.
 */
export function sourceIPs(headers: Headers, remoteAddress?: string): string[] | undefined {
  const forwardedFor = headers.get("x-forwarded-for");
  const realIP = headers.get("x-real-ip");
  // The common case, a client that reached the server directly: no list to build.
  if (forwardedFor === null && realIP === null) return remoteAddress ? [remoteAddress] : undefined;
  const forwarded = (forwardedFor ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const real = realIP?.trim();
  const ips = [...forwarded, ...(real && !forwarded.includes(real) ? [real] : [])];
  if (remoteAddress && ips[ips.length - 1] !== remoteAddress) ips.push(remoteAddress);
  return ips.length > 0 ? ips : undefined;
}

/**
 * The audit stages for `options`: put `failedAuthentication` before the authentication stage
 * and `audit` right after it. A request the policy records at level `None` costs one policy
 * evaluation; its response gets no `Audit-Id` header.
 */
export function auditStages(options: AuditStageOptions): AuditStages {
  const clock = options.clock ?? systemClock;
  const newID = options.newID ?? (() => globalThis.crypto.randomUUID());
  const apiVersion = `audit.${options.domain}/v1`;

  /** The skeleton of the events of one request, or `undefined` when the policy records nothing. */
  const begin = (request: ServerRequest) => {
    const attributes = attributesOf(request);
    const decision = evaluatePolicy(options.policy, attributes);
    if (decision.level === "None") return undefined;
    const received = clock.now();
    const requestObject = decision.level === "Metadata" ? undefined : jsonBody(request.body);
    const base: AuditEvent = {
      kind: "Event",
      apiVersion,
      level: decision.level,
      auditID: request.headers.get("audit-id") || newID(),
      stage: "RequestReceived",
      requestURI: request.url,
      verb: attributes.verb,
      user: request.user ?? {},
      requestReceivedTimestamp: microTime(received),
      stageTimestamp: microTime(received),
    };
    const ips = sourceIPs(request.headers, request.remoteAddress);
    if (ips) base.sourceIPs = ips;
    const agent = request.headers.get("user-agent");
    if (agent) base.userAgent = agent;
    // At Metadata the body is not parsed here: a create's name comes from its handler, which decodes it.
    const ref = objectRefOf(request, requestObject);
    if (ref) base.objectRef = ref;
    if (requestObject !== undefined) base.requestObject = requestObject;
    // Later stages and the handlers add annotations (authorization, admission, deprecation).
    const annotations: Record<string, string> = {};
    request.auditAnnotations = annotations;
    /**
     * Writes the event of `stage`, unless the policy omits it. Resolves once a blocking backend
     * took it; rejects only when a strict backend failed on `RequestReceived`.
     */
    const emit = (stage: AuditStage, extra: Partial<AuditEvent> = {}): void | Promise<void> => {
      if (decision.omitStages.includes(stage)) return;
      const event: AuditEvent = { ...base, stage, stageTimestamp: microTime(clock.now()), ...extra };
      if (stage !== "RequestReceived") {
        if (request.impersonator) {
          event.user = request.impersonator;
          if (request.user) event.impersonatedUser = request.user;
        } else if (request.user) event.user = request.user;
        if (Object.keys(annotations).length > 0) event.annotations = { ...annotations };
        if (ref && ref.name === undefined && request.auditObjectName) event.objectRef = { ...ref, name: request.auditObjectName };
      }
      options.metrics?.auditEvent();
      let pending: void | Promise<void>;
      try {
        pending = options.sink.write([event]);
      } catch {
        // A sink must not throw; if it does, the request is served all the same.
        return;
      }
      // A sink that took the event at once (the log, a batching webhook) costs no await.
      if (!pending) return;
      return pending.catch((error: unknown) => {
        if (stage === "RequestReceived") throw toStatusError(new Error("the audit event of the request could not be written", { cause: error }));
      });
    };
    return { level: decision.level, auditID: base.auditID, emit };
  };

  /** The `responseObject` of `response` when the level records it. */
  const responseObjectOf = (level: string, response: APIResponse): Partial<AuditEvent> => {
    if (level !== "RequestResponse" || response.stream) return {};
    const body = jsonBody(response.body);
    return body === undefined ? {} : { responseObject: body };
  };

  const audit: Stage = async (request, next) => {
    const events = begin(request);
    if (!events) return next(request);
    const received = events.emit("RequestReceived");
    if (received) await received;
    let response: APIResponse;
    try {
      response = await next(request);
    } catch (error) {
      if (!(error instanceof StatusError) && !isFailureStatus(error)) {
        await events.emit("Panic", { responseStatus: responseStatus(500, toStatusError(error).status) });
        throw error;
      }
      response = errorResponse(error);
    }
    response.headers.set("Audit-Id", events.auditID);
    const failure = response.status >= 400 ? jsonBody(response.body) : undefined;
    const status = responseStatus(response.status, isFailureStatus(failure) ? failure : undefined);
    const stream = response.stream;
    if (!stream) {
      const completed = events.emit("ResponseComplete", { responseStatus: status, ...responseObjectOf(events.level, response) });
      if (completed) await completed;
      return response;
    }
    await events.emit("ResponseStarted", { responseStatus: status });
    return {
      ...response,
      stream: (async function* () {
        try {
          yield* stream;
        } finally {
          await events.emit("ResponseComplete", { responseStatus: status });
        }
      })(),
    };
  };

  const failedAuthentication: Stage = async (request, next) => {
    try {
      return await next(request);
    } catch (error) {
      if (request.user || !(error instanceof StatusError) || error.status.code !== 401) throw error;
      const events = begin(request);
      const response = errorResponse(error);
      if (!events) return response;
      response.headers.set("Audit-Id", events.auditID);
      await events.emit("ResponseComplete", { responseStatus: responseStatus(401, error.status) });
      return response;
    }
  };

  return { failedAuthentication, audit };
}
