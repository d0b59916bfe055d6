/**
 * `prometheusMetrics()`: the metrics port of `@orch/server` over `prom-client`, rendered in the
 * Prometheus text exposition format.
 * @module
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { requestDurationBuckets, type MetricsRegistry, type RequestKind, type RequestLabels } from "@orch/server";

/** Options of {@link prometheusMetrics}. */
export interface PrometheusMetricsOptions {
  /** The `prom-client` registry to register in; a fresh one by default (never the global one). */
  registry?: Registry;
}

/** A {@link MetricsRegistry} over `prom-client`, with the `prom-client` registry it holds. */
export interface PrometheusMetrics extends MetricsRegistry {
  /** The registry the metrics live in (to add metrics of your own, or the process's default ones). */
  readonly registry: Registry;
}

const requestLabelNames = ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const;

/**
 * The reference's API server metrics in a `prom-client` registry: `apiserver_request_total`,
 * `apiserver_request_duration_seconds` (the reference's buckets),
 * `apiserver_current_inflight_requests{request_kind}`, `apiserver_longrunning_requests` and
 * `apiserver_storage_objects{resource}`. Give it to `APIServerOptions.metrics`; the server then
 * serves it at `GET /metrics`.
 * @example
 * ```ts
 * const server = new APIServer({ metrics: prometheusMetrics() });
 * ```
 */
export function prometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  const total = new Counter({
    name: "apiserver_request_total",
    help: "Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.",
    labelNames: [...requestLabelNames, "code"],
    registers,
  });
  const duration = new Histogram({
    name: "apiserver_request_duration_seconds",
    help: "Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.",
    labelNames: requestLabelNames,
    buckets: [...requestDurationBuckets],
    registers,
  });
  const inflight = new Gauge({
    name: "apiserver_current_inflight_requests",
    help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
    labelNames: ["request_kind"],
    registers,
  });
  const longRunning = new Gauge({
    name: "apiserver_longrunning_requests",
    help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.",
    labelNames: requestLabelNames,
    registers,
  });
  const objects = new Gauge({
    name: "apiserver_storage_objects",
    help: "Number of stored objects at the time of last check split by kind.",
    labelNames: ["resource"],
    registers,
  });
  // Both kinds show from the start, at 0, as in the reference.
  inflight.set({ request_kind: "readOnly" }, 0);
  inflight.set({ request_kind: "mutating" }, 0);
  const labelsOf = (labels: RequestLabels) => ({ ...labels });
  return {
    registry,
    requestStarted: (kind: RequestKind) => inflight.inc({ request_kind: kind }),
    requestEnded: (kind: RequestKind) => inflight.dec({ request_kind: kind }),
    requestFinished: (labels, code, seconds) => {
      total.inc({ ...labelsOf(labels), code: String(code) });
      duration.observe(labelsOf(labels), seconds);
    },
    longRunning: (labels, delta) => longRunning.inc(labelsOf(labels), delta),
    storageObjects: (resource, count) => objects.set({ resource }, count),
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
