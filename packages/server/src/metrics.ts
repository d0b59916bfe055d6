/**
 * The metrics port of orch: what the server records about the requests it serves (the
 * reference's `apiserver_request_total`, `apiserver_request_duration_seconds`,
 * `apiserver_current_inflight_requests`, `apiserver_longrunning_requests`,
 * `apiserver_storage_objects`, deprecated APIs, authentication, authorization, admission,
 * storage, audit and flow-control metrics), with no metrics library of its own. `@orch/node`'s
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

/** The labels of `apiserver_requested_deprecated_apis`: a deprecated version that was asked for. */
export interface DeprecatedAPILabels {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** The release the version goes away in (`1.25`), or `""` when none is planned. */
  removed_release: string;
}

/** Which half of admission a measurement is of: `admit` (mutating) or `validate`. */
export type AdmissionStepType = "admit" | "validate";

/**
 * One measured admission step: the whole chain's half (`apiserver_admission_step_admission_duration_seconds`),
 * one plugin (`..._controller_...`) or one webhook (`..._webhook_...`).
 */
export interface AdmissionMeasurement {
  /** The plugin's or webhook's name; `""` for the whole step. */
  name: string;
  type: AdmissionStepType;
  /** `CREATE`, `UPDATE`, `DELETE` or `CONNECT`. */
  operation: string;
  /** Whether it refused the request. */
  rejected: boolean;
  seconds: number;
}

/** The labels of the flow-control metrics: the priority level and the flow schema a request was classified into. */
export interface FlowControlLabels {
  priority_level: string;
  flow_schema: string;
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
  /** A request through a deprecated version: `apiserver_requested_deprecated_apis` (a gauge set to 1). */
  deprecatedRequest(labels: DeprecatedAPILabels): void;
  /**
   * An authentication attempt ended: `authentication_attempts{result}` and
   * `authentication_duration_seconds{result}` (`success`, `failure` (no authenticator knew the
   * credential), `error` (an authenticator failed)).
   */
  authenticated(result: "success" | "failure" | "error", seconds: number): void;
  /**
   * An authorization decision: `apiserver_authorization_decisions_total{decision}` and
   * `apiserver_authorization_duration_seconds{decision}` (`allowed`, `denied`, `error`).
   */
  authorized(decision: "allowed" | "denied" | "error", seconds: number): void;
  /** An admission step, plugin or webhook finished: the three `apiserver_admission_*_admission_duration_seconds`. */
  admission(kind: "step" | "controller" | "webhook", measurement: AdmissionMeasurement): void;
  /** A call to the store: `etcd_request_duration_seconds{operation,type}` (`type` is `<resource>.<group>`, or the key prefix). */
  storageRequest(operation: string, type: string, seconds: number): void;
  /** An audit event was handed to a backend: `apiserver_audit_event_total`. */
  auditEvent(): void;
  /** An audit backend failed to take or deliver events and dropped them: `apiserver_audit_error_total{plugin}`. */
  auditError(plugin: string, events: number): void;
  /** A request was let through flow control: `apiserver_flowcontrol_dispatched_requests_total`. */
  flowControlDispatched(labels: FlowControlLabels): void;
  /**
   * Flow control refused a request: `apiserver_flowcontrol_rejected_requests_total{reason}`
   * (`queue-full`, `concurrency-limit` (a `Reject` level), `time-out` (waited too long in its queue), `cancelled`).
   */
  flowControlRejected(labels: FlowControlLabels, reason: string): void;
  /** Requests waiting in a level's queues went up or down: `apiserver_flowcontrol_current_inqueue_requests`. */
  flowControlInQueue(labels: FlowControlLabels, delta: number): void;
  /** Requests executing in a level went up or down: `apiserver_flowcontrol_current_executing_requests`. */
  flowControlExecuting(labels: FlowControlLabels, delta: number): void;
  /** How long a request waited in its queue (`execute`: whether it then ran): `apiserver_flowcontrol_request_wait_duration_seconds`. */
  flowControlWaited(labels: FlowControlLabels, execute: boolean, seconds: number): void;
  /** A level's seats: `apiserver_flowcontrol_nominal_limit_seats{priority_level}`. */
  flowControlSeats(priorityLevel: string, seats: number): void;
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
  deprecatedRequest: () => undefined,
  authenticated: () => undefined,
  authorized: () => undefined,
  admission: () => undefined,
  storageRequest: () => undefined,
  auditEvent: () => undefined,
  auditError: () => undefined,
  flowControlDispatched: () => undefined,
  flowControlRejected: () => undefined,
  flowControlInQueue: () => undefined,
  flowControlExecuting: () => undefined,
  flowControlWaited: () => undefined,
  flowControlSeats: () => undefined,
};

/** True when `recorder` can render, so the server serves `/metrics` from it. */
export function canRender(recorder: MetricsRecorder): recorder is MetricsRegistry {
  return typeof (recorder as Partial<MetricsRegistry>).render === "function";
}
