/**
 * The kinds every group version shares (`meta/v1`): Status, DeleteOptions, WatchEvent and Patch,
 * as zod schemas for the OpenAPI documents and for decoding a DeleteOptions body.
 * @module
 */
import { listType } from "@orch/meta";
import { z } from "zod";
import { int32, int64, named } from "./fields.js";
import { listMetaSchema } from "./object-meta.js";

const typeMeta = {
  apiVersion: z.string().optional().describe("APIVersion defines the versioned schema of this representation of an object."),
  kind: z.string().optional().describe("Kind is a string value representing the REST resource this object represents."),
};

/** `metav1.StatusCause`: one cause of a failure (for an invalid object, one per field error). */
export const statusCauseSchema = named(
  z
    .object({
      field: z.string().optional().describe("The field of the resource that has caused this error."),
      message: z.string().optional().describe("A human-readable description of the cause of the error."),
      reason: z.string().optional().describe("A machine-readable description of the cause of the error."),
    })
    .meta({ description: "StatusCause provides more information about an api.Status failure." }),
  "apimachinery.pkg.apis.meta.v1.StatusCause",
);

/** `metav1.StatusDetails`. */
export const statusDetailsSchema = named(
  z
    .object({
      causes: listType(z.array(statusCauseSchema), "atomic").optional().describe("The causes of the error."),
      group: z.string().optional().describe("The group attribute of the resource associated with the status."),
      kind: z.string().optional().describe("The kind attribute of the resource associated with the status."),
      name: z.string().optional().describe("The name attribute of the resource associated with the status."),
      retryAfterSeconds: int32().optional().describe("Seconds the client should wait before retrying."),
      uid: z.string().optional().describe("UID of the resource."),
    })
    .meta({ description: "StatusDetails is a set of additional properties that MAY be set by the server." }),
  "apimachinery.pkg.apis.meta.v1.StatusDetails",
);

/** `metav1.Status`: the body of every error and of some successful deletes. */
export const statusSchema = named(
  z
    .object({
      ...typeMeta,
      code: int32().optional().describe("Suggested HTTP return code for this status, 0 if not set."),
      details: statusDetailsSchema.optional().describe("Extended data associated with the reason."),
      message: z.string().optional().describe("A human-readable description of the status of this operation."),
      metadata: listMetaSchema.optional().describe("Standard list metadata."),
      reason: z.string().optional().describe("A machine-readable description of why this operation is in the Failure status."),
      status: z.string().optional().describe('Status of the operation: "Success" or "Failure".'),
    })
    .meta({ description: "Status is a return value for calls that don't return other objects." }),
  "apimachinery.pkg.apis.meta.v1.Status",
);

/** `metav1.Preconditions` of a delete. */
export const preconditionsSchema = named(
  z
    .object({
      resourceVersion: z.string().optional().describe("Specifies the target ResourceVersion."),
      uid: z.string().optional().describe("Specifies the target UID."),
    })
    .meta({ description: "Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out." }),
  "apimachinery.pkg.apis.meta.v1.Preconditions",
);

/** `metav1.DeleteOptions`: the optional body of a delete. */
export const deleteOptionsSchema = named(
  z
    .object({
      ...typeMeta,
      dryRun: listType(z.array(z.string()), "atomic").optional().describe("When present, modifications are not persisted: All."),
      gracePeriodSeconds: int64().optional().describe("The duration in seconds before the object should be deleted."),
      ignoreStoreReadErrorWithClusterBreakingPotential: z.boolean().optional().describe("Deletes corrupt objects that cannot be read."),
      orphanDependents: z.boolean().optional().describe("Deprecated: use propagationPolicy."),
      preconditions: preconditionsSchema.optional().describe("Must be fulfilled before a deletion is carried out."),
      propagationPolicy: z.string().optional().describe("Whether and how garbage collection is performed: Orphan, Background or Foreground."),
    })
    .meta({ description: "DeleteOptions may be provided when deleting an API object." }),
  "apimachinery.pkg.apis.meta.v1.DeleteOptions",
);

/** `metav1.WatchEvent`: one line of a watch stream. */
export const watchEventSchema = named(
  z
    .object({
      object: z.record(z.string(), z.unknown()).describe("The object: for ADDED and MODIFIED the new state, for DELETED the last state, for ERROR a Status."),
      type: z.string(),
    })
    .meta({ description: "Event represents a single event to a watched resource." }),
  "apimachinery.pkg.apis.meta.v1.WatchEvent",
);

/** `metav1.Patch`: the body of a PATCH, in any of the patch media types. */
export const patchSchema = named(
  z.object({}).meta({ description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body." }),
  "apimachinery.pkg.apis.meta.v1.Patch",
);
