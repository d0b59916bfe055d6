/**
 * Protobuf codecs of the kinds orch answers `kubectl create` for in protobuf, built with
 * protobufjs reflection (no `.proto` file is loaded at run time). Field numbers are those of the
 * reference system's `generated.proto` files (`k8s.io/apimachinery/pkg/apis/meta/v1`,
 * `k8s.io/api/core/v1`, `k8s.io/api/coordination/v1`, `k8s.io/api/authentication/v1`,
 * `k8s.io/api/rbac/v1`, `k8s.io/api/authorization/v1`, `k8s.io/api/certificates/v1`), so its
 * clients read and write them.
 *
 * Objects cross in the JSON shape the rest of orch uses: times as RFC 3339 strings, bytes as
 * base64 strings, `fieldsV1` as the JSON object it holds, int64 as numbers; empty strings, empty
 * lists, empty maps and unset times are left out when decoding.
 * @module
 */
import { badRequest } from "@orch/meta";
import protobuf from "protobufjs";
import type { FieldBase, Message, Type } from "protobufjs";
import { toStatusErrorOf } from "./internal/errors.js";
import { fromBase64, int64ToNumber, microTimeFromWire, timeFromWire, timeToWire, toBase64, type WireTime } from "./internal/wire-values.js";

const root = new protobuf.Root();

function message(name: string, ...fields: FieldBase[]): Type {
  const type = new protobuf.Type(name);
  for (const f of fields) type.add(f);
  root.add(type);
  return type;
}
const optional = (name: string, id: number, type: string): FieldBase => new protobuf.Field(name, id, type);
const repeated = (name: string, id: number, type: string): FieldBase => new protobuf.Field(name, id, type, "repeated");

// A map<string, V> is, on the wire, exactly `repeated Entry { key = 1; value = 2; }`. It is
// declared so (not as a protobufjs MapField, whose decoder assigns `object[key]` and so loses a
// `__proto__` key, which is a valid ConfigMap key), and turned into an object here.
const mapFields = new WeakSet<FieldBase>();
message("StringEntry", optional("key", 1, "string"), optional("value", 2, "string"));
message("BytesEntry", optional("key", 1, "string"), optional("value", 2, "bytes"));
// UserInfo's `extra`: map<string, ExtraValue>, an ExtraValue being `repeated string items = 1`
// on the wire and a plain list of strings in JSON.
message("ExtraValue", repeated("items", 1, "string"));
message("ExtraValueEntry", optional("key", 1, "string"), optional("value", 2, "ExtraValue"));
const entryTypes = { string: "StringEntry", bytes: "BytesEntry", ExtraValue: "ExtraValueEntry" } as const;
const map = (name: string, id: number, valueType: keyof typeof entryTypes): FieldBase => {
  const field = repeated(name, id, entryTypes[valueType]);
  mapFields.add(field);
  return field;
};

/** A kind's top-level message in the reference's layout: metadata 1, spec 2, status 3 (when it has one). */
function kindMessage(name: string, spec: string, status?: string): Type {
  return message(name, optional("metadata", 1, "ObjectMeta"), optional("spec", 2, spec), ...(status ? [optional("status", 3, status)] : []));
}

// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto
message("Time", optional("seconds", 1, "int64"), optional("nanos", 2, "int32"));
message("MicroTime", optional("seconds", 1, "int64"), optional("nanos", 2, "int32"));
message("FieldsV1", optional("Raw", 1, "bytes"));
message(
  "OwnerReference",
  optional("kind", 1, "string"),
  optional("name", 3, "string"),
  optional("uid", 4, "string"),
  optional("apiVersion", 5, "string"),
  optional("controller", 6, "bool"),
  optional("blockOwnerDeletion", 7, "bool"),
);
message(
  "ManagedFieldsEntry",
  optional("manager", 1, "string"),
  optional("operation", 2, "string"),
  optional("apiVersion", 3, "string"),
  optional("time", 4, "Time"),
  optional("fieldsType", 6, "string"),
  optional("fieldsV1", 7, "FieldsV1"),
  optional("subresource", 8, "string"),
);
message(
  "ObjectMeta",
  optional("name", 1, "string"),
  optional("generateName", 2, "string"),
  optional("namespace", 3, "string"),
  optional("selfLink", 4, "string"),
  optional("uid", 5, "string"),
  optional("resourceVersion", 6, "string"),
  optional("generation", 7, "int64"),
  optional("creationTimestamp", 8, "Time"),
  optional("deletionTimestamp", 9, "Time"),
  optional("deletionGracePeriodSeconds", 10, "int64"),
  map("labels", 11, "string"),
  map("annotations", 12, "string"),
  repeated("ownerReferences", 13, "OwnerReference"),
  repeated("finalizers", 14, "string"),
  repeated("managedFields", 17, "ManagedFieldsEntry"),
);
message("Preconditions", optional("uid", 1, "string"), optional("resourceVersion", 2, "string"));
const deleteOptions = message(
  "DeleteOptions",
  optional("gracePeriodSeconds", 1, "int64"),
  optional("preconditions", 2, "Preconditions"),
  optional("orphanDependents", 3, "bool"),
  optional("propagationPolicy", 4, "string"),
  repeated("dryRun", 5, "string"),
);

// k8s.io/api/core/v1/generated.proto
const configMap = message(
  "ConfigMap",
  optional("metadata", 1, "ObjectMeta"),
  map("data", 2, "string"),
  map("binaryData", 3, "bytes"),
  optional("immutable", 4, "bool"),
);
const secret = message(
  "Secret",
  optional("metadata", 1, "ObjectMeta"),
  map("data", 2, "bytes"),
  optional("type", 3, "string"),
  map("stringData", 4, "string"),
  optional("immutable", 5, "bool"),
);
message("NamespaceSpec", repeated("finalizers", 1, "string"));
message(
  "NamespaceCondition",
  optional("type", 1, "string"),
  optional("status", 2, "string"),
  optional("lastTransitionTime", 4, "Time"),
  optional("reason", 5, "string"),
  optional("message", 6, "string"),
);
message("NamespaceStatus", optional("phase", 1, "string"), repeated("conditions", 2, "NamespaceCondition"));
const namespace = kindMessage("Namespace", "NamespaceSpec", "NamespaceStatus");
message(
  "ObjectReference",
  optional("kind", 1, "string"),
  optional("namespace", 2, "string"),
  optional("name", 3, "string"),
  optional("uid", 4, "string"),
  optional("apiVersion", 5, "string"),
  optional("resourceVersion", 6, "string"),
  optional("fieldPath", 7, "string"),
);
message("EventSource", optional("component", 1, "string"), optional("host", 2, "string"));
message("EventSeries", optional("count", 1, "int32"), optional("lastObservedTime", 2, "MicroTime"));
const event = message(
  "Event",
  optional("metadata", 1, "ObjectMeta"),
  optional("involvedObject", 2, "ObjectReference"),
  optional("reason", 3, "string"),
  optional("message", 4, "string"),
  optional("source", 5, "EventSource"),
  optional("firstTimestamp", 6, "Time"),
  optional("lastTimestamp", 7, "Time"),
  optional("count", 8, "int32"),
  optional("type", 9, "string"),
  optional("eventTime", 10, "MicroTime"),
  optional("series", 11, "EventSeries"),
  optional("action", 12, "string"),
  optional("related", 13, "ObjectReference"),
  optional("reportingComponent", 14, "string"),
  optional("reportingInstance", 15, "string"),
);

message("LocalObjectReference", optional("name", 1, "string"));
const serviceAccount = message(
  "ServiceAccount",
  optional("metadata", 1, "ObjectMeta"),
  repeated("secrets", 2, "ObjectReference"),
  repeated("imagePullSecrets", 3, "LocalObjectReference"),
  optional("automountServiceAccountToken", 4, "bool"),
);

// k8s.io/api/authentication/v1/generated.proto: the body `kubectl create token` sends.
message(
  "BoundObjectReference",
  optional("kind", 1, "string"),
  optional("apiVersion", 2, "string"),
  optional("name", 3, "string"),
  optional("uid", 4, "string"),
);
message(
  "TokenRequestSpec",
  repeated("audiences", 1, "string"),
  optional("boundObjectRef", 3, "BoundObjectReference"),
  optional("expirationSeconds", 4, "int64"),
);
message("TokenRequestStatus", optional("token", 1, "string"), optional("expirationTimestamp", 2, "Time"));
const tokenRequest = kindMessage("TokenRequest", "TokenRequestSpec", "TokenRequestStatus");

// k8s.io/api/authentication/v1/generated.proto: what `kubectl auth whoami` sends and reads.
message("UserInfo", optional("username", 1, "string"), optional("uid", 2, "string"), repeated("groups", 3, "string"), map("extra", 4, "ExtraValue"));
message("SelfSubjectReviewStatus", optional("userInfo", 1, "UserInfo"));
const selfSubjectReview = message("SelfSubjectReview", optional("metadata", 1, "ObjectMeta"), optional("status", 2, "SelfSubjectReviewStatus"));

// k8s.io/api/coordination/v1/generated.proto
message(
  "LeaseSpec",
  optional("holderIdentity", 1, "string"),
  optional("leaseDurationSeconds", 2, "int32"),
  optional("acquireTime", 3, "MicroTime"),
  optional("renewTime", 4, "MicroTime"),
  optional("leaseTransitions", 5, "int32"),
  optional("strategy", 6, "string"),
  optional("preferredHolder", 7, "string"),
);
const lease = message("Lease", optional("metadata", 1, "ObjectMeta"), optional("spec", 2, "LeaseSpec"));

// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto: the selectors of a ClusterRole's aggregation rule.
message("LabelSelectorRequirement", optional("key", 1, "string"), optional("operator", 2, "string"), repeated("values", 3, "string"));
message("LabelSelector", map("matchLabels", 1, "string"), repeated("matchExpressions", 2, "LabelSelectorRequirement"));

// k8s.io/api/rbac/v1/generated.proto: what kubectl create role, clusterrole, rolebinding and
// clusterrolebinding send.
message(
  "PolicyRule",
  repeated("verbs", 1, "string"),
  repeated("apiGroups", 2, "string"),
  repeated("resources", 3, "string"),
  repeated("resourceNames", 4, "string"),
  repeated("nonResourceURLs", 5, "string"),
);
const role = message("Role", optional("metadata", 1, "ObjectMeta"), repeated("rules", 2, "PolicyRule"));
message("AggregationRule", repeated("clusterRoleSelectors", 1, "LabelSelector"));
const clusterRole = message(
  "ClusterRole",
  optional("metadata", 1, "ObjectMeta"),
  repeated("rules", 2, "PolicyRule"),
  optional("aggregationRule", 3, "AggregationRule"),
);
message("Subject", optional("kind", 1, "string"), optional("apiGroup", 2, "string"), optional("name", 3, "string"), optional("namespace", 4, "string"));
message("RoleRef", optional("apiGroup", 1, "string"), optional("kind", 2, "string"), optional("name", 3, "string"));
const roleBinding = message("RoleBinding", optional("metadata", 1, "ObjectMeta"), repeated("subjects", 2, "Subject"), optional("roleRef", 3, "RoleRef"));
const clusterRoleBinding = message(
  "ClusterRoleBinding",
  optional("metadata", 1, "ObjectMeta"),
  repeated("subjects", 2, "Subject"),
  optional("roleRef", 3, "RoleRef"),
);

// k8s.io/api/authorization/v1/generated.proto: what kubectl auth can-i (and --list) sends and
// reads. ResourceAttributes' fieldSelector (8) and labelSelector (9) are not modelled.
message(
  "ResourceAttributes",
  optional("namespace", 1, "string"),
  optional("verb", 2, "string"),
  optional("group", 3, "string"),
  optional("version", 4, "string"),
  optional("resource", 5, "string"),
  optional("subresource", 6, "string"),
  optional("name", 7, "string"),
);
message("NonResourceAttributes", optional("path", 1, "string"), optional("verb", 2, "string"));
message(
  "SubjectAccessReviewSpec",
  optional("resourceAttributes", 1, "ResourceAttributes"),
  optional("nonResourceAttributes", 2, "NonResourceAttributes"),
  optional("user", 3, "string"),
  repeated("groups", 4, "string"),
  map("extra", 5, "ExtraValue"),
  optional("uid", 6, "string"),
);
message(
  "SubjectAccessReviewStatus",
  optional("allowed", 1, "bool"),
  optional("reason", 2, "string"),
  optional("evaluationError", 3, "string"),
  optional("denied", 4, "bool"),
);
const subjectAccessReview = kindMessage("SubjectAccessReview", "SubjectAccessReviewSpec", "SubjectAccessReviewStatus");
const localSubjectAccessReview = kindMessage("LocalSubjectAccessReview", "SubjectAccessReviewSpec", "SubjectAccessReviewStatus");
message("SelfSubjectAccessReviewSpec", optional("resourceAttributes", 1, "ResourceAttributes"), optional("nonResourceAttributes", 2, "NonResourceAttributes"));
const selfSubjectAccessReview = kindMessage("SelfSubjectAccessReview", "SelfSubjectAccessReviewSpec", "SubjectAccessReviewStatus");
message("SelfSubjectRulesReviewSpec", optional("namespace", 1, "string"));
message(
  "ResourceRule",
  repeated("verbs", 1, "string"),
  repeated("apiGroups", 2, "string"),
  repeated("resources", 3, "string"),
  repeated("resourceNames", 4, "string"),
);
message("NonResourceRule", repeated("verbs", 1, "string"), repeated("nonResourceURLs", 2, "string"));
message(
  "SubjectRulesReviewStatus",
  repeated("resourceRules", 1, "ResourceRule"),
  repeated("nonResourceRules", 2, "NonResourceRule"),
  optional("incomplete", 3, "bool"),
  optional("evaluationError", 4, "string"),
);
const selfSubjectRulesReview = kindMessage("SelfSubjectRulesReview", "SelfSubjectRulesReviewSpec", "SubjectRulesReviewStatus");

// k8s.io/api/certificates/v1/generated.proto: the whole request, which kubectl certificate
// approve and deny send to the approval sub-resource. ExtraValue is certificates' own message,
// the same on the wire as authentication's.
message(
  "CertificateSigningRequestSpec",
  optional("request", 1, "bytes"),
  optional("signerName", 7, "string"),
  optional("expirationSeconds", 8, "int32"),
  repeated("usages", 5, "string"),
  optional("username", 2, "string"),
  optional("uid", 3, "string"),
  repeated("groups", 4, "string"),
  map("extra", 6, "ExtraValue"),
);
message(
  "CertificateSigningRequestCondition",
  optional("type", 1, "string"),
  optional("status", 6, "string"),
  optional("reason", 2, "string"),
  optional("message", 3, "string"),
  optional("lastUpdateTime", 4, "Time"),
  optional("lastTransitionTime", 5, "Time"),
);
message("CertificateSigningRequestStatus", repeated("conditions", 1, "CertificateSigningRequestCondition"), optional("certificate", 2, "bytes"));
const certificateSigningRequest = kindMessage("CertificateSigningRequest", "CertificateSigningRequestSpec", "CertificateSigningRequestStatus");

// k8s.io/api/apps/v1 (Deployment), with the parts of k8s.io/api/core/v1's PodSpec and
// apimachinery's IntOrString (LabelSelector is above) that `kubectl create deployment` writes. Decoded
// only (see `decodeOnly`): answers go out in JSON, so no field the codec lacks is ever dropped
// from an object the server sends.
message("Quantity", optional("string", 1, "string"));
message("QuantityEntry", optional("key", 1, "string"), optional("value", 2, "Quantity"));
const quantityMap = (name: string, id: number): FieldBase => {
  const field = repeated(name, id, "QuantityEntry");
  mapFields.add(field);
  return field;
};
message("IntOrString", optional("type", 1, "int64"), optional("intVal", 2, "int32"), optional("strVal", 3, "string"));
message(
  "ContainerPort",
  optional("name", 1, "string"),
  optional("hostPort", 2, "int32"),
  optional("containerPort", 3, "int32"),
  optional("protocol", 4, "string"),
  optional("hostIP", 5, "string"),
);
message("EnvVar", optional("name", 1, "string"), optional("value", 2, "string"));
message("ResourceRequirements", quantityMap("limits", 1), quantityMap("requests", 2));
message(
  "Container",
  optional("name", 1, "string"),
  optional("image", 2, "string"),
  repeated("command", 3, "string"),
  repeated("args", 4, "string"),
  optional("workingDir", 5, "string"),
  repeated("ports", 6, "ContainerPort"),
  repeated("env", 7, "EnvVar"),
  optional("resources", 8, "ResourceRequirements"),
  optional("terminationMessagePath", 13, "string"),
  optional("imagePullPolicy", 14, "string"),
  optional("terminationMessagePolicy", 20, "string"),
);
message(
  "PodSpec",
  repeated("containers", 2, "Container"),
  optional("restartPolicy", 3, "string"),
  optional("terminationGracePeriodSeconds", 4, "int64"),
  optional("dnsPolicy", 6, "string"),
  map("nodeSelector", 7, "string"),
  optional("serviceAccountName", 8, "string"),
  optional("schedulerName", 19, "string"),
  repeated("initContainers", 20, "Container"),
);
message("PodTemplateSpec", optional("metadata", 1, "ObjectMeta"), optional("spec", 2, "PodSpec"));
message("RollingUpdateDeployment", optional("maxUnavailable", 1, "IntOrString"), optional("maxSurge", 2, "IntOrString"));
message("DeploymentStrategy", optional("type", 1, "string"), optional("rollingUpdate", 2, "RollingUpdateDeployment"));
message(
  "DeploymentSpec",
  optional("replicas", 1, "int32"),
  optional("selector", 2, "LabelSelector"),
  optional("template", 3, "PodTemplateSpec"),
  optional("strategy", 4, "DeploymentStrategy"),
  optional("minReadySeconds", 5, "int32"),
  optional("revisionHistoryLimit", 6, "int32"),
  optional("paused", 7, "bool"),
  optional("progressDeadlineSeconds", 9, "int32"),
);
message(
  "DeploymentStatus",
  optional("observedGeneration", 1, "int64"),
  optional("replicas", 2, "int32"),
  optional("updatedReplicas", 3, "int32"),
  optional("availableReplicas", 4, "int32"),
  optional("unavailableReplicas", 5, "int32"),
  optional("readyReplicas", 7, "int32"),
);
const deployment = kindMessage("Deployment", "DeploymentSpec", "DeploymentStatus");

// k8s.io/api/batch/v1 (Job, CronJob), k8s.io/api/policy/v1 (PodDisruptionBudget) and
// k8s.io/api/networking/v1 (Ingress): what `kubectl create job|cronjob|poddisruptionbudget|ingress`
// writes, decoded only as Deployment is. Their statuses are left out: a create drops them anyway.
message(
  "JobSpec",
  optional("parallelism", 1, "int32"),
  optional("completions", 2, "int32"),
  optional("activeDeadlineSeconds", 3, "int64"),
  optional("selector", 4, "LabelSelector"),
  optional("manualSelector", 5, "bool"),
  optional("template", 6, "PodTemplateSpec"),
  optional("backoffLimit", 7, "int32"),
  optional("ttlSecondsAfterFinished", 8, "int32"),
  optional("completionMode", 9, "string"),
  optional("suspend", 10, "bool"),
  optional("backoffLimitPerIndex", 12, "int32"),
  optional("maxFailedIndexes", 13, "int32"),
  optional("podReplacementPolicy", 14, "string"),
  optional("managedBy", 15, "string"),
);
const job = kindMessage("Job", "JobSpec");
message("JobTemplateSpec", optional("metadata", 1, "ObjectMeta"), optional("spec", 2, "JobSpec"));
message(
  "CronJobSpec",
  optional("schedule", 1, "string"),
  optional("startingDeadlineSeconds", 2, "int64"),
  optional("concurrencyPolicy", 3, "string"),
  optional("suspend", 4, "bool"),
  optional("jobTemplate", 5, "JobTemplateSpec"),
  optional("successfulJobsHistoryLimit", 6, "int32"),
  optional("failedJobsHistoryLimit", 7, "int32"),
  optional("timeZone", 8, "string"),
);
const cronJob = kindMessage("CronJob", "CronJobSpec");
message(
  "PodDisruptionBudgetSpec",
  optional("minAvailable", 1, "IntOrString"),
  optional("selector", 2, "LabelSelector"),
  optional("maxUnavailable", 3, "IntOrString"),
  optional("unhealthyPodEvictionPolicy", 4, "string"),
);
const podDisruptionBudget = kindMessage("PodDisruptionBudget", "PodDisruptionBudgetSpec");
message("TypedLocalObjectReference", optional("apiGroup", 1, "string"), optional("kind", 2, "string"), optional("name", 3, "string"));
message("ServiceBackendPort", optional("name", 1, "string"), optional("number", 2, "int32"));
message("IngressServiceBackend", optional("name", 1, "string"), optional("port", 2, "ServiceBackendPort"));
message("IngressBackend", optional("resource", 3, "TypedLocalObjectReference"), optional("service", 4, "IngressServiceBackend"));
message("HTTPIngressPath", optional("path", 1, "string"), optional("backend", 2, "IngressBackend"), optional("pathType", 3, "string"));
message("HTTPIngressRuleValue", repeated("paths", 1, "HTTPIngressPath"));
message("IngressRuleValue", optional("http", 1, "HTTPIngressRuleValue"));
// IngressRuleValue is embedded in JSON: its `http` is a field of the rule itself.
const ingressRuleValue = optional("ingressRuleValue", 2, "IngressRuleValue");
const inlineFields = new WeakSet<FieldBase>([ingressRuleValue]);
message("IngressRule", optional("host", 1, "string"), ingressRuleValue);
message("IngressTLS", repeated("hosts", 1, "string"), optional("secretName", 2, "string"));
message(
  "IngressSpec",
  optional("defaultBackend", 1, "IngressBackend"),
  repeated("tls", 2, "IngressTLS"),
  repeated("rules", 3, "IngressRule"),
  optional("ingressClassName", 4, "string"),
);
const ingress = kindMessage("Ingress", "IngressSpec");

// k8s.io/api/autoscaling/v1: what `kubectl autoscale` writes, decoded only, status left out.
message("CrossVersionObjectReference", optional("kind", 1, "string"), optional("name", 2, "string"), optional("apiVersion", 3, "string"));
message(
  "HorizontalPodAutoscalerSpec",
  optional("scaleTargetRef", 1, "CrossVersionObjectReference"),
  optional("minReplicas", 2, "int32"),
  optional("maxReplicas", 3, "int32"),
  optional("targetCPUUtilizationPercentage", 4, "int32"),
);
const horizontalPodAutoscaler = kindMessage("HorizontalPodAutoscaler", "HorizontalPodAutoscalerSpec");

// k8s.io/api/core/v1 Service and ResourceQuota and k8s.io/api/scheduling/v1 PriorityClass: what
// `kubectl create service|quota|priorityclass` and `kubectl expose` write, decoded only.
message(
  "ServicePort",
  optional("name", 1, "string"),
  optional("protocol", 2, "string"),
  optional("port", 3, "int32"),
  optional("targetPort", 4, "IntOrString"),
  optional("nodePort", 5, "int32"),
  optional("appProtocol", 6, "string"),
);
message(
  "ServiceSpec",
  repeated("ports", 1, "ServicePort"),
  map("selector", 2, "string"),
  optional("clusterIP", 3, "string"),
  optional("type", 4, "string"),
  repeated("externalIPs", 5, "string"),
  optional("sessionAffinity", 7, "string"),
  optional("loadBalancerIP", 8, "string"),
  repeated("loadBalancerSourceRanges", 9, "string"),
  optional("externalName", 10, "string"),
  optional("externalTrafficPolicy", 11, "string"),
  optional("healthCheckNodePort", 12, "int32"),
  optional("publishNotReadyAddresses", 13, "bool"),
  optional("ipFamilyPolicy", 17, "string"),
  repeated("clusterIPs", 18, "string"),
  repeated("ipFamilies", 19, "string"),
  optional("allocateLoadBalancerNodePorts", 20, "bool"),
  optional("loadBalancerClass", 21, "string"),
  optional("internalTrafficPolicy", 22, "string"),
);
const service = kindMessage("Service", "ServiceSpec");
message("ScopedResourceSelectorRequirement", optional("scopeName", 1, "string"), optional("operator", 2, "string"), repeated("values", 3, "string"));
message("ScopeSelector", repeated("matchExpressions", 1, "ScopedResourceSelectorRequirement"));
message("ResourceQuotaSpec", quantityMap("hard", 1), repeated("scopes", 2, "string"), optional("scopeSelector", 3, "ScopeSelector"));
const resourceQuota = kindMessage("ResourceQuota", "ResourceQuotaSpec");
const priorityClass = message(
  "PriorityClass",
  optional("metadata", 1, "ObjectMeta"),
  optional("value", 2, "int32"),
  optional("globalDefault", 3, "bool"),
  optional("description", 4, "string"),
  optional("preemptionPolicy", 5, "string"),
);

root.resolveAll();

/**
 * Integer fields that are pointers in the reference's Go types, where 0 means something (a grace
 * period of 0 deletes at once); every other integer 0 is the Go zero value and left out.
 */
const zeroKept = new Set([
  "ObjectMeta.deletionGracePeriodSeconds",
  "DeleteOptions.gracePeriodSeconds",
  "LeaseSpec.leaseDurationSeconds",
  "LeaseSpec.leaseTransitions",
  "EventSeries.count",
  "TokenRequestSpec.expirationSeconds",
  "DeploymentSpec.replicas",
  "DeploymentSpec.revisionHistoryLimit",
  "DeploymentSpec.progressDeadlineSeconds",
  "PodSpec.terminationGracePeriodSeconds",
  "JobSpec.parallelism",
  "JobSpec.completions",
  "JobSpec.activeDeadlineSeconds",
  "JobSpec.backoffLimit",
  "JobSpec.ttlSecondsAfterFinished",
  "JobSpec.backoffLimitPerIndex",
  "JobSpec.maxFailedIndexes",
  "CronJobSpec.startingDeadlineSeconds",
  "CronJobSpec.successfulJobsHistoryLimit",
  "CronJobSpec.failedJobsHistoryLimit",
  "HorizontalPodAutoscalerSpec.minReplicas",
  "HorizontalPodAutoscalerSpec.maxReplicas",
  "HorizontalPodAutoscalerSpec.targetCPUUtilizationPercentage",
  "PriorityClass.value",
]);

/**
 * Booleans that are plain fields with `omitempty` in the reference's Go types (not pointers):
 * its encoder writes them even when false, and false is the Go zero value, which its JSON leaves
 * out; so is it left out here. Every other boolean is kept as it comes.
 */
const falseDropped = new Set(["DeploymentSpec.paused", "ServiceSpec.publishNotReadyAddresses", "PriorityClass.globalDefault"]);

/** One kind with a protobuf codec: `group` `"*"` matches any group. */
interface KindCodec {
  /**
   * The codec reads request bodies only (it knows a part of the kind's fields, those the
   * reference's clients write when creating one): the server answers such kinds in JSON.
   */
  decodeOnly?: boolean;
  /** `group` is the whole group, without the domain (`apps`). */
  bareGroup?: boolean;
  /** The group's first label (`coordination` for `coordination.k8s.io`); `""` is the core group. */
  group: string;
  version: string;
  kind: string;
  type: Type;
}

const codecs: readonly KindCodec[] = [
  { group: "", version: "v1", kind: "ConfigMap", type: configMap },
  { group: "", version: "v1", kind: "Secret", type: secret },
  { group: "", version: "v1", kind: "Namespace", type: namespace },
  { group: "", version: "v1", kind: "Event", type: event },
  { group: "", version: "v1", kind: "ServiceAccount", type: serviceAccount },
  { group: "authentication", version: "v1", kind: "TokenRequest", type: tokenRequest },
  { group: "authentication", version: "v1", kind: "SelfSubjectReview", type: selfSubjectReview },
  { group: "coordination", version: "v1", kind: "Lease", type: lease },
  { group: "rbac", version: "v1", kind: "Role", type: role },
  { group: "rbac", version: "v1", kind: "ClusterRole", type: clusterRole },
  { group: "rbac", version: "v1", kind: "RoleBinding", type: roleBinding },
  { group: "rbac", version: "v1", kind: "ClusterRoleBinding", type: clusterRoleBinding },
  { group: "authorization", version: "v1", kind: "SubjectAccessReview", type: subjectAccessReview },
  { group: "authorization", version: "v1", kind: "LocalSubjectAccessReview", type: localSubjectAccessReview },
  { group: "authorization", version: "v1", kind: "SelfSubjectAccessReview", type: selfSubjectAccessReview },
  { group: "authorization", version: "v1", kind: "SelfSubjectRulesReview", type: selfSubjectRulesReview },
  { group: "certificates", version: "v1", kind: "CertificateSigningRequest", type: certificateSigningRequest },
  { group: "*", version: "v1", kind: "DeleteOptions", type: deleteOptions },
  { group: "apps", version: "v1", kind: "Deployment", type: deployment, decodeOnly: true, bareGroup: true },
  { group: "batch", version: "v1", kind: "Job", type: job, decodeOnly: true, bareGroup: true },
  { group: "batch", version: "v1", kind: "CronJob", type: cronJob, decodeOnly: true, bareGroup: true },
  { group: "policy", version: "v1", kind: "PodDisruptionBudget", type: podDisruptionBudget, decodeOnly: true, bareGroup: true },
  { group: "networking", version: "v1", kind: "Ingress", type: ingress, decodeOnly: true },
  { group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler", type: horizontalPodAutoscaler, decodeOnly: true, bareGroup: true },
  { group: "", version: "v1", kind: "Service", type: service, decodeOnly: true },
  { group: "", version: "v1", kind: "ResourceQuota", type: resourceQuota, decodeOnly: true },
  { group: "scheduling", version: "v1", kind: "PriorityClass", type: priorityClass, decodeOnly: true },
];

/** The kinds with a protobuf codec, as `apiVersion` pattern and kind (`coordination.<domain>/v1`, `Lease`). */
export const protobufKinds: readonly { apiVersion: string; kind: string }[] = codecs
  .filter((c) => !c.decodeOnly)
  .map((c) => ({
    apiVersion: c.group === "" ? c.version : c.group === "*" ? `<any group>/${c.version}` : `${c.group}.<domain>/${c.version}`,
    kind: c.kind,
  }));

function codecFor(apiVersion: string, kind: string): KindCodec | undefined {
  const slash = apiVersion.indexOf("/");
  const group = slash === -1 ? "" : apiVersion.slice(0, slash);
  const version = slash === -1 ? apiVersion : apiVersion.slice(slash + 1);
  const dot = group.indexOf(".");
  const label = dot === -1 ? group : group.slice(0, dot);
  return codecs.find(
    (c) =>
      c.kind === kind &&
      c.version === version &&
      (c.group === "*" || (c.group === "" ? group === "" : c.bareGroup ? group === c.group : label === c.group && dot > 0)),
  );
}

/**
 * Whether objects of `apiVersion` and `kind` have a protobuf codec (core v1 ConfigMap, Secret,
 * Namespace, Event and ServiceAccount, `coordination.<domain>/v1` Lease,
 * `authentication.<domain>/v1` TokenRequest and SelfSubjectReview, `rbac.authorization.<domain>/v1`
 * Role, ClusterRole, RoleBinding and ClusterRoleBinding, `authorization.<domain>/v1`
 * SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview and
 * SelfSubjectRulesReview, `certificates.<domain>/v1` CertificateSigningRequest, and DeleteOptions
 * of any group), so that the server may answer them in protobuf. `apps/v1` Deployment, `batch/v1`
 * Job and CronJob, `policy/v1` PodDisruptionBudget, `autoscaling/v1` HorizontalPodAutoscaler,
 * core v1 Service and ResourceQuota, `scheduling.<domain>/v1` PriorityClass and
 * `networking.<domain>/v1` Ingress bodies are read in protobuf too, but answered in JSON.
 */
export function hasProtobufCodec(apiVersion: string, kind: string): boolean {
  const codec = codecFor(apiVersion, kind);
  return codec !== undefined && !codec.decodeOnly;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function entryValueField(mapField: FieldBase): FieldBase {
  const entry = messageTypeOf(mapField);
  const value = entry?.fields.value;
  if (!value) throw new Error(`${mapField.name} is not a map field`);
  return value;
}

function messageTypeOf(field: FieldBase): Type | undefined {
  const resolved = field.resolvedType;
  return resolved instanceof protobuf.Type ? resolved : undefined;
}

// ---------------------------------------------------------------- JSON shape -> wire

function valueToWire(field: FieldBase, value: unknown, path: string): unknown {
  const nested = messageTypeOf(field);
  if (nested) {
    switch (nested.name) {
      case "Time":
      case "MicroTime":
        if (typeof value !== "string") throw badRequest(`${path}: expected an RFC 3339 time string`);
        return timeToWire(value);
      case "FieldsV1":
        return { Raw: new TextEncoder().encode(JSON.stringify(value)) };
      case "ExtraValue":
        if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw badRequest(`${path}: expected a list of strings`);
        return { items: value };
      default:
        return toWire(nested, value, path);
    }
  }
  switch (field.type) {
    case "string":
      if (typeof value !== "string") throw badRequest(`${path}: expected a string`);
      return value;
    case "bool":
      if (typeof value !== "boolean") throw badRequest(`${path}: expected a boolean`);
      return value;
    case "int32":
      if (typeof value !== "number" || !Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31)
        throw badRequest(`${path}: expected a 32-bit integer`);
      return value;
    case "int64":
      if (typeof value !== "number" || !Number.isSafeInteger(value)) throw badRequest(`${path}: expected an integer`);
      return value;
    case "bytes":
      if (typeof value !== "string") throw badRequest(`${path}: expected a base64 string`);
      return fromBase64(value, path);
    default:
      throw badRequest(`${path}: unsupported protobuf type ${field.type}`);
  }
}

function toWire(type: Type, value: unknown, path: string): Record<string, unknown> {
  if (!isRecord(value)) throw badRequest(`${path}: expected an object`);
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const v = value[field.name];
    if (v === undefined || v === null) continue;
    const at = `${path}.${field.name}`;
    if (mapFields.has(field)) {
      if (!isRecord(v)) throw badRequest(`${at}: expected an object`);
      const valueField = entryValueField(field);
      out[field.name] = Object.entries(v).map(([key, x]) => ({ key, value: valueToWire(valueField, x, `${at}[${key}]`) }));
    } else if (field.repeated) {
      if (!Array.isArray(v)) throw badRequest(`${at}: expected a list`);
      out[field.name] = v.map((x: unknown, i) => valueToWire(field, x, `${at}[${i}]`));
    } else {
      out[field.name] = valueToWire(field, v, at);
    }
  }
  return out;
}

// ---------------------------------------------------------------- wire -> JSON shape

function has(message: object, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(message, name);
}

function valueFromWire(type: Type, field: FieldBase, value: unknown, path: string, inCollection: boolean): unknown {
  const nested = messageTypeOf(field);
  if (nested) {
    const m = value as Record<string, unknown>;
    switch (nested.name) {
      case "Time":
      case "MicroTime": {
        if (!has(m, "seconds") && !has(m, "nanos")) return undefined;
        const time: WireTime = { seconds: int64ToNumber(m.seconds ?? 0), nanos: int64ToNumber(m.nanos ?? 0) };
        return nested.name === "Time" ? timeFromWire(time, path) : microTimeFromWire(time, path);
      }
      case "FieldsV1": {
        const raw = m.Raw;
        if (!(raw instanceof Uint8Array) || raw.length === 0) return undefined;
        try {
          return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw)) as unknown;
        } catch (error) {
          throw badRequest(`${path}: fieldsV1 is not JSON: ${(error as Error).message}`);
        }
      }
      case "ExtraValue":
        return Array.isArray(m.items) ? [...(m.items as string[])] : [];
      case "Quantity":
        return typeof m.string === "string" ? m.string : "";
      case "IntOrString":
        return int64ToNumber(m.type ?? 0) === 1 ? (typeof m.strVal === "string" ? m.strVal : "") : int64ToNumber(m.intVal ?? 0);
      default:
        return fromWire(nested, m, path);
    }
  }
  switch (field.type) {
    case "string":
      return value === "" && !inCollection ? undefined : value;
    case "bool":
      return value === false && !inCollection && falseDropped.has(`${type.name}.${field.name}`) ? undefined : value;
    case "int32":
    case "int64": {
      const n = int64ToNumber(value);
      return n === 0 && !inCollection && !zeroKept.has(`${type.name}.${field.name}`) ? undefined : n;
    }
    case "bytes":
      return toBase64(value as Uint8Array);
    default:
      throw badRequest(`${path}: unsupported protobuf type ${field.type}`);
  }
}

function fromWire(type: Type, message: Record<string, unknown>, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const v = message[field.name];
    const at = `${path}.${field.name}`;
    if (mapFields.has(field)) {
      if (!Array.isArray(v) || v.length === 0) continue;
      const valueField = entryValueField(field);
      const entries: Record<string, unknown> = {};
      for (const entry of v as Record<string, unknown>[]) {
        const key = typeof entry.key === "string" ? entry.key : "";
        const missing = valueField.type === "bytes" ? new Uint8Array(0) : messageTypeOf(valueField) ? {} : "";
        const value = valueFromWire(type, valueField, entry.value ?? missing, `${at}[${key}]`, true);
        // defineProperty, not assignment: `__proto__` is a key like any other here
        Object.defineProperty(entries, key, { value, enumerable: true, writable: true, configurable: true });
      }
      out[field.name] = entries;
    } else if (field.repeated) {
      if (!Array.isArray(v) || v.length === 0) continue;
      out[field.name] = v.map((x: unknown, i) => valueFromWire(type, field, x, `${at}[${i}]`, true));
    } else {
      if (!has(message, field.name)) continue;
      const x = valueFromWire(type, field, v, at, false);
      if (x !== undefined && inlineFields.has(field)) Object.assign(out, x);
      else if (x !== undefined) out[field.name] = x;
    }
  }
  return out;
}

/**
 * Serializes the fields of `object` (no `apiVersion` or `kind`: those travel in the envelope) in
 * the protobuf encoding of its kind.
 * @throws StatusError 406 NotAcceptable when the kind has no codec; 400 BadRequest for a field of the wrong JSON type.
 */
export function encodeKind(apiVersion: string, kind: string, object: unknown, onMissing: () => Error): Uint8Array {
  const codec = codecFor(apiVersion, kind);
  if (!codec || codec.decodeOnly) throw onMissing();
  const plain = toWire(codec.type, object, kind);
  return codec.type.encode(plain).finish();
}

/**
 * Decodes the protobuf encoding of one object of `apiVersion` and `kind` into its JSON shape
 * (with `apiVersion` and `kind` first).
 * @throws the error of `onMissing` when the kind has no codec; StatusError 400 for malformed bytes.
 */
export function decodeKind(apiVersion: string, kind: string, raw: Uint8Array, onMissing: () => Error): Record<string, unknown> {
  const codec = codecFor(apiVersion, kind);
  if (!codec) throw onMissing();
  try {
    const message: Message = codec.type.decode(raw);
    return { apiVersion, kind, ...fromWire(codec.type, message as unknown as Record<string, unknown>, kind) };
  } catch (error) {
    throw toStatusErrorOf(error, `the protobuf ${kind} is malformed`);
  }
}
