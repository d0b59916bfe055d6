/**
 * The metrics stage (the reference's `WithMaxInFlightLimit` gauges and `InstrumentHandlerFunc`):
 * counts every request with its final status code, times it, keeps the in-flight gauges and the
 * number of open watches. It runs right after request info, so it sees the 401, 403 and 429
 * answers of the stages after it.
 * @module
 */
import type { APIResponse } from "../api-request.js";
import type { MetricsRecorder, RequestKind, RequestLabels } from "../metrics.js";
import { errorResponse } from "../responses.js";
import type { RequestInfo } from "./request-info-stage.js";
import { attempt, type ServerRequest, type Stage } from "./stage.js";

/** The verb of a resource request as the reference's metrics report it. */
const metricVerbs: Record<string, string> = {
  get: "GET",
  list: "LIST",
  watch: "WATCH",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETE",
};

/** The reference's `CleanScope`: `resource` for one object or a create, else `namespace`, `cluster`, or `""` for a path. */
function scopeOf(info: RequestInfo): RequestLabels["scope"] {
  if (!info.isResourceRequest) return "";
  if (info.name !== "" || info.verb === "create") return "resource";
  return info.namespace !== "" ? "namespace" : "cluster";
}

/** The labels the metrics of `request` carry (`info` set by the request info stage). */
export function requestLabels(request: ServerRequest, info: RequestInfo): RequestLabels {
  const scope = scopeOf(info);
  if (!info.isResourceRequest) {
    return { verb: request.method.toUpperCase(), group: "", version: "", resource: "", subresource: "", scope, component: "apiserver" };
  }
  let verb = metricVerbs[info.verb] ?? info.verb.toUpperCase();
  if (verb === "PATCH" && (request.headers.get("content-type") ?? "").startsWith("application/apply-patch+yaml")) verb = "APPLY";
  return { verb, group: info.group, version: info.version, resource: info.resource, subresource: info.subresource, scope, component: "apiserver" };
}

/** `readOnly` for `get`, `list` and `watch` (and a GET or HEAD of a path), else `mutating`, as the reference. */
function kindOf(info: RequestInfo): RequestKind {
  return info.verb === "get" || info.verb === "list" || info.verb === "watch" ? "readOnly" : "mutating";
}

/**
 * Wraps a watch stream so that `done` runs once when it ends: exhausted, failed, or returned
 * early (the adapter ends it when the client goes away).
 */
function onStreamEnd(stream: AsyncIterable<string>, done: () => void): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator]() {
      const inner = stream[Symbol.asyncIterator]();
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        done();
      };
      return {
        async next() {
          try {
            const result = await inner.next();
            if (result.done) end();
            return result;
          } catch (error) {
            end();
            throw error;
          }
        },
        async return(value?: unknown) {
          end();
          return inner.return ? await inner.return(value) : { done: true, value: undefined };
        },
        async throw(error?: unknown) {
          end();
          if (inner.throw) return await inner.throw(error);
          throw error;
        },
      };
    },
  };
}

/** Options of {@link withMetrics}. */
export interface MetricsStageOptions {
  /** A monotonic clock in milliseconds; `performance.now()` by default. */
  now?: () => number;
}

/**
 * Records every request into `recorder`: `requestFinished` with its labels, final code (a
 * thrown StatusError becomes its Status response here, so its code counts) and duration. A
 * request that is not a watch counts in the in-flight gauge of its kind while it runs; a watch
 * counts as long-running while its stream is open, and is finished when the stream ends.
 */
export function withMetrics(recorder: MetricsRecorder, options: MetricsStageOptions = {}): Stage {
  const now = options.now ?? performanceNow;
  return (request, next) => {
    const info = request.info;
    if (!info) return Promise.reject(new TypeError("the request info stage must run before metrics"));
    const labels = requestLabels(request, info);
    const started = now();
    const watch = info.isResourceRequest && info.verb === "watch";
    const kind = kindOf(info);
    if (watch) recorder.longRunning(labels, 1);
    else recorder.requestStarted(kind);
    // One reaction per request, no async frame: what this stage adds to a GET is a few additions.
    return attempt(next, request).then(
      (response) => measured(recorder, now, labels, started, watch, kind, response),
      (error: unknown) => measured(recorder, now, labels, started, watch, kind, errorResponse(error)),
    );
  };
}

/** `performance.now()`, the default clock of {@link withMetrics}. */
function performanceNow(): number {
  return performance.now();
}

/** Records the end of a request (of a watch: when its stream ends) and gives its response. */
function measured(
  recorder: MetricsRecorder,
  now: () => number,
  labels: RequestLabels,
  started: number,
  watch: boolean,
  kind: RequestKind,
  response: APIResponse,
): APIResponse {
  if (!watch) recorder.requestEnded(kind);
  else if (response.stream) {
    const status = response.status;
    return {
      ...response,
      stream: onStreamEnd(response.stream, () => {
        recorder.longRunning(labels, -1);
        recorder.requestFinished(labels, status, Math.max(0, now() - started) / 1000);
      }),
    };
  } else recorder.longRunning(labels, -1);
  recorder.requestFinished(labels, response.status, Math.max(0, now() - started) / 1000);
  return response;
}
