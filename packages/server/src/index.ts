export type { APIRequest, APIResponse, UserInfo } from "./api-request.js";
export { APIServer, defaultMaxRequestBodyBytes, serverVersion, type APIServerOptions } from "./api-server.js";
export { firstServiceIP, type AdvertisedEndpoint } from "./system-objects/kubernetes-service.js";
export { serveFetch, type FetchOptions, type FetchTarget } from "./serve-fetch.js";
export { normalizeBasePath, stripBasePath } from "./base-path.js";
export { parseRequestURL, resourceRequestInfo, type ParsedURL, type RequestVerb, type ResourceRequestInfo } from "./request-info.js";
export { negotiate, parseMediaType, type MediaType, type Negotiated, type Representation } from "./negotiation.js";
export { addWarnings, encodeResponse, errorResponse, successStatus, textResponse, type EncodeOptions } from "./responses.js";
export { mergePatch } from "./patch.js";
export { humanDuration } from "./table.js";
export { builtinNamespaces, namespaceFinalizer } from "@orch/resources";
export type { HealthCheck } from "./health.js";
export { ServiceAccountTokenSigner, serviceAccountKeyId, signingAlgorithm, type ServiceAccountTokenOptions } from "./service-account-tokens.js";
export type { AuthorizationMode } from "./authorization.js";
export { serverUser, type AdmissionOptions } from "./admission.js";
export type { RuntimeConfig } from "./runtime-config.js";
export {
  canRender,
  noopMetrics,
  requestDurationBuckets,
  type MetricsRecorder,
  type MetricsRegistry,
  type RenderedMetrics,
  type RequestKind,
  type RequestLabels,
  type DeprecatedAPILabels,
  type AdmissionStepType,
  type AdmissionMeasurement,
  type FlowControlLabels,
} from "./metrics.js";
export {
  auditLevels,
  auditStageNames,
  type AuditEvent,
  type AuditLevel,
  type AuditObjectReference,
  type AuditResponseStatus,
  type AuditSink,
  type AuditStage,
} from "./audit/event.js";
export { writeAuditEventJSON } from "./audit/event-bytes.js";
export {
  AuditPolicyError,
  auditPolicyVersions,
  evaluatePolicy,
  parseAuditPolicy,
  ruleMatches,
  sensitiveResources,
  type AuditAttributes,
  type AuditDecision,
  type AuditGroupResources,
  type AuditPolicy,
  type AuditPolicyRule,
} from "./audit/policy.js";
export { auditStages, sourceIPs, type AuditStageOptions, type AuditStages } from "./stages/audit-stage.js";
export { auditDeliveryModes, batchingSink, fanOutSink, type AuditDeliveryMode, type BatchingSink, type BatchingSinkOptions } from "./audit/batching-sink.js";
export { measuredStore, storeKeyType } from "./measured-store.js";
export {
  flowControlRetryAfterSeconds,
  tooManyRequestsMessage,
  withMaxInFlightLimit,
  withPriorityAndFairness,
  type MaxInFlightLimits,
} from "./stages/flow-control-stage.js";
export { autoUpdateAnnotation, bootstrapConfiguration, type BootstrapConfiguration } from "./flowcontrol/bootstrap.js";
export {
  classify,
  flowSchemaMatches,
  nonResourceRuleMatches,
  precedenceOf,
  priorityLevelNameOf,
  resourceRuleMatches,
  sortFlowSchemas,
  subjectMatches,
  type Classification,
  type RequestDigest,
} from "./flowcontrol/classifier.js";
export { dealHand, QueueSet, type Admission, type QueueSetOptions, type QueuingConfig, type Rejection, type RequestWork } from "./flowcontrol/queue-set.js";
export { LoopTurns, nextTurn, type TurnScheduler } from "./flowcontrol/loop-turns.js";
export {
  estimateObjects,
  estimateSeats,
  levelMaxSeats,
  listedFromCache,
  maximumListSeats,
  minimumSeats,
  objectsPerSeat,
  seatsForObjects,
  type WorkDigest,
} from "./flowcontrol/work-estimator.js";
export {
  danglingCondition,
  defaultMaxQueueWaitMs,
  FlowControl,
  labelsOf,
  seatsOf,
  type FlowAdmission,
  type FlowControlOptions,
  type WorkEstimate,
} from "./flowcontrol/flow-control.js";
