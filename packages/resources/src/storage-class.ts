/**
 * StorageClass (`storage.{domain}/v1`, cluster-scoped, short name `sc`): a class of dynamically
 * provisioned volumes. `provisioner` required (a qualified name), `reclaimPolicy` `Delete`
 * (default) or `Retain`, `volumeBindingMode` `Immediate` (default) or `WaitForFirstConsumer`,
 * `allowVolumeExpansion`, `allowedTopologies`; `parameters`, `provisioner`, `reclaimPolicy` and
 * `volumeBindingMode` cannot change.
 * @module
 */
import {
  FieldPath,
  duplicateField,
  forbiddenField,
  invalidField,
  listType,
  notSupportedField,
  requiredField,
  tooLongField,
  validateLabelValue,
  validateQualifiedName,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { records, strings, topologySelectorTerm, validateImmutable } from "./internal/storage-fields.js";
import { jsonEqual, str, stringRecord } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { stringMap } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** The zod schema of a StorageClass in `v1`. */
export const storageClassV1Schema = kindSchema({
  allowVolumeExpansion: z.boolean().optional().describe("Whether the storage class allows volume expansion."),
  allowedTopologies: listType(z.array(topologySelectorTerm()), "atomic")
    .optional()
    .describe("Restricts the node topologies where volumes can be dynamically provisioned."),
  mountOptions: listType(z.array(z.string()), "atomic")
    .optional()
    .describe('Mount options of the dynamically provisioned volumes, e.g. ["ro", "soft"]. Not validated.'),
  parameters: stringMap().optional().describe("Parameters for the provisioner that should create volumes of this storage class. Immutable."),
  provisioner: z.string().optional().describe("The type of the provisioner. Immutable."),
  reclaimPolicy: z.string().optional().describe("The reclaim policy of dynamically provisioned volumes: Delete (default) or Retain. Immutable."),
  volumeBindingMode: z.string().optional().describe("How claims should be provisioned and bound: Immediate (default) or WaitForFirstConsumer. Immutable."),
}).meta({
  description: "StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically provisioned.",
  required: ["provisioner"],
});

/** The reclaim policies a storage class accepts. */
export const storageClassReclaimPolicies = ["Delete", "Retain"] as const;
/** The volume binding modes. */
export const volumeBindingModes = ["Immediate", "WaitForFirstConsumer"] as const;

const maxParameters = 512;
const maxParameterBytes = 256 * 1024;

function validateTopologies(value: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen: Record<string, string[]>[] = [];
  records(value).forEach((term, i) => {
    const at = path.index(i);
    const map: Record<string, string[]> = {};
    records(term["matchLabelExpressions"]).forEach((expr, j) => {
      const exprPath = at.child("matchLabelExpressions").index(j);
      const key = str(expr["key"]);
      errors.push(...validateQualifiedName(key, exprPath.child("key")));
      const values = strings(expr["values"]);
      if (values.length === 0) errors.push(requiredField(exprPath.child("values"), "must specify as least one value"));
      const unique = new Set<string>();
      values.forEach((v, k) => {
        errors.push(...validateLabelValue(v, exprPath.child("values").index(k)));
        if (unique.has(v)) errors.push(duplicateField(exprPath.child("values").index(k), v));
        unique.add(v);
      });
      if (Object.hasOwn(map, key)) errors.push(duplicateField(exprPath.child("key"), key));
      map[key] = [...unique].sort();
    });
    if (seen.some((other) => jsonEqual(other, map))) errors.push(duplicateField(at.child("matchLabelExpressions"), ""));
    seen.push(map);
  });
  return errors;
}

/**
 * The StorageClass rules beyond metadata (pair with `validateObjectMeta(..., { namespaced: false
 * })`), run after defaulting: `provisioner` required and a qualified name, `parameters` at most
 * 512 entries and 256 KiB with non-empty keys, `reclaimPolicy` `Delete` or `Retain`,
 * `volumeBindingMode` set and supported, `allowedTopologies` valid and without duplicates.
 */
export function validateStorageClass(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const provisioner = str(object["provisioner"]);
  if (provisioner === "") errors.push(requiredField("provisioner", provisioner));
  else errors.push(...validateQualifiedName(provisioner.toLowerCase(), "provisioner").map((e) => ({ ...e, value: provisioner })));
  const params = stringRecord(object["parameters"]);
  if (Object.keys(params).length > maxParameters) {
    errors.push(tooLongField("parameters", "Provisioner Parameters exceeded max allowed", maxParameters));
  } else {
    let total = 0;
    for (const [k, v] of Object.entries(params)) {
      if (k.length < 1) errors.push(invalidField("parameters", k, "field can not be empty."));
      total += k.length + v.length;
    }
    if (total > maxParameterBytes) errors.push(tooLongField("parameters", "", maxParameterBytes));
  }
  const policy = object["reclaimPolicy"];
  if (policy !== undefined && policy !== "" && !(storageClassReclaimPolicies as readonly string[]).includes(str(policy))) {
    errors.push(notSupportedField("reclaimPolicy", policy, storageClassReclaimPolicies));
  }
  const mode = object["volumeBindingMode"];
  if (mode === undefined) errors.push(requiredField("volumeBindingMode"));
  else if (!(volumeBindingModes as readonly string[]).includes(str(mode))) errors.push(notSupportedField("volumeBindingMode", mode, volumeBindingModes));
  errors.push(...validateTopologies(object["allowedTopologies"], FieldPath.root("allowedTopologies")));
  return errors;
}

/**
 * The rules an update adds: `parameters`, `provisioner` and `reclaimPolicy` cannot change
 * (`Forbidden: updates to parameters are forbidden.`, ...), nor `volumeBindingMode` (`field is
 * immutable`).
 */
export function validateStorageClassUpdate(object: APIObject, old: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  if (!jsonEqual(object["parameters"], old["parameters"])) errors.push(forbiddenField("parameters", "updates to parameters are forbidden."));
  if (str(object["provisioner"]) !== str(old["provisioner"])) errors.push(forbiddenField("provisioner", "updates to provisioner are forbidden."));
  if (str(object["reclaimPolicy"]) !== str(old["reclaimPolicy"])) errors.push(forbiddenField("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  errors.push(...validateImmutable(object["volumeBindingMode"], old["volumeBindingMode"], "volumeBindingMode"));
  return errors;
}

function defaults(object: APIObject): void {
  if (!object["reclaimPolicy"]) object["reclaimPolicy"] = "Delete";
  if (object["volumeBindingMode"] === undefined) object["volumeBindingMode"] = "Immediate";
}

/** The StorageClass resource type. */
export const storageClassType: ResourceType = {
  group: "storage.{domain}",
  resource: "storageclasses",
  singular: "storageclass",
  kind: "StorageClass",
  shortNames: ["sc"],
  scope: "Cluster",
  versions: [{ name: "v1", schema: storageClassV1Schema, storage: true }],
  strategy: {
    defaults,
    validate: (object) => validateStorageClass(object),
    validateUpdate: (object, old) => validateStorageClassUpdate(object, old),
    // As the reference's storage class registry (`ReturnDeletedObject`): a delete answers with the class.
    deleteReturnsObject: true,
    tracksGeneration: false,
    tableColumns: [
      { name: "Provisioner", type: "string", description: "The provisioner of the class.", priority: 0, cell: (object) => str(object["provisioner"]) },
      {
        name: "ReclaimPolicy",
        type: "string",
        description: "The reclaim policy of provisioned volumes.",
        priority: 0,
        cell: (object) => str(object["reclaimPolicy"]),
      },
      {
        name: "VolumeBindingMode",
        type: "string",
        description: "When volumes are bound and provisioned.",
        priority: 0,
        cell: (object) => str(object["volumeBindingMode"]),
      },
      {
        name: "AllowVolumeExpansion",
        type: "string",
        description: "Whether the class allows volume expansion.",
        priority: 0,
        cell: (object) => object["allowVolumeExpansion"] === true,
      },
    ],
  },
};
