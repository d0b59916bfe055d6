import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { csiDriverType, defaultCSIDriver, validateCSIDriver, validateCSIDriverUpdate } from "./csi-driver.js";

const driver = (spec: Record<string, unknown>, name = "csi.example.com"): APIObject => {
  const object: APIObject = { metadata: { name }, spec: structuredClone(spec) };
  defaultCSIDriver(object);
  return object;
};
const causes = (errors: ReturnType<typeof validateCSIDriver>) => errors.map((e) => [e.field, e.type]);

describe("CSIDriver", () => {
  it("is a cluster-scoped storage v1 kind whose delete answers the object", () => {
    expect(csiDriverType).toMatchObject({ group: "storage.{domain}", resource: "csidrivers", kind: "CSIDriver", scope: "Cluster" });
    expect(csiDriverType.strategy?.deleteReturnsObject).toBe(true);
  });

  it("fills the reference's defaults", () => {
    expect(driver({})["spec"]).toEqual({
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: "ReadWriteOnceWithFSType",
      requiresRepublish: false,
      seLinuxMount: false,
      volumeLifecycleModes: ["Persistent"],
    });
    expect(driver({ attachRequired: false, volumeLifecycleModes: ["Ephemeral"] })["spec"]).toMatchObject({
      attachRequired: false,
      volumeLifecycleModes: ["Ephemeral"],
    });
  });

  it.each([
    ["a valid driver", {}, "csi.example.com", []],
    ["a bad driver name", {}, "-csi-", [["name", "FieldValueInvalid"]]],
    ["a too long driver name", {}, `${"a".repeat(64)}`, [["name", "FieldValueTooLong"]]],
    ["an unknown fsGroupPolicy", { fsGroupPolicy: "Always" }, "csi.example.com", [["spec.fsGroupPolicy", "FieldValueNotSupported"]]],
    ["an unknown lifecycle mode", { volumeLifecycleModes: ["Forever"] }, "csi.example.com", [["spec.volumeLifecycleModes", "FieldValueNotSupported"]]],
    [
      "duplicate audiences",
      { tokenRequests: [{ audience: "a" }, { audience: "a" }] },
      "csi.example.com",
      [["spec.tokenRequests[1].audience", "FieldValueDuplicate"]],
    ],
    [
      "two empty audiences",
      { tokenRequests: [{ audience: "" }, { audience: "" }] },
      "csi.example.com",
      [["spec.tokenRequests[1].audience", "FieldValueDuplicate"]],
    ],
    [
      "a token shorter than 10 minutes",
      { tokenRequests: [{ audience: "a", expirationSeconds: 599 }] },
      "csi.example.com",
      [["spec.tokenRequests[0].expirationSeconds", "FieldValueInvalid"]],
    ],
    [
      "a token longer than 2^32 s",
      { tokenRequests: [{ audience: "a", expirationSeconds: 2 ** 32 + 1 }] },
      "csi.example.com",
      [["spec.tokenRequests[0].expirationSeconds", "FieldValueInvalid"]],
    ],
  ])("validates %s", (_what, spec, name, expected) => {
    expect(causes(validateCSIDriver(driver(spec, name)))).toEqual(expected);
  });

  it("requires attachRequired where defaulting did not run, at the reference's path", () => {
    expect(validateCSIDriver({ metadata: { name: "d" }, spec: { podInfoOnMount: false, storageCapacity: false } }).map(formatFieldError)).toEqual([
      "spec.attachedRequired: Required value",
    ]);
  });

  it.each([
    ["attachRequired", { attachRequired: false }, "spec.attachedRequired"],
    ["fsGroupPolicy", { fsGroupPolicy: "File" }, "spec.fsGroupPolicy"],
    ["podInfoOnMount", { podInfoOnMount: true }, "spec.podInfoOnMount"],
    ["volumeLifecycleModes", { volumeLifecycleModes: ["Persistent", "Ephemeral"] }, "spec.volumeLifecycleModes"],
  ])("freezes %s", (_what, change, path) => {
    expect(causes(validateCSIDriverUpdate(driver(change), driver({})))).toEqual([[path, "FieldValueInvalid"]]);
  });

  it("lets storageCapacity, requiresRepublish and tokenRequests change", () => {
    expect(validateCSIDriverUpdate(driver({ storageCapacity: true, requiresRepublish: true, tokenRequests: [{ audience: "x" }] }), driver({}))).toEqual([]);
  });

  it("shows kubectl's columns", () => {
    const object = driver({ tokenRequests: [{ audience: "a" }, { audience: "b" }] });
    expect(csiDriverType.strategy?.tableColumns?.map((c) => [c.name, c.cell(object)])).toEqual([
      ["AttachRequired", true],
      ["PodInfoOnMount", false],
      ["StorageCapacity", false],
      ["TokenRequests", "a,b"],
      ["RequiresRepublish", false],
      ["Modes", "Persistent"],
    ]);
  });
});
