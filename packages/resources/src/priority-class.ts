/**
 * PriorityClass (`scheduling.{domain}/v1`, cluster-scoped, short name `pc`): maps a name to a
 * pod priority `value`. `value` and `preemptionPolicy` (default `PreemptLowerPriority`) cannot
 * change; names starting with `system-` are reserved for the two built-in classes, and a user
 * class may not exceed one billion.
 * @module
 */
import { FieldPath, forbidden, forbiddenField, notSupportedField, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { immutable } from "./internal/cluster-rules.js";
import type { ResourceType } from "./resource-type.js";
import { int32 } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** The zod schema of a PriorityClass in `v1`. */
export const priorityClassV1Schema = kindSchema({
  description: z.string().optional().describe("An arbitrary string that usually provides guidelines on when this priority class should be used."),
  globalDefault: z
    .boolean()
    .optional()
    .describe("Whether this class is the default priority for pods without a priorityClassName; with several, the smallest value wins."),
  preemptionPolicy: z.string().optional().describe("The policy for preempting pods with lower priority: Never or PreemptLowerPriority (default)."),
  value: int32().optional().describe("The integer priority value; the higher the value, the higher the priority."),
}).meta({ description: "PriorityClass defines mapping from a priority class name to the priority integer value.", required: ["value"] });

/** The reserved prefix of system class names. */
export const systemPriorityClassPrefix = "system-";
/** The highest value a user-defined class may have. */
export const highestUserDefinablePriority = 1_000_000_000;
/** The value of `system-cluster-critical` (`system-node-critical` is 1000 more). */
export const systemCriticalPriority = 2 * highestUserDefinablePriority;

/** The built-in system classes: name, value and globalDefault. */
export const systemPriorityClasses: readonly { name: string; value: number; globalDefault: boolean }[] = [
  { name: "system-node-critical", value: systemCriticalPriority + 1000, globalDefault: false },
  { name: "system-cluster-critical", value: systemCriticalPriority, globalDefault: false },
];

/**
 * The system classes cannot be deleted, as in the reference: 403 Forbidden `this is a system
 * priority class and cannot be deleted`.
 * @throws StatusError 403 for `system-node-critical` and `system-cluster-critical`.
 */
export function refuseSystemClassDeletion(object: APIObject, domain: string): void {
  const name = object.metadata.name ?? "";
  if (systemPriorityClasses.some((c) => c.name === name)) {
    throw forbidden({ group: `scheduling.${domain}`, resource: "priorityclasses" }, name, "this is a system priority class and cannot be deleted");
  }
}

/** The supported `preemptionPolicy` values, in the reference's order. */
export const preemptionPolicies = ["PreemptLowerPriority", "Never"] as const;

/** The defaults of `v1`: `preemptionPolicy` `PreemptLowerPriority`. */
export function defaultPriorityClass(object: APIObject): void {
  if (object["preemptionPolicy"] === undefined) object["preemptionPolicy"] = "PreemptLowerPriority";
}

function knownSystemClass(name: string, value: unknown, globalDefault: boolean): string | undefined {
  const known = systemPriorityClasses.find((c) => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (known.globalDefault !== globalDefault) return `globalDefault of ${name} PriorityClass must be ${known.globalDefault}`;
  return undefined;
}

/**
 * The PriorityClass rules beyond metadata: `value` required; a `system-` name must be a known
 * system class with its value and globalDefault (`metadata.name: Forbidden`); otherwise `value`
 * at most {@link highestUserDefinablePriority} (`value: Forbidden`); `preemptionPolicy` one of
 * {@link preemptionPolicies}.
 */
export function validatePriorityClass(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const name = object.metadata?.name ?? "";
  const value = object["value"];
  if (value === undefined) errors.push(requiredField("value"));
  if (name.startsWith(systemPriorityClassPrefix)) {
    const problem = knownSystemClass(name, value ?? 0, object["globalDefault"] === true);
    if (problem) {
      errors.push(
        forbiddenField(
          FieldPath.root("metadata").child("name"),
          `priority class names with '${systemPriorityClassPrefix}' prefix are reserved for system use only. error: ${problem}`,
        ),
      );
    }
  } else if (typeof value === "number" && value > highestUserDefinablePriority) {
    errors.push(forbiddenField("value", `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  const policy = object["preemptionPolicy"];
  if (policy !== undefined) {
    if (policy === "") errors.push(requiredField("preemptionPolicy"));
    else if (!(preemptionPolicies as readonly unknown[]).includes(policy)) errors.push(notSupportedField("preemptionPolicy", policy, preemptionPolicies));
  }
  return errors;
}

/** The rules an update adds: `value` (`may not be changed in an update.`) and `preemptionPolicy` immutable. */
export function validatePriorityClassUpdate(object: APIObject, old: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  if (object["value"] !== old["value"]) errors.push(forbiddenField("value", "may not be changed in an update."));
  errors.push(...immutable(object["preemptionPolicy"], old["preemptionPolicy"], "preemptionPolicy"));
  return errors;
}

/** The PriorityClass resource type. */
export const priorityClassType: ResourceType = {
  group: "scheduling.{domain}",
  resource: "priorityclasses",
  singular: "priorityclass",
  kind: "PriorityClass",
  shortNames: ["pc"],
  scope: "Cluster",
  versions: [{ name: "v1", schema: priorityClassV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultPriorityClass(object),
    validate: (object) => validatePriorityClass(object),
    validateUpdate: (object, old) => validatePriorityClassUpdate(object, old),
    checkDelete: (object, ctx) => refuseSystemClassDeletion(object, ctx.domain),
    tableColumns: [
      {
        name: "Value",
        type: "integer",
        description: "The priority value of the class.",
        priority: 0,
        cell: (object) => (typeof object["value"] === "number" ? object["value"] : 0),
      },
      {
        name: "Global-Default",
        type: "boolean",
        description: "Whether this class is the cluster's default.",
        priority: 0,
        cell: (object) => object["globalDefault"] === true,
      },
    ],
  },
};
