/**
 * Turns what the `etcd3` client throws into StatusErrors: an etcd that cannot be reached, has
 * no leader or is closed is 503 ServiceUnavailable; a call past its deadline is 504 Timeout.
 * Nothing raw leaves the store.
 * @module
 */
import { internalError, statusError, StatusError, timeout } from "@orch/meta";

/** An etcd message that says the asked revision is compacted. */
export function isCompactedError(error: unknown): boolean {
  return error instanceof Error && error.message.includes("required revision has been compacted");
}

/** An etcd message that says the asked revision is in the future. */
export function isFutureRevisionError(error: unknown): boolean {
  return error instanceof Error && error.message.includes("required revision is a future revision");
}

const unavailableNames = new Set([
  "GRPCUnavailableError",
  "GRPCCancelledError",
  "GRPCUnknownError",
  "GRPCInternalError",
  "GRPCAbortedError",
  "GRPCResourceExhastedError",
  "GRPCProtocolError",
  "GRPCGenericError",
  "BrokenCircuitError",
  "IsolatedCircuitError",
  "ClientClosedError",
  "ClientRuntimeError",
  "EtcdError",
]);

/** gRPC status codes (numeric) that mean "not now" rather than "bad request". */
const unavailableCodes = new Set([1 /* CANCELLED */, 2 /* UNKNOWN */, 8 /* RESOURCE_EXHAUSTED */, 10 /* ABORTED */, 13 /* INTERNAL */, 14 /* UNAVAILABLE */]);

/**
 * The StatusError for `error`, thrown while doing `what` (e.g. `get /registry/...`). A
 * StatusError passes through unchanged.
 */
export function toStoreError(error: unknown, what: string): StatusError {
  if (error instanceof StatusError) return error;
  const err = error instanceof Error ? error : new Error(String(error));
  const name = err.constructor.name === "Error" ? err.name : err.constructor.name;
  const code = (err as { code?: unknown }).code;
  const message = err.message.split("\n")[0] ?? "";
  if (name === "GRPCDeadlineExceededError" || code === 4 || message.includes("request timed out") || message.includes("Deadline exceeded")) {
    return timeout(`etcd did not answer in time (${what}): ${message}`, 1);
  }
  if (
    unavailableNames.has(name) ||
    (typeof code === "number" && unavailableCodes.has(code)) ||
    message.includes("etcdserver:") ||
    message.includes("No connection established") ||
    message.includes("ECONNREFUSED")
  ) {
    return statusError("ServiceUnavailable", `etcd is unavailable (${what}): ${message}`, { details: { retryAfterSeconds: 1 }, cause: err });
  }
  return internalError(`etcd ${what}: ${message}`, err);
}
