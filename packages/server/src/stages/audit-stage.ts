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
import {
  auditUser,
  type AuditEvent,
  type AuditLevel,
  type AuditObjectReference,
  type AuditResponseStatus,
  type AuditSink,
  type AuditStage,
  type AuditUserInfo,
} from "../audit/event.js";
import { randomAuditID } from "../audit/audit-id.js";
import { policyDecision, type AuditAttributes, type AuditPolicy } from "../audit/policy.js";
import type { MetricsRecorder } from "../metrics.js";
import { errorResponse } from "../responses.js";
import { attempt, type Handler, type ServerRequest, type Stage } from "./stage.js";

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

/** The `Audit-Id` response header, lower-case as a `Headers` keeps names (so it is not lower-cased again for every response). */
const auditIDHeader = "audit-id";

let lastMs = Number.NaN;
let lastTime = "";
let lastSecond = Number.NaN;
let secondPrefix = "";

/**
 * RFC 3339 with microseconds, as the reference writes timestamps (`2026-11-24T15:04:05.123000Z`).
 * Requests come many per millisecond: the last one is reused, and the date and time of the
 * current second are formatted once per second.
 */
function microTime(ms: number): string {
  if (ms === lastMs) return lastTime;
  lastMs = ms;
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    secondPrefix = new Date(second * 1000).toISOString().slice(0, -4); // without `000Z`
  }
  const millis = ms - second * 1000;
  lastTime = Number.isInteger(millis)
    ? `${secondPrefix}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}000Z`
    : `${new Date(ms).toISOString().slice(0, -1)}000Z`;
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

/** Whether `record` has at least one key (without listing them). */
function hasKeys(record: Record<string, string>): boolean {
  for (const _ in record) return true;
  return false;
}

/**
 * The audit record of one request the policy selects: what all its events share, and the
 * annotations the stages after this one add. One object per request, its events built in one
 * literal of a fixed shape (no spreads, no closures: the request path allocates little).
 */
class RequestAudit {
  /** The annotations later stages and the handlers add (`request.auditAnnotations`). */
  readonly annotations: Record<string, string> = {};
  readonly sourceIPs: string[] | undefined;
  readonly userAgent: string | undefined;

  constructor(
    readonly options: AuditStageOptions,
    readonly clock: Clock,
    readonly apiVersion: string,
    readonly request: ServerRequest,
    readonly level: AuditLevel,
    readonly omitStages: readonly AuditStage[],
    readonly auditID: string,
    readonly verb: string,
    readonly receivedAt: string,
    readonly objectRef: AuditObjectReference | undefined,
    readonly requestObject: unknown,
  ) {
    this.sourceIPs = sourceIPs(request.headers, request.remoteAddress);
    this.userAgent = request.headers.get("user-agent") || undefined;
    request.auditAnnotations = this.annotations;
  }

  /**
   * Writes the event of `stage`, unless the policy omits it. Resolves once a blocking backend
   * took it; rejects only when a strict backend failed on `RequestReceived`.
   */
  emit(stage: AuditStage, responseStatus?: AuditResponseStatus, responseObject?: unknown): void | Promise<void> {
    if (this.omitStages.length > 0 && this.omitStages.includes(stage)) return;
    const request = this.request;
    let user: AuditEvent["user"] = request.user ? auditUser(request.user) : {};
    let impersonatedUser: AuditUserInfo | undefined;
    let annotations: Record<string, string> | undefined;
    let objectRef = this.objectRef;
    if (stage !== "RequestReceived") {
      if (request.impersonator) {
        user = auditUser(request.impersonator);
        impersonatedUser = request.user && auditUser(request.user);
      }
      // The last event of a request may share the record (nothing adds to it any more); a
      // ResponseStarted event gets a copy, as the stream's end may still add annotations.
      if (hasKeys(this.annotations)) annotations = stage === "ResponseStarted" ? { ...this.annotations } : this.annotations;
      if (objectRef && objectRef.name === undefined && request.auditObjectName) objectRef = { ...objectRef, name: request.auditObjectName };
    }
    // Every field in the reference's order, absent ones `undefined` (JSON leaves them out):
    // every event has the same shape, which keeps building and encoding it cheap.
    const event: AuditEvent = {
      kind: "Event",
      apiVersion: this.apiVersion,
      level: this.level,
      auditID: this.auditID,
      stage,
      requestURI: request.url,
      verb: this.verb,
      user,
      impersonatedUser,
      sourceIPs: this.sourceIPs,
      userAgent: this.userAgent,
      objectRef,
      responseStatus,
      requestObject: this.requestObject,
      responseObject,
      requestReceivedTimestamp: this.receivedAt,
      stageTimestamp: microTime(this.clock.now()),
      annotations,
    };
    this.options.metrics?.auditEvent();
    let pending: void | Promise<void>;
    try {
      pending = this.options.sink.write([event]);
    } catch {
      // A sink must not throw; if it does, the request is served all the same.
      return;
    }
    // A sink that took the event at once (the log, a batching webhook) costs no await.
    if (!pending) return;
    return stage === "RequestReceived" ? pending.catch(failReceived) : pending.catch(ignore);
  }
}

/** A strict backend could not take the `RequestReceived` event: the request fails. */
function failReceived(error: unknown): never {
  throw toStatusError(new Error("the audit event of the request could not be written", { cause: error }));
}

/** A backend failed on an event after `RequestReceived`: the request is served all the same. */
function ignore(): void {}

/** Whether a level records `responseObject`. */
const recordsResponse = (level: AuditLevel) => level === "RequestResponse";

/** The `responseObject` of `response`, when `audit`'s level records it and it is JSON. */
function responseObjectOf(audit: RequestAudit, response: APIResponse): unknown {
  return recordsResponse(audit.level) && !response.stream ? jsonBody(response.body) : undefined;
}

/** Wraps a watch stream so that its `ResponseComplete` event is written once it ends. */
async function* completedAtEnd(stream: AsyncIterable<string>, audit: RequestAudit, status: AuditResponseStatus): AsyncIterable<string> {
  try {
    yield* stream;
  } finally {
    await audit.emit("ResponseComplete", status);
  }
}

/** Runs the rest of the pipeline for a recorded request and records how it ended. */
function served(events: RequestAudit, request: ServerRequest, next: Handler): Promise<APIResponse> {
  return attempt(next, request).then(
    (response) => completed(events, response),
    (error: unknown) => {
      if (error instanceof StatusError || isFailureStatus(error)) return completed(events, errorResponse(error));
      // Not a Status: the handler failed unexpectedly. Recorded as a Panic, and rethrown.
      const panicked = events.emit("Panic", responseStatus(500, toStatusError(error).status));
      return panicked ? panicked.then(() => Promise.reject(error as Error)) : Promise.reject(error as Error);
    },
  );
}

/** Sets the `Audit-Id` header of `response` and writes its `ResponseComplete` event (`ResponseStarted` for a stream). */
function completed(events: RequestAudit, response: APIResponse): APIResponse | Promise<APIResponse> {
  response.headers.set(auditIDHeader, events.auditID);
  const failure = response.status >= 400 ? jsonBody(response.body) : undefined;
  const status = responseStatus(response.status, isFailureStatus(failure) ? failure : undefined);
  const stream = response.stream;
  if (!stream) {
    const written = events.emit("ResponseComplete", status, responseObjectOf(events, response));
    return written ? written.then(() => response) : response;
  }
  const started = events.emit("ResponseStarted", status);
  const streaming: APIResponse = { ...response, stream: completedAtEnd(stream, events, status) };
  return started ? started.then(() => streaming) : streaming;
}

/**
 * The audit stages for `options`: put `failedAuthentication` before the authentication stage
 * and `audit` right after it. A request the policy records at level `None` costs one policy
 * evaluation; its response gets no `Audit-Id` header.
 */
export function auditStages(options: AuditStageOptions): AuditStages {
  const clock = options.clock ?? systemClock;
  const newID = options.newID ?? randomAuditID;
  const apiVersion = `audit.${options.domain}/v1`;

  /** The audit record of `request`, or `undefined` when the policy records nothing. */
  const begin = (request: ServerRequest): RequestAudit | undefined => {
    const attributes = attributesOf(request);
    const decision = policyDecision(options.policy, attributes);
    if (decision.level === "None") return undefined;
    const received = microTime(clock.now());
    // At Metadata the body is not parsed here: a create's name comes from its handler, which decodes it.
    const requestObject = decision.level === "Metadata" ? undefined : jsonBody(request.body);
    const auditID = request.headers.get("audit-id") || newID();
    const ref = objectRefOf(request, requestObject);
    return new RequestAudit(options, clock, apiVersion, request, decision.level, decision.omitStages, auditID, attributes.verb, received, ref, requestObject);
  };

  // No async frames: a request the policy records costs one reaction per stage, and a sink that
  // takes its events at once (the log, a batching webhook) is never awaited.
  const audit: Stage = (request, next) => {
    const events = begin(request);
    if (!events) return next(request);
    const received = events.emit("RequestReceived");
    return received ? received.then(() => served(events, request, next)) : served(events, request, next);
  };

  const failedAuthentication: Stage = (request, next) =>
    attempt(next, request).catch((error: unknown) => {
      if (request.user || !(error instanceof StatusError) || error.status.code !== 401) throw error;
      const events = begin(request);
      const response = errorResponse(error);
      if (!events) return response;
      response.headers.set(auditIDHeader, events.auditID);
      const completed = events.emit("ResponseComplete", responseStatus(401, error.status));
      return completed ? completed.then(() => response) : response;
    });

  return { failedAuthentication, audit };
}
