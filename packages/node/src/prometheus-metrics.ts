/**
 * `prometheusMetrics()`: the metrics port of `@orch/server` over `prom-client`, rendered in the
 * Prometheus text exposition format.
 * @module
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { BoundCounter, BoundGauge, BoundHistogram, type BoundCounterChild, type BoundHistogramChild } from "./internal/bound-metrics.js";
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

/** The reference's buckets of the authentication and authorization latencies. */
const latencyBuckets = [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384];
/** The reference's buckets of the admission step and plugin latencies. */
const admissionBuckets = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
/** The reference's buckets of the admission webhook latencies. */
const webhookBuckets = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];
/** The reference's buckets of `etcd_request_duration_seconds`. */
const storageBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** The reference's buckets of the flow-control queue wait. */
const waitBuckets = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

const requestLabelNames = ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const;

/**
 * The reference's API server metrics in a `prom-client` registry: `apiserver_request_total`,
 * `apiserver_request_duration_seconds` (the reference's buckets),
 * `apiserver_current_inflight_requests{request_kind}`, `apiserver_longrunning_requests`,
 * `apiserver_storage_objects{resource}`, `apiserver_requested_deprecated_apis`,
 * `authentication_attempts` and `authentication_duration_seconds`,
 * `apiserver_authorization_decisions_total` and `apiserver_authorization_duration_seconds`, the
 * three `apiserver_admission_*_admission_duration_seconds`, `etcd_request_duration_seconds`,
 * `apiserver_audit_event_total` and `apiserver_audit_error_total`, and the
 * `apiserver_flowcontrol_*` metrics. Give it to `APIServerOptions.metrics`; the server then
 * serves it at `GET /metrics`.
 * @example
 * ```ts
 * const server = new APIServer({ metrics: prometheusMetrics() });
 * ```
 */
export function prometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  const total = new BoundCounter({
    name: "apiserver_request_total",
    help: "Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.",
    labelNames: [...requestLabelNames, "code"],
    registers,
  });
  const duration = new BoundHistogram({
    name: "apiserver_request_duration_seconds",
    help: "Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.",
    labelNames: requestLabelNames,
    buckets: [...requestDurationBuckets],
    registers,
  });
  const inflight = new BoundGauge({
    name: "apiserver_current_inflight_requests",
    help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
    labelNames: ["request_kind"],
    registers,
  });
  const longRunning = new BoundGauge({
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
  const deprecated = new Gauge({
    name: "apiserver_requested_deprecated_apis",
    help: "Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.",
    labelNames: ["group", "version", "resource", "subresource", "removed_release"],
    registers,
  });
  const authnAttempts = new BoundCounter({ name: "authentication_attempts", help: "Counter of authenticated attempts.", labelNames: ["result"], registers });
  const authnDuration = new BoundHistogram({
    name: "authentication_duration_seconds",
    help: "Authentication duration in seconds broken out by result.",
    labelNames: ["result"],
    buckets: latencyBuckets,
    registers,
  });
  const authzDecisions = new BoundCounter({
    name: "apiserver_authorization_decisions_total",
    help: "Total number of terminal decisions made by an authorizer split by decision.",
    labelNames: ["decision"],
    registers,
  });
  const authzDuration = new BoundHistogram({
    name: "apiserver_authorization_duration_seconds",
    help: "Authorization duration in seconds broken out by decision.",
    labelNames: ["decision"],
    buckets: latencyBuckets,
    registers,
  });
  const admissionLabels = ["type", "operation", "rejected"] as const;
  const admissionHistograms = {
    step: new Histogram({
      name: "apiserver_admission_step_admission_duration_seconds",
      help: "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
      labelNames: admissionLabels,
      buckets: admissionBuckets,
      registers,
    }),
    controller: new Histogram({
      name: "apiserver_admission_controller_admission_duration_seconds",
      help: "Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
      labelNames: ["name", ...admissionLabels],
      buckets: admissionBuckets,
      registers,
    }),
    webhook: new Histogram({
      name: "apiserver_admission_webhook_admission_duration_seconds",
      help: "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
      labelNames: ["name", ...admissionLabels],
      buckets: webhookBuckets,
      registers,
    }),
  };
  const storageDuration = new BoundHistogram({
    name: "etcd_request_duration_seconds",
    help: "Etcd request latency in seconds for each operation and object type.",
    labelNames: ["operation", "type"],
    buckets: storageBuckets,
    registers,
  });
  // Counted in a plain number on the request path, added to the counter when it is read.
  let auditEventsUncollected = 0;
  new Counter({
    name: "apiserver_audit_event_total",
    help: "Counter of audit events generated and sent to the audit backend.",
    registers,
    collect() {
      if (auditEventsUncollected === 0) return;
      this.inc(auditEventsUncollected);
      auditEventsUncollected = 0;
    },
  });
  const auditErrors = new Counter({
    name: "apiserver_audit_error_total",
    help: "Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.",
    labelNames: ["plugin"],
    registers,
  });
  const flowLabels = ["priority_level", "flow_schema"] as const;
  const dispatched = new BoundCounter({
    name: "apiserver_flowcontrol_dispatched_requests_total",
    help: "Number of requests executed by API Priority and Fairness subsystem",
    labelNames: flowLabels,
    registers,
  });
  const rejected = new Counter({
    name: "apiserver_flowcontrol_rejected_requests_total",
    help: "Number of requests rejected by API Priority and Fairness subsystem",
    labelNames: [...flowLabels, "reason"],
    registers,
  });
  const inQueue = new BoundGauge({
    name: "apiserver_flowcontrol_current_inqueue_requests",
    help: "Number of requests currently pending in queues of the API Priority and Fairness subsystem",
    labelNames: flowLabels,
    registers,
  });
  const executing = new BoundGauge({
    name: "apiserver_flowcontrol_current_executing_requests",
    help: "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem",
    labelNames: flowLabels,
    registers,
  });
  const waited = new BoundHistogram({
    name: "apiserver_flowcontrol_request_wait_duration_seconds",
    help: "Length of time a request spent waiting in its queue",
    labelNames: [...flowLabels, "execute"],
    buckets: waitBuckets,
    registers,
  });
  const seats = new Gauge({
    name: "apiserver_flowcontrol_nominal_limit_seats",
    help: "Nominal number of execution seats configured for each priority level",
    labelNames: ["priority_level"],
    registers,
  });
  // Both kinds show from the start, at 0, as in the reference.
  const inflightOf = { readOnly: inflight.bind("readOnly"), mutating: inflight.bind("mutating") };
  const values = (l: RequestLabels): string[] => [l.verb, l.group, l.version, l.resource, l.subresource, l.scope, l.component];
  /**
   * The `apiserver_request_total` child of each duration series and code: a request's labels are
   * looked up once (for its duration), its count found from that series by the code alone.
   */
  const totalsOf = new Map<BoundHistogramChild, Map<number, BoundCounterChild>>();
  return {
    registry,
    requestStarted: (kind: RequestKind) => inflightOf[kind].inc(),
    requestEnded: (kind: RequestKind) => inflightOf[kind].dec(),
    requestFinished: (labels, code, seconds) => {
      const v = values(labels);
      const series = duration.bindValues(v);
      series.observe(seconds);
      let byCode = totalsOf.get(series);
      if (byCode === undefined) totalsOf.set(series, (byCode = new Map()));
      let count = byCode.get(code);
      if (count === undefined) {
        v.push(String(code));
        byCode.set(code, (count = total.bindValues(v)));
      }
      count.inc();
    },
    longRunning: (labels, delta) => longRunning.bindValues(values(labels)).inc(delta),
    storageObjects: (resource, count) => objects.set({ resource }, count),
    deprecatedRequest: (labels) => deprecated.set({ ...labels }, 1),
    authenticated: (result, seconds) => {
      authnAttempts.bind(result).inc();
      authnDuration.bind(result).observe(seconds);
    },
    authorized: (decision, seconds) => {
      authzDecisions.bind(decision).inc();
      authzDuration.bind(decision).observe(seconds);
    },
    admission: (kind, m) => {
      const labels = { type: m.type, operation: m.operation, rejected: String(m.rejected) };
      admissionHistograms[kind].observe(kind === "step" ? labels : { ...labels, name: m.name }, m.seconds);
    },
    storageRequest: (operation, type, secs) => storageDuration.bind(operation, type).observe(secs),
    auditEvent: () => void auditEventsUncollected++,
    auditError: (plugin, events) => auditErrors.inc({ plugin }, events),
    flowControlDispatched: (labels) => dispatched.bind(labels.priority_level, labels.flow_schema).inc(),
    flowControlRejected: (labels, reason) => rejected.inc({ ...labels, reason }),
    flowControlInQueue: (labels, delta) => inQueue.bind(labels.priority_level, labels.flow_schema).inc(delta),
    flowControlExecuting: (labels, delta) => executing.bind(labels.priority_level, labels.flow_schema).inc(delta),
    flowControlWaited: (labels, execute, secs) => waited.bind(labels.priority_level, labels.flow_schema, String(execute)).observe(secs),
    flowControlSeats: (priorityLevel, n) => seats.set({ priority_level: priorityLevel }, n),
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
