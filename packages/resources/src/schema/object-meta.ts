/**
 * The zod schemas of `metadata` (ObjectMeta, OwnerReference, ManagedFieldsEntry) with the
 * reference's merge markers, and {@link kindSchema}, which builds a kind's object schema from
 * its own fields. Shapes and JSON types only: the rules are in `validate.ts`.
 * @module
 */
import { listType, patchStrategy, structType } from "@orch/meta";
import { z } from "zod";
import { int64, named, stringMap, time } from "./fields.js";
import { sparseObjectParse } from "../internal/sparse-objects.js";

/** `metav1.FieldsV1`: the managed-field set, an arbitrary JSON object. */
export const fieldsV1Schema = named(
  z.record(z.string(), z.unknown()).meta({
    description: "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.",
  }),
  "apimachinery.pkg.apis.meta.v1.FieldsV1",
);

/** `metav1.OwnerReference`: atomic as a struct; `apiVersion`, `kind`, `name`, `uid` required. */
export const ownerReferenceSchema = named(
  structType(
    z
      .object({
        apiVersion: z.string().optional().describe("API version of the referent."),
        blockOwnerDeletion: z.boolean().optional().describe("If true, the owner cannot be deleted from the key-value store until this reference is removed."),
        controller: z.boolean().optional().describe("If true, this reference points to the managing controller."),
        kind: z.string().optional().describe("Kind of the referent."),
        name: z.string().optional().describe("Name of the referent."),
        uid: z.string().optional().describe("UID of the referent."),
      })
      .meta({
        description: "OwnerReference contains enough information to let you identify an owning object.",
        required: ["apiVersion", "kind", "name", "uid"],
      }),
    "atomic",
  ),
  "apimachinery.pkg.apis.meta.v1.OwnerReference",
);

/** `metav1.ManagedFieldsEntry`: one field manager's ownership record. */
export const managedFieldsEntrySchema = named(
  z
    .object({
      apiVersion: z.string().optional().describe("The version of the resource this field set applies to."),
      fieldsType: z.string().optional().describe('The format of the fields field; the only valid value is "FieldsV1".'),
      fieldsV1: fieldsV1Schema.optional().describe("The field set, in FieldsV1 format."),
      manager: z.string().optional().describe("The identifier of the workflow managing these fields."),
      operation: z.string().optional().describe("The type of operation which lead to this entry: 'Apply' or 'Update'."),
      subresource: z.string().optional().describe("The sub-resource used to update the object, if any."),
      time: time().optional().describe("When this entry was added (UTC, seconds)."),
    })
    .meta({ description: "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to." }),
  "apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
);

/**
 * `metav1.ObjectMeta`, every field optional, with the reference's markers: `finalizers` a set
 * (strategic patch `merge`), `ownerReferences` a map keyed by `uid` (patch merge key `uid`),
 * `managedFields` atomic, `labels` and `annotations` granular maps.
 */
export const objectMetaSchema = named(
  z
    .object({
      annotations: stringMap().optional().describe("Unstructured key value map stored with a resource."),
      creationTimestamp: time().optional().describe("When this object was created; set by the server, read-only."),
      deletionGracePeriodSeconds: int64().optional().describe("Seconds allowed for graceful termination before removal; read-only."),
      deletionTimestamp: time().optional().describe("When this object will be deleted; set by the server when deletion is requested, read-only."),
      finalizers: patchStrategy(listType(z.array(z.string()), "set"), "merge")
        .optional()
        .describe("Must be empty before the object is deleted from the registry."),
      generateName: z.string().optional().describe("Optional prefix used by the server to generate a unique name when name is not provided."),
      generation: int64().optional().describe("A sequence number representing a specific generation of the desired state; read-only."),
      labels: stringMap().optional().describe("Map of string keys and values that can be used to organize and categorize objects."),
      managedFields: listType(z.array(managedFieldsEntrySchema), "atomic")
        .optional()
        .describe("Maps workflow-id and version to the set of fields that are managed by that workflow."),
      name: z.string().optional().describe("Name must be unique within a namespace."),
      namespace: z.string().optional().describe("The namespace the object is in; empty for cluster-scoped objects."),
      ownerReferences: patchStrategy(listType(z.array(ownerReferenceSchema), "map", ["uid"]), "merge", "uid")
        .optional()
        .describe("List of objects depended by this object."),
      resourceVersion: z.string().optional().describe("An opaque value that represents the internal version of this object."),
      selfLink: z.string().optional().describe("Deprecated: always empty."),
      uid: z.string().optional().describe("UID is the unique in time and space value for this object; set by the server."),
    })
    .meta({ description: "ObjectMeta is metadata that all persisted resources must have." }),
  "apimachinery.pkg.apis.meta.v1.ObjectMeta",
);

/** `metav1.ListMeta`: the metadata of a collection. */
export const listMetaSchema = named(
  z
    .object({
      continue: z.string().optional().describe("Set when more results are available; pass it as `continue` to get them."),
      remainingItemCount: int64().optional().describe("Number of items not included in this response, when known."),
      resourceVersion: z.string().optional().describe("The version at which the collection was read."),
      selfLink: z.string().optional().describe("Deprecated: always empty."),
    })
    .meta({ description: "ListMeta describes metadata that synthetic resources must have, including lists." }),
  "apimachinery.pkg.apis.meta.v1.ListMeta",
);

/** The fields every kind starts with. */
const typeMetaShape = {
  apiVersion: z.string().optional().describe("APIVersion defines the versioned schema of this representation of an object."),
  kind: z.string().optional().describe("Kind is a string value representing the REST resource this object represents."),
};

/**
 * The object schema of a kind: `apiVersion`, `kind`, `metadata` (ObjectMeta) and `fields`.
 * Unknown fields are stripped by parsing (detect them first with `findUnknownFields`).
 *
 * @example
 * const configMap = kindSchema({ data: stringMap().optional(), immutable: z.boolean().optional() }, "ConfigMap holds configuration data.");
 */
export function kindSchema<S extends z.core.$ZodLooseShape>(fields: S, description?: string) {
  const base = z.object({
    ...typeMetaShape,
    metadata: objectMetaSchema.optional().describe("Standard object's metadata."),
    ...fields,
  });
  const schema = description === undefined ? base : base.meta({ description });
  // Bodies set a few of the many fields of a kind: parse those, not the whole shape.
  sparseObjectParse(schema);
  return schema;
}

/**
 * The schema of the list kind of `item` (`<Kind>List`): `apiVersion`, `kind`, `metadata`
 * (ListMeta) and `items` (required).
 */
export function listSchema(item: z.ZodType, description?: string): z.ZodType {
  return z
    .object({
      ...typeMetaShape,
      items: z.array(item).describe("List of items."),
      metadata: listMetaSchema.optional().describe("Standard list metadata."),
    })
    .meta(description === undefined ? {} : { description });
}
