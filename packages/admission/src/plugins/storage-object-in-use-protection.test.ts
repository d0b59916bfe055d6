import type { APIObject } from "@orch/meta";
import { configMapType, persistentVolumeClaimType, persistentVolumeType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { storageObjectInUseProtection } from "./storage-object-in-use-protection.js";

const pvc = (finalizers?: string[]): APIObject => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name: "c", namespace: "ns", ...(finalizers ? { finalizers } : {}) },
  spec: {},
});
const pv = (finalizers?: string[]): APIObject => ({
  apiVersion: "v1",
  kind: "PersistentVolume",
  metadata: { name: "v", ...(finalizers ? { finalizers } : {}) },
  spec: {},
});

function plugin(domain = "orch.io") {
  return storageObjectInUseProtection({ services: fakeServices({ domain }), configuration: undefined });
}

describe("StorageObjectInUseProtection", () => {
  it("admits CREATE only", () => {
    const p = plugin();
    expect(p.name).toBe("StorageObjectInUseProtection");
    expect(p.operations).toEqual(["CREATE"]);
    expect(p.validate).toBeUndefined();
  });

  it("adds <domain>/pvc-protection to a new claim", async () => {
    const attrs = attributesFor({ operation: "CREATE", type: persistentVolumeClaimType, object: pvc() });
    await plugin().admit?.(attrs);
    expect(attrs.object?.metadata.finalizers).toEqual(["orch.io/pvc-protection"]);
  });

  it("adds <domain>/pv-protection to a new volume, after the finalizers it has", async () => {
    const attrs = attributesFor({ operation: "CREATE", type: persistentVolumeType, object: pv(["example.com/keep"]) });
    await plugin().admit?.(attrs);
    expect(attrs.object?.metadata.finalizers).toEqual(["example.com/keep", "orch.io/pv-protection"]);
  });

  it("adds the finalizer once", async () => {
    const attrs = attributesFor({ operation: "CREATE", type: persistentVolumeClaimType, object: pvc(["orch.io/pvc-protection"]) });
    const p = plugin();
    await p.admit?.(attrs);
    await p.admit?.(attrs);
    expect(attrs.object?.metadata.finalizers).toEqual(["orch.io/pvc-protection"]);
  });

  it("uses kubernetes.io/ under domain k8s.io", async () => {
    const claim = attributesFor({ operation: "CREATE", type: persistentVolumeClaimType, object: pvc(), domain: "k8s.io" });
    const volume = attributesFor({ operation: "CREATE", type: persistentVolumeType, object: pv(), domain: "k8s.io" });
    const p = plugin("k8s.io");
    await p.admit?.(claim);
    await p.admit?.(volume);
    expect(claim.object?.metadata.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
    expect(volume.object?.metadata.finalizers).toEqual(["kubernetes.io/pv-protection"]);
  });

  it("leaves sub-resources and other resources alone", async () => {
    const status = attributesFor({ operation: "CREATE", type: persistentVolumeClaimType, object: pvc(), subresource: "status" });
    const cm = attributesFor({
      operation: "CREATE",
      type: configMapType,
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ns" } },
    });
    const p = plugin();
    await p.admit?.(status);
    await p.admit?.(cm);
    expect(status.object?.metadata.finalizers).toBeUndefined();
    expect(cm.object?.metadata.finalizers).toBeUndefined();
  });
});
