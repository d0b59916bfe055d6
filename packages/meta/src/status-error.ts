/**
 * `StatusError`: the one error class of orch. It carries the `Status` a client receives; the
 * factories below build it with the messages and details of the reference system, the guards
 * read it, and {@link toStatusError} turns anything thrown into one at the edge.
 * @module
 */
import { fieldErrorCause, formatFieldError, type FieldError } from "./field-error.js";
import { httpCodeOf, isStatusReason, type StatusReason } from "./status-reason.js";
import type { ListMeta, Status, StatusCause, StatusDetails } from "./types.js";

/** A resource type qualified by its group: prints `configmaps` or `leases.coordination.orch.io`. */
export interface QualifiedResource {
  group: string;
  resource: string;
}

/** A kind qualified by its group: prints `ConfigMap` or `Lease.coordination.orch.io`. */
export interface QualifiedKind {
  group: string;
  kind: string;
}

function qualified(name: string, group: string): string {
  return group ? `${name}.${group}` : name;
}

/** An error whose `status` is the Status body a client receives. */
export class StatusError extends Error {
  override readonly name = "StatusError";

  /** @param status a Failure Status; `code` must agree with `reason` (the factories see to it). */
  constructor(
    readonly status: Status,
    options?: { cause?: unknown },
  ) {
    super(status.message ?? status.reason ?? "unknown error", options);
  }

  /** The reason, one of the closed union. */
  get reason(): StatusReason {
    return this.status.reason as StatusReason;
  }

  /** The HTTP status code. */
  get code(): number {
    return this.status.code;
  }

  /** The Status body, as sent on the wire. */
  toJSON(): Status {
    return this.status;
  }
}

/** Options every factory accepts. */
export interface StatusErrorOptions {
  details?: StatusDetails;
  metadata?: ListMeta;
  cause?: unknown;
}

/** Builds a StatusError for `reason` with `message`; the HTTP code comes from the reason table. */
export function statusError(reason: StatusReason, message: string, options: StatusErrorOptions = {}): StatusError {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: options.metadata ?? {},
    status: "Failure",
    message,
    reason,
    ...(options.details ? { details: options.details } : {}),
    code: httpCodeOf(reason),
  };
  return new StatusError(status, options.cause === undefined ? undefined : { cause: options.cause });
}

function resourceDetails(qr: QualifiedResource, name: string, extra: StatusDetails = {}): StatusDetails {
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (qr.group) details.group = qr.group;
  if (qr.resource) details.kind = qr.resource;
  return { ...details, ...extra };
}

/** 400: the request itself is malformed. */
export function badRequest(message: string, causes?: StatusCause[]): StatusError {
  return statusError("BadRequest", message, causes?.length ? { details: { causes } } : {});
}

/** 401: no or bad credentials. */
export function unauthorized(message = "Unauthorized"): StatusError {
  return statusError("Unauthorized", message);
}

/** 403: `configmaps "x" is forbidden: <why>`. */
export function forbidden(qr: QualifiedResource, name: string, why: string): StatusError {
  const what = qualified(qr.resource, qr.group);
  const message = !qr.resource ? `forbidden: ${why}` : name ? `${what} "${name}" is forbidden: ${why}` : `${what} is forbidden: ${why}`;
  return statusError("Forbidden", message, { details: resourceDetails(qr, name) });
}

/** 404: `configmaps "x" not found`. */
export function notFound(qr: QualifiedResource, name: string): StatusError {
  return statusError("NotFound", `${qualified(qr.resource, qr.group)} "${name}" not found`, {
    details: resourceDetails(qr, name),
  });
}

/** 405: `<action> is not supported on resources of kind "<resource>"`. */
export function methodNotAllowed(qr: QualifiedResource, action: string): StatusError {
  return statusError("MethodNotAllowed", `${action} is not supported on resources of kind "${qualified(qr.resource, qr.group)}"`, {
    details: resourceDetails(qr, ""),
  });
}

/** 406: none of the media types in `Accept` can be served. */
export function notAcceptable(accepted: readonly string[]): StatusError {
  return statusError("NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`);
}

/** 409: `configmaps "x" already exists`. */
export function alreadyExists(qr: QualifiedResource, name: string): StatusError {
  return statusError("AlreadyExists", `${qualified(qr.resource, qr.group)} "${name}" already exists`, {
    details: resourceDetails(qr, name),
  });
}

/** The message of an optimistic-concurrency conflict, as the reference words it. */
export const objectModifiedMessage = "the object has been modified; please apply your changes to the latest version and try again";

/** 409: `Operation cannot be fulfilled on configmaps "x": <why>`. */
export function conflict(qr: QualifiedResource, name: string, why: string = objectModifiedMessage, causes?: StatusCause[]): StatusError {
  return statusError("Conflict", `Operation cannot be fulfilled on ${qualified(qr.resource, qr.group)} "${name}": ${why}`, {
    details: resourceDetails(qr, name, causes?.length ? { causes } : {}),
  });
}

/** 410 Gone: the requested data is no longer available. */
export function gone(message: string): StatusError {
  return statusError("Gone", message);
}

/** 410 Expired: a resourceVersion or continue token older than the retained history. */
export function expired(message: string, metadata?: ListMeta): StatusError {
  return statusError("Expired", message, metadata ? { metadata } : {});
}

/** The message of a compacted start: `too old resource version: 5 (10)`. */
export function tooOldResourceVersion(asked: number, oldest: number): StatusError {
  return expired(`too old resource version: ${asked} (${oldest})`);
}

/** 413: the body exceeds the limit. */
export function requestEntityTooLarge(message: string): StatusError {
  return statusError("RequestEntityTooLarge", `Request entity too large: ${message}`);
}

/** 415: the body's media type cannot be decoded here. */
export function unsupportedMediaType(contentType: string, accepted: readonly string[]): StatusError {
  return statusError("UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`, {
    details: { causes: [{ reason: "UnsupportedMediaType", message: contentType }] },
  });
}

/**
 * 422: `ConfigMap "x" is invalid: data[a b]: Invalid value: ...`, one cause per field error
 * (several errors print as `[e1, e2]`, as the reference system's aggregate does).
 */
export function invalid(qk: QualifiedKind, name: string, errors: readonly FieldError[]): StatusError {
  const printed = errors.map(formatFieldError);
  const summary = printed.length === 1 ? printed[0] : `[${printed.join(", ")}]`;
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (qk.group) details.group = qk.group;
  details.kind = qk.kind;
  details.causes = errors.map(fieldErrorCause);
  return statusError("Invalid", `${qualified(qk.kind, qk.group)} "${name}" is invalid: ${summary}`, { details });
}

/** 429: too many requests; retry after `retryAfterSeconds`. */
export function tooManyRequests(message: string, retryAfterSeconds?: number): StatusError {
  return statusError("TooManyRequests", message, retryAfterSeconds === undefined ? {} : { details: { retryAfterSeconds } });
}

/** 500: `Internal error occurred: <why>`. Never for bad input. */
export function internalError(why: string, cause?: unknown): StatusError {
  return statusError("InternalError", `Internal error occurred: ${why}`, {
    details: { causes: [{ message: why }] },
    cause,
  });
}

/** 503: the server (or its store) cannot serve now. */
export function serviceUnavailable(message: string): StatusError {
  return statusError("ServiceUnavailable", message);
}

/** 504: `Timeout: <why>`. */
export function timeout(message: string, retryAfterSeconds?: number, causes?: StatusCause[]): StatusError {
  const details: StatusDetails = {};
  if (causes?.length) details.causes = causes;
  if (retryAfterSeconds !== undefined) details.retryAfterSeconds = retryAfterSeconds;
  return statusError("Timeout", `Timeout: ${message}`, Object.keys(details).length ? { details } : {});
}

/** 504 with `Too large resource version`: a read named a version the store has not reached. */
export function resourceVersionTooLarge(asked: number, current: number, retryAfterSeconds = 1): StatusError {
  return timeout(`Too large resource version: ${asked}, current: ${current}`, retryAfterSeconds, [
    { reason: "ResourceVersionTooLarge", message: "Too large resource version" },
  ]);
}

/** The reason of `error` when it is a StatusError, else undefined. */
export function reasonOf(error: unknown): StatusReason | undefined {
  return error instanceof StatusError ? error.reason : undefined;
}

const guard =
  (reason: StatusReason) =>
  (error: unknown): error is StatusError =>
    reasonOf(error) === reason;

/** True for a 400 BadRequest. */
export const isBadRequest = guard("BadRequest");
/** True for a 401 Unauthorized. */
export const isUnauthorized = guard("Unauthorized");
/** True for a 403 Forbidden. */
export const isForbidden = guard("Forbidden");
/** True for a 404 NotFound. */
export const isNotFound = guard("NotFound");
/** True for a 405 MethodNotAllowed. */
export const isMethodNotAllowed = guard("MethodNotAllowed");
/** True for a 406 NotAcceptable. */
export const isNotAcceptable = guard("NotAcceptable");
/** True for a 409 AlreadyExists. */
export const isAlreadyExists = guard("AlreadyExists");
/** True for a 409 Conflict. */
export const isConflict = guard("Conflict");
/** True for a 410 Gone. */
export const isGone = guard("Gone");
/** True for a 410 Expired. */
export const isExpired = guard("Expired");
/** True for a 413 RequestEntityTooLarge. */
export const isRequestEntityTooLarge = guard("RequestEntityTooLarge");
/** True for a 415 UnsupportedMediaType. */
export const isUnsupportedMediaType = guard("UnsupportedMediaType");
/** True for a 422 Invalid. */
export const isInvalid = guard("Invalid");
/** True for a 429 TooManyRequests. */
export const isTooManyRequests = guard("TooManyRequests");
/** True for a 500 InternalError. */
export const isInternalError = guard("InternalError");
/** True for a 503 ServiceUnavailable. */
export const isServiceUnavailable = guard("ServiceUnavailable");
/** True for a 504 Timeout. */
export const isTimeout = guard("Timeout");

/** True when `value` has the shape of a Failure Status with a known reason. */
export function isFailureStatus(value: unknown): value is Status {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<Status>;
  return v.kind === "Status" && v.status === "Failure" && isStatusReason(v.reason) && typeof v.code === "number";
}

/**
 * Turns anything thrown into a StatusError: a StatusError passes through, a Status body is
 * wrapped, and everything else becomes a 500 InternalError whose message names the error but
 * carries no stack trace.
 */
export function toStatusError(error: unknown): StatusError {
  if (error instanceof StatusError) return error;
  if (isFailureStatus(error)) return new StatusError(error);
  const why = error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error";
  return internalError(why, error);
}
