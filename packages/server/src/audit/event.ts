/**
 * The audit record of orch: the `audit.<domain>/v1` Event (the reference's `audit.k8s.io/v1`
 * shape) and the port that receives events.
 * @module
 */
import type { UserInfo } from "@orch/authn";

/** How much of a request is recorded, from nothing to both bodies. */
export type AuditLevel = "None" | "Metadata" | "Request" | "RequestResponse";

/** The levels, least first: a level records everything a lower one does. */
export const auditLevels: readonly AuditLevel[] = ["None", "Metadata", "Request", "RequestResponse"];

/**
 * When an event is emitted: when the request arrives, when a long-running response (a watch)
 * starts streaming, when the response is complete, or when the handler failed unexpectedly.
 */
export type AuditStage = "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic";

/** The stages, in the order a request goes through them. */
export const auditStageNames: readonly AuditStage[] = ["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"];

/** What a resource request was about (`objectRef`). */
export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

/** The outcome of a request (`responseStatus`): a Status's code, and its reason and message for a failure. */
export interface AuditResponseStatus {
  metadata: Record<string, never>;
  code: number;
  status?: string;
  reason?: string;
  message?: string;
}

/**
 * A user as audit events name it: the reference's `authentication.k8s.io/v1` UserInfo
 * (`username`, not the `name` of {@link UserInfo}).
 */
export interface AuditUserInfo {
  username: string;
  uid?: string | undefined;
  groups: string[];
  extra?: Record<string, string[]> | undefined;
}

/** `user` in the shape of an audit event (absent fields stay absent). */
export function auditUser(user: UserInfo): AuditUserInfo {
  return { username: user.name, uid: user.uid, groups: user.groups, extra: user.extra };
}

/**
 * One audit event (`kind: Event`, `apiVersion: audit.<domain>/v1`). An optional field that is
 * `undefined` is absent: JSON leaves it out (the audit stage sets every field, in this order, so
 * that all its events share one shape).
 */
export interface AuditEvent {
  kind: "Event";
  apiVersion: string;
  level: AuditLevel;
  /** One id per request, shared by all its events (the `Audit-ID` response header). */
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  /** The request's verb as the authorizer sees it (`get`, `list`, `watch`, `create`, ...). */
  verb: string;
  /**
   * Who sent the request: with impersonation, the impersonating caller; empty (`{}`) for a
   * request whose authentication failed.
   */
  user: AuditUserInfo | Record<string, never>;
  /** Who the request was served as, when the caller impersonated someone. */
  impersonatedUser?: AuditUserInfo | undefined;
  sourceIPs?: string[] | undefined;
  userAgent?: string | undefined;
  objectRef?: AuditObjectReference | undefined;
  responseStatus?: AuditResponseStatus | undefined;
  /** The request body (level Request and above), parsed when it is JSON. */
  requestObject?: unknown;
  /** The response body (level RequestResponse), parsed when it is JSON. */
  responseObject?: unknown;
  /** RFC 3339 with microseconds, as the reference. */
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string> | undefined;
}

/**
 * Where audit events go (a log file, a webhook, a test's array). `write` is called on the
 * request's path and must not block it: a backend buffers and writes asynchronously, dropping
 * events when it cannot keep up rather than slowing requests down.
 */
export interface AuditSink {
  /**
   * Takes events in the order they happened; must not throw. A backend in a blocking mode
   * returns a promise the request waits for; it rejects only when the request must fail
   * (`blocking-strict`, for a `RequestReceived` event that could not be delivered).
   */
  write(events: readonly AuditEvent[]): void | Promise<void>;
}
