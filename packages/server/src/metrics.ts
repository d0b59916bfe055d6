/**
 * The metrics port of orch: what the server records about the requests it serves (the
 * reference's `apiserver_request_total`, `apiserver_request_duration_seconds`,
 * `apiserver_current_inflight_requests`, `apiserver_longrunning_requests` and
 * `apiserver_storage_objects`), with no metrics library of its own. `@orch/node`'s
 * `prometheusMetrics()` implements it over `prom-client`; {@link noopMetrics} is the default.
 * @module
 */

/** Which in-flight gauge a request counts in: reads (`get`, `list`) or writes. */
export type RequestKind = "readOnly" | "mutating";

/**
 * The labels of one request, as the reference's metrics name them: `verb` is `GET`, `LIST`,
 * `WATCH`, `POST`, `PUT`, `PATCH`, `APPLY` or `DELETE` for a resource request (the upper-cased
 * HTTP method for another path); `scope` is `resource` (one object, or a create), `namespace`,
 * `cluster`, or `""` for a non-resource path; `component` is `apiserver`.
 */
export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: "resource" | "namespace" | "cluster" | "";
  component: string;
}

/** Receives what the server measures. Every method must be cheap and must not throw. */
export interface MetricsRecorder {
  /** A request that is not long-running started: `apiserver_current_inflight_requests{request_kind}` goes up. */
  requestStarted(kind: RequestKind): void;
  /** That request ended (whatever its outcome): the in-flight gauge of `kind` goes down. */
  requestEnded(kind: RequestKind): void;
  /**
   * A request got its final status `code` after `seconds` (a watch when its stream ended):
   * `apiserver_request_total` and `apiserver_request_duration_seconds`.
   */
  requestFinished(labels: RequestLabels, code: number, seconds: number): void;
  /** A watch opened (`delta` 1) or closed (`delta` -1): `apiserver_longrunning_requests`. */
  longRunning(labels: RequestLabels, delta: 1 | -1): void;
  /** The number of stored objects of `resource` (`<resource>.<group>`, or `<resource>` for the core group): `apiserver_storage_objects`. */
  storageObjects(resource: string, count: number): void;
}

/** The metrics text of a scrape, in the Prometheus text exposition format. */
export interface RenderedMetrics {
  /** `text/plain; version=0.0.4; charset=utf-8`, typically. */
  contentType: string;
  body: string;
}

/** A recorder that can also render what it holds: given one, the server serves `GET /metrics`. */
export interface MetricsRegistry extends MetricsRecorder {
  /** Everything recorded so far, in the exposition format. */
  render(): Promise<RenderedMetrics>;
}

/** The buckets of `apiserver_request_duration_seconds`, in seconds, as the reference's. */
export const requestDurationBuckets: readonly number[] = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/** A recorder that records nothing: the default of `APIServerOptions.metrics`. */
export const noopMetrics: MetricsRecorder = {
  requestStarted: () => undefined,
  requestEnded: () => undefined,
  requestFinished: () => undefined,
  longRunning: () => undefined,
  storageObjects: () => undefined,
};

/** True when `recorder` can render, so the server serves `/metrics` from it. */
export function canRender(recorder: MetricsRecorder): recorder is MetricsRegistry {
  return typeof (recorder as Partial<MetricsRegistry>).render === "function";
}
