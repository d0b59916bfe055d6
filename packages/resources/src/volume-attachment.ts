/**
 * VolumeAttachment (`storage.{domain}/v1`, cluster-scoped, sub-resource `status`): the intent to
 * attach a volume to a node. The spec (`attacher`, `nodeName`, `source` with exactly one of
 * `persistentVolumeName` and `inlineVolumeSpec`) is immutable; the attacher reports `attached`,
 * `attachmentMetadata`, `attachError` and `detachError` in the status. A delete answers with
 * the object.
 * @module
 */
import {
  utf8ByteLength as utf8Length,
  FieldPath,
  forbiddenField,
  invalidField,
  requiredField,
  validateDNS1123Subdomain,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { validateCSIDriverName } from "./internal/storage-fields.js";
import { jsonEqual, record, str } from "./internal/rules.js";
import { keepAllButStatus, persistentVolumeSpecSchema, validatePersistentVolumeSpec } from "./persistent-volume.js";
import type { ResourceType } from "./resource-type.js";
import { named, stringMap, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `VolumeError`: an error of an attach or detach operation. */
export const volumeErrorSchema = named(
  z
    .object({
      errorCode: z
        .int32()
        .meta({ format: "int32" })
        .optional()
        .describe("Numeric gRPC code representing the error encountered during Attach or Detach operations."),
      message: z.string().optional().describe("A string detailing the encountered error; at most 1024 characters."),
      time: time().optional().describe("The time the error was encountered."),
    })
    .meta({ description: "VolumeError captures an error encountered during a volume operation." }),
  "api.storage.v1.VolumeError",
);

/** `VolumeAttachmentSpec`. */
export const volumeAttachmentSpecSchema = named(
  z
    .object({
      attacher: z.string().optional().describe("The name of the volume driver that MUST handle this request (the name returned by GetPluginName())."),
      nodeName: z.string().optional().describe("The node that the volume should be attached to."),
      source: z
        .object({
          inlineVolumeSpec: persistentVolumeSpecSchema.optional().describe("The spec of an inline volume migrated to CSI."),
          persistentVolumeName: z.string().optional().describe("The name of the persistent volume to attach."),
        })
        .meta({ description: "VolumeAttachmentSource represents a volume that should be attached; exactly one member can be set." })
        .optional()
        .describe("The volume that should be attached."),
    })
    .meta({ description: "VolumeAttachmentSpec is the specification of a VolumeAttachment request.", required: ["attacher", "source", "nodeName"] }),
  "api.storage.v1.VolumeAttachmentSpec",
);

/** `VolumeAttachmentStatus`. */
export const volumeAttachmentStatusSchema = named(
  z
    .object({
      attachError: volumeErrorSchema.optional().describe("The last error encountered during attach operation, if any."),
      attached: z.boolean().optional().describe("Indicates the volume is successfully attached."),
      attachmentMetadata: stringMap().optional().describe("Information returned by a successful attach, passed to subsequent WaitForAttach or Mount calls."),
      detachError: volumeErrorSchema.optional().describe("The last error encountered during detach operation, if any."),
    })
    .meta({ description: "VolumeAttachmentStatus is the status of a VolumeAttachment request.", required: ["attached"] }),
  "api.storage.v1.VolumeAttachmentStatus",
);

/** The zod schema of a VolumeAttachment in `v1`. */
export const volumeAttachmentV1Schema = kindSchema(
  {
    spec: volumeAttachmentSpecSchema.optional().describe("The desired attach/detach volume behavior."),
    status: volumeAttachmentStatusSchema.optional().describe("The status of the VolumeAttachment request; set by the attacher."),
  },
  "VolumeAttachment captures the intent to attach or detach the specified volume to/from the specified node.",
);

const maxAttachmentMetadataBytes = 256 * 1024;
const maxErrorMessageLength = 1024;

function validateVolumeError(value: unknown, path: FieldPath): FieldError[] {
  const message = str(record(value)?.["message"]);
  return message.length > maxErrorMessageLength
    ? [{ type: "FieldValueTooLong", field: path.child("message").toString(), value: message, detail: `may not be more than ${maxErrorMessageLength} bytes` }]
    : [];
}

/**
 * The VolumeAttachment rules beyond metadata (pair with `validateObjectMeta(..., { namespaced:
 * false })`): `spec.attacher` required and a CSI driver name, `spec.source` exactly one of
 * `persistentVolumeName` (a DNS subdomain) and `inlineVolumeSpec` (a CSI persistent volume
 * spec), `spec.nodeName` a DNS subdomain; status `attachmentMetadata` at most 256 KiB and error
 * messages at most 1024 characters.
 */
export function validateVolumeAttachment(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const specPath = FieldPath.root("spec");
  const attacher = str(spec["attacher"]);
  if (attacher === "") errors.push(requiredField(specPath.child("attacher"), "attacher must be specified"));
  const sourcePath = specPath.child("source");
  const source = record(spec["source"]) ?? {};
  const pvName = source["persistentVolumeName"];
  const inline = record(source["inlineVolumeSpec"]);
  const message = "must specify exactly one of inlineVolumeSpec and persistentVolumeName";
  if (pvName === undefined && !inline) errors.push(requiredField(sourcePath, message));
  else if (pvName !== undefined && inline) errors.push(forbiddenField(sourcePath, message));
  else if (pvName !== undefined) {
    if (str(pvName) === "") errors.push(requiredField(sourcePath.child("persistentVolumeName"), "must specify non empty persistentVolumeName"));
  } else if (inline) errors.push(...validatePersistentVolumeSpec(inline, sourcePath.child("inlineVolumeSpec"), { inline: true }));
  errors.push(...validateDNS1123Subdomain(str(spec["nodeName"]), specPath.child("nodeName")));

  const status = record(object["status"]) ?? {};
  const statusPath = FieldPath.root("status");
  let size = 0;
  for (const [k, v] of Object.entries(record(status["attachmentMetadata"]) ?? {})) size += utf8Length(k) + utf8Length(str(v));
  if (size > maxAttachmentMetadataBytes) {
    errors.push({
      type: "FieldValueTooLong",
      field: statusPath.child("attachmentMetadata").toString(),
      value: "",
      detail: `may not be more than ${maxAttachmentMetadataBytes} bytes`,
    });
  }
  errors.push(...validateVolumeError(status["attachError"], statusPath.child("attachError")));
  errors.push(...validateVolumeError(status["detachError"], statusPath.child("detachError")));

  // The v1 checks: the attacher is a CSI driver name, the volume name a DNS subdomain.
  if (attacher !== "") errors.push(...validateCSIDriverName(attacher, specPath.child("attacher")));
  if (typeof pvName === "string" && pvName !== "") errors.push(...validateDNS1123Subdomain(pvName, sourcePath.child("persistentVolumeName")));
  return errors;
}

/** The rule an update adds: the spec is read-only (`spec: Invalid value: ...: field is immutable`). */
export function validateVolumeAttachmentUpdate(object: APIObject, old: APIObject): FieldError[] {
  return jsonEqual(object["spec"], old["spec"]) ? [] : [invalidField("spec", object["spec"] ?? null, "field is immutable")];
}

/** The VolumeAttachment resource type. */
export const volumeAttachmentType: ResourceType = {
  group: "storage.{domain}",
  resource: "volumeattachments",
  singular: "volumeattachment",
  kind: "VolumeAttachment",
  scope: "Cluster",
  versions: [{ name: "v1", schema: volumeAttachmentV1Schema, storage: true }],
  subresources: ["status"],
  strategy: {
    prepareForCreate: (object) => {
      object["status"] = { attached: false };
    },
    prepareForUpdate: (object, old) => {
      if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
      else delete object["status"];
    },
    prepareForStatusUpdate: (object, old) => keepAllButStatus(object, old),
    validate: (object) => validateVolumeAttachment(object),
    validateUpdate: (object, old) => validateVolumeAttachmentUpdate(object, old),
    validateStatusUpdate: (object) => validateVolumeAttachment(object),
    deleteReturnsObject: true,
    tableColumns: [
      {
        name: "Attacher",
        type: "string",
        description: "The name of the volume driver.",
        priority: 0,
        cell: (object) => str(record(object["spec"])?.["attacher"]),
      },
      {
        name: "PV",
        type: "string",
        description: "The persistent volume to attach.",
        priority: 0,
        cell: (object) => str(record(record(object["spec"])?.["source"])?.["persistentVolumeName"]),
      },
      {
        name: "Node",
        type: "string",
        description: "The node the volume is attached to.",
        priority: 0,
        cell: (object) => str(record(object["spec"])?.["nodeName"]),
      },
      {
        name: "Attached",
        type: "boolean",
        description: "Whether the volume is attached.",
        priority: 0,
        cell: (object) => record(object["status"])?.["attached"] === true,
      },
      {
        name: "Attach Error",
        type: "string",
        description: "The last attach error.",
        priority: 1,
        cell: (object) => str(record(record(object["status"])?.["attachError"])?.["message"]),
      },
      {
        name: "Detach Error",
        type: "string",
        description: "The last detach error.",
        priority: 1,
        cell: (object) => str(record(record(object["status"])?.["detachError"])?.["message"]),
      },
    ],
  },
};
