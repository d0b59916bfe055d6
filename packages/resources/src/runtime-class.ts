/**
 * RuntimeClass (`node.{domain}/v1`, cluster-scoped, no short name): names a container runtime
 * configuration. `handler` is a required, immutable DNS label; `overhead.podFixed` holds
 * non-negative quantities added to pods; `scheduling` holds a node selector (label rules) and
 * tolerations (atomic, unique, with the core toleration rules) that admission adds to pods.
 * @module
 */
import {
  FieldPath,
  duplicateField,
  invalidField,
  listType,
  parseQuantity,
  requiredField,
  validateDNS1123Label,
  validateLabels,
  validateQualifiedName,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { immutable, quantity } from "./internal/cluster-rules.js";
import { record, str } from "./internal/rules.js";
import { tolerationSchema, validateTolerations } from "./internal/workloads-common.js";
import type { ResourceType } from "./resource-type.js";
import { named, stringMap } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `Overhead`: the resources a pod of this class costs beyond its containers. */
export const overheadSchema = named(
  z
    .object({
      podFixed: z.record(z.string(), quantity()).optional().describe("PodFixed represents the fixed resource overhead associated with running a pod."),
    })
    .meta({ description: "Overhead structure represents the resource overhead associated with running a pod." }),
  "api.node.v1.Overhead",
);

/** `Scheduling`: the nodes that support a RuntimeClass. */
export const runtimeClassSchedulingSchema = named(
  z
    .object({
      nodeSelector: stringMap().optional().describe("Labels a node must have to support this RuntimeClass; merged with the pod's node selector."),
      tolerations: listType(z.array(tolerationSchema), "atomic")
        .optional()
        .describe("Tolerations appended (without duplicates) to pods running with this RuntimeClass."),
    })
    .meta({ description: "Scheduling specifies the scheduling constraints for nodes supporting a RuntimeClass." }),
  "api.node.v1.Scheduling",
);

/** The zod schema of a RuntimeClass in `v1`. */
export const runtimeClassV1Schema = kindSchema({
  handler: z.string().optional().describe("The underlying runtime and configuration the CRI implementation uses; a lower-case DNS label, immutable."),
  overhead: overheadSchema.optional().describe("Overhead represents the resource overhead associated with running a pod for a given RuntimeClass."),
  scheduling: runtimeClassSchedulingSchema.optional().describe("Scheduling holds the scheduling constraints of pods running with this RuntimeClass."),
}).meta({ description: "RuntimeClass defines a class of container runtime supported in the cluster.", required: ["handler"] });

const standardContainerResources = new Set(["cpu", "memory", "ephemeral-storage"]);

function validateResourceList(map: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(map)) {
    const at = path.key(name);
    const nameErrors = validateQualifiedName(name, at);
    errors.push(...nameErrors);
    if (nameErrors.length === 0 && !name.includes("/") && !standardContainerResources.has(name) && !name.startsWith("hugepages-")) {
      errors.push(invalidField(at, name, "must be a standard resource for containers"));
    }
    if (typeof value !== "string") continue;
    const q = parseQuantity(value);
    if (q.sign() < 0) errors.push(invalidField(at, value, "must be greater than or equal to 0"));
    else if (name.includes("/") && !name.startsWith("requests.") && q.milliValue() % 1000n !== 0n) {
      errors.push(invalidField(at, value, "must be an integer"));
    }
  }
  return errors;
}

/**
 * The rule RuntimeClass adds to the core toleration rules: entries equal in key, operator, value
 * and effect are duplicates.
 */
function validateUniqueTolerations(tolerations: readonly unknown[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  tolerations.forEach((entry, i) => {
    const t = record(entry) ?? {};
    const identity = JSON.stringify([str(t["key"]), str(t["operator"]), str(t["value"]), str(t["effect"])]);
    if (seen.has(identity)) errors.push(duplicateField(path.index(i), t));
    seen.add(identity);
  });
  return errors;
}

/**
 * The RuntimeClass rules beyond metadata: `handler` required and a DNS label,
 * `overhead.podFixed` resource names and non-negative quantities, `scheduling.nodeSelector`
 * label rules, `scheduling.tolerations` by the core toleration rules and without duplicates.
 */
export function validateRuntimeClass(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const handler = object["handler"];
  if (handler === undefined || handler === "") errors.push(requiredField("handler"));
  else errors.push(...validateDNS1123Label(str(handler), "handler"));
  const podFixed = record(record(object["overhead"])?.["podFixed"]);
  if (podFixed) errors.push(...validateResourceList(podFixed, FieldPath.root("overhead").child("podFixed")));
  const scheduling = record(object["scheduling"]);
  if (scheduling) {
    const path = FieldPath.root("scheduling");
    const selector = record(scheduling["nodeSelector"]) as Record<string, string> | undefined;
    errors.push(...validateLabels(selector, path.child("nodeSelector")));
    const tolerations = scheduling["tolerations"];
    if (Array.isArray(tolerations)) {
      errors.push(...validateTolerations(tolerations, path.child("tolerations")), ...validateUniqueTolerations(tolerations, path.child("tolerations")));
    }
  }
  return errors;
}

/** The rule an update adds: `handler` is immutable. */
export function validateRuntimeClassUpdate(object: APIObject, old: APIObject): FieldError[] {
  return immutable(object["handler"], old["handler"], "handler");
}

/** The RuntimeClass resource type. */
export const runtimeClassType: ResourceType = {
  group: "node.{domain}",
  resource: "runtimeclasses",
  singular: "runtimeclass",
  kind: "RuntimeClass",
  scope: "Cluster",
  versions: [{ name: "v1", schema: runtimeClassV1Schema, storage: true }],
  strategy: {
    validate: (object) => validateRuntimeClass(object),
    validateUpdate: (object, old) => validateRuntimeClassUpdate(object, old),
    tableColumns: [
      {
        name: "Handler",
        type: "string",
        description: "The underlying runtime and configuration of the class.",
        priority: 0,
        cell: (object) => str(object["handler"]),
      },
    ],
  },
};
