import type { APIObject } from "@orch/meta";
import { persistentVolumeClaimType, podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { persistentVolumeClaimResize } from "./persistent-volume-claim-resize.js";

const notAllowed =
  'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';

function claim(size: string | undefined, options: { className?: string; phase?: string; annotation?: string } = {}): APIObject {
  const { className = "fast", phase = "Bound", annotation } = options;
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "data", namespace: "ns", ...(annotation ? { annotations: { "volume.beta.kubernetes.io/storage-class": annotation } } : {}) },
    spec: { ...(className ? { storageClassName: className } : {}), resources: size === undefined ? {} : { requests: { storage: size } } },
    status: { phase },
  };
}

function setup(classes: Record<string, boolean | undefined> = { fast: true }) {
  const services = fakeServices();
  for (const [name, allow] of Object.entries(classes)) {
    services.put("storage.orch.io", "storageclasses", {
      apiVersion: "storage.orch.io/v1",
      kind: "StorageClass",
      metadata: { name },
      provisioner: "x",
      ...(allow === undefined ? {} : { allowVolumeExpansion: allow }),
    });
  }
  return { services, plugin: persistentVolumeClaimResize({ services, configuration: undefined }) };
}

const update = (object: APIObject, oldObject: APIObject) => attributesFor({ operation: "UPDATE", type: persistentVolumeClaimType, object, oldObject });

describe("PersistentVolumeClaimResize", () => {
  it("validates UPDATE only", () => {
    const { plugin } = setup();
    expect(plugin.name).toBe("PersistentVolumeClaimResize");
    expect(plugin.operations).toEqual(["UPDATE"]);
    expect(plugin.admit).toBeUndefined();
  });

  it("lets a bound claim grow when its class allows expansion", async () => {
    const { plugin } = setup();
    await expect(plugin.validate?.(update(claim("2Gi"), claim("1Gi")))).resolves.toBeUndefined();
  });

  it("refuses growth when the class does not allow expansion (403, the reference's message)", async () => {
    const { plugin } = setup({ fast: false });
    await expect(plugin.validate?.(update(claim("2Gi"), claim("1Gi")))).rejects.toMatchObject({
      status: { code: 403, reason: "Forbidden", message: notAllowed },
    });
  });

  it("refuses growth when the class leaves allowVolumeExpansion unset", async () => {
    const { plugin } = setup({ fast: undefined });
    await expect(plugin.validate?.(update(claim("2Gi"), claim("1Gi")))).rejects.toMatchObject({ status: { message: notAllowed } });
  });

  it("refuses growth when the class does not exist", async () => {
    const { plugin } = setup({});
    await expect(plugin.validate?.(update(claim("2Gi"), claim("1Gi")))).rejects.toMatchObject({ status: { message: notAllowed } });
  });

  it("refuses growth of a claim without a class, or whose class changes", async () => {
    const { plugin } = setup({ fast: true, slow: true });
    await expect(plugin.validate?.(update(claim("2Gi", { className: "" }), claim("1Gi", { className: "" })))).rejects.toMatchObject({
      status: { message: notAllowed },
    });
    await expect(plugin.validate?.(update(claim("2Gi", { className: "slow" }), claim("1Gi")))).rejects.toMatchObject({ status: { message: notAllowed } });
  });

  it("takes the class from the beta annotation first", async () => {
    const { plugin } = setup({ fast: false, old: true });
    await expect(plugin.validate?.(update(claim("2Gi", { annotation: "old" }), claim("1Gi", { annotation: "old" })))).resolves.toBeUndefined();
  });

  it("refuses growth of a claim that is not bound yet", async () => {
    const { plugin } = setup();
    await expect(plugin.validate?.(update(claim("2Gi", { phase: "Pending" }), claim("1Gi", { phase: "Pending" })))).rejects.toMatchObject({
      status: { code: 403, message: 'persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded' },
    });
  });

  it("compares sizes as quantities: same size in other units, and shrinking, pass", async () => {
    const { plugin } = setup({ fast: false });
    await expect(plugin.validate?.(update(claim("1024Mi"), claim("1Gi")))).resolves.toBeUndefined();
    await expect(plugin.validate?.(update(claim("500Mi", { phase: "Pending" }), claim("1Gi")))).resolves.toBeUndefined();
  });

  it("counts a claim that had no request as size zero", async () => {
    const { plugin } = setup({ fast: false });
    await expect(plugin.validate?.(update(claim("1Gi"), claim(undefined)))).rejects.toMatchObject({ status: { message: notAllowed } });
  });

  it("skips sub-resources and other resources", async () => {
    const { plugin } = setup({ fast: false });
    const status = attributesFor({
      operation: "UPDATE",
      type: persistentVolumeClaimType,
      object: claim("2Gi"),
      oldObject: claim("1Gi"),
      subresource: "status",
    });
    await expect(plugin.validate?.(status)).resolves.toBeUndefined();
    const pod: APIObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" }, spec: {} };
    await expect(plugin.validate?.(attributesFor({ operation: "UPDATE", type: podType, object: pod, oldObject: pod }))).resolves.toBeUndefined();
  });

  it("reads StorageClasses of the domain's storage group", async () => {
    const services = fakeServices({ domain: "k8s.io" });
    services.put("storage.k8s.io", "storageclasses", {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "fast" },
      allowVolumeExpansion: true,
    });
    const plugin = persistentVolumeClaimResize({ services, configuration: undefined });
    const attrs = attributesFor({ operation: "UPDATE", type: persistentVolumeClaimType, object: claim("2Gi"), oldObject: claim("1Gi"), domain: "k8s.io" });
    await expect(plugin.validate?.(attrs)).resolves.toBeUndefined();
  });
});
