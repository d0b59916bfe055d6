import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { csiStorageCapacityType, validateCSIStorageCapacity, validateCSIStorageCapacityUpdate } from "./csi-storage-capacity.js";
import { decodeObject } from "./validate.js";

const cap = (fields: Record<string, unknown>): APIObject => ({ metadata: { name: "c", namespace: "ns" }, storageClassName: "fast", ...fields });
const causes = (errors: ReturnType<typeof validateCSIStorageCapacity>) => errors.map((e) => [e.field, e.type]);

describe("CSIStorageCapacity", () => {
  it("is a namespaced storage v1 kind", () => {
    expect(csiStorageCapacityType).toMatchObject({
      group: "storage.{domain}",
      resource: "csistoragecapacities",
      kind: "CSIStorageCapacity",
      scope: "Namespaced",
    });
  });

  it("decodes quantities to their canonical form", () => {
    expect(decodeObject(csiStorageCapacityType, "v1", cap({ capacity: "2048Mi", maximumVolumeSize: 1000 }))).toMatchObject({
      capacity: "2Gi",
      maximumVolumeSize: "1k",
    });
  });

  it.each([
    ["a valid capacity", { capacity: "10Gi", nodeTopology: { matchLabels: { zone: "a" } } }, []],
    ["no storage class", { storageClassName: undefined }, [["storageClassName", "FieldValueInvalid"]]],
    ["a bad storage class", { storageClassName: "Fast_SSD" }, [["storageClassName", "FieldValueInvalid"]]],
    ["a negative capacity", { capacity: "-1Gi" }, [["capacity", "FieldValueInvalid"]]],
    ["a negative maximum size", { maximumVolumeSize: "-1" }, [["maximumVolumeSize", "FieldValueInvalid"]]],
    [
      "a bad topology",
      { nodeTopology: { matchExpressions: [{ key: "zone", operator: "Exists", values: ["a"] }] } },
      [["nodeTopology.matchExpressions[0].values", "FieldValueForbidden"]],
    ],
  ])("validates %s", (_what, fields, expected) => {
    expect(causes(validateCSIStorageCapacity(cap(fields)))).toEqual(expected);
  });

  it.each([
    ["the capacity may change", { capacity: "5Gi" }, []],
    ["the storage class may not", { storageClassName: "slow" }, [["storageClassName", "FieldValueInvalid"]]],
    ["the topology may not", { nodeTopology: { matchLabels: { zone: "b" } } }, [["nodeTopology", "FieldValueInvalid"]]],
  ])("on update %s", (_what, fields, expected) => {
    const old = cap({ capacity: "1Gi", nodeTopology: { matchLabels: { zone: "a" } } });
    expect(causes(validateCSIStorageCapacityUpdate(cap({ capacity: "1Gi", nodeTopology: { matchLabels: { zone: "a" } }, ...fields }), old))).toEqual(expected);
  });
});
