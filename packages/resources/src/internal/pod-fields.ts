/**
 * The schemas of the Pod and container fields that are objects of their own: probes and their
 * handlers, lifecycle hooks, security contexts (pod and container), affinity, topology spread
 * constraints, DNS configuration, `envFrom`, resize policies, resource claims and container
 * states, with the reference's merge markers. Shapes and JSON types only: the rules are in
 * `pod-field-rules.ts`.
 * @module
 */
import { listType, structType } from "@orch/meta";
import { z } from "zod";
import { int32, int64, named, optionalBoolean, optionalString, time } from "../schema/fields.js";
import { labelSelector, nodeSelector } from "./storage-fields.js";
import { intOrString } from "./workloads-common.js";

const atomicStrings = (description: string) => listType(z.array(z.string()), "atomic").optional().describe(description);

/** `ExecAction`: a command run in the container. */
export const execActionSchema = named(
  z
    .object({ command: atomicStrings("Command line to execute inside the container; not run in a shell.") })
    .meta({ description: 'ExecAction describes a "run in container" action.' }),
  "api.core.v1.ExecAction",
);

/** `HTTPHeader`: a header of an HTTP probe. */
export const httpHeaderSchema = named(
  z
    .object({
      name: optionalString("The header field name; canonicalized on output."),
      value: optionalString("The header field value."),
    })
    .meta({ description: "HTTPHeader describes a custom header to be used in HTTP probes", required: ["name", "value"] }),
  "api.core.v1.HTTPHeader",
);

/** `HTTPGetAction`: an HTTP GET against the container (`scheme` HTTP and `path` / by default). */
export const httpGetActionSchema = named(
  z
    .object({
      host: optionalString("Host name to connect to, defaults to the pod IP."),
      httpHeaders: listType(z.array(httpHeaderSchema), "atomic").optional().describe("Custom headers to set in the request."),
      path: optionalString("Path to access on the HTTP server, default /."),
      port: intOrString().optional().describe("Number or IANA name of the port to access on the container."),
      scheme: optionalString("Scheme to use for connecting to the host: HTTP (default) or HTTPS."),
    })
    .meta({ description: "HTTPGetAction describes an action based on HTTP Get requests.", required: ["port"] }),
  "api.core.v1.HTTPGetAction",
);

/** `TCPSocketAction`: a TCP connection to a port of the container. */
export const tcpSocketActionSchema = named(
  z
    .object({
      host: optionalString("Host name to connect to, defaults to the pod IP."),
      port: intOrString().optional().describe("Number or IANA name of the port to access on the container."),
    })
    .meta({ description: "TCPSocketAction describes an action based on opening a socket", required: ["port"] }),
  "api.core.v1.TCPSocketAction",
);

/** `GRPCAction`: a gRPC health check against a port of the container. */
export const grpcActionSchema = named(
  z
    .object({
      port: int32().optional().describe("Port number of the gRPC service: 1 to 65535."),
      service: optionalString("The name of the service in the gRPC HealthCheckRequest; empty (the default) for the server's overall health."),
    })
    .meta({ description: "GRPCAction specifies an action involving a GRPC service.", required: ["port"] }),
  "api.core.v1.GRPCAction",
);

/** `SleepAction`: a pause of a lifecycle hook. */
export const sleepActionSchema = named(
  z
    .object({ seconds: int64().optional().describe("Seconds to sleep.") })
    .meta({ description: 'SleepAction describes a "sleep" action.', required: ["seconds"] }),
  "api.core.v1.SleepAction",
);

/** `Probe`: a health check of a container, one handler and its timing (defaults 1, 10, 1, 3). */
export const probeSchema = named(
  z
    .object({
      exec: execActionSchema.optional().describe("Exec specifies a command to execute in the container."),
      failureThreshold: int32()
        .optional()
        .describe("Minimum consecutive failures for the probe to be considered failed after having succeeded; default 3, minimum 1."),
      grpc: grpcActionSchema.optional().describe("GRPC specifies a GRPC HealthCheckRequest."),
      httpGet: httpGetActionSchema.optional().describe("HTTPGet specifies an HTTP GET request to perform."),
      initialDelaySeconds: int32().optional().describe("Seconds after the container has started before probes are initiated."),
      periodSeconds: int32().optional().describe("How often (in seconds) to perform the probe; default 10, minimum 1."),
      successThreshold: int32()
        .optional()
        .describe("Minimum consecutive successes for the probe to be considered successful after having failed; default 1, 1 for liveness and startup."),
      tcpSocket: tcpSocketActionSchema.optional().describe("TCPSocket specifies a connection to a TCP port."),
      terminationGracePeriodSeconds: int64()
        .optional()
        .describe("Seconds the pod needs to terminate gracefully upon probe failure; positive, not for readiness probes."),
      timeoutSeconds: int32().optional().describe("Seconds after which the probe times out; default 1, minimum 1."),
    })
    .meta({ description: "Probe describes a health check to be performed against a container to determine whether it is alive or ready to receive traffic." }),
  "api.core.v1.Probe",
);

/** `LifecycleHandler`: what a lifecycle hook does (one of exec, httpGet, tcpSocket, sleep). */
export const lifecycleHandlerSchema = named(
  z
    .object({
      exec: execActionSchema.optional().describe("Exec specifies a command to execute in the container."),
      httpGet: httpGetActionSchema.optional().describe("HTTPGet specifies an HTTP GET request to perform."),
      sleep: sleepActionSchema.optional().describe("Sleep represents a duration that the container should sleep."),
      tcpSocket: tcpSocketActionSchema.optional().describe("Deprecated, kept for backward compatibility; not validated as a handler would be run."),
    })
    .meta({ description: "LifecycleHandler defines a specific action that should be taken in a lifecycle hook." }),
  "api.core.v1.LifecycleHandler",
);

/** `Lifecycle`: the postStart and preStop hooks of a container, and its stop signal. */
export const lifecycleSchema = named(
  z
    .object({
      postStart: lifecycleHandlerSchema.optional().describe("Called immediately after a container is created."),
      preStop: lifecycleHandlerSchema.optional().describe("Called immediately before a container is terminated."),
      stopSignal: optionalString("The signal sent to the container to stop it (SIGTERM, SIGKILL, ...)."),
    })
    .meta({ description: "Lifecycle describes actions that the management system should take in response to container lifecycle events." }),
  "api.core.v1.Lifecycle",
);

/** `Capabilities`: POSIX capabilities added to and dropped from a container. */
export const capabilitiesSchema = named(
  z
    .object({ add: atomicStrings("Added capabilities."), drop: atomicStrings("Removed capabilities.") })
    .meta({ description: "Adds and removes POSIX capabilities from running containers." }),
  "api.core.v1.Capabilities",
);

/** `SELinuxOptions`: the SELinux labels applied to a container. */
export const seLinuxOptionsSchema = named(
  z
    .object({
      level: optionalString("SELinux level label."),
      role: optionalString("SELinux role label."),
      type: optionalString("SELinux type label."),
      user: optionalString("SELinux user label."),
    })
    .meta({ description: "SELinuxOptions are the labels to be applied to the container" }),
  "api.core.v1.SELinuxOptions",
);

/** `WindowsSecurityContextOptions`: Windows-specific options. */
export const windowsSecurityContextOptionsSchema = named(
  z
    .object({
      gmsaCredentialSpec: optionalString("The contents of the GMSA credential spec named by gmsaCredentialSpecName."),
      gmsaCredentialSpecName: optionalString("The name of the GMSA credential spec to use."),
      hostProcess: optionalBoolean("Whether the container runs as a 'Host Process' container."),
      runAsUserName: optionalString("The UserName in Windows to run the entrypoint of the container process."),
    })
    .meta({ description: "WindowsSecurityContextOptions contain Windows-specific options and credentials." }),
  "api.core.v1.WindowsSecurityContextOptions",
);

/** `SeccompProfile`: a seccomp profile (`type` Localhost, RuntimeDefault or Unconfined). */
export const seccompProfileSchema = named(
  z
    .object({
      localhostProfile: optionalString("A profile defined in a file on the node; only with type Localhost."),
      type: optionalString("Localhost, RuntimeDefault or Unconfined."),
    })
    .meta({ description: "SeccompProfile defines a pod/container's seccomp profile settings.", required: ["type"] }),
  "api.core.v1.SeccompProfile",
);

/** `AppArmorProfile`: an AppArmor profile (`type` Localhost, RuntimeDefault or Unconfined). */
export const appArmorProfileSchema = named(
  z
    .object({
      localhostProfile: optionalString("A profile loaded on the node; only with type Localhost."),
      type: optionalString("Localhost, RuntimeDefault or Unconfined."),
    })
    .meta({ description: "AppArmorProfile defines a pod or container's AppArmor settings.", required: ["type"] }),
  "api.core.v1.AppArmorProfile",
);

/** `SecurityContext`: the security options of one container. */
export const securityContextSchema = named(
  z
    .object({
      allowPrivilegeEscalation: optionalBoolean("Whether a process can gain more privileges than its parent process."),
      appArmorProfile: appArmorProfileSchema.optional().describe("The AppArmor options of this container."),
      capabilities: capabilitiesSchema.optional().describe("The capabilities to add/drop when running containers."),
      privileged: optionalBoolean("Run container in privileged mode."),
      procMount: optionalString("Default or Unmasked."),
      readOnlyRootFilesystem: optionalBoolean("Whether this container has a read-only root filesystem."),
      runAsGroup: int64().optional().describe("The GID to run the entrypoint of the container process: 0 to 2147483647."),
      runAsNonRoot: optionalBoolean("The container must run as a non-root user."),
      runAsUser: int64().optional().describe("The UID to run the entrypoint of the container process: 0 to 2147483647."),
      seLinuxOptions: seLinuxOptionsSchema.optional().describe("The SELinux context to be applied to the container."),
      seccompProfile: seccompProfileSchema.optional().describe("The seccomp options used by this container."),
      windowsOptions: windowsSecurityContextOptionsSchema.optional().describe("The Windows specific settings applied to all containers."),
    })
    .meta({ description: "SecurityContext holds security configuration that will be applied to a container." }),
  "api.core.v1.SecurityContext",
);

/** `Sysctl`: a namespaced kernel parameter set for the pod. */
export const sysctlSchema = named(
  z
    .object({ name: optionalString("Name of a property to set."), value: optionalString("Value of a property to set.") })
    .meta({ description: "Sysctl defines a kernel parameter to be set", required: ["name", "value"] }),
  "api.core.v1.Sysctl",
);

/** `PodSecurityContext`: the security attributes common to all containers of a pod. */
export const podSecurityContextSchema = named(
  z
    .object({
      appArmorProfile: appArmorProfileSchema.optional().describe("The AppArmor options of the containers in this pod."),
      fsGroup: int64().optional().describe("A supplemental group applied to all containers and owning the volumes."),
      fsGroupChangePolicy: optionalString("OnRootMismatch or Always."),
      runAsGroup: int64().optional().describe("The GID to run the entrypoint of the container process: 0 to 2147483647."),
      runAsNonRoot: optionalBoolean("The containers must run as a non-root user."),
      runAsUser: int64().optional().describe("The UID to run the entrypoint of the container process: 0 to 2147483647."),
      seLinuxChangePolicy: optionalString("Recursive or MountOption."),
      seLinuxOptions: seLinuxOptionsSchema.optional().describe("The SELinux context to be applied to all containers."),
      seccompProfile: seccompProfileSchema.optional().describe("The seccomp options used by the containers in this pod."),
      supplementalGroups: listType(z.array(int64()), "atomic").optional().describe("Groups added to each container's first process."),
      supplementalGroupsPolicy: optionalString("Merge or Strict."),
      sysctls: listType(z.array(sysctlSchema), "atomic").optional().describe("Namespaced sysctls used for the pod."),
      windowsOptions: windowsSecurityContextOptionsSchema.optional().describe("The Windows specific settings applied to all containers."),
    })
    .meta({ description: "PodSecurityContext holds pod-level security attributes and common container settings." }),
  "api.core.v1.PodSecurityContext",
);

const nodeSelectorRequirementSchema = z
  .object({
    key: optionalString("The label key that the selector applies to."),
    operator: optionalString("In, NotIn, Exists, DoesNotExist, Gt or Lt."),
    values: atomicStrings("An array of string values."),
  })
  .meta({ description: "A node selector requirement is a selector that contains values, a key, and an operator.", required: ["key", "operator"] });

/** `NodeSelectorTerm` (atomic): node selector requirements, ANDed. */
export const nodeSelectorTermSchema = named(
  structType(
    z
      .object({
        matchExpressions: listType(z.array(nodeSelectorRequirementSchema), "atomic")
          .optional()
          .describe("A list of node selector requirements by node's labels."),
        matchFields: listType(z.array(nodeSelectorRequirementSchema), "atomic").optional().describe("A list of node selector requirements by node's fields."),
      })
      .meta({ description: "A null or empty node selector term matches no objects; the requirements of a term are ANDed." }),
    "atomic",
  ),
  "api.core.v1.NodeSelectorTerm",
);

/** `NodeAffinity`: the node scheduling rules of a pod. */
export const nodeAffinitySchema = named(
  z
    .object({
      preferredDuringSchedulingIgnoredDuringExecution: listType(
        z.array(
          z
            .object({
              preference: nodeSelectorTermSchema.optional().describe("A node selector term, associated with the corresponding weight."),
              weight: int32().optional().describe("Weight associated with matching the corresponding nodeSelectorTerm, in the range 1-100."),
            })
            .meta({ description: "An empty preferred scheduling term matches all objects with implicit weight 0.", required: ["weight", "preference"] }),
        ),
        "atomic",
      )
        .optional()
        .describe("The scheduler prefers nodes that satisfy these expressions."),
      requiredDuringSchedulingIgnoredDuringExecution: nodeSelector()
        .optional()
        .describe("The pod is not scheduled onto a node that does not meet these requirements."),
    })
    .meta({ description: "Node affinity is a group of node affinity scheduling rules." }),
  "api.core.v1.NodeAffinity",
);

/** `PodAffinityTerm`: the pods (by label selector, in namespaces) a pod should be co-located with or not. */
export const podAffinityTermSchema = named(
  z
    .object({
      labelSelector: labelSelector().optional().describe("A label query over a set of resources, in this case pods."),
      matchLabelKeys: atomicStrings("Pod label keys whose values from the incoming pod are merged into labelSelector with In."),
      mismatchLabelKeys: atomicStrings("Pod label keys whose values from the incoming pod are merged into labelSelector with NotIn."),
      namespaceSelector: labelSelector().optional().describe("A label query over the set of namespaces that the term applies to."),
      namespaces: atomicStrings("A static list of namespace names that the term applies to."),
      topologyKey: optionalString("The node label key that defines co-location."),
    })
    .meta({
      description: "Defines a set of pods that this pod should be co-located (affinity) or not co-located (anti-affinity) with.",
      required: ["topologyKey"],
    }),
  "api.core.v1.PodAffinityTerm",
);

/** `WeightedPodAffinityTerm`: a pod affinity term and its weight (1-100). */
export const weightedPodAffinityTermSchema = named(
  z
    .object({
      podAffinityTerm: podAffinityTermSchema.optional().describe("A pod affinity term, associated with the corresponding weight."),
      weight: int32().optional().describe("Weight associated with matching the corresponding podAffinityTerm, in the range 1-100."),
    })
    .meta({
      description: "The weights of all of the matched WeightedPodAffinityTerm fields are added per-node to find the most preferred node(s)",
      required: ["weight", "podAffinityTerm"],
    }),
  "api.core.v1.WeightedPodAffinityTerm",
);

function podAffinityShape() {
  return {
    preferredDuringSchedulingIgnoredDuringExecution: listType(z.array(weightedPodAffinityTermSchema), "atomic")
      .optional()
      .describe("The scheduler prefers nodes that satisfy these expressions."),
    requiredDuringSchedulingIgnoredDuringExecution: listType(z.array(podAffinityTermSchema), "atomic")
      .optional()
      .describe("The pod is not scheduled onto a node that does not meet these requirements."),
  };
}

/** `Affinity`: node affinity, pod affinity and pod anti-affinity. */
export const affinitySchema = named(
  z
    .object({
      nodeAffinity: nodeAffinitySchema.optional().describe("Describes node affinity scheduling rules for the pod."),
      podAffinity: named(
        z.object(podAffinityShape()).meta({ description: "Pod affinity is a group of inter pod affinity scheduling rules." }),
        "api.core.v1.PodAffinity",
      )
        .optional()
        .describe("Describes pod affinity scheduling rules."),
      podAntiAffinity: named(
        z.object(podAffinityShape()).meta({ description: "Pod anti affinity is a group of inter pod anti affinity scheduling rules." }),
        "api.core.v1.PodAntiAffinity",
      )
        .optional()
        .describe("Describes pod anti-affinity scheduling rules."),
    })
    .meta({ description: "Affinity is a group of affinity scheduling rules." }),
  "api.core.v1.Affinity",
);

/** `TopologySpreadConstraint`: how the matching pods spread over a topology. */
export const topologySpreadConstraintSchema = named(
  z
    .object({
      labelSelector: labelSelector().optional().describe("Finds matching pods, counted to determine the number of pods in their topology domain."),
      matchLabelKeys: atomicStrings("Pod label keys to select the pods over which spreading is calculated."),
      maxSkew: int32().optional().describe("The degree to which pods may be unevenly distributed; greater than zero."),
      minDomains: int32().optional().describe("A minimum number of eligible domains; only with whenUnsatisfiable DoNotSchedule."),
      nodeAffinityPolicy: optionalString("Honor or Ignore."),
      nodeTaintsPolicy: optionalString("Honor or Ignore."),
      topologyKey: optionalString("The key of node labels."),
      whenUnsatisfiable: optionalString("DoNotSchedule or ScheduleAnyway."),
    })
    .meta({
      description: "TopologySpreadConstraint specifies how to spread matching pods among the given topology.",
      required: ["maxSkew", "topologyKey", "whenUnsatisfiable"],
    }),
  "api.core.v1.TopologySpreadConstraint",
);

/** `PodDNSConfig`: nameservers, searches and resolver options of a pod. */
export const podDNSConfigSchema = named(
  z
    .object({
      nameservers: atomicStrings("A list of DNS name server IP addresses."),
      options: listType(
        z.array(
          z
            .object({ name: optionalString("Name of the option."), value: optionalString("Value of the option.") })
            .meta({ description: "PodDNSConfigOption defines DNS resolver options of a pod." }),
        ),
        "atomic",
      )
        .optional()
        .describe("A list of DNS resolver options."),
      searches: atomicStrings("A list of DNS search domains for host-name lookup."),
    })
    .meta({ description: "PodDNSConfig defines the DNS parameters of a pod in addition to those generated from DNSPolicy." }),
  "api.core.v1.PodDNSConfig",
);

const optionalReference = (kind: string) =>
  z
    .object({
      name: optionalString("Name of the referent."),
      optional: optionalBoolean(`Whether the ${kind} must be defined.`),
    })
    .optional();

/** `EnvFromSource`: a ConfigMap or Secret whose keys become environment variables. */
export const envFromSourceSchema = named(
  z
    .object({
      configMapRef: optionalReference("ConfigMap").describe("The ConfigMap to select from."),
      prefix: optionalString("A prefix prepended to each key."),
      secretRef: optionalReference("Secret").describe("The Secret to select from."),
    })
    .meta({ description: "EnvFromSource represents the source of a set of ConfigMaps or Secrets" }),
  "api.core.v1.EnvFromSource",
);

/** `ContainerResizePolicy`: whether resizing a resource restarts the container. */
export const containerResizePolicySchema = named(
  z
    .object({
      resourceName: optionalString("cpu or memory."),
      restartPolicy: optionalString("NotRequired or RestartContainer."),
    })
    .meta({ description: "ContainerResizePolicy represents resource resize policy for the container.", required: ["resourceName", "restartPolicy"] }),
  "api.core.v1.ContainerResizePolicy",
);

/** `PodResourceClaim`: a resource claim of the pod, by name or from a template. */
export const podResourceClaimSchema = named(
  z
    .object({
      name: optionalString("Uniquely identifies this resource claim inside the pod; a DNS label."),
      resourceClaimName: optionalString("The name of a ResourceClaim object in the same namespace as this pod."),
      resourceClaimTemplateName: optionalString("The name of a ResourceClaimTemplate object in the same namespace as this pod."),
    })
    .meta({ description: "PodResourceClaim references exactly one ResourceClaim.", required: ["name"] }),
  "api.core.v1.PodResourceClaim",
);

/** `ContainerState`: waiting, running or terminated (one of them). */
export const containerStateSchema = named(
  z
    .object({
      running: z
        .object({ startedAt: time().optional().describe("Time at which the container was last (re-)started.") })
        .meta({ description: "ContainerStateRunning is a running state of a container." })
        .optional()
        .describe("Details about a running container."),
      terminated: z
        .object({
          containerID: optionalString("Container's ID in the format '<type>://<container_id>'."),
          exitCode: int32().optional().describe("Exit status from the last termination of the container."),
          finishedAt: time().optional().describe("Time at which the container last terminated."),
          message: optionalString("Message regarding the last termination of the container."),
          reason: optionalString("(brief) reason from the last termination of the container."),
          signal: int32().optional().describe("Signal from the last termination of the container."),
          startedAt: time().optional().describe("Time at which previous execution of the container started."),
        })
        .meta({ description: "ContainerStateTerminated is a terminated state of a container.", required: ["exitCode"] })
        .optional()
        .describe("Details about a terminated container."),
      waiting: z
        .object({
          message: optionalString("Message regarding why the container is not yet running."),
          reason: optionalString("(brief) reason the container is not yet running."),
        })
        .meta({ description: "ContainerStateWaiting is a waiting state of a container." })
        .optional()
        .describe("Details about a waiting container."),
    })
    .meta({ description: "ContainerState holds a possible state of container." }),
  "api.core.v1.ContainerState",
);

/** `HostAlias`: an entry of the pod's hosts file. */
export const hostAliasSchema = named(
  z
    .object({
      hostnames: atomicStrings("Hostnames for the above IP address."),
      ip: optionalString("IP address of the host file entry."),
    })
    .meta({ description: "HostAlias holds the mapping between IP and hostnames that will be injected as an entry in the pod's hosts file.", required: ["ip"] }),
  "api.core.v1.HostAlias",
);
