import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { csiNodeType, validateCSINode, validateCSINodeUpdate } from "./csi-node.js";

const node = (drivers: unknown): APIObject => ({ metadata: { name: "node-1" }, spec: { drivers } });
const causes = (errors: ReturnType<typeof validateCSINode>) => errors.map((e) => [e.field, e.type]);
const d = (name: string, extra: Record<string, unknown> = {}) => ({ name, nodeID: "id-1", ...extra });

describe("CSINode", () => {
  it("is a cluster-scoped storage v1 kind, drivers keyed by name, whose delete answers the object", () => {
    expect(csiNodeType).toMatchObject({ group: "storage.{domain}", resource: "csinodes", kind: "CSINode", scope: "Cluster" });
    expect(csiNodeType.strategy?.deleteReturnsObject).toBe(true);
  });

  it.each([
    ["no drivers", [], []],
    ["two drivers", [d("a.example.com", { topologyKeys: ["topology.example.com/zone"], allocatable: { count: 3 } }), d("b.example.com")], []],
    ["a duplicate driver name", [d("a.example.com"), d("a.example.com")], [["spec.drivers[1].name", "FieldValueDuplicate"]]],
    ["a missing nodeID", [{ name: "a.example.com" }], [["spec.drivers[0].nodeID", "FieldValueRequired"]]],
    ["a too long nodeID", [d("a.example.com", { nodeID: "x".repeat(193) })], [["spec.drivers[0].nodeID", "FieldValueInvalid"]]],
    ["a missing driver name", [{ nodeID: "x" }], [["spec.drivers[0].name", "FieldValueRequired"]]],
    ["a negative count", [d("a.example.com", { allocatable: { count: -1 } })], [["spec.drivers[0].allocatable.count", "FieldValueInvalid"]]],
    ["a duplicate topology key", [d("a.example.com", { topologyKeys: ["k", "k"] })], [["spec.drivers[0]", "FieldValueDuplicate"]]],
  ])("validates %s", (_what, drivers, expected) => {
    expect(causes(validateCSINode(node(drivers)))).toEqual(expected);
  });

  it("prints the duplicate name as the reference does", () => {
    expect(validateCSINode(node([d("a"), d("a")])).map(formatFieldError)).toEqual(['spec.drivers[1].name: Duplicate value: "a"']);
  });

  it("lets drivers be added and removed but not changed", () => {
    const old = node([d("a")]);
    expect(validateCSINodeUpdate(node([d("a"), d("b")]), old)).toEqual([]);
    expect(validateCSINodeUpdate(node([]), old)).toEqual([]);
    expect(causes(validateCSINodeUpdate(node([d("a", { nodeID: "other" })]), old))).toEqual([["CSINodeDriver", "FieldValueInvalid"]]);
  });

  it("defaults drivers to an empty list and shows their number", () => {
    const object: APIObject = { metadata: { name: "n" } };
    csiNodeType.strategy?.defaults?.(object, { domain: "orch.io", now: 0 });
    expect(object["spec"]).toEqual({ drivers: [] });
    expect(csiNodeType.strategy?.tableColumns?.[0]?.cell(node([d("a")]))).toBe(1);
  });
});
