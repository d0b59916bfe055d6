/**
 * Namespace (core `v1`, cluster-scoped, short name `ns`, sub-resources `status` and `finalize`):
 * a DNS-label name, `spec.finalizers` holding the product's finalizer until the namespace
 * controller has emptied it, `status.phase` `Active` or `Terminating`. The built-in namespaces
 * cannot be deleted, and there is no `deletecollection`.
 * @module
 */
import { extensionPrefix, FieldPath, invalidField, listType, patchStrategy, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { record, str, validateFinalizerName } from "./internal/rules.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { named, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `NamespaceCondition`: one condition of a namespace's status. */
export const namespaceConditionSchema = named(
  z
    .object({
      lastTransitionTime: time().optional().describe("Last time the condition transitioned from one status to another."),
      message: z.string().optional().describe("Human-readable message indicating details about last transition."),
      reason: z.string().optional().describe("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: z.string().optional().describe("Status of the condition, one of True, False, Unknown."),
      type: z.string().optional().describe("Type of namespace controller condition."),
    })
    .meta({ description: "NamespaceCondition contains details about state of namespace.", required: ["type", "status"] }),
  "api.core.v1.NamespaceCondition",
);

/** `NamespaceSpec`. */
export const namespaceSpecSchema = named(
  z
    .object({
      finalizers: listType(z.array(z.string()), "atomic")
        .optional()
        .describe("Finalizers is an opaque list of values that must be empty to permanently remove object from storage."),
    })
    .meta({ description: "NamespaceSpec describes the attributes on a Namespace." }),
  "api.core.v1.NamespaceSpec",
);

/** `NamespaceStatus`. */
export const namespaceStatusSchema = named(
  z
    .object({
      conditions: patchStrategy(listType(z.array(namespaceConditionSchema), "map", ["type"]), "merge", "type")
        .optional()
        .describe("Represents the latest available observations of a namespace's current state."),
      phase: z.string().optional().describe("Phase is the current lifecycle phase of the namespace: Active or Terminating."),
    })
    .meta({ description: "NamespaceStatus is information about the current status of a Namespace." }),
  "api.core.v1.NamespaceStatus",
);

/** The zod schema of a Namespace in `v1`. */
export const namespaceV1Schema = kindSchema(
  {
    spec: namespaceSpecSchema.optional().describe("Spec defines the behavior of the Namespace."),
    status: namespaceStatusSchema.optional().describe("Status describes the current status of a Namespace."),
  },
  "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
);

/** The phase of a namespace in use. */
export const namespaceActive = "Active";
/** The phase of a namespace being deleted. */
export const namespaceTerminating = "Terminating";

/** The finalizer the namespace controller removes: `orch`, or `kubernetes` for domain `k8s.io`. */
export function namespaceFinalizer(domain: string): string {
  return extensionPrefix(domain);
}

/**
 * The namespaces a server of `domain` creates at start and never lets go: `default`,
 * `<short>-system` and `<short>-public`, where `<short>` is `kube` for `k8s.io`, else the
 * domain's first label (`orch-system` for `orch.io`).
 */
export function builtinNamespaces(domain: string): string[] {
  const short = domain === "k8s.io" ? "kube" : (domain.split(".")[0] ?? "orch");
  return ["default", `${short}-system`, `${short}-public`];
}

/** The label every namespace carries with its own name: `<domain>/metadata.name`. */
export function namespaceNameLabel(domain: string): string {
  return `${domain}/metadata.name`;
}

function spec(object: APIObject): Record<string, unknown> {
  const s = record(object["spec"]) ?? {};
  object["spec"] = s;
  return s;
}

function defaults(object: APIObject, ctx: StrategyContext): void {
  const name = object.metadata?.name;
  if (name) object.metadata.labels = { ...(object.metadata.labels ?? {}), [namespaceNameLabel(ctx.domain)]: name };
  const status = record(object["status"]);
  if (status && !status["phase"]) status["phase"] = namespaceActive;
}

function prepareForCreate(object: APIObject, ctx: StrategyContext): void {
  object["status"] = { phase: namespaceActive };
  const s = spec(object);
  const finalizers = Array.isArray(s["finalizers"]) ? (s["finalizers"] as unknown[]).filter((f) => typeof f === "string") : [];
  const own = namespaceFinalizer(ctx.domain);
  if (!finalizers.includes(own)) finalizers.push(own);
  s["finalizers"] = finalizers;
}

function prepareForUpdate(object: APIObject, old: APIObject): void {
  const oldSpec = record(old["spec"]);
  const s = spec(object);
  if (oldSpec?.["finalizers"] !== undefined) s["finalizers"] = structuredClone(oldSpec["finalizers"]);
  else delete s["finalizers"];
  if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
  else delete object["status"];
}

function prepareForStatusUpdate(object: APIObject, old: APIObject): void {
  if (old["spec"] !== undefined) object["spec"] = structuredClone(old["spec"]);
  else delete object["spec"];
}

/** The first phase of a namespace's deletion: it turns `Terminating` until its content is gone. */
function prepareForDelete(object: APIObject): void {
  object["status"] = { ...(record(object["status"]) ?? {}), phase: namespaceTerminating };
}

function prepareForFinalize(object: APIObject, old: APIObject): void {
  if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
  else delete object["status"];
}

function finalizers(object: APIObject): string[] {
  const list = record(object["spec"])?.["finalizers"];
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === "string") : [];
}

/**
 * The Namespace rules beyond metadata (pair with `validateObjectMeta(..., { namespaced: false,
 * nameIsLabel: true })`), for create and update alike: each `spec.finalizers` entry a qualified
 * name, and without a `/` a standard one (`orch`/`kubernetes`, `orphan`, `foregroundDeletion`).
 */
export function validateNamespace(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const domain = ctx?.domain ?? "orch.io";
  const errors: FieldError[] = [];
  const path = FieldPath.root("spec").child("finalizers");
  for (const f of finalizers(object)) errors.push(...validateFinalizerName(f, path, domain));
  return errors;
}

/**
 * The rule of a write to `/status` beyond the metadata update: `status.phase` `Active` while
 * there is no `deletionTimestamp`, `Terminating` once there is (path `status.Phase`, as the
 * reference writes it).
 */
export function validateNamespaceStatusUpdate(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const phase = str(record(object["status"])?.["phase"]);
  const path = FieldPath.root("status").child("Phase");
  if (!object.metadata?.deletionTimestamp) {
    if (phase !== namespaceActive) errors.push(invalidField(path, phase, "may only be 'Active' if `deletionTimestamp` is empty"));
  } else if (phase !== namespaceTerminating) {
    errors.push(invalidField(path, phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
  }
  return errors;
}

/**
 * The rule of `PUT .../finalize` beyond the metadata update: each `spec.finalizers[i]` a valid
 * finalizer name (path with the index, as the reference reports it).
 */
export function validateNamespaceFinalize(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const domain = ctx?.domain ?? "orch.io";
  const errors: FieldError[] = [];
  const path = FieldPath.root("spec").child("finalizers");
  finalizers(object).forEach((f, i) => errors.push(...validateFinalizerName(f, path.index(i), domain)));
  return errors;
}

/** The Namespace resource type. */
export const namespaceType: ResourceType = {
  group: "",
  resource: "namespaces",
  singular: "namespace",
  kind: "Namespace",
  shortNames: ["ns"],
  scope: "Cluster",
  versions: [{ name: "v1", schema: namespaceV1Schema, storage: true }],
  subresources: ["status", "finalize"],
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  strategy: {
    defaults,
    prepareForCreate,
    prepareForUpdate,
    prepareForStatusUpdate,
    prepareForDelete,
    nameIsLabel: true,
    deleteReturnsObject: false,
    validate: (object, ctx) => validateNamespace(object, ctx),
    validateStatusUpdate: (object) => validateNamespaceStatusUpdate(object),
    subresourceStrategies: {
      finalize: { verbs: ["update"], prepareForUpdate: prepareForFinalize, validateUpdate: (object, _old, ctx) => validateNamespaceFinalize(object, ctx) },
    },
    selectableFields: (object) => ({ "status.phase": str(record(object["status"])?.["phase"]), name: object.metadata?.name ?? "" }),
    selectableFieldNames: ["status.phase", "name"],
    tableColumns: [
      {
        name: "Status",
        type: "string",
        description: "The status of the namespace.",
        priority: 0,
        cell: (object) => str(record(object["status"])?.["phase"]),
      },
    ],
  },
};
