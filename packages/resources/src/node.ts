/**
 * Node (core `v1`, cluster-scoped, short name `no`, sub-resource `status`): a machine pods run
 * on. `spec.podCIDR(s)` and `spec.providerID` may be set once, `spec.taints` are unique by key
 * and effect; the node agent writes the status.
 * @module
 */
import {
  FieldPath,
  duplicateField,
  forbiddenField,
  invalidField,
  listType,
  patchStrategy,
  validateLabelValue,
  validateQualifiedName,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { jsonEqual, record, str } from "./internal/rules.js";
import { list, resourceList, taintSchema, validateResourceName, validateTaintEffect, validateNonNegativeQuantity } from "./internal/workloads-common.js";
import type { ResourceType } from "./resource-type.js";
import { int32, int64, named, optionalBoolean, optionalString, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";
import { z } from "zod";

const configMapNodeConfigSourceSchema = z
  .object({
    kubeletConfigKey: optionalString("The key of the referenced ConfigMap that holds the KubeletConfiguration."),
    name: optionalString("The name of the referenced ConfigMap."),
    namespace: optionalString("The namespace of the referenced ConfigMap."),
    resourceVersion: optionalString("The resource version of the referenced ConfigMap (status only)."),
    uid: optionalString("The UID of the referenced ConfigMap (status only)."),
  })
  .meta({
    description: "ConfigMapNodeConfigSource contains the information to reference a ConfigMap as a config source for the Node.",
    required: ["namespace", "name", "kubeletConfigKey"],
  });

/** `NodeConfigSource`: a kubelet configuration source (deprecated dynamic configuration). */
export const nodeConfigSourceSchema = named(
  z
    .object({ configMap: configMapNodeConfigSourceSchema.optional().describe("ConfigMap is a reference to a Node's ConfigMap.") })
    .meta({ description: "NodeConfigSource specifies a source of node configuration. Exactly one subfield (excluding metadata) must be non-nil." }),
  "api.core.v1.NodeConfigSource",
);

/** `NodeSpec`. */
export const nodeSpecSchema = named(
  z
    .object({
      configSource: nodeConfigSourceSchema.optional().describe("Deprecated: dynamic kubelet configuration source."),
      externalID: optionalString("Deprecated."),
      podCIDR: optionalString("The pod IP range assigned to the node."),
      podCIDRs: patchStrategy(listType(z.array(z.string()), "set"), "merge")
        .optional()
        .describe("The pod IP ranges assigned to the node, at most one per IP family."),
      providerID: optionalString("ID of the node assigned by the cloud provider: <ProviderName>://<ProviderSpecificNodeID>."),
      taints: listType(z.array(taintSchema), "atomic").optional().describe("The node's taints."),
      unschedulable: z.boolean().optional().describe("Controls node schedulability of new pods; false by default."),
    })
    .meta({ description: "NodeSpec describes the attributes that a node is created with." }),
  "api.core.v1.NodeSpec",
);

/** `NodeCondition`. */
export const nodeConditionSchema = named(
  z
    .object({
      lastHeartbeatTime: time().optional().describe("Last time we got an update on a given condition."),
      lastTransitionTime: time().optional().describe("Last time the condition transit from one status to another."),
      message: optionalString("Human readable message indicating details about last transition."),
      reason: optionalString("(brief) reason for the condition's last transition."),
      status: optionalString("True, False or Unknown."),
      type: optionalString("Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable."),
    })
    .meta({ description: "NodeCondition contains condition information for a node.", required: ["type", "status"] }),
  "api.core.v1.NodeCondition",
);

/** `NodeAddress`. */
export const nodeAddressSchema = named(
  z
    .object({ address: optionalString("The node address."), type: optionalString("Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.") })
    .meta({ description: "NodeAddress contains information for the node's address.", required: ["type", "address"] }),
  "api.core.v1.NodeAddress",
);

/** `NodeSystemInfo`. */
export const nodeSystemInfoSchema = named(
  z
    .object({
      architecture: optionalString("The Architecture reported by the node."),
      bootID: optionalString("Boot ID reported by the node."),
      containerRuntimeVersion: optionalString("Container runtime version reported by the node."),
      kernelVersion: optionalString("Kernel Version reported by the node."),
      kubeProxyVersion: optionalString("Deprecated."),
      kubeletVersion: optionalString("Node agent version reported by the node."),
      machineID: optionalString("MachineID reported by the node."),
      operatingSystem: optionalString("The Operating System reported by the node."),
      osImage: optionalString("OS Image reported by the node."),
      systemUUID: optionalString("SystemUUID reported by the node."),
    })
    .meta({ description: "NodeSystemInfo is a set of ids/uuids to uniquely identify the node." }),
  "api.core.v1.NodeSystemInfo",
);

/** `NodeStatus`. */
export const nodeStatusSchema = named(
  z
    .object({
      addresses: patchStrategy(listType(z.array(nodeAddressSchema), "map", ["type"]), "merge", "type")
        .optional()
        .describe("List of addresses reachable to the node."),
      allocatable: resourceList().optional().describe("The resources of a node available for scheduling; defaults to capacity."),
      capacity: resourceList().optional().describe("Total resources of the node."),
      conditions: patchStrategy(listType(z.array(nodeConditionSchema), "map", ["type"]), "merge", "type")
        .optional()
        .describe("Current service state of node."),
      config: z
        .object({
          active: nodeConfigSourceSchema.optional().describe("The checkpointed config the node is actively using."),
          assigned: nodeConfigSourceSchema.optional().describe("The checkpointed config the node will try to use."),
          error: optionalString("Any problem in reconciling the assigned config with the active config."),
          lastKnownGood: nodeConfigSourceSchema.optional().describe("The config the node falls back to when the assigned one is broken."),
        })
        .meta({ description: "NodeConfigStatus describes the status of the config assigned by Node.Spec.ConfigSource." })
        .optional()
        .describe("Status of the config assigned to the node."),
      daemonEndpoints: z
        .object({ kubeletEndpoint: z.object({ Port: int32().optional().describe("Port number of the given endpoint.") }).optional() })
        .optional()
        .describe("Endpoints of daemons running on the Node."),
      features: z
        .object({ supplementalGroupsPolicy: optionalBoolean("Whether the node supports the SupplementalGroupsPolicy field.") })
        .meta({ description: "NodeFeatures describes the set of features implemented by the CRI implementation." })
        .optional()
        .describe("Features supported by the node agent."),
      images: listType(z.array(z.object({ names: listType(z.array(z.string()), "atomic").optional(), sizeBytes: int64().optional() })), "atomic")
        .optional()
        .describe("List of container images on this node."),
      nodeInfo: nodeSystemInfoSchema.optional().describe("Set of ids/uuids to uniquely identify the node."),
      phase: optionalString("Deprecated: NodePhase is the recently observed lifecycle phase of the node."),
      runtimeHandlers: listType(
        z.array(
          z
            .object({
              features: z
                .object({
                  recursiveReadOnlyMounts: optionalBoolean("Whether the runtime handler supports RecursiveReadOnlyMounts."),
                  userNamespaces: optionalBoolean("Whether the runtime handler supports user namespaces, including for volumes."),
                })
                .meta({ description: "NodeRuntimeHandlerFeatures is a set of features implemented by the runtime handler." })
                .optional()
                .describe("Supported features."),
              name: optionalString("Runtime handler name; empty for the default runtime handler."),
            })
            .meta({ description: "NodeRuntimeHandler is a set of runtime handler information." }),
        ),
        "atomic",
      )
        .optional()
        .describe("The available runtime handlers."),
      volumesAttached: listType(
        z.array(z.object({ devicePath: optionalString("Device the volume is attached at."), name: optionalString("Name of the attached volume.") })),
        "atomic",
      )
        .optional()
        .describe("List of volumes that are attached to the node."),
      volumesInUse: listType(z.array(z.string()), "atomic").optional().describe("List of attachable volumes in use (mounted) by the node."),
    })
    .meta({ description: "NodeStatus is information about the current status of a node." }),
  "api.core.v1.NodeStatus",
);

/** The zod schema of a Node in `v1`. */
export const nodeV1Schema = kindSchema(
  {
    spec: nodeSpecSchema.optional().describe("Spec defines the behavior of a node."),
    status: nodeStatusSchema.optional().describe("Most recently observed status of the node."),
  },
  "Node is a worker node in the cluster.",
);

function parseCIDR(text: string): 4 | 6 | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const ip = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4) return v4.slice(1).every((o) => Number(o) <= 255 && !/^0\d/.test(o)) && prefix <= 32 ? 4 : undefined;
  if (/^[0-9a-fA-F:.]+$/.test(ip) && ip.includes(":") && prefix <= 128) {
    const double = ip.split("::").length - 1;
    if (double > 1) return undefined;
    const groups = ip.split(":").filter((g) => g !== "");
    if (groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g) || /^\d+\.\d+\.\d+\.\d+$/.test(g)) && (double === 1 ? groups.length < 8 : groups.length === 8))
      return 6;
  }
  return undefined;
}

/** The IP family of a CIDR (`10.0.0.0/24` is 4), or `undefined` when it is not one. */
export function cidrFamily(text: string): 4 | 6 | undefined {
  return parseCIDR(text);
}

function podCIDRs(s: Record<string, unknown>): string[] {
  return list(s["podCIDRs"]).map((c) => str(c));
}

/**
 * The Node rules beyond metadata (pair with `validateObjectMeta(..., { namespaced: false })`),
 * for create and update alike: each `spec.podCIDRs[i]` a CIDR, at most two and of different
 * families, the first equal to `spec.podCIDR`; taints with a qualified key, a label value and an
 * effect, unique by key and effect; status capacity/allocatable resource names and quantities.
 */
export function validateNode(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const s = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const cidrs = podCIDRs(s);
  const families: number[] = [];
  cidrs.forEach((c, i) => {
    const family = parseCIDR(c);
    if (!family) errors.push(invalidField(path.child("podCIDRs").index(i), c, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
    else families.push(family);
  });
  if (cidrs.length > 2) errors.push(invalidField(path.child("podCIDRs"), s["podCIDRs"], "may specify no more than one CIDR for each IP family"));
  else if (cidrs.length === 2 && families.length === 2 && families[0] === families[1]) {
    errors.push(invalidField(path.child("podCIDRs"), s["podCIDRs"], "may specify no more than one CIDR for each IP family"));
  }
  const single = str(s["podCIDR"]);
  if (single !== "" && cidrs.length === 0 && !parseCIDR(single)) {
    errors.push(invalidField(path.child("podCIDR"), single, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
  }
  if (single !== "" && cidrs.length > 0 && cidrs[0] !== single) {
    errors.push(invalidField(path.child("podCIDRs"), s["podCIDRs"], "the first entry must equal spec.podCIDR"));
  }
  const seen = new Map<string, Set<string>>();
  list(s["taints"]).forEach((t, i) => {
    const taint = record(t) ?? {};
    const at = path.child("taints").index(i);
    const key = str(taint["key"]);
    const effect = str(taint["effect"]);
    errors.push(...validateQualifiedName(key, at.child("key")));
    const valueErrors = validateLabelValue(str(taint["value"]), at.child("value"));
    if (valueErrors.length) errors.push(invalidField(at.child("value"), str(taint["value"]), valueErrors.map((e) => e.detail).join(";")));
    errors.push(...validateTaintEffect(effect, false, at.child("effect")));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      errors.push({ ...duplicateField(at, taint), detail: "taints must be unique by key and effect pair" });
      return;
    }
    keys.add(key);
    seen.set(effect, keys);
  });
  const status = record(object["status"]) ?? {};
  for (const field of ["capacity", "allocatable"]) {
    for (const [k, v] of Object.entries(record(status[field]) ?? {})) {
      const at = FieldPath.root("status").child(field).key(k);
      errors.push(...validateResourceName(k, at), ...validateNonNegativeQuantity(v, at));
    }
  }
  return errors;
}

/**
 * The Node rules an update adds: `spec.podCIDRs` and `spec.providerID` may only change from
 * unset to set (`Forbidden`, with the reference's messages).
 */
export function validateNodeUpdate(object: APIObject, old: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const s = record(object["spec"]) ?? {};
  const o = record(old["spec"]) ?? {};
  const oldCIDRs = podCIDRs(o);
  if (oldCIDRs.length > 0 && !jsonEqual(oldCIDRs, podCIDRs(s))) {
    errors.push(forbiddenField(FieldPath.root("spec").child("podCIDRs"), 'node updates may not change podCIDR except from "" to valid'));
  }
  const oldProvider = str(o["providerID"]);
  if (oldProvider !== "" && oldProvider !== str(s["providerID"])) {
    errors.push(forbiddenField(FieldPath.root("spec").child("providerID"), 'node updates may not change providerID except from "" to valid'));
  }
  return errors;
}

/** Defaults of a Node: `spec.podCIDRs` from `spec.podCIDR` (and back), `status.allocatable` from capacity. */
export function defaultNode(object: APIObject): void {
  const s = record(object["spec"]);
  if (s) {
    const single = str(s["podCIDR"]);
    const cidrs = podCIDRs(s);
    if (single !== "" && cidrs.length === 0) s["podCIDRs"] = [single];
    else if (single === "" && cidrs.length > 0) s["podCIDR"] = cidrs[0];
  }
  const status = record(object["status"]);
  const capacity = record(status?.["capacity"]);
  if (status && capacity && status["allocatable"] === undefined) status["allocatable"] = structuredClone(capacity);
}

function labels(object: APIObject): Record<string, string> {
  return object.metadata?.labels ?? {};
}

/** The ROLES cell: the `node-role.<domain>/<role>` labels (and `<domain>/role`), or `<none>`. */
export function nodeRoles(object: APIObject, domain = "orch.io"): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels(object))) {
    for (const d of new Set([domain, "kubernetes.io", "orch.io"])) {
      if (k.startsWith(`node-role.${d}/`)) {
        const role = k.slice(`node-role.${d}/`.length);
        if (role !== "") roles.add(role);
      } else if (k === `${d}/role` && v !== "") roles.add(v);
    }
  }
  return roles.size ? [...roles].sort().join(",") : "<none>";
}

/** The STATUS cell: Ready/NotReady/Unknown, with SchedulingDisabled when unschedulable. */
export function nodeStatusCell(object: APIObject): string {
  const conditions = list(record(object["status"])?.["conditions"]).map((c) => record(c) ?? {});
  const ready = conditions.find((c) => c["type"] === "Ready");
  const states: string[] = [];
  if (!ready) states.push("Unknown");
  else if (ready["status"] === "True") states.push("Ready");
  else states.push("NotReady");
  if (record(object["spec"])?.["unschedulable"] === true) states.push("SchedulingDisabled");
  return states.join(",");
}

function address(object: APIObject, type: string): string {
  const a = list(record(object["status"])?.["addresses"])
    .map((x) => record(x) ?? {})
    .find((x) => x["type"] === type);
  return a ? str(a["address"]) : "<none>";
}

function info(object: APIObject, key: string): string {
  return str(record(record(object["status"])?.["nodeInfo"])?.[key]) || "<unknown>";
}

function prepareForUpdate(object: APIObject, old: APIObject): void {
  if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
  else delete object["status"];
}

function prepareForStatusUpdate(object: APIObject, old: APIObject): void {
  if (old["spec"] !== undefined) object["spec"] = structuredClone(old["spec"]);
  else delete object["spec"];
}

/** The Node resource type. */
export const nodeType: ResourceType = {
  group: "",
  resource: "nodes",
  singular: "node",
  kind: "Node",
  shortNames: ["no"],
  scope: "Cluster",
  versions: [{ name: "v1", schema: nodeV1Schema, storage: true }],
  subresources: ["status"],
  strategy: {
    statusOnCreate: true,
    defaults: (object) => defaultNode(object),
    prepareForUpdate,
    prepareForStatusUpdate,
    validate: (object) => validateNode(object),
    validateUpdate: (object, old) => validateNodeUpdate(object, old),
    validateStatusUpdate: (object) => validateNode(object),
    selectableFields: (object) => ({ "spec.unschedulable": String(record(object["spec"])?.["unschedulable"] === true) }),
    selectableFieldNames: ["spec.unschedulable"],
    tableColumns: [
      { name: "Status", type: "string", description: "The status of the node.", priority: 0, cell: nodeStatusCell },
      { name: "Roles", type: "string", description: "The roles of the node.", priority: 0, cell: (o) => nodeRoles(o) },
      {
        name: "Version",
        type: "string",
        description: "Node agent version reported by the node.",
        priority: 0,
        cell: (o) => str(record(record(o["status"])?.["nodeInfo"])?.["kubeletVersion"]),
      },
      { name: "Internal-IP", type: "string", description: "The node's internal IP.", priority: 1, cell: (o) => address(o, "InternalIP") },
      { name: "External-IP", type: "string", description: "The node's external IP.", priority: 1, cell: (o) => address(o, "ExternalIP") },
      { name: "OS-Image", type: "string", description: "OS Image reported by the node.", priority: 1, cell: (o) => info(o, "osImage") },
      { name: "Kernel-Version", type: "string", description: "Kernel Version reported by the node.", priority: 1, cell: (o) => info(o, "kernelVersion") },
      {
        name: "Container-Runtime",
        type: "string",
        description: "Container runtime version reported by the node.",
        priority: 1,
        cell: (o) => info(o, "containerRuntimeVersion"),
      },
    ],
  },
};
