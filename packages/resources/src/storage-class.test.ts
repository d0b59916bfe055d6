import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { storageClassType, validateStorageClass, validateStorageClassUpdate } from "./storage-class.js";

const ctx = { domain: "orch.io", now: 0 };
const sc = (fields: Record<string, unknown>): APIObject => {
  const object: APIObject = { metadata: { name: "fast" }, provisioner: "csi.example.com", ...fields };
  storageClassType.strategy?.defaults?.(object, ctx);
  return object;
};
const causes = (errors: ReturnType<typeof validateStorageClass>) => errors.map((e) => [e.field, e.type]);

describe("StorageClass", () => {
  it("is a cluster-scoped storage v1 kind with short name sc", () => {
    expect(storageClassType).toMatchObject({
      group: "storage.{domain}",
      resource: "storageclasses",
      kind: "StorageClass",
      scope: "Cluster",
      shortNames: ["sc"],
    });
  });

  it("defaults reclaimPolicy to Delete and volumeBindingMode to Immediate", () => {
    expect(sc({})).toMatchObject({ reclaimPolicy: "Delete", volumeBindingMode: "Immediate" });
    expect(sc({ reclaimPolicy: "Retain", volumeBindingMode: "WaitForFirstConsumer" })).toMatchObject({
      reclaimPolicy: "Retain",
      volumeBindingMode: "WaitForFirstConsumer",
    });
  });

  it.each([
    ["a valid class", { allowVolumeExpansion: true, parameters: { type: "ssd" } }, []],
    ["no provisioner", { provisioner: "" }, [["provisioner", "FieldValueRequired"]]],
    ["a bad provisioner", { provisioner: "bad provisioner!" }, [["provisioner", "FieldValueInvalid"]]],
    ["an unsupported reclaim policy", { reclaimPolicy: "Recycle" }, [["reclaimPolicy", "FieldValueNotSupported"]]],
    ["an unsupported binding mode", { volumeBindingMode: "Later" }, [["volumeBindingMode", "FieldValueNotSupported"]]],
    ["an empty parameter key", { parameters: { "": "x" } }, [["parameters", "FieldValueInvalid"]]],
    [
      "a topology without values",
      { allowedTopologies: [{ matchLabelExpressions: [{ key: "zone", values: [] }] }] },
      [["allowedTopologies[0].matchLabelExpressions[0].values", "FieldValueRequired"]],
    ],
    [
      "duplicate topologies",
      { allowedTopologies: [{ matchLabelExpressions: [{ key: "zone", values: ["a"] }] }, { matchLabelExpressions: [{ key: "zone", values: ["a"] }] }] },
      [["allowedTopologies[1].matchLabelExpressions", "FieldValueDuplicate"]],
    ],
  ])("validates %s", (_what, fields, expected) => {
    expect(causes(validateStorageClass(sc(fields)))).toEqual(expected);
  });

  it.each([
    ["parameters", { parameters: { type: "hdd" } }, ["parameters: Forbidden: updates to parameters are forbidden."]],
    ["provisioner", { provisioner: "other.example.com" }, ["provisioner: Forbidden: updates to provisioner are forbidden."]],
    ["reclaimPolicy", { reclaimPolicy: "Retain" }, ["reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden."]],
    ["volumeBindingMode", { volumeBindingMode: "WaitForFirstConsumer" }, ['volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable']],
    ["allowVolumeExpansion (allowed)", { allowVolumeExpansion: true }, []],
  ])("on update freezes %s", (_what, change, expected) => {
    const old = sc({ parameters: { type: "ssd" } });
    expect(validateStorageClassUpdate(sc({ parameters: { type: "ssd" }, ...change }), old).map(formatFieldError)).toEqual(expected);
  });

  it("shows PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION", () => {
    expect(storageClassType.strategy?.tableColumns?.map((c) => [c.name, c.cell(sc({}))])).toEqual([
      ["Provisioner", "csi.example.com"],
      ["ReclaimPolicy", "Delete"],
      ["VolumeBindingMode", "Immediate"],
      ["AllowVolumeExpansion", false],
    ]);
  });
});
