import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  accessModesString,
  persistentVolumeSources,
  persistentVolumeType,
  validatePersistentVolume,
  validatePersistentVolumeUpdate,
} from "./persistent-volume.js";
import { decodeObject } from "./validate.js";

const ctx = { domain: "orch.io", now: Date.UTC(2026, 0, 1) };
const strategy = persistentVolumeType.strategy ?? {};
const base = { accessModes: ["ReadWriteOnce"], capacity: { storage: "1Gi" }, nfs: { server: "nfs.example.com", path: "/exports" } };
const pv = (spec: Record<string, unknown>, rest: Record<string, unknown> = {}): APIObject => ({ metadata: { name: "pv1" }, spec, ...rest });
const causes = (errors: ReturnType<typeof validatePersistentVolume>) => errors.map((e) => [e.field, e.type]);
const affinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["n1"] }] }] } };

describe("PersistentVolume", () => {
  it("is a cluster-scoped core v1 kind with short name pv and a status sub-resource", () => {
    expect(persistentVolumeType).toMatchObject({
      group: "",
      resource: "persistentvolumes",
      kind: "PersistentVolume",
      scope: "Cluster",
      shortNames: ["pv"],
      subresources: ["status"],
    });
    expect(persistentVolumeSources).toEqual(expect.arrayContaining(["local", "csi", "hostPath", "nfs", "cephfs", "cinder", "azureFile", "fc", "iscsi"]));
  });

  it("defaults the reclaim policy to Retain, the volume mode to Filesystem and the phase to Pending", () => {
    const object = pv({ ...base, iscsi: undefined });
    strategy.defaults?.(object, ctx);
    strategy.prepareForCreate?.(object, ctx);
    expect(object["spec"]).toMatchObject({ persistentVolumeReclaimPolicy: "Retain", volumeMode: "Filesystem" });
    expect(object["status"]).toEqual({ phase: "Pending", lastPhaseTransitionTime: "2026-01-01T00:00:00Z" });
    const iscsi = pv({ iscsi: { targetPortal: "1.2.3.4", iqn: "iqn.2001-04.com.example:storage", lun: 0 } });
    strategy.defaults?.(iscsi, ctx);
    expect(iscsi["spec"]).toMatchObject({ iscsi: { iscsiInterface: "default" } });
  });

  it("canonicalises capacity quantities on decode and refuses malformed ones", () => {
    expect(decodeObject(persistentVolumeType, "v1", pv({ capacity: { storage: "1024Mi" } }))).toMatchObject({ spec: { capacity: { storage: "1Gi" } } });
    expect(() => decodeObject(persistentVolumeType, "v1", pv({ capacity: { storage: "1 Gi" } }))).toThrow(/quantities must match/);
  });

  it.each([
    ["a valid nfs volume", base, []],
    ["no access mode", { ...base, accessModes: [] }, [["spec.accessModes", "FieldValueRequired"]]],
    ["an unknown access mode", { ...base, accessModes: ["ReadSometimes"] }, [["spec.accessModes", "FieldValueNotSupported"]]],
    ["ReadWriteOncePod with another mode", { ...base, accessModes: ["ReadWriteOncePod", "ReadOnlyMany"] }, [["spec.accessModes", "FieldValueForbidden"]]],
    [
      "no capacity",
      { ...base, capacity: undefined },
      [
        ["spec.capacity", "FieldValueRequired"],
        ["spec.capacity", "FieldValueNotSupported"],
      ],
    ],
    ["a capacity other than storage", { ...base, capacity: { storage: "1Gi", cpu: "1" } }, [["spec.capacity", "FieldValueNotSupported"]]],
    ["a zero capacity", { ...base, capacity: { storage: "0" } }, [["spec.capacity[storage]", "FieldValueInvalid"]]],
    ["no source", { accessModes: ["ReadWriteOnce"], capacity: { storage: "1Gi" } }, [["spec", "FieldValueRequired"]]],
    ["two sources", { ...base, hostPath: { path: "/data" } }, [["spec.nfs", "FieldValueForbidden"]]],
    ["an unknown reclaim policy", { ...base, persistentVolumeReclaimPolicy: "Keep" }, [["spec.persistentVolumeReclaimPolicy", "FieldValueNotSupported"]]],
    ["a bad storage class", { ...base, storageClassName: "Fast_SSD" }, [["spec.storageClassName", "FieldValueInvalid"]]],
    ["an unknown volume mode", { ...base, volumeMode: "Raw" }, [["spec.volumeMode", "FieldValueNotSupported"]]],
    ["nfs without server", { ...base, nfs: { path: "/x" } }, [["spec.nfs.server", "FieldValueRequired"]]],
    ["nfs with a relative path", { ...base, nfs: { server: "s", path: "x" } }, [["spec.nfs.path", "FieldValueInvalid"]]],
    ["hostPath without path", { ...base, nfs: undefined, hostPath: {} }, [["spec.hostPath.path", "FieldValueRequired"]]],
    ["hostPath with ..", { ...base, nfs: undefined, hostPath: { path: "/a/../b" } }, [["spec.hostPath.path", "FieldValueInvalid"]]],
    ["hostPath with an unknown type", { ...base, nfs: undefined, hostPath: { path: "/a", type: "Pipe" } }, [["spec.hostPath.type", "FieldValueNotSupported"]]],
    [
      "recycling a hostPath of /",
      { ...base, nfs: undefined, hostPath: { path: "/" }, persistentVolumeReclaimPolicy: "Recycle" },
      [["spec.persistentVolumeReclaimPolicy", "FieldValueForbidden"]],
    ],
    ["local without node affinity", { ...base, nfs: undefined, local: { path: "/mnt/disk" } }, [["spec.nodeAffinity", "FieldValueRequired"]]],
    ["local without path", { ...base, nfs: undefined, local: {}, nodeAffinity: affinity }, [["spec.local.path", "FieldValueRequired"]]],
    ["a valid local volume", { ...base, nfs: undefined, local: { path: "/mnt/disk" }, nodeAffinity: affinity }, []],
    ["node affinity without required", { ...base, nodeAffinity: {} }, [["spec.nodeAffinity.required", "FieldValueRequired"]]],
    [
      "node affinity without terms",
      { ...base, nodeAffinity: { required: { nodeSelectorTerms: [] } } },
      [["spec.nodeAffinity.required.nodeSelectorTerms", "FieldValueRequired"]],
    ],
    [
      "an In requirement without values",
      { ...base, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In" }] }] } } },
      [["spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values", "FieldValueRequired"]],
    ],
    [
      "a bad operator",
      { ...base, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "Near" }] }] } } },
      [["spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator", "FieldValueInvalid"]],
    ],
    [
      "a match field other than metadata.name",
      { ...base, nodeAffinity: { required: { nodeSelectorTerms: [{ matchFields: [{ key: "spec.x", operator: "In", values: ["a"] }] }] } } },
      [["spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].key", "FieldValueInvalid"]],
    ],
    [
      "csi without driver and handle",
      { ...base, nfs: undefined, csi: {} },
      [
        ["spec.csi.driver", "FieldValueRequired"],
        ["spec.csi.volumeHandle", "FieldValueRequired"],
      ],
    ],
    ["csi with a bad driver name", { ...base, nfs: undefined, csi: { driver: "-bad-", volumeHandle: "h" } }, [["spec.csi.driver", "FieldValueInvalid"]]],
    [
      "a csi secret ref without namespace",
      { ...base, nfs: undefined, csi: { driver: "csi.example.com", volumeHandle: "h", nodePublishSecretRef: { name: "s" } } },
      [["spec.csi.nodePublishSecretRef.namespace", "FieldValueRequired"]],
    ],
    ["cephfs without monitors", { ...base, nfs: undefined, cephfs: {} }, [["spec.cephfs.monitors", "FieldValueRequired"]]],
    ["cinder without volume id", { ...base, nfs: undefined, cinder: {} }, [["spec.cinder.volumeID", "FieldValueRequired"]]],
    [
      "cinder secret ref without namespace",
      { ...base, nfs: undefined, cinder: { volumeID: "v", secretRef: { name: "s" } } },
      [["spec.cinder.secretRef.namespace", "FieldValueRequired"]],
    ],
    ["azureFile without share", { ...base, nfs: undefined, azureFile: { secretName: "s" } }, [["spec.azureFile.shareName", "FieldValueRequired"]]],
    [
      "azureFile with an empty secret namespace",
      { ...base, nfs: undefined, azureFile: { secretName: "s", shareName: "x", secretNamespace: "" } },
      [["spec.azureFile.secretNamespace", "FieldValueRequired"]],
    ],
    ["fc without wwns or wwids", { ...base, nfs: undefined, fc: {} }, [["spec.fc.targetWWNs", "FieldValueRequired"]]],
    [
      "fc with both wwns and wwids",
      { ...base, nfs: undefined, fc: { targetWWNs: ["a"], wwids: ["b"], lun: 1 } },
      [["spec.fc.targetWWNs", "FieldValueInvalid"]],
    ],
    ["fc wwns without lun", { ...base, nfs: undefined, fc: { targetWWNs: ["a"] } }, [["spec.fc.lun", "FieldValueRequired"]]],
    ["fc lun out of range", { ...base, nfs: undefined, fc: { targetWWNs: ["a"], lun: 256 } }, [["spec.fc.lun", "FieldValueInvalid"]]],
    [
      "iscsi without portal and iqn",
      { ...base, nfs: undefined, iscsi: { lun: 0 } },
      [
        ["spec.iscsi.targetPortal", "FieldValueRequired"],
        ["spec.iscsi.iqn", "FieldValueRequired"],
      ],
    ],
    ["iscsi with a bad iqn", { ...base, nfs: undefined, iscsi: { targetPortal: "p", iqn: "foo", lun: 0 } }, [["spec.iscsi.iqn", "FieldValueInvalid"]]],
    [
      "iscsi chap without secret",
      { ...base, nfs: undefined, iscsi: { targetPortal: "p", iqn: "iqn.2001-04.com.example:s", lun: 0, chapAuthSession: true } },
      [["spec.iscsi.secretRef", "FieldValueRequired"]],
    ],
    ["flocker with both names", { ...base, nfs: undefined, flocker: { datasetName: "a", datasetUUID: "b" } }, [["spec.flocker", "FieldValueInvalid"]]],
    [
      "azureDisk with a bad caching mode",
      { ...base, nfs: undefined, azureDisk: { diskName: "d", diskURI: "https://x", cachingMode: "All" } },
      [["spec.azureDisk.cachingMode", "FieldValueNotSupported"]],
    ],
    ["rbd without image", { ...base, nfs: undefined, rbd: { monitors: ["m"] } }, [["spec.rbd.image", "FieldValueRequired"]]],
  ])("validates %s", (_what, spec, expected) => {
    expect(causes(validatePersistentVolume(pv(spec)))).toEqual(expected);
  });

  it("prints the reference's messages", () => {
    expect(validatePersistentVolume(pv({ accessModes: ["ReadWriteOnce"], capacity: { storage: "1Gi" } })).map(formatFieldError)).toEqual([
      "spec: Required value: must specify a volume type",
    ]);
    expect(validatePersistentVolume(pv({ ...base, hostPath: { path: "/d" } })).map(formatFieldError)).toEqual([
      "spec.nfs: Forbidden: may not specify more than 1 volume type",
    ]);
  });

  it.each([
    ["a changed source", { ...base, nfs: { server: "other", path: "/exports" } }, [["spec.persistentvolumesource", "FieldValueForbidden"]]],
    ["a changed volume mode", { ...base, volumeMode: "Block" }, [["volumeMode", "FieldValueInvalid"]]],
    ["a changed reclaim policy", { ...base, persistentVolumeReclaimPolicy: "Delete" }, []],
  ])("on update refuses %s only when immutable", (_what, spec, expected) => {
    const old = pv({ ...base, volumeMode: "Filesystem", persistentVolumeReclaimPolicy: "Retain" });
    expect(causes(validatePersistentVolumeUpdate(pv({ volumeMode: "Filesystem", ...spec }), old))).toEqual(expected);
  });

  it("keeps status on update and spec on status update, stamping phase transitions", () => {
    const old = pv(base, { status: { phase: "Available" } });
    const object = pv({ ...base, storageClassName: "x" }, { status: { phase: "Bound" } });
    strategy.prepareForUpdate?.(object, old, ctx);
    expect(object["status"]).toEqual({ phase: "Available" });
    const statusWrite = pv({ ...base, storageClassName: "y" }, { status: { phase: "Bound" } });
    strategy.prepareForStatusUpdate?.(statusWrite, old, ctx);
    expect(statusWrite).toEqual(pv(base, { status: { phase: "Bound", lastPhaseTransitionTime: "2026-01-01T00:00:00Z" } }));
  });

  it("shows kubectl's columns", () => {
    const object = pv(
      { ...base, persistentVolumeReclaimPolicy: "Retain", claimRef: { namespace: "ns", name: "c" }, storageClassName: "fast" },
      { status: { phase: "Bound" } },
    );
    expect(strategy.tableColumns?.filter((c) => c.priority === 0).map((c) => [c.name, c.cell(object)])).toEqual([
      ["Capacity", "1Gi"],
      ["Access Modes", "RWO"],
      ["Reclaim Policy", "Retain"],
      ["Status", "Bound"],
      ["Claim", "ns/c"],
      ["StorageClass", "fast"],
      ["VolumeAttributesClass", "<unset>"],
      ["Reason", ""],
    ]);
    expect(accessModesString(["ReadWriteMany", "ReadWriteOnce"])).toBe("RWO,RWX");
  });
});
