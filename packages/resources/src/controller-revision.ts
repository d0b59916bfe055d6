/**
 * ControllerRevision (`apps/v1`, namespaced, no short name): an immutable snapshot of a
 * controller's state. `revision` is required and not negative; `data` (any JSON object, a
 * RawExtension) is required and cannot change after creation; the object can still be deleted.
 * @module
 */
import { FieldPath, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { immutable, nonNegative } from "./internal/cluster-rules.js";
import type { ResourceType } from "./resource-type.js";
import { int64, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `runtime.RawExtension`: an embedded JSON object, kept as sent. */
export const rawExtensionSchema = named(
  z.record(z.string(), z.unknown()).meta({ description: "RawExtension is used to hold extensions in external versions." }),
  "apimachinery.pkg.runtime.RawExtension",
);

/** The zod schema of a ControllerRevision in `apps/v1`. */
export const controllerRevisionV1Schema = kindSchema({
  data: rawExtensionSchema.optional().describe("Data is the serialized representation of the state."),
  revision: int64().optional().describe("Revision indicates the revision of the state represented by Data."),
}).meta({ description: "ControllerRevision implements an immutable snapshot of state data.", required: ["revision"] });

/**
 * The ControllerRevision rules beyond metadata, for create and update alike: `revision`
 * required and not negative, `data` required (`data is mandatory`).
 */
export function validateControllerRevision(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  if (object["data"] === undefined) errors.push(requiredField("data", "data is mandatory"));
  const revision = object["revision"];
  if (revision === undefined) errors.push(requiredField("revision"));
  else errors.push(...nonNegative(revision, FieldPath.root("revision")));
  return errors;
}

/** The rule an update adds: `data` is immutable (`data: Invalid value: ...: field is immutable`). */
export function validateControllerRevisionUpdate(object: APIObject, old: APIObject): FieldError[] {
  return immutable(object["data"], old["data"], "data");
}

/** The ControllerRevision resource type. */
export const controllerRevisionType: ResourceType = {
  group: "apps",
  resource: "controllerrevisions",
  singular: "controllerrevision",
  kind: "ControllerRevision",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: controllerRevisionV1Schema, storage: true }],
  strategy: {
    validate: (object) => validateControllerRevision(object),
    validateUpdate: (object, old) => validateControllerRevisionUpdate(object, old),
    tableColumns: [
      {
        name: "Controller",
        type: "string",
        description: "The controller that owns this revision.",
        priority: 0,
        cell: (object) => {
          const owner = object.metadata?.ownerReferences?.find((ref) => ref.controller === true);
          if (!owner) return "<none>";
          const slash = owner.apiVersion.indexOf("/");
          const group = slash < 0 ? "" : owner.apiVersion.slice(0, slash);
          return `${(group ? `${owner.kind}.${group}` : owner.kind).toLowerCase()}/${owner.name}`;
        },
      },
      {
        name: "Revision",
        type: "integer",
        description: "The revision of the state.",
        priority: 0,
        cell: (object) => (typeof object["revision"] === "number" ? object["revision"] : 0),
      },
    ],
  },
};
