/**
 * ResourceQuota (core `v1`, namespaced, short name `quota`, sub-resource `status`): hard limits
 * on the resources a namespace may consume, optionally restricted to pods of some scopes. The
 * quota controller writes `status.hard` and `status.used`.
 * @module
 */
import { FieldPath, invalidField, listType, notSupportedField, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { record, str } from "./internal/rules.js";
import { isStandardResourceName, list, quantityOf, resourceList, validateNonNegativeQuantity, validateResourceName } from "./internal/workloads-common.js";
import type { ResourceType } from "./resource-type.js";
import { named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** The standard quota scopes. */
export const quotaScopes = [
  "BestEffort",
  "CrossNamespacePodAffinity",
  "NotBestEffort",
  "NotTerminating",
  "PriorityClass",
  "Terminating",
  "VolumeAttributesClass",
] as const;

/** `ScopedResourceSelectorRequirement`. */
export const scopedResourceSelectorRequirementSchema = named(
  z
    .object({
      operator: z.string().optional().describe("In, NotIn, Exists or DoesNotExist."),
      scopeName: z.string().optional().describe("The name of the scope that the selector applies to."),
      values: listType(z.array(z.string()), "atomic").optional().describe("Values for In and NotIn; empty for Exists and DoesNotExist."),
    })
    .meta({
      description: "A scoped-resource selector requirement is a selector that contains values, a scope name, and an operator.",
      required: ["scopeName", "operator"],
    }),
  "api.core.v1.ScopedResourceSelectorRequirement",
);

/** `ResourceQuotaSpec`. */
export const resourceQuotaSpecSchema = named(
  z
    .object({
      hard: resourceList().optional().describe("The desired hard limits for each named resource."),
      scopeSelector: z
        .object({
          matchExpressions: listType(z.array(scopedResourceSelectorRequirementSchema), "atomic").optional().describe("Scope selector requirements by scope."),
        })
        .optional()
        .describe("Scopes the tracked objects must match, ANDed with scopes."),
      scopes: listType(z.array(z.string()), "atomic").optional().describe("Filters that must match each object tracked by a quota."),
    })
    .meta({ description: "ResourceQuotaSpec defines the desired hard limits to enforce for Quota." }),
  "api.core.v1.ResourceQuotaSpec",
);

/** `ResourceQuotaStatus`. */
export const resourceQuotaStatusSchema = named(
  z
    .object({
      hard: resourceList().optional().describe("The enforced hard limits for each named resource."),
      used: resourceList().optional().describe("The current observed total usage of the resource in the namespace."),
    })
    .meta({ description: "ResourceQuotaStatus defines the enforced hard limits and observed use." }),
  "api.core.v1.ResourceQuotaStatus",
);

/** The zod schema of a ResourceQuota in `v1`. */
export const resourceQuotaV1Schema = kindSchema(
  {
    spec: resourceQuotaSpecSchema.optional().describe("Spec defines the desired quota."),
    status: resourceQuotaStatusSchema.optional().describe("Status defines the actual enforced quota and its current usage."),
  },
  "ResourceQuota sets aggregate quota restrictions enforced per namespace.",
);

const integerResources = new Set([
  "pods",
  "services",
  "replicationcontrollers",
  "resourcequotas",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
]);
const podComputeResources = new Set(["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"]);

// The reference's IsResourceQuotaScopeValidForResource.
function scopeValidFor(scope: string, resource: string): boolean {
  switch (scope) {
    case "Terminating":
    case "NotTerminating":
    case "NotBestEffort":
    case "PriorityClass":
    case "CrossNamespacePodAffinity":
      return resource === "pods" || podComputeResources.has(resource);
    case "BestEffort":
      return resource === "pods";
    case "VolumeAttributesClass":
      return resource === "persistentvolumeclaims" || resource === "requests.storage" || resource.endsWith(".storageclass.storage.k8s.io/requests.storage");
    default:
      return true;
  }
}

function isIntegerResource(name: string): boolean {
  return integerResources.has(name) || name.startsWith("count/");
}

function validateQuantities(map: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const [k, v] of Object.entries(record(map) ?? {})) {
    const at = path.key(k);
    errors.push(...validateResourceName(k, at), ...validateNonNegativeQuantity(v, at));
    const q = quantityOf(v);
    if (q && isIntegerResource(k) && q.milliValue() % 1000n !== 0n) errors.push(invalidField(at, q.toString(), "must be an integer"));
  }
  return errors;
}

function validateScopeSelector(spec: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const expressions = list(record(spec["scopeSelector"])?.["matchExpressions"]);
  expressions.forEach((e, i) => {
    const req = record(e) ?? {};
    const at = path.child("scopeSelector").child("matchExpressions").index(i);
    const scope = str(req["scopeName"]);
    if (!(quotaScopes as readonly string[]).includes(scope)) errors.push(invalidField(at.child("scopeName"), scope, "unsupported scope"));
    const operator = str(req["operator"]);
    const values = list(req["values"]);
    switch (operator) {
      case "In":
      case "NotIn":
        if (values.length === 0)
          errors.push(requiredField(at.child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length !== 0)
          errors.push(invalidField(at.child("values"), values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
        break;
      default:
        errors.push(notSupportedField(at.child("operator"), operator, ["DoesNotExist", "Exists", "In", "NotIn"]));
    }
  });
  return errors;
}

/**
 * The ResourceQuota rules beyond metadata (the reference's `ValidateResourceQuota`), for create
 * and update alike: `spec.hard` (and `status.hard`/`status.used`) resource names standard or
 * qualified, quantities not negative and integers for countable resources; `spec.scopes` standard
 * (`unsupported scope`), valid for the tracked resources and not conflicting
 * (BestEffort/NotBestEffort, Terminating/NotTerminating); scope selector operators and values.
 */
export function validateResourceQuota(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  errors.push(...validateQuantities(spec["hard"], path.child("hard")));
  const scopes = list(spec["scopes"]).map((s) => str(s));
  const hard = Object.keys(record(spec["hard"]) ?? {});
  for (const scope of scopes) {
    if (!(quotaScopes as readonly string[]).includes(scope)) errors.push(invalidField(path.child("scopes"), scopes, "unsupported scope"));
    for (const k of [...hard].sort()) {
      if (isStandardResourceName(k) && !scopeValidFor(scope, k))
        errors.push(invalidField(path.child("scopes"), scopes, "unsupported scope applied to resource"));
    }
  }
  const set = new Set(scopes);
  if ((set.has("BestEffort") && set.has("NotBestEffort")) || (set.has("Terminating") && set.has("NotTerminating"))) {
    errors.push(invalidField(path.child("scopes"), scopes, "conflicting scopes"));
  }
  errors.push(...validateScopeSelector(spec, path));
  const status = record(object["status"]) ?? {};
  errors.push(...validateQuantities(status["hard"], FieldPath.root("status").child("hard")));
  errors.push(...validateQuantities(status["used"], FieldPath.root("status").child("used")));
  return errors;
}

function prepareForCreate(object: APIObject): void {
  delete object["status"];
}

function prepareForUpdate(object: APIObject, old: APIObject): void {
  if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
  else delete object["status"];
}

function prepareForStatusUpdate(object: APIObject, old: APIObject): void {
  if (old["spec"] !== undefined) object["spec"] = structuredClone(old["spec"]);
  else delete object["spec"];
}

function usage(object: APIObject, limits: boolean): string {
  const status = record(object["status"]) ?? {};
  const hard = record(status["hard"]) ?? {};
  const used = record(status["used"]) ?? {};
  return Object.keys(hard)
    .sort()
    .filter((k) => k.startsWith("limits.") === limits)
    .map((k) => `${k}: ${str(used[k]) || "0"}/${str(hard[k])}`)
    .join(", ");
}

/** The ResourceQuota resource type. */
export const resourceQuotaType: ResourceType = {
  group: "",
  resource: "resourcequotas",
  singular: "resourcequota",
  kind: "ResourceQuota",
  shortNames: ["quota"],
  scope: "Namespaced",
  versions: [{ name: "v1", schema: resourceQuotaV1Schema, storage: true }],
  subresources: ["status"],
  strategy: {
    prepareForCreate,
    prepareForUpdate,
    prepareForStatusUpdate,
    validate: (object) => validateResourceQuota(object),
    validateStatusUpdate: (object) => validateResourceQuota(object),
    tableColumns: [
      { name: "Request", type: "string", description: "Used over hard of the non-limit resources.", priority: 0, cell: (o) => usage(o, false) },
      { name: "Limit", type: "string", description: "Used over hard of the limits.* resources.", priority: 0, cell: (o) => usage(o, true) },
    ],
  },
};
