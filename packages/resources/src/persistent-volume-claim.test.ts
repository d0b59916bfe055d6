import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  normalizeDataSources,
  persistentVolumeClaimType,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimUpdate,
} from "./persistent-volume-claim.js";

const ctx = { domain: "orch.io", now: 0 };
const strategy = persistentVolumeClaimType.strategy ?? {};
const base = { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } };
const pvc = (spec: Record<string, unknown>, rest: Record<string, unknown> = {}): APIObject => ({ metadata: { name: "c", namespace: "ns" }, spec, ...rest });
const causes = (errors: ReturnType<typeof validatePersistentVolumeClaim>) => errors.map((e) => [e.field, e.type]);

describe("PersistentVolumeClaim", () => {
  it("is a namespaced core v1 kind with short name pvc, a status sub-resource, and deletes answering the object", () => {
    expect(persistentVolumeClaimType).toMatchObject({
      group: "",
      resource: "persistentvolumeclaims",
      kind: "PersistentVolumeClaim",
      scope: "Namespaced",
      shortNames: ["pvc"],
      subresources: ["status"],
    });
    expect(strategy.deleteReturnsObject).toBe(true);
  });

  it("defaults volumeMode to Filesystem and starts Pending with any status dropped", () => {
    const object = pvc({ ...base }, { status: { phase: "Bound" } });
    strategy.defaults?.(object, ctx);
    strategy.prepareForCreate?.(object, ctx);
    expect(object["spec"]).toMatchObject({ volumeMode: "Filesystem" });
    expect(object["status"]).toEqual({ phase: "Pending" });
  });

  it.each([
    [
      "a lone dataSource copied to dataSourceRef",
      { dataSource: { kind: "PersistentVolumeClaim", name: "src" } },
      { dataSource: { kind: "PersistentVolumeClaim", name: "src" }, dataSourceRef: { kind: "PersistentVolumeClaim", name: "src" } },
    ],
    [
      "a lone dataSourceRef copied to dataSource",
      { dataSourceRef: { apiGroup: "example.com", kind: "Pop", name: "p" } },
      { dataSource: { apiGroup: "example.com", kind: "Pop", name: "p" }, dataSourceRef: { apiGroup: "example.com", kind: "Pop", name: "p" } },
    ],
    ["a disallowed dataSource dropped", { dataSource: { apiGroup: "example.com", kind: "Pop", name: "p" } }, {}],
    [
      "a snapshot of the domain's snapshot group kept",
      { dataSource: { apiGroup: "snapshot.storage.orch.io", kind: "VolumeSnapshot", name: "s" } },
      {
        dataSource: { apiGroup: "snapshot.storage.orch.io", kind: "VolumeSnapshot", name: "s" },
        dataSourceRef: { apiGroup: "snapshot.storage.orch.io", kind: "VolumeSnapshot", name: "s" },
      },
    ],
  ])("normalises data sources: %s", (_what, spec, expected) => {
    const s: Record<string, unknown> = structuredClone(spec);
    normalizeDataSources(s, undefined, "orch.io");
    expect(s).toEqual(expected);
  });

  it.each([
    ["a valid claim", base, []],
    ["no access mode", { ...base, accessModes: undefined }, [["spec.accessModes", "FieldValueRequired"]]],
    ["an unknown access mode", { ...base, accessModes: ["Sometimes"] }, [["spec.accessModes", "FieldValueNotSupported"]]],
    ["ReadWriteOncePod with another", { ...base, accessModes: ["ReadWriteOncePod", "ReadWriteOnce"] }, [["spec.accessModes", "FieldValueForbidden"]]],
    ["no storage request", { ...base, resources: {} }, [["spec.resources[storage]", "FieldValueRequired"]]],
    ["a zero storage request", { ...base, resources: { requests: { storage: "0" } } }, [["spec.resources[storage]", "FieldValueInvalid"]]],
    ["a bad storage class", { ...base, storageClassName: "Bad_Class" }, [["spec.storageClassName", "FieldValueInvalid"]]],
    ["an unknown volume mode", { ...base, volumeMode: "Raw" }, [["spec.volumeMode", "FieldValueNotSupported"]]],
    [
      "a bad selector",
      { ...base, selector: { matchExpressions: [{ key: "a", operator: "In" }] } },
      [["spec.selector.matchExpressions[0].values", "FieldValueRequired"]],
    ],
    ["a dataSource without name", { ...base, dataSource: { kind: "PersistentVolumeClaim" } }, [["spec.dataSource.name", "FieldValueRequired"]]],
    ["a core dataSource of another kind", { ...base, dataSource: { kind: "Pod", name: "p" } }, [["spec.dataSource", "FieldValueInvalid"]]],
    [
      "a dataSourceRef with a bad group",
      { ...base, dataSourceRef: { apiGroup: "Bad_Group", kind: "X", name: "p" } },
      [["spec.dataSourceRef.apiGroup", "FieldValueInvalid"]],
    ],
    [
      "dataSource and dataSourceRef that differ",
      { ...base, dataSource: { kind: "PersistentVolumeClaim", name: "a" }, dataSourceRef: { kind: "PersistentVolumeClaim", name: "b" } },
      [["spec", "FieldValueInvalid"]],
    ],
  ])("validates %s", (_what, spec, expected) => {
    expect(causes(validatePersistentVolumeClaim(pvc(spec)))).toEqual(expected);
  });

  it("prints the reference's message for unequal data sources", () => {
    const spec = { ...base, dataSource: { kind: "PersistentVolumeClaim", name: "a" }, dataSourceRef: { kind: "PersistentVolumeClaim", name: "b" } };
    expect(validatePersistentVolumeClaim(pvc(spec)).map(formatFieldError)).toEqual(['spec: Invalid value: "spec.dataSource": must match dataSourceRef']);
  });

  it.each([
    ["binding an unbound claim to a volume", "Pending", { ...base, volumeName: "pv1" }, []],
    ["changing the class", "Pending", { ...base, storageClassName: "other" }, [["spec", "FieldValueForbidden"]]],
    ["growing an unbound claim", "Pending", { ...base, resources: { requests: { storage: "2Gi" } } }, [["spec", "FieldValueForbidden"]]],
    ["growing a bound claim", "Bound", { ...base, resources: { requests: { storage: "2Gi" } } }, []],
    [
      "shrinking a bound claim",
      "Bound",
      { ...base, resources: { requests: { storage: "500Mi" } } },
      [["spec.resources.requests.storage", "FieldValueForbidden"]],
    ],
  ])("on update allows or refuses %s", (_what, phase, spec, expected) => {
    const old = pvc(base, { status: { phase } });
    expect(causes(validatePersistentVolumeClaimUpdate(pvc(spec), old))).toEqual(expected);
  });

  it("keeps status on update and spec on a status write", () => {
    const old = pvc(base, { status: { phase: "Pending" } });
    const object = pvc(base, { status: { phase: "Bound" } });
    strategy.prepareForUpdate?.(object, old, ctx);
    expect(object["status"]).toEqual({ phase: "Pending" });
    const statusWrite = pvc({ ...base, volumeName: "x" }, { status: { phase: "Bound" } });
    strategy.prepareForStatusUpdate?.(statusWrite, old, ctx);
    expect(statusWrite).toEqual(pvc(base, { status: { phase: "Bound" } }));
  });

  it("shows STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS", () => {
    const object = pvc(
      { ...base, volumeName: "pv1", storageClassName: "fast" },
      { status: { phase: "Bound", capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"] } },
    );
    expect(strategy.tableColumns?.slice(0, 5).map((c) => [c.name, c.cell(object)])).toEqual([
      ["Status", "Bound"],
      ["Volume", "pv1"],
      ["Capacity", "1Gi"],
      ["Access Modes", "RWO"],
      ["StorageClass", "fast"],
    ]);
  });
});
