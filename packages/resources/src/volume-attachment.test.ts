import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { validateVolumeAttachment, validateVolumeAttachmentUpdate, volumeAttachmentType } from "./volume-attachment.js";

const ctx = { domain: "orch.io", now: 0 };
const strategy = volumeAttachmentType.strategy ?? {};
const base = { attacher: "csi.example.com", nodeName: "node-1", source: { persistentVolumeName: "pv1" } };
const va = (spec: Record<string, unknown>, status?: Record<string, unknown>): APIObject => ({ metadata: { name: "va1" }, spec, ...(status ? { status } : {}) });
const causes = (errors: ReturnType<typeof validateVolumeAttachment>) => errors.map((e) => [e.field, e.type]);
const inline = { accessModes: ["ReadWriteOnce"], csi: { driver: "csi.example.com", volumeHandle: "h" } };

describe("VolumeAttachment", () => {
  it("is a cluster-scoped storage v1 kind with a status sub-resource whose delete answers the object", () => {
    expect(volumeAttachmentType).toMatchObject({ group: "storage.{domain}", resource: "volumeattachments", scope: "Cluster", subresources: ["status"] });
    expect(strategy.deleteReturnsObject).toBe(true);
  });

  it.each([
    ["a valid attachment", base, undefined, []],
    ["a valid inline attachment", { ...base, source: { inlineVolumeSpec: inline } }, undefined, []],
    ["no attacher", { ...base, attacher: "" }, undefined, [["spec.attacher", "FieldValueRequired"]]],
    ["a bad attacher", { ...base, attacher: "Bad_Driver" }, undefined, [["spec.attacher", "FieldValueInvalid"]]],
    ["no source", { ...base, source: {} }, undefined, [["spec.source", "FieldValueRequired"]]],
    ["two sources", { ...base, source: { persistentVolumeName: "pv1", inlineVolumeSpec: inline } }, undefined, [["spec.source", "FieldValueForbidden"]]],
    ["an empty volume name", { ...base, source: { persistentVolumeName: "" } }, undefined, [["spec.source.persistentVolumeName", "FieldValueRequired"]]],
    [
      "an inline spec without csi",
      { ...base, source: { inlineVolumeSpec: { accessModes: ["ReadWriteOnce"] } } },
      undefined,
      [
        ["spec.source.inlineVolumeSpec.csi", "FieldValueRequired"],
        ["spec.source.inlineVolumeSpec", "FieldValueRequired"],
      ],
    ],
    ["a bad node name", { ...base, nodeName: "Node_1" }, undefined, [["spec.nodeName", "FieldValueInvalid"]]],
    ["no node name", { ...base, nodeName: undefined }, undefined, [["spec.nodeName", "FieldValueInvalid"]]],
    ["a too long attach error", base, { attached: false, attachError: { message: "x".repeat(1025) } }, [["status.attachError.message", "FieldValueTooLong"]]],
  ])("validates %s", (_what, spec, status, expected) => {
    expect(causes(validateVolumeAttachment(va(spec, status)))).toEqual(expected);
  });

  it("prints the reference's exactly-one message", () => {
    expect(validateVolumeAttachment(va({ ...base, source: {} })).map(formatFieldError)).toEqual([
      "spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
    ]);
  });

  it("freezes the spec", () => {
    expect(validateVolumeAttachmentUpdate(va(base), va(base))).toEqual([]);
    expect(causes(validateVolumeAttachmentUpdate(va({ ...base, nodeName: "node-2" }), va(base)))).toEqual([["spec", "FieldValueInvalid"]]);
  });

  it("starts unattached, keeps the status on update and the spec on a status write", () => {
    const created = va(base, { attached: true });
    strategy.prepareForCreate?.(created, ctx);
    expect(created["status"]).toEqual({ attached: false });
    const old = va(base, { attached: false });
    const update = va(base, { attached: true });
    strategy.prepareForUpdate?.(update, old, ctx);
    expect(update["status"]).toEqual({ attached: false });
    const statusWrite = va({ ...base, nodeName: "other" }, { attached: true });
    strategy.prepareForStatusUpdate?.(statusWrite, old, ctx);
    expect(statusWrite).toEqual(va(base, { attached: true }));
  });

  it("shows ATTACHER PV NODE ATTACHED", () => {
    const object = va(base, { attached: true });
    expect(strategy.tableColumns?.filter((c) => c.priority === 0).map((c) => [c.name, c.cell(object)])).toEqual([
      ["Attacher", "csi.example.com"],
      ["PV", "pv1"],
      ["Node", "node-1"],
      ["Attached", true],
    ]);
  });
});
