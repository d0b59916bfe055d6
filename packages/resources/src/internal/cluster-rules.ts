/**
 * Pieces the cluster-level kinds share (ControllerRevision, HorizontalPodAutoscaler,
 * PriorityClass, APIService, RuntimeClass, FlowSchema, PriorityLevelConfiguration,
 * ComponentStatus): quantities, the status-sub-resource hooks, conditions checks and small
 * numeric rules with the reference's messages.
 * @module
 */
import {
  FieldPath,
  duplicateField,
  invalidField,
  listType,
  notSupportedField,
  patchStrategy,
  requiredField,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { named, quantity, time } from "../schema/fields.js";
export { quantity };
import { record, str } from "./rules.js";

/** The status of a condition: `True`, `False` or `Unknown`. */
export const conditionStatuses = ["True", "False", "Unknown"] as const;

/** `must be greater than or equal to 0` (`ValidateNonnegativeField`) when `value` is a negative number. */
export function nonNegative(value: unknown, path: FieldPath): FieldError[] {
  return typeof value === "number" && value < 0 ? [invalidField(path, value, "must be greater than or equal to 0")] : [];
}

/** `field is immutable` (`ValidateImmutableField`) when `next` differs from `old` as JSON. */
export function immutable(next: unknown, old: unknown, path: FieldPath | string): FieldError[] {
  return JSON.stringify(next) === JSON.stringify(old) ? [] : [invalidField(path, next, "field is immutable")];
}

/** The named object at `key` of `object`, created empty when missing. */
export function child(object: Record<string, unknown>, key: string): Record<string, unknown> {
  const existing = record(object[key]);
  if (existing) return existing;
  const made: Record<string, unknown> = {};
  object[key] = made;
  return made;
}

/**
 * The hooks of a kind with a `status` sub-resource: a create starts from `emptyStatus`, an
 * update of the main resource keeps the stored status, a write to `/status` keeps the stored
 * rest (the server's default for `/status`, so no hook is needed for it).
 */
export function statusHooks(emptyStatus: () => Record<string, unknown>) {
  return {
    prepareForCreate(object: APIObject): void {
      object["status"] = emptyStatus();
    },
    prepareForUpdate(object: APIObject, old: APIObject): void {
      if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
      else delete object["status"];
    },
  };
}

/**
 * The rules of `status.conditions` shared by FlowSchema and PriorityLevelConfiguration: each
 * `type` required (`must not be empty`) and unique.
 */
export function validateConditionTypes(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const conditions = record(object["status"])?.["conditions"];
  if (!Array.isArray(conditions)) return errors;
  const path = FieldPath.root("status").child("conditions");
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const type = str(record(c)?.["type"]);
    if (seen.has(type)) errors.push(duplicateField(path.index(i).child("type"), type));
    seen.add(type);
    if (type === "") errors.push(requiredField(path.index(i).child("type"), "must not be empty"));
  });
  return errors;
}

/** Each `status.conditions[i].status` one of {@link conditionStatuses} (APIService). */
export function validateConditionStatuses(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const conditions = record(object["status"])?.["conditions"];
  if (!Array.isArray(conditions)) return errors;
  const path = FieldPath.root("status").child("conditions");
  conditions.forEach((c, i) => {
    const status = str(record(c)?.["status"]);
    if (!(conditionStatuses as readonly string[]).includes(status)) errors.push(notSupportedField(path.index(i).child("status"), status, conditionStatuses));
  });
  return errors;
}

/** The condition of `type` in `status.conditions`, if any. */
export function findCondition(object: APIObject, type: string): Record<string, unknown> | undefined {
  const conditions = record(object["status"])?.["conditions"];
  if (!Array.isArray(conditions)) return undefined;
  return conditions.map(record).find((c) => c?.["type"] === type);
}

/** The descriptions of {@link flowControlStatusSchemas}' schemas, as the reference words them. */
export interface FlowControlStatusDescriptions {
  condition: string;
  conditionType: string;
  status: string;
  conditions: string;
}

/**
 * The `<Kind>Condition` and `<Kind>Status` schemas of a `flowcontrol` kind (FlowSchema,
 * PriorityLevelConfiguration): the same fields under the reference's distinct OpenAPI names
 * (`api.flowcontrol.v1beta2.<Kind>Condition`), conditions a map list keyed by `type`.
 */
export function flowControlStatusSchemas(kind: string, text: FlowControlStatusDescriptions) {
  const condition = named(
    z
      .object({
        lastTransitionTime: time().optional().describe("The last time the condition transitioned from one status to another."),
        message: z.string().optional().describe("A human-readable message indicating details about last transition."),
        reason: z.string().optional().describe("A unique, one-word, CamelCase reason for the condition's last transition."),
        status: z.string().optional().describe("The status of the condition: True, False or Unknown."),
        type: z.string().optional().describe(text.conditionType),
      })
      .meta({ description: text.condition }),
    `api.flowcontrol.v1beta2.${kind}Condition`,
  );
  const status = named(
    z
      .object({
        conditions: patchStrategy(listType(z.array(condition), "map", ["type"]), "merge", "type")
          .optional()
          .describe(text.conditions),
      })
      .meta({ description: text.status }),
    `api.flowcontrol.v1beta2.${kind}Status`,
  );
  return { condition, status };
}
