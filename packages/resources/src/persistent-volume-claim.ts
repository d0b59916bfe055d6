/**
 * PersistentVolumeClaim (core `v1`, namespaced, short name `pvc`, sub-resource `status`): a
 * request for storage with access modes, a `storage` request, an optional class, selector and
 * data source, a volume mode (default `Filesystem`), and a phase (`Pending`, `Bound`, `Lost`).
 * `dataSource` and `dataSourceRef` are made equal on every write, as the reference does; a
 * delete answers with the claim.
 * @module
 */
import {
  FieldPath,
  forbiddenField,
  invalidField,
  listType,
  mapType,
  requiredField,
  structType,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import {
  labelSelector,
  quantityOf,
  resourceList,
  validateAccessModes,
  validateClassName,
  validateLabelSelectorObject,
  validatePositiveQuantity,
  validateVolumeMode,
} from "./internal/storage-fields.js";
import { jsonEqual, record, str } from "./internal/rules.js";
import { accessModesString, conditionsList, keepAllButStatus, storageClassOf } from "./persistent-volume.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { named, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

const typedLocalObjectReference = structType(
  z
    .object({
      apiGroup: z.string().optional().describe("The group for the resource being referenced; empty for the core group."),
      kind: z.string().optional().describe("The type of resource being referenced."),
      name: z.string().optional().describe("The name of resource being referenced."),
    })
    .meta({
      description: "TypedLocalObjectReference contains enough information to let you locate the typed referenced object inside the same namespace.",
      required: ["kind", "name"],
    }),
  "atomic",
);

const typedObjectReference = z
  .object({
    apiGroup: z.string().optional().describe("The group for the resource being referenced; empty for the core group."),
    kind: z.string().optional().describe("The type of resource being referenced."),
    name: z.string().optional().describe("The name of resource being referenced."),
    namespace: z.string().optional().describe("The namespace of resource being referenced (needs the CrossNamespaceVolumeDataSource feature)."),
  })
  .meta({ description: "TypedObjectReference contains enough information to let you locate the typed referenced object.", required: ["kind", "name"] });

/** `PersistentVolumeClaimSpec`. */
export const persistentVolumeClaimSpecSchema = named(
  z
    .object({
      accessModes: listType(z.array(z.string()), "atomic").optional().describe("The desired access modes the volume should have."),
      dataSource: typedLocalObjectReference.optional().describe("A VolumeSnapshot or an existing PersistentVolumeClaim to populate the volume from."),
      dataSourceRef: typedObjectReference.optional().describe("The object from which to populate the volume; equal to dataSource when that is set."),
      resources: z
        .object({
          limits: resourceList().optional().describe("The maximum amount of compute resources allowed."),
          requests: resourceList().optional().describe("The minimum amount of compute resources required (`storage`)."),
        })
        .meta({ description: "VolumeResourceRequirements describes the storage resource requirements for a volume." })
        .optional()
        .describe("The minimum resources the volume should have."),
      selector: labelSelector().optional().describe("A label query over volumes to consider for binding."),
      storageClassName: z.string().optional().describe("The name of the StorageClass required by the claim."),
      volumeAttributesClassName: z.string().optional().describe("The VolumeAttributesClass used by this claim."),
      volumeMode: z.string().optional().describe("Block or Filesystem (default)."),
      volumeName: z.string().optional().describe("The binding reference to the PersistentVolume backing this claim."),
    })
    .meta({
      description: "PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes.",
    }),
  "api.core.v1.PersistentVolumeClaimSpec",
);

/** `PersistentVolumeClaimCondition`. */
export const persistentVolumeClaimConditionSchema = named(
  z
    .object({
      lastProbeTime: time().optional().describe("The last time we probed the condition."),
      lastTransitionTime: time().optional().describe("The last time the condition transitioned from one status to another."),
      message: z.string().optional().describe("Human-readable message indicating details about last transition."),
      reason: z.string().optional().describe("Unique, CamelCase reason for the condition's last transition (`ResizeStarted`...)."),
      status: z.string().optional().describe("True, False or Unknown."),
      type: z.string().optional().describe("The type of the condition (Resizing, FileSystemResizePending...)."),
    })
    .meta({ description: "PersistentVolumeClaimCondition contains details about state of pvc.", required: ["type", "status"] }),
  "api.core.v1.PersistentVolumeClaimCondition",
);

/** `PersistentVolumeClaimStatus`. */
export const persistentVolumeClaimStatusSchema = named(
  z
    .object({
      accessModes: listType(z.array(z.string()), "atomic").optional().describe("The actual access modes the volume backing the claim has."),
      allocatedResourceStatuses: mapType(z.record(z.string(), z.string()), "granular")
        .optional()
        .describe("The status of the resources resized for the claim."),
      allocatedResources: resourceList().optional().describe("The resources allocated to the claim (RecoverVolumeExpansionFailure)."),
      capacity: resourceList().optional().describe("The actual resources of the underlying volume."),
      conditions: conditionsList(persistentVolumeClaimConditionSchema).optional().describe("The current conditions of the claim."),
      currentVolumeAttributesClassName: z.string().optional().describe("The current VolumeAttributesClass of the claim."),
      modifyVolumeStatus: z
        .object({
          status: z.string().optional().describe("Pending, InProgress or Infeasible."),
          targetVolumeAttributesClassName: z.string().optional().describe("The VolumeAttributesClass being reconciled."),
        })
        .meta({ required: ["status"] })
        .optional()
        .describe("The status of a ControllerModifyVolume operation."),
      phase: z.string().optional().describe("The current phase of the claim: Pending, Bound or Lost."),
      resizeStatus: z.string().optional().describe("The state of a resize operation (alpha); empty once done."),
    })
    .meta({ description: "PersistentVolumeClaimStatus is the current status of a persistent volume claim." }),
  "api.core.v1.PersistentVolumeClaimStatus",
);

/** The zod schema of a PersistentVolumeClaim in `v1`. */
export const persistentVolumeClaimV1Schema = kindSchema(
  {
    spec: persistentVolumeClaimSpecSchema.optional().describe("The desired characteristics of a volume requested by a pod author."),
    status: persistentVolumeClaimStatusSchema.optional().describe("The current information/status of a persistent volume claim. Read-only."),
  },
  "PersistentVolumeClaim is a user's request for and claim to a persistent volume.",
);

/** The phases of a claim. */
export const persistentVolumeClaimPhases = ["Pending", "Bound", "Lost"] as const;

/** The API group of volume snapshots for `domain` (`snapshot.storage.orch.io`). */
export function snapshotGroup(domain: string): string {
  return `snapshot.storage.${domain}`;
}

function specOf(object: APIObject): Record<string, unknown> {
  const spec = record(object["spec"]) ?? {};
  object["spec"] = spec;
  return spec;
}

function dataSourceAllowed(ref: Record<string, unknown>, domain: string): boolean {
  const group = str(ref["apiGroup"]);
  return (ref["kind"] === "PersistentVolumeClaim" && group === "") || (ref["kind"] === "VolumeSnapshot" && group === snapshotGroup(domain));
}

function copyRef(from: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: from["kind"] ?? "", name: from["name"] ?? "" };
  if (from["apiGroup"] !== undefined) out["apiGroup"] = from["apiGroup"];
  return out;
}

/**
 * The reference's data-source handling of a write: a `dataSource` that is neither a claim (core
 * group) nor a `VolumeSnapshot` (`snapshot.storage.<domain>`) is dropped unless the stored claim
 * already had one; then a lone `dataSource` is copied to `dataSourceRef` and a lone
 * `dataSourceRef` without a namespace to `dataSource`. `dataSourceRef.namespace` is dropped (the
 * CrossNamespaceVolumeDataSource feature is off).
 */
export function normalizeDataSources(spec: Record<string, unknown>, oldSpec: Record<string, unknown> | undefined, domain: string): void {
  const ref = record(spec["dataSourceRef"]);
  if (ref && record(oldSpec?.["dataSourceRef"])?.["namespace"] === undefined) delete ref["namespace"];
  const ds = record(spec["dataSource"]);
  if (ds && oldSpec?.["dataSource"] === undefined && !dataSourceAllowed(ds, domain)) delete spec["dataSource"];
  const dataSource = record(spec["dataSource"]);
  if (dataSource && !ref) spec["dataSourceRef"] = copyRef(dataSource);
  else if (ref && !dataSource && !str(ref["namespace"])) spec["dataSource"] = copyRef(ref);
}

function validateRef(ref: Record<string, unknown>, path: FieldPath, withNamespace: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (str(ref["name"]) === "") errors.push(requiredField(path.child("name")));
  const kind = str(ref["kind"]);
  if (kind === "") errors.push(requiredField(path.child("kind")));
  const group = str(ref["apiGroup"]);
  if (group === "" && kind !== "PersistentVolumeClaim")
    errors.push(invalidField(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  if (group !== "") errors.push(...validateDNS1123Subdomain(group, path.child("apiGroup")));
  if (withNamespace && str(ref["namespace"]) !== "") errors.push(...validateDNS1123Label(str(ref["namespace"]), path.child("namespace")));
  return errors;
}

/**
 * The rules of a claim spec at `path`: `accessModes` required and supported, `selector` a valid
 * label selector, `resources.requests.storage` required and positive (path
 * `spec.resources[storage]`, as the reference reports it), `storageClassName` a DNS subdomain,
 * `volumeMode` supported, `dataSource` and `dataSourceRef` well-formed and equal.
 */
export function validatePersistentVolumeClaimSpec(spec: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  errors.push(...validateAccessModes(spec["accessModes"], path.child("accessModes"), "at least 1 access mode is required"));
  errors.push(...validateLabelSelectorObject(spec["selector"], path.child("selector")));
  const storagePath = path.child("resources").key("storage");
  const requests = record(record(spec["resources"])?.["requests"]) ?? {};
  if (!Object.hasOwn(requests, "storage")) errors.push(requiredField(storagePath));
  else {
    const q = quantityOf(requests["storage"]);
    if (q) errors.push(...validatePositiveQuantity(q, storagePath));
  }
  errors.push(...validateClassName(spec["storageClassName"], path.child("storageClassName")));
  errors.push(...validateVolumeMode(spec["volumeMode"], path.child("volumeMode")));
  const ds = record(spec["dataSource"]);
  const ref = record(spec["dataSourceRef"]);
  if (ds) errors.push(...validateRef(ds, path.child("dataSource"), false));
  if (ref) errors.push(...validateRef(ref, path.child("dataSourceRef"), true));
  if (ds && ref && str(ref["namespace"]) === "") {
    const same = str(ds["apiGroup"]) === str(ref["apiGroup"]) && str(ds["kind"]) === str(ref["kind"]) && str(ds["name"]) === str(ref["name"]);
    if (!same) errors.push(invalidField(path, path.child("dataSource").toString(), "must match dataSourceRef"));
  }
  return errors;
}

/** The PersistentVolumeClaim rules beyond metadata (pair with `validateObjectMeta`). */
export function validatePersistentVolumeClaim(object: APIObject): FieldError[] {
  return validatePersistentVolumeClaimSpec(record(object["spec"]) ?? {}, FieldPath.root("spec"));
}

/**
 * The rules an update adds: the spec is immutable except `resources.requests` and
 * `volumeAttributesClassName` of a bound claim, and `volumeName` while it is unset
 * (`spec: Forbidden: spec is immutable after creation except resources.requests and
 * volumeAttributesClassName for bound claims`); a bound claim's storage request cannot shrink
 * (`spec.resources.requests.storage: Forbidden: field can not be less than previous value`).
 */
export function validatePersistentVolumeClaimUpdate(object: APIObject, old: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = structuredClone(record(object["spec"]) ?? {});
  const oldSpec = record(old["spec"]) ?? {};
  if (str(oldSpec["volumeName"]) === "") {
    if (oldSpec["volumeName"] === undefined) delete spec["volumeName"];
    else spec["volumeName"] = oldSpec["volumeName"];
  }
  const bound = record(old["status"])?.["phase"] === "Bound";
  if (bound) {
    const requests = record(record(spec["resources"])?.["requests"]);
    const oldRequests = record(record(oldSpec["resources"])?.["requests"]) ?? {};
    const size = quantityOf(requests?.["storage"]);
    const oldSize = quantityOf(oldRequests["storage"]);
    if (size && oldSize && size.cmp(oldSize) < 0) {
      errors.push(forbiddenField(FieldPath.root("spec").child("resources").child("requests").child("storage"), "field can not be less than previous value"));
    }
    spec["resources"] = { ...(record(spec["resources"]) ?? {}), requests: structuredClone(oldRequests) };
    if (record(oldSpec["resources"])?.["requests"] === undefined) delete (spec["resources"] as Record<string, unknown>)["requests"];
  }
  if (oldSpec["volumeAttributesClassName"] !== undefined) spec["volumeAttributesClassName"] = oldSpec["volumeAttributesClassName"];
  else delete spec["volumeAttributesClassName"];
  if (!jsonEqual(spec, oldSpec)) {
    errors.push(forbiddenField("spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"));
  }
  return errors;
}

function defaults(object: APIObject): void {
  const spec = specOf(object);
  if (spec["volumeMode"] === undefined) spec["volumeMode"] = "Filesystem";
  const status = record(object["status"]);
  if (status && !status["phase"]) status["phase"] = "Pending";
}

function prepareForCreate(object: APIObject, ctx: StrategyContext): void {
  object["status"] = { phase: "Pending" };
  normalizeDataSources(specOf(object), undefined, ctx.domain);
}

function prepareForUpdate(object: APIObject, old: APIObject, ctx: StrategyContext): void {
  if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
  else delete object["status"];
  normalizeDataSources(specOf(object), record(old["spec"]), ctx.domain);
}

/** The PersistentVolumeClaim resource type. */
export const persistentVolumeClaimType: ResourceType = {
  group: "",
  resource: "persistentvolumeclaims",
  singular: "persistentvolumeclaim",
  kind: "PersistentVolumeClaim",
  shortNames: ["pvc"],
  scope: "Namespaced",
  versions: [{ name: "v1", schema: persistentVolumeClaimV1Schema, storage: true }],
  subresources: ["status"],
  strategy: {
    defaults,
    prepareForCreate,
    prepareForUpdate,
    prepareForStatusUpdate: (object, old) => keepAllButStatus(object, old),
    validate: (object) => validatePersistentVolumeClaim(object),
    validateUpdate: (object, old) => validatePersistentVolumeClaimUpdate(object, old),
    validateStatusUpdate: () => [],
    deleteReturnsObject: true,
    tracksGeneration: false,
    selectableFields: (object) => ({ name: object.metadata?.name ?? "" }),
    selectableFieldNames: ["name"],
    tableColumns: [
      { name: "Status", type: "string", description: "The phase of the claim.", priority: 0, cell: (object) => str(record(object["status"])?.["phase"]) },
      {
        name: "Volume",
        type: "string",
        description: "The volume bound to the claim.",
        priority: 0,
        cell: (object) => str(record(object["spec"])?.["volumeName"]),
      },
      {
        name: "Capacity",
        type: "string",
        description: "The capacity of the bound volume.",
        priority: 0,
        cell: (object) => (str(record(object["spec"])?.["volumeName"]) ? str(record(record(object["status"])?.["capacity"])?.["storage"]) : ""),
      },
      {
        name: "Access Modes",
        type: "string",
        description: "The access modes of the bound volume.",
        priority: 0,
        cell: (object) => (str(record(object["spec"])?.["volumeName"]) ? accessModesString(record(object["status"])?.["accessModes"]) : ""),
      },
      { name: "StorageClass", type: "string", description: "The storage class of the claim.", priority: 0, cell: (object) => storageClassOf(object) },
      {
        name: "VolumeAttributesClass",
        type: "string",
        description: "The volume attributes class of the claim.",
        priority: 0,
        cell: (object) => str(record(object["spec"])?.["volumeAttributesClassName"]) || "<unset>",
      },
      { name: "VolumeMode", type: "string", description: "Block or Filesystem.", priority: 1, cell: (object) => str(record(object["spec"])?.["volumeMode"]) },
    ],
  },
};
