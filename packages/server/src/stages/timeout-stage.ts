/**
 * The time limit of requests that are not long-running (the reference's `WithRequestDeadline`
 * and `WithTimeoutForNonLongRunningRequests`): a handler that has not answered in time is
 * answered 504 `Timeout` instead, and its late result is dropped. Watches and the streaming
 * sub-resources are long-running and are bounded by their own timeouts instead.
 * @module
 */
import { badRequest, parseGoDuration, statusError } from "@orch/meta";
import type { Clock } from "@orch/store";
import { systemClock } from "@orch/store";
import type { APIResponse } from "../api-request.js";
import type { RequestInfo } from "./request-info-stage.js";
import { Deadline, RequestDeadlines } from "./request-deadlines.js";
import type { Stage } from "./stage.js";

/** Default time limit of a request that is not long-running: one minute (`--request-timeout`). */
export const defaultRequestTimeoutMs = 60_000;

/** Options of {@link withTimeout}. */
export interface TimeoutStageOptions {
  /** The longest a request that is not long-running may take, in milliseconds; 0 or less turns the limit off. */
  requestTimeoutMs: number;
  /** Timers; `systemClock` by default (tests pass a `FakeClock`). */
  clock?: Clock;
}

/** Sub-resources whose responses stream for as long as the client wants, as in the reference. */
const longRunningSubresources = new Set(["attach", "exec", "proxy", "log", "portforward"]);

/** True for the requests the time limit does not apply to: watches and streaming sub-resources. */
export function isLongRunning(info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  return info.verb === "watch" || longRunningSubresources.has(info.subresource);
}

/**
 * The time limit of one request: `requestTimeoutMs`, lowered by a `?timeout=` the client gave
 * (a positive duration below the server's limit; zero, negative or larger durations leave the
 * server's limit).
 * @throws StatusError 400 `invalid timeout specified in the request URL - <why>` for a
 *   `timeout` that is not a duration.
 */
export function requestTimeoutOf(query: URLSearchParams, requestTimeoutMs: number): number {
  const value = query.get("timeout");
  if (!value) return requestTimeoutMs;
  let asked: number;
  try {
    asked = parseGoDuration(value);
  } catch (error) {
    throw badRequest(`invalid timeout specified in the request URL - ${(error as Error).message}`);
  }
  return asked > 0 && asked < requestTimeoutMs ? asked : requestTimeoutMs;
}

/** The 504 a request gets when its handler has not answered in time. */
function timedOut(): Error {
  return statusError("Timeout", "Timeout: request did not complete within the allotted timeout", { details: {} });
}

/** A request's deadline, which answers the request 504 when it expires. */
class TimedRequest extends Deadline {
  constructor(
    at: number,
    private readonly reject: (error: Error) => void,
  ) {
    super(at);
  }

  override expire(): void {
    this.reject(timedOut());
  }
}

/**
 * Bounds every request that is not long-running ({@link isLongRunning}) by its time limit
 * ({@link requestTimeoutOf}): when the rest of the pipeline has not answered by then, the
 * request is answered 504 `Timeout` and whatever the handler answers later is dropped (the
 * request itself is not touched: its `signal` stays the client's). Runs after the request info
 * stage. One timer per stage watches every request in flight ({@link RequestDeadlines}), so a
 * request times out up to `deadlineTickMs` (100 ms) after its limit.
 */
export function withTimeout(options: TimeoutStageOptions): Stage {
  const clock = options.clock ?? systemClock;
  const deadlines = new RequestDeadlines(clock);
  const requestTimeoutMs = options.requestTimeoutMs;
  return (request, next) => {
    const info = request.info;
    if (!info) return Promise.reject(new TypeError("the request info stage must run before the timeout stage"));
    if (isLongRunning(info)) return next(request);
    let limit: number;
    try {
      limit = requestTimeoutOf(info.parsed.query, requestTimeoutMs);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    if (limit <= 0) return next(request);
    // A plain function, not an async one, and no race of two promises: this stage runs on every
    // request, and each promise it does not make is CPU it does not spend.
    return new Promise<APIResponse>((resolve, reject) => {
      const deadline = new TimedRequest(clock.now() + limit, reject);
      deadlines.add(deadline);
      let handled: Promise<APIResponse>;
      try {
        handled = next(request);
      } catch (error) {
        deadlines.remove(deadline);
        throw error;
      }
      // Once the request timed out, a late answer (or failure) of the handler settles nothing.
      handled.then(
        (response) => {
          deadlines.remove(deadline);
          resolve(response);
        },
        (error: unknown) => {
          deadlines.remove(deadline);
          reject(error);
        },
      );
    });
  };
}
