/**
 * CSIDriver (`storage.{domain}/v1`, cluster-scoped): how the cluster talks to one CSI driver.
 * The name is the driver's name; defaults `attachRequired` true, `podInfoOnMount` false,
 * `fsGroupPolicy` `ReadWriteOnceWithFSType`, `requiresRepublish` false, `storageCapacity`
 * false, `seLinuxMount` false, `volumeLifecycleModes` `[Persistent]`; `attachRequired`,
 * `fsGroupPolicy`, `podInfoOnMount` and `volumeLifecycleModes` are immutable; `tokenRequests`
 * audiences are unique. A delete answers with the object.
 * @module
 */
import { FieldPath, duplicateField, invalidField, listType, notSupportedField, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { records, strings, validateCSIDriverName, validateImmutable } from "./internal/storage-fields.js";
import { record, str } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { int64, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `TokenRequest` of a CSI driver: a token audience and its lifetime. */
export const csiTokenRequestSchema = named(
  z
    .object({
      audience: z.string().optional().describe("The intended audience of the token in the volume context; empty means the API server's."),
      expirationSeconds: int64().optional().describe("The duration of validity of the token; at least 10 minutes."),
    })
    .meta({ description: "TokenRequest contains parameters of a service account token.", required: ["audience"] }),
  "api.storage.v1.TokenRequest",
);

/** `CSIDriverSpec`. */
export const csiDriverSpecSchema = named(
  z
    .object({
      attachRequired: z.boolean().optional().describe("Whether this CSI volume driver requires an attach operation. Immutable; default true."),
      fsGroupPolicy: z
        .string()
        .optional()
        .describe("Whether the driver supports changing volume ownership: ReadWriteOnceWithFSType (default), File, None. Immutable."),
      podInfoOnMount: z.boolean().optional().describe("Whether the driver requires pod information during mount operations. Immutable; default false."),
      requiresRepublish: z.boolean().optional().describe("Whether NodePublishVolume is called periodically to remount the volume; default false."),
      seLinuxMount: z.boolean().optional().describe("Whether the driver supports the -o context mount option; default false."),
      storageCapacity: z.boolean().optional().describe("Whether the scheduler considers the storage capacity the driver reports; default false."),
      tokenRequests: listType(z.array(csiTokenRequestSchema), "atomic")
        .optional()
        .describe("Service account tokens to pass to NodePublishVolume; audiences unique."),
      volumeLifecycleModes: listType(z.array(z.string()), "set")
        .optional()
        .describe("The volume modes the driver supports: Persistent (default), Ephemeral. Immutable."),
    })
    .meta({ description: "CSIDriverSpec is the specification of a CSIDriver." }),
  "api.storage.v1.CSIDriverSpec",
);

/** The zod schema of a CSIDriver in `v1`. */
export const csiDriverV1Schema = kindSchema(
  { spec: csiDriverSpecSchema.optional().describe("The specification of the CSI Driver.") },
  "CSIDriver captures information about a Container Storage Interface (CSI) volume driver deployed on the cluster.",
);

/** The `fsGroupPolicy` values. */
export const fsGroupPolicies = ["File", "None", "ReadWriteOnceWithFSType"] as const;
/** The `volumeLifecycleModes` values. */
export const volumeLifecycleModes = ["Persistent", "Ephemeral"] as const;

function validateTokenRequests(value: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  records(value).forEach((request, i) => {
    const at = path.index(i);
    const audience = str(request["audience"]);
    if (seen.has(audience)) {
      errors.push(duplicateField(at.child("audience"), audience));
      return;
    }
    seen.add(audience);
    const seconds = request["expirationSeconds"];
    if (typeof seconds !== "number") return;
    if (seconds < 600) errors.push(invalidField(at.child("expirationSeconds"), seconds, "may not specify a duration less than 10 minutes"));
    if (seconds > 2 ** 32) errors.push(invalidField(at.child("expirationSeconds"), seconds, "may not specify a duration larger than 2^32 seconds"));
  });
  return errors;
}

/**
 * The CSIDriver rules beyond metadata (pair with `validateObjectMeta(..., { namespaced: false
 * })`), run after defaulting: the name a CSI driver name (path `name`, as the reference reports
 * it), `attachRequired` (path `spec.attachedRequired`, the reference's spelling),
 * `podInfoOnMount`, `storageCapacity` set, `fsGroupPolicy` and `volumeLifecycleModes` among the
 * supported, `tokenRequests` audiences unique and lifetimes from 10 minutes to 2^32 seconds.
 */
export function validateCSIDriver(object: APIObject): FieldError[] {
  const errors = validateCSIDriverName(object.metadata?.name ?? "", FieldPath.root("name"));
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  if (spec["attachRequired"] === undefined) errors.push(requiredField(path.child("attachedRequired")));
  if (spec["podInfoOnMount"] === undefined) errors.push(requiredField(path.child("podInfoOnMount")));
  if (spec["storageCapacity"] === undefined) errors.push(requiredField(path.child("storageCapacity")));
  const policy = spec["fsGroupPolicy"];
  if (policy !== undefined && !(fsGroupPolicies as readonly string[]).includes(str(policy))) {
    errors.push(notSupportedField(path.child("fsGroupPolicy"), policy, fsGroupPolicies));
  }
  errors.push(...validateTokenRequests(spec["tokenRequests"], path.child("tokenRequests")));
  for (const mode of strings(spec["volumeLifecycleModes"])) {
    if (!(volumeLifecycleModes as readonly string[]).includes(mode))
      errors.push(notSupportedField(path.child("volumeLifecycleModes"), mode, volumeLifecycleModes));
  }
  return errors;
}

/**
 * The rules an update adds: `attachRequired` (path `spec.attachedRequired`), `fsGroupPolicy`,
 * `podInfoOnMount` and `volumeLifecycleModes` are immutable (`field is immutable`).
 */
export function validateCSIDriverUpdate(object: APIObject, old: APIObject): FieldError[] {
  const spec = record(object["spec"]) ?? {};
  const oldSpec = record(old["spec"]) ?? {};
  const path = FieldPath.root("spec");
  return [
    ...validateImmutable(spec["attachRequired"], oldSpec["attachRequired"], path.child("attachedRequired")),
    ...validateImmutable(spec["fsGroupPolicy"], oldSpec["fsGroupPolicy"], path.child("fsGroupPolicy")),
    ...validateImmutable(spec["podInfoOnMount"], oldSpec["podInfoOnMount"], path.child("podInfoOnMount")),
    ...validateImmutable(spec["volumeLifecycleModes"], oldSpec["volumeLifecycleModes"], path.child("volumeLifecycleModes")),
  ];
}

/** Fills the reference's CSIDriver defaults in `object.spec`. */
export function defaultCSIDriver(object: APIObject): void {
  const spec = record(object["spec"]) ?? {};
  object["spec"] = spec;
  const defaults: Record<string, unknown> = {
    attachRequired: true,
    podInfoOnMount: false,
    storageCapacity: false,
    fsGroupPolicy: "ReadWriteOnceWithFSType",
    requiresRepublish: false,
    seLinuxMount: false,
  };
  for (const [k, v] of Object.entries(defaults)) if (spec[k] === undefined) spec[k] = v;
  if (strings(spec["volumeLifecycleModes"]).length === 0) spec["volumeLifecycleModes"] = ["Persistent"];
}

const flag = (name: string, field: string, description: string) => ({
  name,
  type: "boolean",
  description,
  priority: 0,
  cell: (object: APIObject) => record(object["spec"])?.[field] === true,
});

/** The CSIDriver resource type. */
export const csiDriverType: ResourceType = {
  group: "storage.{domain}",
  resource: "csidrivers",
  singular: "csidriver",
  kind: "CSIDriver",
  scope: "Cluster",
  versions: [{ name: "v1", schema: csiDriverV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultCSIDriver(object),
    validate: (object) => validateCSIDriver(object),
    validateUpdate: (object, old) => validateCSIDriverUpdate(object, old),
    deleteReturnsObject: true,
    tableColumns: [
      flag("AttachRequired", "attachRequired", "Whether the driver requires an attach operation."),
      flag("PodInfoOnMount", "podInfoOnMount", "Whether the driver requires pod information during mount."),
      flag("StorageCapacity", "storageCapacity", "Whether the scheduler considers the driver's storage capacity."),
      {
        name: "TokenRequests",
        type: "string",
        description: "The audiences of the service account tokens passed to the driver.",
        priority: 0,
        cell: (object) => {
          const audiences = records(record(object["spec"])?.["tokenRequests"]).map((r) => str(r["audience"]));
          return audiences.length ? audiences.join(",") : "<unset>";
        },
      },
      flag("RequiresRepublish", "requiresRepublish", "Whether NodePublishVolume is called periodically."),
      {
        name: "Modes",
        type: "string",
        description: "The volume lifecycle modes the driver supports.",
        priority: 0,
        cell: (object) => {
          const modes = strings(record(object["spec"])?.["volumeLifecycleModes"]);
          return modes.length ? modes.join(",") : "<none>";
        },
      },
    ],
  },
};
