/**
 * CSIStorageCapacity (`storage.{domain}/v1`, namespaced): the storage a CSI driver can provision
 * for one storage class in one topology segment. `storageClassName` (a DNS subdomain) and
 * `nodeTopology` (a label selector) are immutable; `capacity` and `maximumVolumeSize` are
 * quantities, not negative.
 * @module
 */
import { FieldPath, validateDNS1123Subdomain, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { labelSelector, quantity, quantityOf, validateImmutable, validateLabelSelectorObject, validateNonNegativeQuantity } from "./internal/storage-fields.js";
import { str } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { kindSchema } from "./schema/object-meta.js";

/** The zod schema of a CSIStorageCapacity in `v1`. */
export const csiStorageCapacityV1Schema = kindSchema({
  capacity: quantity().optional().describe("The value reported by the CSI driver in its GetCapacityResponse; unset means unknown."),
  maximumVolumeSize: quantity().optional().describe("The largest size that may be used in a CreateVolumeRequest.capacityRange.requiredBytes."),
  nodeTopology: labelSelector().optional().describe("The nodes that have access to the storage; unset means none, empty means all. Immutable."),
  storageClassName: z.string().optional().describe("The name of the StorageClass the capacity applies to; a DNS subdomain. Immutable."),
}).meta({
  description: "CSIStorageCapacity stores the result of one CSI GetCapacity call for a storage class and topology segment.",
  required: ["storageClassName"],
});

/**
 * The CSIStorageCapacity rules beyond metadata (pair with `validateObjectMeta`):
 * `nodeTopology` a valid label selector, `storageClassName` a DNS subdomain (the empty name is
 * invalid), `capacity` and `maximumVolumeSize` not negative.
 */
export function validateCSIStorageCapacity(object: APIObject): FieldError[] {
  const errors = validateLabelSelectorObject(object["nodeTopology"], FieldPath.root("nodeTopology"));
  errors.push(...validateDNS1123Subdomain(str(object["storageClassName"]), FieldPath.root("storageClassName")));
  for (const field of ["capacity", "maximumVolumeSize"]) {
    const q = quantityOf(object[field]);
    if (q) errors.push(...validateNonNegativeQuantity(q, FieldPath.root(field)));
  }
  return errors;
}

/** The rules an update adds: `nodeTopology` and `storageClassName` are immutable (`field is immutable`). */
export function validateCSIStorageCapacityUpdate(object: APIObject, old: APIObject): FieldError[] {
  return [
    ...validateImmutable(object["nodeTopology"], old["nodeTopology"], "nodeTopology"),
    ...validateImmutable(object["storageClassName"], old["storageClassName"], "storageClassName"),
  ];
}

/** The CSIStorageCapacity resource type. */
export const csiStorageCapacityType: ResourceType = {
  group: "storage.{domain}",
  resource: "csistoragecapacities",
  singular: "csistoragecapacity",
  kind: "CSIStorageCapacity",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: csiStorageCapacityV1Schema, storage: true }],
  strategy: {
    validate: (object) => validateCSIStorageCapacity(object),
    validateUpdate: (object, old) => validateCSIStorageCapacityUpdate(object, old),
    tracksGeneration: false,
    tableColumns: [
      {
        name: "StorageClassName",
        type: "string",
        description: "The storage class the capacity applies to.",
        priority: 0,
        cell: (object) => str(object["storageClassName"]),
      },
      { name: "Capacity", type: "string", description: "The capacity reported by the driver.", priority: 0, cell: (object) => str(object["capacity"]) },
    ],
  },
};
