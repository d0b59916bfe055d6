/**
 * Pod (core `v1`, namespaced, short name `po`, sub-resources `status`, `binding`, `eviction`
 * and `ephemeralcontainers`, which may only add ephemeral containers): containers and the volumes they mount, with the reference's defaults, its
 * validation (every volume source the reference knows), its update rules (the spec is immutable but for
 * images, `activeDeadlineSeconds` and added tolerations), its field selectors and its Table.
 * @module
 */
import {
  FieldPath,
  badRequest,
  conflict,
  duplicateField,
  forbiddenField,
  invalidField,
  listType,
  mapType,
  notSupportedField,
  patchStrategy,
  requiredField,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  validateLabels,
  type APIObject,
  type FieldError,
  type Status,
} from "@orch/meta";
import { z } from "zod";
import { bindingV1Schema, validateBinding } from "./binding.js";
import { configKeyMessages, jsonEqual, record, str } from "./internal/rules.js";
import {
  list,
  localObjectReferenceSchema,
  quantityOf,
  resourceList,
  tolerationSchema,
  validateContainerResourceName,
  validateNonNegativeQuantity,
  validateLocalDescendingPath,
  validatePortNumber,
  portNameMessages,
  validateTolerations,
} from "./internal/workloads-common.js";
import {
  defaultFieldRef,
  defaultVolumes,
  objectFieldSelectorSchema,
  resourceFieldSelectorSchema,
  validateObjectFieldSelector,
  validateResourceFieldSelector,
  validateVolumes,
  volumeSchema,
} from "./internal/workloads-volumes.js";
import {
  affinitySchema,
  containerResizePolicySchema,
  containerStateSchema,
  envFromSourceSchema,
  hostAliasSchema,
  lifecycleSchema,
  podDNSConfigSchema,
  podResourceClaimSchema,
  podSecurityContextSchema,
  probeSchema,
  securityContextSchema,
  topologySpreadConstraintSchema,
} from "./internal/pod-fields.js";
import {
  defaultContainerHandlers,
  validateAffinity,
  validateContainerSecurityContext,
  validateHostAliases,
  validateLifecycle,
  validateOS,
  validatePodDNSConfig,
  validatePodResourceClaims,
  validatePodSecurityContext,
  validateProbe,
  validateReadinessGates,
  validateResizePolicy,
  validateSchedulingGates,
  validateTopologySpreadConstraints,
} from "./internal/pod-field-rules.js";
import type { ActionSubresource, ResourceType, StrategyContext } from "./resource-type.js";
import { int32, int64, named, optionalBoolean, optionalString, stringMap, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";
import { checkPodDisruptionBudgets } from "./pod-disruption-budget.js";
import { podConnectSubresources } from "./pod-connect.js";
import { deleteOptionsSchema } from "./schema/shared-kinds.js";

export {
  keyToPathSchema,
  volumeProjectionSchema,
  volumeSchema,
  volumeSourceNames,
  validateVolumes,
  validateVolumeSource,
  defaultVolumes,
  type VolumeContext,
} from "./internal/workloads-volumes.js";

/** `ContainerPort`: a network port of a container. */
export const containerPortSchema = named(
  z
    .object({
      containerPort: int32().optional().describe("Number of port to expose on the pod's IP address: 1 to 65535."),
      hostIP: optionalString("What host IP to bind the external port to."),
      hostPort: int32().optional().describe("Number of port to expose on the host: 1 to 65535."),
      name: optionalString("An IANA_SVC_NAME, unique within the pod."),
      protocol: z.string().default("TCP").describe("UDP, TCP (default) or SCTP."),
    })
    .meta({ description: "ContainerPort represents a network port in a single container.", required: ["containerPort"] }),
  "api.core.v1.ContainerPort",
);

/** `EnvVar`: an environment variable of a container, a value or a reference. */
export const envVarSchema = named(
  z
    .object({
      name: optionalString("Name of the environment variable."),
      value: optionalString("Value, with $(VAR_NAME) references expanded."),
      valueFrom: z
        .object({
          configMapKeyRef: z
            .object({
              key: optionalString("The key to select."),
              name: optionalString("Name of the referent."),
              optional: optionalBoolean("Whether the ConfigMap or its key must be defined."),
            })
            .optional()
            .describe("Selects a key of a ConfigMap."),
          fieldRef: objectFieldSelectorSchema.optional().describe("Selects a field of the pod."),
          resourceFieldRef: resourceFieldSelectorSchema.optional().describe("Selects a resource of the container."),
          secretKeyRef: z
            .object({
              key: optionalString("The key to select."),
              name: optionalString("Name of the referent."),
              optional: optionalBoolean("Whether the Secret or its key must be defined."),
            })
            .optional()
            .describe("Selects a key of a secret in the pod's namespace."),
        })
        .optional()
        .describe("Source for the environment variable's value; not with value."),
    })
    .meta({ description: "EnvVar represents an environment variable present in a Container.", required: ["name"] }),
  "api.core.v1.EnvVar",
);

/** `VolumeMount`: a volume of the pod mounted in a container. */
export const volumeMountSchema = named(
  z
    .object({
      mountPath: optionalString("Path within the container at which the volume should be mounted."),
      mountPropagation: optionalString("None, HostToContainer or Bidirectional."),
      name: optionalString("Must match the name of a volume of the pod."),
      readOnly: optionalBoolean("Mounted read-only if true."),
      recursiveReadOnly: optionalString("Disabled, IfPossible or Enabled."),
      subPath: optionalString("Path within the volume from which the container's volume should be mounted."),
      subPathExpr: optionalString("Expanded path within the volume; exclusive with subPath."),
    })
    .meta({ description: "VolumeMount describes a mounting of a Volume within a container.", required: ["name", "mountPath"] }),
  "api.core.v1.VolumeMount",
);

/** `ResourceRequirements`: a container's limits and requests. */
export const resourceRequirementsSchema = named(
  z
    .object({
      claims: listType(
        z.array(z.object({ name: optionalString("Name of a resource claim of the pod."), request: optionalString("The request of the claim.") })),
        "map",
        ["name"],
      )
        .optional()
        .describe("Dynamically allocated resources used by this container."),
      limits: resourceList().optional().describe("Maximum amount of compute resources allowed."),
      requests: resourceList().optional().describe("Minimum amount of compute resources required; defaults to limits."),
    })
    .meta({ description: "ResourceRequirements describes the compute resource requirements." }),
  "api.core.v1.ResourceRequirements",
);

/** `Container`: one container of a pod. */
export const containerSchema = named(
  z
    .object({
      args: listType(z.array(z.string()), "atomic").optional().describe("Arguments to the entrypoint."),
      command: listType(z.array(z.string()), "atomic").optional().describe("Entrypoint array; not executed within a shell."),
      env: patchStrategy(listType(z.array(envVarSchema), "map", ["name"]), "merge", "name")
        .optional()
        .describe("Environment variables to set in the container."),
      envFrom: listType(z.array(envFromSourceSchema), "atomic").optional().describe("Sources to populate environment variables in the container."),
      image: optionalString("Container image name."),
      imagePullPolicy: optionalString("Always, Never or IfNotPresent; Always for :latest, else IfNotPresent."),
      lifecycle: lifecycleSchema.optional().describe("Actions the management system takes in response to container lifecycle events."),
      livenessProbe: probeSchema.optional().describe("Periodic probe of container liveness."),
      name: optionalString("Name of the container, a DNS label unique within the pod."),
      ports: patchStrategy(listType(z.array(containerPortSchema), "map", ["containerPort", "protocol"]), "merge", "containerPort")
        .optional()
        .describe("Ports to expose from the container."),
      readinessProbe: probeSchema.optional().describe("Periodic probe of container service readiness."),
      resizePolicy: listType(z.array(containerResizePolicySchema), "atomic").optional().describe("Resources resize policy for the container."),
      resources: resourceRequirementsSchema.optional().describe("Compute resources required by this container."),
      restartPolicy: optionalString("Restart behaviour of an init container: Always."),
      securityContext: securityContextSchema.optional().describe("Security options the container should be run with."),
      startupProbe: probeSchema.optional().describe("Indicates that the pod has successfully initialized."),
      stdin: optionalBoolean("Allocate a buffer for stdin."),
      stdinOnce: optionalBoolean("Close stdin after the first attach."),
      terminationMessagePath: optionalString("Path of the file the termination message is written to, default /dev/termination-log."),
      terminationMessagePolicy: optionalString("File (default) or FallbackToLogsOnError."),
      tty: optionalBoolean("Allocate a TTY."),
      volumeDevices: patchStrategy(
        listType(
          z.array(z.object({ devicePath: optionalString("Path inside the container."), name: optionalString("Name of a persistentVolumeClaim of the pod.") })),
          "map",
          ["devicePath"],
        ),
        "merge",
        "devicePath",
      )
        .optional()
        .describe("Block devices to be used by the container."),
      volumeMounts: patchStrategy(listType(z.array(volumeMountSchema), "map", ["mountPath"]), "merge", "mountPath")
        .optional()
        .describe("Pod volumes to mount into the container's filesystem."),
      workingDir: optionalString("Container's working directory."),
    })
    .meta({ description: "A single application container that you want to run within a pod.", required: ["name"] }),
  "api.core.v1.Container",
);

/** `EphemeralContainer`: a container added to a running pod for debugging (no ports, probes, lifecycle or resources). */
export const ephemeralContainerSchema = named(
  containerSchema.extend({ targetContainerName: optionalString("The name of the container in the pod whose namespaces this container shares.") }).meta({
    description: "An EphemeralContainer is a temporary container added to an existing pod for user-initiated activities such as debugging.",
    required: ["name"],
  }),
  "api.core.v1.EphemeralContainer",
);

/** `PodSpec`. */
export const podSpecSchema = named(
  z
    .object({
      activeDeadlineSeconds: int64().optional().describe("Duration in seconds the pod may be active on the node; positive."),
      affinity: affinitySchema.optional().describe("The pod's scheduling constraints."),
      automountServiceAccountToken: optionalBoolean("Whether a service account token should be automatically mounted."),
      containers: patchStrategy(listType(z.array(containerSchema), "map", ["name"]), "merge", "name")
        .optional()
        .describe("List of containers belonging to the pod; at least one."),
      dnsConfig: podDNSConfigSchema.optional().describe("DNS parameters of a pod."),
      dnsPolicy: optionalString("ClusterFirstWithHostNet, ClusterFirst (default), Default or None."),
      enableServiceLinks: optionalBoolean("Whether information about services should be injected into pod's environment variables, default true."),
      ephemeralContainers: patchStrategy(listType(z.array(ephemeralContainerSchema), "map", ["name"]), "merge", "name")
        .optional()
        .describe("Ephemeral containers run in this pod (through the ephemeralcontainers sub-resource)."),
      hostAliases: patchStrategy(listType(z.array(hostAliasSchema), "map", ["ip"]), "merge", "ip")
        .optional()
        .describe("Hosts and IPs injected into the pod's hosts file."),
      hostIPC: optionalBoolean("Use the host's ipc namespace."),
      hostNetwork: optionalBoolean("Host networking requested for this pod."),
      hostPID: optionalBoolean("Use the host's pid namespace."),
      hostUsers: optionalBoolean("Use the host's user namespace."),
      hostname: optionalString("The hostname of the pod, a DNS label."),
      imagePullSecrets: patchStrategy(listType(z.array(localObjectReferenceSchema), "map", ["name"]), "merge", "name")
        .optional()
        .describe("References to secrets for pulling any of the images."),
      initContainers: patchStrategy(listType(z.array(containerSchema), "map", ["name"]), "merge", "name")
        .optional()
        .describe("Containers run in order before the app containers."),
      nodeName: optionalString("The node the pod is bound to (set by the scheduler through the binding sub-resource)."),
      nodeSelector: mapType(stringMap(), "atomic").optional().describe("Labels a node must carry for the pod to fit on it."),
      os: z
        .object({ name: optionalString("linux or windows.") })
        .optional()
        .describe("The OS of the containers in the pod."),
      overhead: resourceList().optional().describe("Resource overhead of running the pod's sandbox."),
      preemptionPolicy: optionalString("Never or PreemptLowerPriority."),
      priority: int32().optional().describe("The priority value, filled by the priority admission controller."),
      priorityClassName: optionalString("The pod's priority class."),
      readinessGates: listType(z.array(z.object({ conditionType: optionalString("A condition type of the pod's conditions.") })), "atomic")
        .optional()
        .describe("Pod readiness gates."),
      resourceClaims: patchStrategy(listType(z.array(podResourceClaimSchema), "map", ["name"]), "merge,retainKeys", "name")
        .optional()
        .describe("Resource claims of the pod."),
      resources: resourceRequirementsSchema.optional().describe("The total resources of the pod (pod-level requests and limits)."),
      restartPolicy: optionalString("Always (default), OnFailure or Never."),
      runtimeClassName: optionalString("The RuntimeClass used to run this pod."),
      schedulerName: optionalString("The scheduler that dispatches the pod, default default-scheduler."),
      schedulingGates: patchStrategy(listType(z.array(z.object({ name: optionalString("Name of the scheduling gate.") })), "map", ["name"]), "merge", "name")
        .optional()
        .describe("Gates that block scheduling while present."),
      securityContext: podSecurityContextSchema.optional().describe("Pod-level security attributes."),
      serviceAccount: optionalString("Deprecated alias of serviceAccountName."),
      serviceAccountName: optionalString("The service account the pod runs as."),
      setHostnameAsFQDN: optionalBoolean("The pod's hostname is its FQDN."),
      shareProcessNamespace: optionalBoolean("Share a single process namespace between all of the containers."),
      subdomain: optionalString("The pod's subdomain, a DNS label."),
      terminationGracePeriodSeconds: int64().optional().describe("Seconds the pod needs to terminate gracefully, default 30."),
      tolerations: listType(z.array(tolerationSchema), "atomic").optional().describe("The pod's tolerations."),
      topologySpreadConstraints: patchStrategy(
        listType(z.array(topologySpreadConstraintSchema), "map", ["topologyKey", "whenUnsatisfiable"]),
        "merge",
        "topologyKey",
      )
        .optional()
        .describe("How a group of pods ought to spread across topology domains."),
      volumes: patchStrategy(listType(z.array(volumeSchema), "map", ["name"]), "merge,retainKeys", "name")
        .optional()
        .describe("Volumes that can be mounted by containers of the pod."),
    })
    .meta({ description: "PodSpec is a description of a pod.", required: ["containers"] }),
  "api.core.v1.PodSpec",
);

/** `PodCondition`. */
export const podConditionSchema = named(
  z
    .object({
      lastProbeTime: time().optional().describe("Last time we probed the condition."),
      lastTransitionTime: time().optional().describe("Last time the condition transitioned."),
      message: optionalString("Human-readable message indicating details about last transition."),
      observedGeneration: int64().optional().describe("The generation the condition was set from."),
      reason: optionalString("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: optionalString("True, False or Unknown."),
      type: optionalString("PodScheduled, Initialized, ContainersReady, Ready, ..."),
    })
    .meta({ description: "PodCondition contains details for the current condition of this pod.", required: ["type", "status"] }),
  "api.core.v1.PodCondition",
);

/** `ContainerStatus`. */
export const containerStatusSchema = named(
  z
    .object({
      allocatedResources: resourceList().optional().describe("The compute resources allocated for this container by the node."),
      allocatedResourcesStatus: listType(
        z.array(
          z
            .object({
              name: optionalString("The resource name: a resource of the container's requests, or claim:<claim>/<request>."),
              resources: listType(
                z.array(
                  z
                    .object({
                      health: optionalString("Healthy, Unhealthy or Unknown."),
                      resourceID: optionalString("The unique identifier of the resource."),
                    })
                    .meta({ description: "ResourceHealth represents the health of a resource.", required: ["resourceID"] }),
                ),
                "map",
                ["resourceID"],
              )
                .optional()
                .describe("The health of each resource of this name."),
            })
            .meta({ description: "ResourceStatus represents the status of a single resource allocated to a Pod.", required: ["name"] }),
        ),
        "map",
        ["name"],
      )
        .optional()
        .describe("The status of the resources allocated to this container."),
      containerID: optionalString("Container's ID in the format '<type>://<container_id>'."),
      image: optionalString("The image the container is running."),
      imageID: optionalString("The image ID of the container's image."),
      lastState: containerStateSchema.optional().describe("Details about the container's last termination condition."),
      name: optionalString("Name of the container."),
      ready: optionalBoolean("Whether the container passed its readiness probe."),
      restartCount: int32().optional().describe("The number of times the container has been restarted."),
      resources: resourceRequirementsSchema.optional().describe("The compute resource requests and limits applied to the running container."),
      started: optionalBoolean("Whether the container has finished its postStart hook and passed its startup probe."),
      state: containerStateSchema.optional().describe("Details about the container's current condition: waiting, running or terminated."),
      stopSignal: optionalString("The signal the container is stopped with."),
      user: z
        .object({
          linux: z
            .object({
              gid: int64().optional().describe("The primary GID of the first process of the container."),
              supplementalGroups: listType(z.array(int64()), "atomic").optional().describe("The supplemental groups of the first process of the container."),
              uid: int64().optional().describe("The primary UID of the first process of the container."),
            })
            .meta({ description: "LinuxContainerUser represents user identity information in Linux containers", required: ["uid", "gid"] })
            .optional()
            .describe("The identity of the first process of a Linux container."),
        })
        .meta({ description: "ContainerUser represents user identity information" })
        .optional()
        .describe("The user identity of the container's first process, as the runtime reports it."),
      volumeMounts: patchStrategy(
        listType(
          z.array(
            z
              .object({
                mountPath: optionalString("Path within the container at which the volume was mounted."),
                name: optionalString("The name of the mounted volume."),
                readOnly: optionalBoolean("Whether the volume is mounted read-only."),
                recursiveReadOnly: optionalString("Disabled or Enabled."),
              })
              .meta({ description: "VolumeMountStatus shows status of volume mounts.", required: ["name", "mountPath"] }),
          ),
          "map",
          ["mountPath"],
        ),
        "merge",
        "mountPath",
      )
        .optional()
        .describe("The status of the container's volume mounts."),
    })
    .meta({
      description: "ContainerStatus contains details for the current status of this container.",
      required: ["name", "ready", "restartCount", "image", "imageID"],
    }),
  "api.core.v1.ContainerStatus",
);

const podIPSchema = z.object({ ip: optionalString("An IP address allocated to the pod.") });

/** `PodStatus`. */
export const podStatusSchema = named(
  z
    .object({
      conditions: patchStrategy(listType(z.array(podConditionSchema), "map", ["type"]), "merge", "type")
        .optional()
        .describe("Current service state of pod."),
      containerStatuses: listType(z.array(containerStatusSchema), "atomic").optional().describe("The status of each container."),
      ephemeralContainerStatuses: listType(z.array(containerStatusSchema), "atomic").optional().describe("The status of each ephemeral container."),
      hostIP: optionalString("The IP address of the host the pod is assigned to."),
      hostIPs: patchStrategy(listType(z.array(podIPSchema), "atomic"), "merge", "ip")
        .optional()
        .describe("The IP addresses of the host."),
      initContainerStatuses: listType(z.array(containerStatusSchema), "atomic").optional().describe("The status of each init container."),
      message: optionalString("A human readable message indicating details about why the pod is in this condition."),
      nominatedNodeName: optionalString("The node the scheduler nominated the pod for when it preempted others."),
      observedGeneration: int64().optional().describe("The generation this status was set from."),
      phase: optionalString("Pending, Running, Succeeded, Failed or Unknown."),
      podIP: optionalString("The IP address allocated to the pod."),
      podIPs: patchStrategy(listType(z.array(podIPSchema), "map", ["ip"]), "merge", "ip")
        .optional()
        .describe("The IP addresses allocated to the pod."),
      qosClass: optionalString("Guaranteed, Burstable or BestEffort."),
      reason: optionalString("A brief CamelCase message indicating details about why the pod is in this state."),
      resize: optionalString("Status of the desired resource resize."),
      resourceClaimStatuses: patchStrategy(
        listType(
          z.array(
            z
              .object({
                name: optionalString("The name of a resource claim of the pod's spec."),
                resourceClaimName: optionalString("The name of the ResourceClaim generated for the pod, if any."),
              })
              .meta({ description: "PodResourceClaimStatus is stored in the PodStatus for each PodResourceClaim.", required: ["name"] }),
          ),
          "map",
          ["name"],
        ),
        "merge,retainKeys",
        "name",
      )
        .optional()
        .describe("The status of the resource claims."),
      startTime: time().optional().describe("When the object was acknowledged by the node agent."),
    })
    .meta({ description: "PodStatus represents information about the status of a pod." }),
  "api.core.v1.PodStatus",
);

/** The zod schema of a Pod in `v1`. */
export const podV1Schema = kindSchema(
  {
    spec: podSpecSchema.optional().describe("Specification of the desired behavior of the pod."),
    status: podStatusSchema.optional().describe("Most recently observed status of the pod."),
  },
  "Pod is a collection of containers that can run on a host.",
);

/** The zod schema of an `Eviction` in `policy/v1` (the body of `pods/{name}/eviction`). */
export const evictionV1Schema = kindSchema(
  { deleteOptions: deleteOptionsSchema.optional().describe("DeleteOptions may be provided.") },
  "Eviction evicts a pod from its node subject to certain policies and safety constraints.",
);

/** The phases of a pod. */
export const podPhases = ["Pending", "Running", "Succeeded", "Failed", "Unknown"] as const;

function spec(object: APIObject): Record<string, unknown> {
  const s = record(object["spec"]);
  if (s) return s;
  const fresh: Record<string, unknown> = {};
  object["spec"] = fresh;
  return fresh;
}

function containersOf(s: Record<string, unknown>): Record<string, unknown>[] {
  return [...list(s["initContainers"]), ...list(s["containers"])].map((c) => record(c) ?? {});
}

function allContainersOf(s: Record<string, unknown>): Record<string, unknown>[] {
  return [...containersOf(s), ...list(s["ephemeralContainers"]).map((c) => record(c) ?? {})];
}

function setDefault(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === undefined) target[key] = value;
}

function defaultPullPolicy(image: string): string {
  if (image === "") return "IfNotPresent";
  const lastSegment = image.slice(image.lastIndexOf("/") + 1);
  if (lastSegment.includes("@")) return "IfNotPresent";
  const colon = lastSegment.lastIndexOf(":");
  const tag = colon >= 0 ? lastSegment.slice(colon + 1) : "";
  return tag === "" || tag === "latest" ? "Always" : "IfNotPresent";
}

/**
 * The reference's Pod defaults, in place: `restartPolicy` Always, `dnsPolicy` ClusterFirst,
 * `terminationGracePeriodSeconds` 30, `schedulerName` default-scheduler, `securityContext` {},
 * `enableServiceLinks` true, `serviceAccount` mirrors `serviceAccountName`; per container
 * `terminationMessagePath` /dev/termination-log, `terminationMessagePolicy` File,
 * `imagePullPolicy` (Always for `:latest` or no tag, else IfNotPresent), port `protocol` TCP
 * (`hostPort` = `containerPort` with host networking), requests default to limits, `fieldRef`
 * `apiVersion` v1, probe timing (timeout 1, period 10, success 1, failure 3) and `httpGet`
 * path `/` and scheme HTTP in probes and lifecycle hooks (ephemeral containers included); and
 * the volume defaults of `defaultVolumes`.
 */
export function defaultPod(object: APIObject): void {
  const s = spec(object);
  setDefault(s, "restartPolicy", "Always");
  setDefault(s, "dnsPolicy", "ClusterFirst");
  setDefault(s, "terminationGracePeriodSeconds", 30);
  setDefault(s, "schedulerName", "default-scheduler");
  setDefault(s, "securityContext", {});
  setDefault(s, "enableServiceLinks", true);
  const sa = str(s["serviceAccountName"]) || str(s["serviceAccount"]);
  if (sa !== "") {
    s["serviceAccountName"] = sa;
    s["serviceAccount"] = sa;
  }
  for (const c of allContainersOf(s)) {
    defaultContainerHandlers(c);
    setDefault(c, "terminationMessagePath", "/dev/termination-log");
    setDefault(c, "terminationMessagePolicy", "File");
    setDefault(c, "imagePullPolicy", defaultPullPolicy(str(c["image"])));
    for (const p of list(c["ports"])) {
      const port = record(p);
      if (!port) continue;
      setDefault(port, "protocol", "TCP");
      if (s["hostNetwork"] === true && port["hostPort"] === undefined && port["containerPort"] !== undefined) port["hostPort"] = port["containerPort"];
    }
    const resources = record(c["resources"]);
    const limits = record(resources?.["limits"]);
    if (resources && limits && Object.keys(limits).length) {
      const requests = record(resources["requests"]) ?? {};
      for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) requests[k] = v;
      resources["requests"] = requests;
    }
    for (const e of list(c["env"])) defaultFieldRef(record(record(record(e)?.["valueFrom"])?.["fieldRef"]));
  }
  defaultVolumes(s["volumes"]);
}

/** The pod's quality-of-service class from its containers' requests and limits. */
export function podQOSClass(object: APIObject): "Guaranteed" | "Burstable" | "BestEffort" {
  const s = record(object["spec"]) ?? {};
  let any = false;
  let guaranteed = true;
  for (const c of containersOf(s)) {
    const resources = record(c["resources"]) ?? {};
    const requests = record(resources["requests"]) ?? {};
    const limits = record(resources["limits"]) ?? {};
    for (const [k, v] of Object.entries(requests)) {
      if ((k === "cpu" || k === "memory") && !quantityOf(v)?.isZero()) any = true;
    }
    for (const [k, v] of Object.entries(limits)) if ((k === "cpu" || k === "memory") && !quantityOf(v)?.isZero()) any = true;
    for (const k of ["cpu", "memory"]) {
      const l = quantityOf(limits[k]);
      const r = quantityOf(requests[k] ?? limits[k]);
      if (!l || !r || !l.equals(r)) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

const restartPolicies = ["Always", "OnFailure", "Never"];
const dnsPolicies = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const protocols = ["SCTP", "TCP", "UDP"];
const pullPolicies = ["Always", "IfNotPresent", "Never"];
const terminationMessagePolicies = ["File", "FallbackToLogsOnError"];
const propagationModes = ["Bidirectional", "HostToContainer", "None"];
const envFieldPaths = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
];
const envVarNameMessage =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

function validatePorts(ports: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  list(ports).forEach((item, i) => {
    const p = record(item) ?? {};
    const at = path.index(i);
    const name = str(p["name"]);
    if (name !== "") {
      const msgs = portNameMessages(name);
      if (msgs.length) for (const m of msgs) errors.push(invalidField(at.child("name"), name, m));
      else if (names.has(name)) errors.push(duplicateField(at.child("name"), name));
      else names.add(name);
    }
    if (p["containerPort"] === undefined || p["containerPort"] === 0) errors.push(requiredField(at.child("containerPort")));
    else errors.push(...validatePortNumber(p["containerPort"], at.child("containerPort")));
    if (p["hostPort"] !== undefined && p["hostPort"] !== 0) errors.push(...validatePortNumber(p["hostPort"], at.child("hostPort")));
    const protocol = str(p["protocol"]);
    if (protocol === "") errors.push(requiredField(at.child("protocol")));
    else if (!protocols.includes(protocol)) errors.push(notSupportedField(at.child("protocol"), protocol, protocols));
  });
  return errors;
}

function validateKeySelector(ref: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (str(ref["name"]) === "") errors.push(requiredField(path.child("name")));
  const key = str(ref["key"]);
  if (key === "") errors.push(requiredField(path.child("key")));
  else for (const m of configKeyMessages(key)) errors.push(invalidField(path.child("key"), key, m));
  return errors;
}

function validateEnv(env: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  list(env).forEach((item, i) => {
    const e = record(item) ?? {};
    const at = path.index(i);
    const name = str(e["name"]);
    if (name === "") errors.push(requiredField(at.child("name")));
    else {
      if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(name)) errors.push(invalidField(at.child("name"), name, envVarNameMessage));
      if (name === ".") errors.push(invalidField(at.child("name"), name, "must not be '.'"));
      else if (name === "..") errors.push(invalidField(at.child("name"), name, "must not be '..'"));
      else if (name.startsWith("..")) errors.push(invalidField(at.child("name"), name, "must not start with '..'"));
    }
    const from = record(e["valueFrom"]);
    if (!from) return;
    const fp = at.child("valueFrom");
    let count = 0;
    const fieldRef = record(from["fieldRef"]);
    if (fieldRef) {
      count++;
      const fieldPath = str(fieldRef["fieldPath"]);
      const subscripted = /^metadata\.(labels|annotations)\[/.test(fieldPath);
      errors.push(...validateObjectFieldSelector(fieldRef, subscripted ? ["metadata.annotations", "metadata.labels"] : envFieldPaths, fp.child("fieldRef")));
    }
    const resourceRef = record(from["resourceFieldRef"]);
    if (resourceRef) {
      count++;
      errors.push(...validateResourceFieldSelector(resourceRef, false, fp.child("resourceFieldRef")));
    }
    for (const k of ["configMapKeyRef", "secretKeyRef"]) {
      const ref = record(from[k]);
      if (!ref) continue;
      count++;
      errors.push(...validateKeySelector(ref, fp.child(k)));
    }
    if (count > 1) errors.push(invalidField(fp, "", "may not have more than one field specified at a time"));
    if (str(e["value"]) !== "" && count !== 0) errors.push(invalidField(fp, "", "may not be specified when `value` is not empty"));
  });
  return errors;
}

function validateVolumeMounts(mounts: unknown, volumes: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const mountPoints = new Set<string>();
  list(mounts).forEach((item, i) => {
    const m = record(item) ?? {};
    const at = path.index(i);
    const name = str(m["name"]);
    if (name === "") errors.push(requiredField(at.child("name")));
    // The reference reports `Not found`; @orch/meta has no such error type, so it is an invalid value.
    if (!volumes.has(name)) errors.push(invalidField(at.child("name"), name, "not found"));
    const mountPath = str(m["mountPath"]);
    if (mountPath === "") errors.push(requiredField(at.child("mountPath")));
    if (mountPath !== "" && mountPoints.has(mountPath)) errors.push(invalidField(at.child("mountPath"), mountPath, "must be unique"));
    mountPoints.add(mountPath);
    // As the reference: the sub-path errors are reported on the list's path, not the item's.
    const subPath = str(m["subPath"]);
    if (subPath !== "") errors.push(...validateLocalDescendingPath(subPath, path.child("subPath")));
    const expr = str(m["subPathExpr"]);
    if (expr !== "") {
      if (subPath !== "") errors.push(invalidField(at.child("subPathExpr"), expr, "subPathExpr and subPath are mutually exclusive"));
      errors.push(...validateLocalDescendingPath(expr, path.child("subPathExpr")));
    }
    const propagation = m["mountPropagation"];
    if (propagation !== undefined && !propagationModes.includes(str(propagation))) {
      errors.push(notSupportedField(at.child("mountPropagation"), propagation, propagationModes));
    }
  });
  return errors;
}

function validateResources(resources: unknown, path: FieldPath): FieldError[] {
  const r = record(resources);
  if (!r) return [];
  const errors: FieldError[] = [];
  const limits = record(r["limits"]) ?? {};
  const requests = record(r["requests"]) ?? {};
  const limitsPath = path.child("limits");
  const requestsPath = path.child("requests");
  for (const k in limits) {
    const at = limitsPath.key(k);
    errors.push(...validateContainerResourceName(k, at), ...validateNonNegativeQuantity(limits[k], at));
  }
  for (const k in requests) {
    const at = requestsPath.key(k);
    const v = requests[k];
    errors.push(...validateContainerResourceName(k, at), ...validateNonNegativeQuantity(v, at));
    const request = quantityOf(v);
    if (!request) continue;
    const limit = quantityOf(limits[k]);
    const overcommit = !k.startsWith("hugepages-");
    if (limit) {
      if (!overcommit && request.cmp(limit) !== 0) {
        errors.push(invalidField(at, request.toString(), `must be equal to ${k} limit of ${limit.toString()}`));
      } else if (request.cmp(limit) > 0) {
        errors.push(invalidField(at, request.toString(), `must be less than or equal to ${k} limit of ${limit.toString()}`));
      }
    } else if (!overcommit) {
      errors.push(requiredField(limitsPath.key(k), "Limit must be set for non overcommitable resources"));
    }
  }
  return errors;
}

function validateEnvFrom(envFrom: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  list(envFrom).forEach((item, i) => {
    const e = record(item) ?? {};
    const at = path.index(i);
    const prefix = str(e["prefix"]);
    if (prefix !== "" && !/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(prefix)) errors.push(invalidField(at.child("prefix"), prefix, envVarNameMessage));
    let count = 0;
    for (const k of ["configMapRef", "secretRef"]) {
      const ref = record(e[k]);
      if (!ref) continue;
      count++;
      const name = str(ref["name"]);
      if (name === "") errors.push(requiredField(at.child(k).child("name")));
      else errors.push(...validateDNS1123Subdomain(name, at.child(k).child("name")));
    }
    if (count === 0) errors.push(invalidField(path, "", "must specify one of: `configMapRef` or `secretRef`"));
    else if (count > 1) errors.push(invalidField(path, "", "may not have more than one field specified at a time"));
  });
  return errors;
}

/** What the rules of one container need to know of its pod. */
interface ContainerContext {
  volumes: ReadonlySet<string>;
  names: Set<string>;
  /** The pod's `terminationGracePeriodSeconds`, the bound of a `sleep` hook. */
  grace: number | undefined;
  restartPolicy: string;
  /** False when the pod has its own user namespace (`hostUsers: false`). */
  hostUsers: boolean;
}

// The fields an ephemeral container may not set (the reference allows a list of the others).
const ephemeralForbidden = ["ports", "resources", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "resizePolicy", "restartPolicy"];

function validateContainerHandlers(c: Record<string, unknown>, at: FieldPath, ctx: ContainerContext): FieldError[] {
  const errors: FieldError[] = [];
  if (c["lifecycle"] !== undefined) errors.push(...validateLifecycle(c["lifecycle"], ctx.grace, at.child("lifecycle")));
  for (const kind of ["livenessProbe", "readinessProbe", "startupProbe"] as const) errors.push(...validateProbe(kind, c[kind], ctx.grace, at.child(kind)));
  return errors;
}

function validateContainers(containers: unknown, path: FieldPath, kind: "regular" | "init" | "ephemeral", ctx: ContainerContext): FieldError[] {
  const errors: FieldError[] = [];
  const { volumes, names } = ctx;
  list(containers).forEach((item, i) => {
    const c = record(item) ?? {};
    const at = path.index(i);
    const name = str(c["name"]);
    if (name === "") errors.push(requiredField(at.child("name")));
    else {
      errors.push(...validateDNS1123Label(name, at.child("name")));
      if (names.has(name)) errors.push(duplicateField(at.child("name"), name));
      names.add(name);
    }
    if (str(c["image"]).trim() === "") errors.push(requiredField(at.child("image")));
    const tmp = str(c["terminationMessagePolicy"]);
    if (tmp === "") errors.push(requiredField(at.child("terminationMessagePolicy")));
    else if (!terminationMessagePolicies.includes(tmp)) errors.push(notSupportedField(at.child("terminationMessagePolicy"), tmp, terminationMessagePolicies));
    const pull = str(c["imagePullPolicy"]);
    if (pull === "") errors.push(requiredField(at.child("imagePullPolicy")));
    else if (!pullPolicies.includes(pull)) errors.push(notSupportedField(at.child("imagePullPolicy"), pull, pullPolicies));
    errors.push(...validatePorts(c["ports"], at.child("ports")));
    errors.push(...validateEnv(c["env"], at.child("env")));
    errors.push(...validateEnvFrom(c["envFrom"], at.child("envFrom")));
    errors.push(...validateVolumeMounts(c["volumeMounts"], volumes, at.child("volumeMounts")));
    errors.push(...validateResources(c["resources"], at.child("resources")));
    errors.push(...validateResizePolicy(c["resizePolicy"], ctx.restartPolicy, at.child("resizePolicy")));
    errors.push(...validateContainerSecurityContext(c["securityContext"], ctx.hostUsers, at.child("securityContext")));
    const restart = c["restartPolicy"];
    if (kind === "regular") {
      errors.push(...validateContainerHandlers(c, at, ctx));
      if (restart !== undefined) errors.push(forbiddenField(at.child("restartPolicy"), "may not be set for non-init containers"));
    } else if (kind === "init") {
      if (restart !== undefined && restart !== "Always") errors.push(notSupportedField(at.child("restartPolicy"), restart, ["Always"]));
      if (restart === "Always") errors.push(...validateContainerHandlers(c, at, ctx));
      else {
        for (const k of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"]) {
          if (c[k] !== undefined) errors.push(forbiddenField(at.child(k), "may not be set for init containers without restartPolicy=Always"));
        }
      }
    } else {
      const target = str(c["targetContainerName"]);
      if (target !== "" && !ctx.names.has(target)) errors.push(invalidField(at.child("targetContainerName"), target, "not found"));
      for (const k of ephemeralForbidden) {
        const v = c[k];
        const empty = v === undefined || (Array.isArray(v) && v.length === 0) || (record(v) !== undefined && Object.keys(record(v) ?? {}).length === 0);
        if (!empty) errors.push(forbiddenField(at.child(k), "cannot be set for an Ephemeral Container"));
      }
      list(c["volumeMounts"]).forEach((m, j) => {
        for (const k of ["subPath", "subPathExpr"]) {
          if (str(record(m)?.[k]) !== "") errors.push(forbiddenField(at.child("volumeMounts").index(j).child(k), "cannot be set for an Ephemeral Container"));
        }
      });
    }
  });
  return errors;
}

/**
 * The Pod rules beyond metadata (pair with `validateObjectMeta`), for create and update alike,
 * as the reference's `ValidatePodSpec`: the volumes (names, exactly one source, each source's
 * rules), at least one container, container names unique DNS labels, images, ports, env,
 * resources, mounts naming a volume, `restartPolicy`, `dnsPolicy`, `activeDeadlineSeconds`,
 * node selector labels, service account and node names, hostname and subdomain, tolerations,
 * probes and lifecycle handlers, security contexts, affinity, topology spread constraints, DNS
 * configuration, resize policies, resource claims, readiness and scheduling gates, host aliases,
 * the OS and ephemeral containers. Expects a defaulted object (see {@link defaultPod}).
 */
export function validatePod(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const s = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const { errors, names: volumeNames } = validateVolumes(s["volumes"], path.child("volumes"), { domain: ctx?.domain ?? "orch.io" });
  const grace = s["terminationGracePeriodSeconds"];
  const restart = str(s["restartPolicy"]);
  const hostUsers = s["hostUsers"] !== false;
  const containerCtx: ContainerContext = {
    volumes: volumeNames,
    names: new Set<string>(),
    grace: typeof grace === "number" ? grace : undefined,
    restartPolicy: restart,
    hostUsers,
  };
  errors.push(...validatePodResourceClaims(s["resourceClaims"], path.child("resourceClaims")));
  errors.push(...validateContainers(s["initContainers"], path.child("initContainers"), "init", containerCtx));
  if (list(s["containers"]).length === 0) errors.push(requiredField(path.child("containers")));
  errors.push(...validateContainers(s["containers"], path.child("containers"), "regular", containerCtx));
  errors.push(...validateContainers(s["ephemeralContainers"], path.child("ephemeralContainers"), "ephemeral", containerCtx));
  if (restart === "") errors.push(requiredField(path.child("restartPolicy")));
  else if (!restartPolicies.includes(restart)) errors.push(notSupportedField(path.child("restartPolicy"), restart, restartPolicies));
  const dns = str(s["dnsPolicy"]);
  if (dns === "") errors.push(requiredField(path.child("dnsPolicy")));
  else if (!dnsPolicies.includes(dns)) errors.push(notSupportedField(path.child("dnsPolicy"), dns, dnsPolicies));
  errors.push(...validatePodSecurityContext(s["securityContext"], s, path.child("securityContext")));
  errors.push(...validateAffinity(s["affinity"], path.child("affinity")));
  errors.push(...validatePodDNSConfig(s["dnsConfig"], dns, path.child("dnsConfig")));
  errors.push(...validateReadinessGates(s["readinessGates"], path.child("readinessGates")));
  errors.push(...validateTopologySpreadConstraints(s["topologySpreadConstraints"], path.child("topologySpreadConstraints")));
  errors.push(...validateHostAliases(s["hostAliases"], path.child("hostAliases")));
  errors.push(...validateOS(s["os"], path.child("os")));
  if (!hostUsers) {
    for (const f of ["hostNetwork", "hostPID", "hostIPC"]) {
      if (s[f] === true) errors.push(forbiddenField(path.child(f === "hostNetwork" ? f : f.replace("host", "Host")), "when `pod.Spec.HostUsers` is false"));
    }
  }
  const deadline = s["activeDeadlineSeconds"];
  if (typeof deadline === "number" && (deadline < 1 || deadline > 2147483647)) {
    errors.push(invalidField(path.child("activeDeadlineSeconds"), deadline, "must be between 1 and 2147483647, inclusive"));
  }
  const selector = record(s["nodeSelector"]);
  if (selector) errors.push(...validateLabels(selector as Record<string, string>, path.child("nodeSelector")));
  for (const f of ["serviceAccountName", "nodeName"]) {
    const v = str(s[f]);
    if (v !== "") errors.push(...validateDNS1123Subdomain(v, path.child(f)));
  }
  for (const f of ["hostname", "subdomain"]) {
    const v = str(s[f]);
    if (v !== "") errors.push(...validateDNS1123Label(v, path.child(f)));
  }
  if (typeof grace === "number" && grace < 0)
    errors.push(invalidField(path.child("terminationGracePeriodSeconds"), grace, "must be greater than or equal to 0"));
  errors.push(...validateTolerations(s["tolerations"], path.child("tolerations")));
  list(s["imagePullSecrets"]).forEach((ref, i) => {
    if (str(record(ref)?.["name"]) === "") errors.push(requiredField(path.child("imagePullSecrets").index(i).child("name")));
  });
  errors.push(...validateSchedulingGates(s["schedulingGates"], path.child("schedulingGates")));
  return errors;
}

/** The message of a forbidden change of the pod spec, as the reference words it. */
export const podSpecUpdateMessage =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

function validateOnlyAddedTolerations(now: unknown, old: unknown, path: FieldPath): FieldError[] {
  const added = list(now).map((t) => record(t) ?? {});
  for (const o of list(old)) {
    const oldT = record(o) ?? {};
    const found = added.some((n) => jsonEqual({ ...oldT, tolerationSeconds: n["tolerationSeconds"] }, n));
    if (!found) return [forbiddenField(path, "existing toleration can not be modified except its tolerationSeconds")];
  }
  return [];
}

/**
 * The rules of a Pod's create beyond {@link validatePod} (the reference's `ValidatePodCreate`):
 * ephemeral containers come only through the `ephemeralcontainers` sub-resource,
 * `spec.ephemeralContainers: Forbidden: cannot be set on create`.
 */
export function validatePodCreate(object: APIObject): FieldError[] {
  const ephemeral = record(object["spec"])?.["ephemeralContainers"];
  return Array.isArray(ephemeral) && ephemeral.length > 0
    ? [forbiddenField(FieldPath.root("spec").child("ephemeralContainers"), "cannot be set on create")]
    : [];
}

/**
 * The Pod rules an update adds (the reference's `ValidatePodUpdate`): no container added or
 * removed; `activeDeadlineSeconds` may be set, lowered, never raised nor unset; tolerations may
 * only be added (or change their `tolerationSeconds`); any other spec change is forbidden at
 * `spec` with {@link podSpecUpdateMessage}.
 */
export function validatePodUpdate(object: APIObject, old: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const path = FieldPath.root("spec");
  const s = record(object["spec"]) ?? {};
  const o = record(old["spec"]) ?? {};
  if (list(s["containers"]).length !== list(o["containers"]).length) {
    return [forbiddenField(path.child("containers"), "pod updates may not add or remove containers")];
  }
  const deadline = s["activeDeadlineSeconds"];
  const oldDeadline = o["activeDeadlineSeconds"];
  if (typeof deadline === "number") {
    if (deadline < 0 || deadline > 2147483647)
      return [invalidField(path.child("activeDeadlineSeconds"), deadline, "must be between 0 and 2147483647, inclusive")];
    if (typeof oldDeadline === "number" && oldDeadline < deadline) {
      return [invalidField(path.child("activeDeadlineSeconds"), deadline, "must be less than or equal to previous value")];
    }
  } else if (typeof oldDeadline === "number") {
    errors.push(invalidField(path.child("activeDeadlineSeconds"), null, "must not update from a positive integer to nil value"));
  }
  // Compare the old spec with the mutable fields of the new one copied in.
  const merged = structuredClone(o);
  for (const key of ["containers", "initContainers"]) {
    const newList = list(s[key]);
    const oldList = list(merged[key]);
    oldList.forEach((c, i) => {
      const oc = record(c);
      const nc = record(newList[i]);
      if (oc && nc) oc["image"] = nc["image"];
    });
  }
  merged["activeDeadlineSeconds"] = s["activeDeadlineSeconds"];
  if (merged["activeDeadlineSeconds"] === undefined) delete merged["activeDeadlineSeconds"];
  merged["tolerations"] = s["tolerations"];
  if (merged["tolerations"] === undefined) delete merged["tolerations"];
  if (typeof o["terminationGracePeriodSeconds"] === "number" && o["terminationGracePeriodSeconds"] < 0 && s["terminationGracePeriodSeconds"] === 1) {
    merged["terminationGracePeriodSeconds"] = 1;
  }
  // Scheduling gates may only be removed.
  const gates = list(s["schedulingGates"]);
  if (gates.every((g) => list(o["schedulingGates"]).some((og) => jsonEqual(og, g)))) {
    if (s["schedulingGates"] === undefined) delete merged["schedulingGates"];
    else merged["schedulingGates"] = s["schedulingGates"];
  }
  if (!jsonEqual(merged, s)) errors.push(forbiddenField(path, podSpecUpdateMessage));
  errors.push(...validateOnlyAddedTolerations(s["tolerations"], o["tolerations"], path.child("tolerations")));
  return errors;
}

/**
 * The rules of a write to `/status` (the reference's `ValidatePodStatusUpdate`, in part):
 * `status.nominatedNodeName` a DNS subdomain, `status.phase` one of the phases.
 */
export function validatePodStatusUpdate(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const status = record(object["status"]) ?? {};
  const path = FieldPath.root("status");
  const nominated = str(status["nominatedNodeName"]);
  if (nominated !== "") errors.push(...validateDNS1123Subdomain(nominated, path.child("nominatedNodeName")));
  const phase = status["phase"];
  if (phase !== undefined && phase !== "" && !(podPhases as readonly string[]).includes(str(phase))) {
    errors.push(notSupportedField(path.child("phase"), phase, podPhases));
  }
  return errors;
}

/**
 * The rule of the pod write the `binding` action makes: the spec may change only in
 * `spec.nodeName`, from empty to a node name (`spec: Forbidden` otherwise).
 */
export function validatePodBindingUpdate(object: APIObject, old: APIObject): FieldError[] {
  const s = { ...(record(object["spec"]) ?? {}) };
  const o = { ...(record(old["spec"]) ?? {}) };
  if (str(o["nodeName"]) !== "" || str(s["nodeName"]) === "") return jsonEqual(s, o) ? [] : [forbiddenField(FieldPath.root("spec"), podSpecUpdateMessage)];
  delete s["nodeName"];
  delete o["nodeName"];
  return jsonEqual(s, o) ? [] : [forbiddenField(FieldPath.root("spec"), podSpecUpdateMessage)];
}

/**
 * The rules of a write to `pods/{name}/ephemeralcontainers` (the reference's
 * `ValidatePodEphemeralContainersUpdate`, beyond the pod's own rules): ephemeral containers may
 * only be added; an existing one removed or changed is forbidden at `spec.ephemeralContainers`.
 */
export function validatePodEphemeralContainersUpdate(object: APIObject, old: APIObject): FieldError[] {
  const path = FieldPath.root("spec").child("ephemeralContainers");
  const now = new Map(list(record(object["spec"])?.["ephemeralContainers"]).map((c) => [str(record(c)?.["name"]), c] as const));
  const errors: FieldError[] = [];
  for (const c of list(record(old["spec"])?.["ephemeralContainers"])) {
    const name = str(record(c)?.["name"]);
    const next = now.get(name);
    if (next === undefined) errors.push(forbiddenField(path, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!jsonEqual(next, c)) errors.push(forbiddenField(path, `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
  }
  return errors;
}

// A write to the ephemeralcontainers sub-resource changes only spec.ephemeralContainers.
function prepareForEphemeralContainersUpdate(object: APIObject, old: APIObject): void {
  const ephemeral = record(object["spec"])?.["ephemeralContainers"];
  const s = structuredClone(record(old["spec"]) ?? {});
  if (ephemeral === undefined) delete s["ephemeralContainers"];
  else s["ephemeralContainers"] = ephemeral;
  object["spec"] = s;
  if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
  else delete object["status"];
}

function prepareForCreate(object: APIObject): void {
  object["status"] = { phase: "Pending", qosClass: podQOSClass(object) };
}

function prepareForUpdate(object: APIObject, old: APIObject): void {
  if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
  else delete object["status"];
}

function prepareForStatusUpdate(object: APIObject, old: APIObject): void {
  if (old["spec"] !== undefined) object["spec"] = structuredClone(old["spec"]);
  else delete object["spec"];
}

function successStatus(code: number): Status {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code } as Status;
}

/**
 * `POST pods/{name}/binding`: binds the pod to `target.name` (sets `spec.nodeName`, copies the
 * binding's annotations, adds condition `PodScheduled` True) and answers 201 with a Success
 * Status. A pod already bound, or being deleted, is a 409 Conflict on `pods/binding`.
 */
export const podBindingAction: ActionSubresource = {
  kind: "Binding",
  apiVersion: "v1",
  schema: bindingV1Schema,
  act(parent, body) {
    const errors = validateBinding(body);
    if (errors.length) return errors;
    const name = parent.metadata?.name ?? "";
    const bodyName = body.metadata?.name;
    if (bodyName && bodyName !== name) throw badRequest("name in URL does not match name in Binding object");
    const qr = { group: "", resource: "pods/binding" };
    if (parent.metadata?.deletionTimestamp) throw conflict(qr, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    const s = spec(parent);
    const current = str(s["nodeName"]);
    if (current !== "") throw conflict(qr, name, `pod ${name} is already assigned to node "${current}"`);
    s["nodeName"] = str(record(body["target"])?.["name"]);
    const annotations = body.metadata?.annotations;
    if (annotations && Object.keys(annotations).length)
      parent.metadata = { ...parent.metadata, annotations: { ...(parent.metadata?.annotations ?? {}), ...annotations } };
    const status = record(parent["status"]) ?? {};
    const conditions = list(status["conditions"]).filter((c) => record(c)?.["type"] !== "PodScheduled");
    conditions.push({ type: "PodScheduled", status: "True" });
    status["conditions"] = conditions;
    parent["status"] = status;
    return { code: 201, body: successStatus(201), parent: "update" };
  },
};

/**
 * `POST pods/{name}/eviction`: deletes the pod when the PodDisruptionBudgets that select it allow
 * (`checkPodDisruptionBudgets`: a 429 when one does not, counting the eviction down in its
 * status when it does) and answers 201 with a Success Status. A body naming another pod is a 400.
 */
export const podEvictionAction: ActionSubresource = {
  kind: "Eviction",
  apiVersion: "policy/v1",
  schema: evictionV1Schema,
  async act(parent, body, ctx) {
    const name = parent.metadata?.name ?? "";
    const bodyName = body.metadata?.name;
    if (bodyName && bodyName !== name) throw badRequest("name in URL does not match name in Eviction object");
    const dryRun = list(record(body["deleteOptions"])?.["dryRun"]).length > 0;
    await checkPodDisruptionBudgets(parent, dryRun ? { ...ctx, dryRun } : ctx);
    // A dry run asked for in the body's options deletes nothing, as one asked for in the query.
    return { code: 201, body: successStatus(201), parent: dryRun ? "none" : "delete" };
  },
};

function containerStatuses(object: APIObject, key: string): Record<string, unknown>[] {
  return list(record(object["status"])?.[key]).map((c) => record(c) ?? {});
}

/** The READY cell: ready containers over containers (`1/2`). */
export function podReadyCell(object: APIObject): string {
  const total = list(record(object["spec"])?.["containers"]).length;
  const ready = containerStatuses(object, "containerStatuses").filter((c) => c["ready"] === true).length;
  return `${ready}/${total}`;
}

/** The RESTARTS cell: the sum of the containers' restart counts. */
export function podRestartsCell(object: APIObject): string {
  let restarts = 0;
  for (const c of [...containerStatuses(object, "initContainerStatuses"), ...containerStatuses(object, "containerStatuses")]) {
    if (typeof c["restartCount"] === "number") restarts += c["restartCount"];
  }
  return String(restarts);
}

/** The STATUS cell as kubectl prints it: reason, init progress, waiting/terminated reasons, Terminating. */
export function podStatusCell(object: APIObject): string {
  const status = record(object["status"]) ?? {};
  let reason = str(status["reason"]) || str(status["phase"]);
  const inits = containerStatuses(object, "initContainerStatuses");
  const initTotal = list(record(object["spec"])?.["initContainers"]).length;
  let initializing = false;
  inits.forEach((c, i) => {
    if (initializing) return;
    const state = record(c["state"]) ?? {};
    const terminated = record(state["terminated"]);
    const waiting = record(state["waiting"]);
    if (terminated && terminated["exitCode"] === 0) return;
    if (terminated) {
      reason = `Init:${str(terminated["reason"]) || (typeof terminated["signal"] === "number" && terminated["signal"] !== 0 ? `Signal:${terminated["signal"]}` : `ExitCode:${String(terminated["exitCode"])}`)}`;
    } else if (waiting && str(waiting["reason"]) !== "" && waiting["reason"] !== "PodInitializing") {
      reason = `Init:${str(waiting["reason"])}`;
    } else {
      reason = `Init:${i}/${initTotal}`;
    }
    initializing = true;
  });
  if (!initializing) {
    let running = false;
    for (const c of containerStatuses(object, "containerStatuses").reverse()) {
      const state = record(c["state"]) ?? {};
      const waiting = record(state["waiting"]);
      const terminated = record(state["terminated"]);
      if (waiting && str(waiting["reason"]) !== "") reason = str(waiting["reason"]);
      else if (terminated && str(terminated["reason"]) !== "") reason = str(terminated["reason"]);
      else if (terminated)
        reason =
          typeof terminated["signal"] === "number" && terminated["signal"] !== 0
            ? `Signal:${terminated["signal"]}`
            : `ExitCode:${String(terminated["exitCode"])}`;
      else if (state["running"] && c["ready"] === true) running = true;
    }
    if (reason === "Completed" && running) {
      const ready = list(status["conditions"]).some((c) => record(c)?.["type"] === "Ready" && record(c)?.["status"] === "True");
      reason = ready ? "Running" : "NotReady";
    }
  }
  if (object.metadata?.deletionTimestamp) reason = status["reason"] === "NodeLost" ? "Unknown" : "Terminating";
  return reason;
}

function none(value: string): string {
  return value === "" ? "<none>" : value;
}

/** The Pod resource type. */
export const podType: ResourceType = {
  group: "",
  resource: "pods",
  singular: "pod",
  kind: "Pod",
  shortNames: ["po"],
  categories: ["all"],
  scope: "Namespaced",
  versions: [{ name: "v1", schema: podV1Schema, storage: true }],
  subresources: ["status", "binding", "eviction", "ephemeralcontainers", "log", "exec", "attach", "portforward", "proxy"],
  strategy: {
    defaults: (object) => defaultPod(object),
    prepareForCreate,
    prepareForUpdate,
    prepareForStatusUpdate,
    deleteReturnsObject: true,
    validate: (object, ctx) => validatePod(object, ctx),
    validateCreate: (object) => validatePodCreate(object),
    validateUpdate: (object, old) => validatePodUpdate(object, old),
    validateStatusUpdate: (object) => validatePodStatusUpdate(object),
    actions: { binding: podBindingAction, eviction: podEvictionAction },
    connect: podConnectSubresources,
    // The parent write of the binding action: only what binding sets (nodeName, annotations,
    // the PodScheduled condition) changes, so the spec-immutability rule of updates does not apply.
    subresourceStrategies: {
      binding: { validateUpdate: (object, old) => validatePodBindingUpdate(object, old) },
      ephemeralcontainers: {
        prepareForUpdate: prepareForEphemeralContainersUpdate,
        validateUpdate: (object, old, ctx) => [...validatePod(object, ctx), ...validatePodEphemeralContainersUpdate(object, old)],
      },
    },
    selectableFields: (object) => {
      const s = record(object["spec"]) ?? {};
      const status = record(object["status"]) ?? {};
      return {
        "spec.nodeName": str(s["nodeName"]),
        "spec.restartPolicy": str(s["restartPolicy"]),
        "spec.schedulerName": str(s["schedulerName"]),
        "spec.serviceAccountName": str(s["serviceAccountName"]),
        "spec.hostNetwork": String(s["hostNetwork"] === true),
        "status.phase": str(status["phase"]),
        "status.podIP": str(status["podIP"]),
        "status.nominatedNodeName": str(status["nominatedNodeName"]),
      };
    },
    selectableFieldNames: [
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "spec.hostNetwork",
      "status.phase",
      "status.podIP",
      "status.nominatedNodeName",
    ],
    tableColumns: [
      { name: "Ready", type: "string", description: "The number of containers that are ready.", priority: 0, cell: podReadyCell },
      { name: "Status", type: "string", description: "The aggregate status of the containers in this pod.", priority: 0, cell: podStatusCell },
      {
        name: "Restarts",
        type: "string",
        description: "The number of times the containers in this pod have been restarted.",
        priority: 0,
        cell: podRestartsCell,
      },
      { name: "IP", type: "string", description: "IP address assigned to the pod.", priority: 1, cell: (o) => none(str(record(o["status"])?.["podIP"])) },
      {
        name: "Node",
        type: "string",
        description: "Name of the node the pod is assigned to.",
        priority: 1,
        cell: (o) => none(str(record(o["spec"])?.["nodeName"])),
      },
      {
        name: "Nominated Node",
        type: "string",
        description: "Name of the node the pod is nominated for after preemption.",
        priority: 1,
        cell: (o) => none(str(record(o["status"])?.["nominatedNodeName"])),
      },
      {
        name: "Readiness Gates",
        type: "string",
        description: "The readiness gates of the pod: met over total.",
        priority: 1,
        cell: (o) => {
          const gates = list(record(o["spec"])?.["readinessGates"]).map((g) => str(record(g)?.["conditionType"]));
          if (gates.length === 0) return "<none>";
          const conditions = list(record(o["status"])?.["conditions"]).map((c) => record(c) ?? {});
          const met = gates.filter((g) => conditions.some((c) => c["type"] === g && c["status"] === "True")).length;
          return `${met}/${gates.length}`;
        },
      },
    ],
  },
};
