/**
 * CSINode (`storage.{domain}/v1`, cluster-scoped): the CSI drivers installed on one node (the
 * object's name is the node's). `spec.drivers` is a list keyed by `name` (names unique), each
 * with a required `nodeID`, `topologyKeys` and `allocatable.count`; a driver's entry cannot
 * change once present. A delete answers with the object.
 * @module
 */
import {
  FieldPath,
  duplicateField,
  invalidField,
  listType,
  patchStrategy,
  requiredField,
  validateQualifiedName,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { negativeMessage, records, strings, validateCSIDriverName } from "./internal/storage-fields.js";
import { jsonEqual, record, str } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { int32, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `CSINodeDriver`: one driver on the node. */
export const csiNodeDriverSchema = named(
  z
    .object({
      allocatable: z
        .object({
          count: int32().optional().describe("Maximum number of unique volumes managed by the driver that can be used on the node; unset means unlimited."),
        })
        .meta({ description: "VolumeNodeResources is a set of resource limits for scheduling of volumes." })
        .optional()
        .describe("The volume resources of the node available to the driver for scheduling."),
      name: z.string().optional().describe("The name of the CSI driver this object refers to."),
      nodeID: z.string().optional().describe("The node as the driver knows it (NodeGetInfo)."),
      topologyKeys: listType(z.array(z.string()), "atomic").optional().describe("The topology keys supported by the driver."),
    })
    .meta({ description: "CSINodeDriver holds information about the specification of one CSI driver installed on a node.", required: ["name", "nodeID"] }),
  "api.storage.v1.CSINodeDriver",
);

/** `CSINodeSpec`. */
export const csiNodeSpecSchema = named(
  z
    .object({
      drivers: patchStrategy(listType(z.array(csiNodeDriverSchema), "map", ["name"]), "merge", "name")
        .optional()
        .describe("The CSI drivers on the node; may be empty."),
    })
    .meta({ description: "CSINodeSpec holds information about the specification of all CSI drivers installed on a node.", required: ["drivers"] }),
  "api.storage.v1.CSINodeSpec",
);

/** The zod schema of a CSINode in `v1`. */
export const csiNodeV1Schema = kindSchema(
  { spec: csiNodeSpecSchema.optional().describe("The specification of CSINode.") },
  "CSINode holds information about all CSI drivers installed on a node.",
);

/** The longest `nodeID` a driver entry may have. */
export const csiNodeIDMaxLength = 192;

/**
 * The CSINode rules beyond metadata (pair with `validateObjectMeta(..., { namespaced: false })`):
 * each `spec.drivers[i].name` a CSI driver name and unique (`Duplicate value`), `nodeID`
 * required and at most 192 characters, `allocatable.count` not negative, `topologyKeys`
 * non-empty, unique, qualified names (errors on the driver's path, as the reference reports them).
 */
export function validateCSINode(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const path = FieldPath.root("spec").child("drivers");
  const names = new Set<string>();
  records(record(object["spec"])?.["drivers"]).forEach((driver, i) => {
    const at = path.index(i);
    const name = str(driver["name"]);
    errors.push(...validateCSIDriverName(name, at.child("name")));
    const nodeID = str(driver["nodeID"]);
    if (nodeID === "") errors.push(requiredField(at.child("nodeID"), nodeID));
    if (nodeID.length > csiNodeIDMaxLength) errors.push(invalidField(at.child("nodeID"), nodeID, `must be ${csiNodeIDMaxLength} characters or less`));
    const count = record(driver["allocatable"])?.["count"];
    if (typeof count === "number" && count < 0) errors.push(invalidField(at.child("allocatable").child("count"), count, negativeMessage));
    if (names.has(name)) errors.push(duplicateField(at.child("name"), name));
    names.add(name);
    const keys = new Set<string>();
    for (const key of strings(driver["topologyKeys"])) {
      if (key === "") errors.push(requiredField(at, key));
      if (keys.has(key)) errors.push(duplicateField(at, key));
      keys.add(key);
      errors.push(...validateQualifiedName(key, at));
    }
  });
  return errors;
}

/**
 * The rule an update adds: a driver entry present before cannot change (`CSINodeDriver: Invalid
 * value: ...: field is immutable`, the reference's path); entries can be added and removed.
 */
export function validateCSINodeUpdate(object: APIObject, old: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const drivers = records(record(object["spec"])?.["drivers"]);
  for (const oldDriver of records(record(old["spec"])?.["drivers"])) {
    for (const driver of drivers) {
      if (driver["name"] === oldDriver["name"] && !jsonEqual(driver, oldDriver)) errors.push(invalidField("CSINodeDriver", driver, "field is immutable"));
    }
  }
  return errors;
}

/** The CSINode resource type. */
export const csiNodeType: ResourceType = {
  group: "storage.{domain}",
  resource: "csinodes",
  singular: "csinode",
  kind: "CSINode",
  scope: "Cluster",
  versions: [{ name: "v1", schema: csiNodeV1Schema, storage: true }],
  strategy: {
    defaults: (object) => {
      const spec = record(object["spec"]) ?? {};
      object["spec"] = spec;
      if (!Array.isArray(spec["drivers"])) spec["drivers"] = [];
    },
    validate: (object) => validateCSINode(object),
    validateUpdate: (object, old) => validateCSINodeUpdate(object, old),
    deleteReturnsObject: true,
    tracksGeneration: false,
    tableColumns: [
      {
        name: "Drivers",
        type: "integer",
        description: "The number of CSI drivers on the node.",
        priority: 0,
        cell: (object) => records(record(object["spec"])?.["drivers"]).length,
      },
    ],
  },
};
