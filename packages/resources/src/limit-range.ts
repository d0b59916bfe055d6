/**
 * LimitRange (core `v1`, namespaced, short name `limits`): minimum, maximum and default
 * resource amounts per Pod, Container or PersistentVolumeClaim in a namespace.
 * @module
 */
import {
  FieldPath,
  duplicateField,
  forbiddenField,
  invalidField,
  listType,
  requiredField,
  validateQualifiedName,
  type APIObject,
  type FieldError,
  type Quantity,
} from "@orch/meta";
import { z } from "zod";
import { record, str } from "./internal/rules.js";
import {
  list,
  quantityOf,
  resourceList,
  validateContainerResourceName,
  validateNonNegativeQuantity,
  validateResourceName,
} from "./internal/workloads-common.js";
import type { ResourceType } from "./resource-type.js";
import { named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `LimitRangeItem`. */
export const limitRangeItemSchema = named(
  z
    .object({
      default: resourceList().optional().describe("Default limits per resource (not for type Pod)."),
      defaultRequest: resourceList().optional().describe("Default requests per resource (not for type Pod)."),
      max: resourceList().optional().describe("Maximum usage constraints per resource."),
      maxLimitRequestRatio: resourceList().optional().describe("The most a limit may exceed its request, per resource."),
      min: resourceList().optional().describe("Minimum usage constraints per resource."),
      type: z.string().optional().describe("Pod, Container or PersistentVolumeClaim (or a qualified name)."),
    })
    .meta({ description: "LimitRangeItem defines a min/max usage limit for any resource that matches on kind.", required: ["type"] }),
  "api.core.v1.LimitRangeItem",
);

/** `LimitRangeSpec`. */
export const limitRangeSpecSchema = named(
  z
    .object({
      limits: listType(z.array(limitRangeItemSchema), "atomic").optional().describe("Limits is the list of LimitRangeItem objects that are enforced."),
    })
    .meta({ description: "LimitRangeSpec defines a min/max usage limit for resources that match on kind.", required: ["limits"] }),
  "api.core.v1.LimitRangeSpec",
);

/** The zod schema of a LimitRange in `v1`. */
export const limitRangeV1Schema = kindSchema(
  { spec: limitRangeSpecSchema.optional().describe("Spec defines the limits enforced.") },
  "LimitRange sets resource usage limits for each kind of resource in a Namespace.",
);

/** The standard limit types. */
export const limitTypes = ["Pod", "Container", "PersistentVolumeClaim"] as const;

/**
 * The reference's `SetDefaults_LimitRangeItem`, in place: for type Container, `default` from
 * `max`, then `defaultRequest` from `default`, then from `min`, for each resource not set.
 */
export function defaultLimitRange(object: APIObject): void {
  for (const item of list(record(object["spec"])?.["limits"])) {
    const limit = record(item);
    if (!limit || limit["type"] !== "Container") continue;
    const defaults = { ...(record(limit["default"]) ?? {}) };
    const requests = { ...(record(limit["defaultRequest"]) ?? {}) };
    for (const [k, v] of Object.entries(record(limit["max"]) ?? {})) if (defaults[k] === undefined) defaults[k] = v;
    for (const [k, v] of Object.entries(defaults)) if (requests[k] === undefined) requests[k] = v;
    for (const [k, v] of Object.entries(record(limit["min"]) ?? {})) if (requests[k] === undefined) requests[k] = v;
    if (Object.keys(defaults).length) limit["default"] = defaults;
    if (Object.keys(requests).length) limit["defaultRequest"] = requests;
  }
}

function validateTypeName(value: string, path: FieldPath): FieldError[] {
  const errors = validateQualifiedName(value, path);
  if (errors.length) return errors;
  if (!value.includes("/") && !(limitTypes as readonly string[]).includes(value))
    return [invalidField(path, value, "must be a standard limit type or fully qualified")];
  return [];
}

function validateResource(type: string, name: string, path: FieldPath): FieldError[] {
  if (type === "Pod" || type === "Container") return validateContainerResourceName(name, path);
  return validateResourceName(name, path);
}

/**
 * The LimitRange rules beyond metadata (the reference's `ValidateLimitRange`), for create and
 * update alike: each `type` standard or qualified and not repeated; resource names valid for the
 * type and quantities not negative; no `default`/`defaultRequest` for type Pod; a storage min or
 * max for type PersistentVolumeClaim; min <= defaultRequest <= default <= max, min <= max; a
 * `maxLimitRequestRatio` of at least 1 and at most max/min.
 */
export function validateLimitRange(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const path = FieldPath.root("spec").child("limits");
  const types = new Set<string>();
  list(record(object["spec"])?.["limits"]).forEach((item, i) => {
    const limit = record(item) ?? {};
    const at = path.index(i);
    const type = str(limit["type"]);
    errors.push(...validateTypeName(type, at.child("type")));
    if (types.has(type)) errors.push(duplicateField(at.child("type"), type));
    types.add(type);
    const maps: Record<string, Map<string, Quantity>> = {};
    const keys = new Set<string>();
    const fields = type === "Pod" ? ["max", "min", "maxLimitRequestRatio"] : ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"];
    for (const field of fields) {
      const m = new Map<string, Quantity>();
      for (const [k, v] of Object.entries(record(limit[field]) ?? {})) {
        const kp = at.child(field).key(k);
        errors.push(...validateResource(type, k, kp), ...validateNonNegativeQuantity(v, kp));
        if (field !== "maxLimitRequestRatio") keys.add(k);
        const q = quantityOf(v);
        if (q) m.set(k, q);
      }
      maps[field] = m;
    }
    if (type === "Pod") {
      if (Object.keys(record(limit["default"]) ?? {}).length) errors.push(forbiddenField(at.child("default"), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(record(limit["defaultRequest"]) ?? {}).length)
        errors.push(forbiddenField(at.child("defaultRequest"), "may not be specified when `type` is 'Pod'"));
    }
    if (type === "PersistentVolumeClaim" && !record(limit["min"])?.["storage"] && !record(limit["max"])?.["storage"]) {
      errors.push(requiredField(at.child("limits"), "either minimum or maximum storage value is required, but neither was provided"));
    }
    for (const k of [...keys].sort()) {
      const min = maps["min"]?.get(k);
      const max = maps["max"]?.get(k);
      const def = maps["default"]?.get(k);
      const req = maps["defaultRequest"]?.get(k);
      const ratio = maps["maxLimitRequestRatio"]?.get(k);
      if (min && max && min.cmp(max) > 0)
        errors.push(invalidField(at.child("min").key(k), min.toString(), `min value ${min.toString()} is greater than max value ${max.toString()}`));
      if (req && min && min.cmp(req) > 0) {
        errors.push(
          invalidField(
            at.child("defaultRequest").key(k),
            req.toString(),
            `min value ${min.toString()} is greater than default request value ${req.toString()}`,
          ),
        );
      }
      if (req && max && req.cmp(max) > 0) {
        errors.push(
          invalidField(
            at.child("defaultRequest").key(k),
            req.toString(),
            `default request value ${req.toString()} is greater than max value ${max.toString()}`,
          ),
        );
      }
      if (req && def && req.cmp(def) > 0) {
        errors.push(
          invalidField(
            at.child("defaultRequest").key(k),
            req.toString(),
            `default request value ${req.toString()} is greater than default limit value ${def.toString()}`,
          ),
        );
      }
      if (def && min && min.cmp(def) > 0)
        errors.push(invalidField(at.child("default").key(k), min.toString(), `min value ${min.toString()} is greater than default value ${def.toString()}`));
      if (def && max && def.cmp(max) > 0)
        errors.push(invalidField(at.child("default").key(k), max.toString(), `default value ${def.toString()} is greater than max value ${max.toString()}`));
      if (ratio && min && max && !min.isZero()) {
        const limitRatio = Number(max.milliValue()) / Number(min.milliValue());
        if (Number(ratio.milliValue()) / 1000 > limitRatio) {
          errors.push(
            invalidField(
              at.child("maxLimitRequestRatio").key(k),
              ratio.toString(),
              `ratio ${ratio.toString()} is greater than max/min = ${limitRatio.toFixed(6)}`,
            ),
          );
        }
      }
      if (def && req && k.startsWith("hugepages-") && def.cmp(req) !== 0) {
        errors.push(
          invalidField(
            at.child("defaultRequest").key(k),
            req.toString(),
            `default value ${def.toString()} must equal to defaultRequest value ${req.toString()} in ${k}`,
          ),
        );
      }
    }
    for (const [k, ratio] of maps["maxLimitRequestRatio"] ?? new Map<string, Quantity>()) {
      if (Number(ratio.milliValue()) < 1000)
        errors.push(invalidField(at.child("maxLimitRequestRatio").key(k), ratio.toString(), `ratio ${ratio.toString()} is less than 1`));
    }
  });
  return errors;
}

/** The LimitRange resource type (its Table is the default: Name and Created At, as the reference). */
export const limitRangeType: ResourceType = {
  group: "",
  resource: "limitranges",
  singular: "limitrange",
  kind: "LimitRange",
  shortNames: ["limits"],
  scope: "Namespaced",
  versions: [{ name: "v1", schema: limitRangeV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultLimitRange(object),
    validate: (object) => validateLimitRange(object),
  },
};
