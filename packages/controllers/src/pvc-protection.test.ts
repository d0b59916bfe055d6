import { Client, inProcessTransport } from "@orch/client";
import { isNotFound, type APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import { persistentVolumeClaimsRef, podsRef } from "./internal/refs.js";
import { eventually, runController, settle, type RunningController, createDefaultServiceAccount } from "./internal/testing.js";
import { PVCProtectionController } from "./pvc-protection.js";

const running: RunningController[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

const ns = { namespace: "default" };

async function setup() {
  const client = new Client({ transport: inProcessTransport(new APIServer()) });
  await createDefaultServiceAccount(client);
  running.push(await runController(new PVCProtectionController(), client));
  const claims = client.resource(persistentVolumeClaimsRef);
  const pods = client.resource(podsRef);
  const createClaim = (name: string) =>
    claims.create({ metadata: { name }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } } as APIObject, ns);
  const createPod = (name: string, claimName: string, extra: { nodeName?: string; phase?: string } = {}) =>
    pods.create(
      {
        metadata: { name },
        spec: {
          ...(extra.nodeName ? { nodeName: extra.nodeName } : {}),
          containers: [{ name: "c", image: "busybox" }],
          volumes: [{ name: "data", persistentVolumeClaim: { claimName } }],
        },
      } as APIObject,
      ns,
    );
  const gone = async (get: () => Promise<unknown>) => {
    try {
      await get();
      return false;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  };
  return { claims, pods, createClaim, createPod, gone };
}

describe("PVCProtectionController", () => {
  it("adds the finalizer to a claim without it, and keeps a deleted claim while a scheduled Pod uses it", async () => {
    const { claims, pods, createClaim, createPod, gone } = await setup();
    await createClaim("data");
    expect(await eventually(async () => (await claims.get("data", ns)).metadata.finalizers?.includes("orch.io/pvc-protection") ?? false)).toBe(true);
    await createPod("user", "data", { nodeName: "n1" });
    await createPod("unscheduled", "data");
    await claims.delete("data", ns);
    await settle(100);
    expect((await claims.get("data", ns)).metadata.deletionTimestamp).toBeDefined();
    await pods.delete("user", { ...ns, gracePeriodSeconds: 0 });
    expect(await eventually(() => gone(() => claims.get("data", ns)))).toBe(true);
  });

  it("lets a deleted claim go at once when no Pod uses it", async () => {
    const { claims, createClaim, gone } = await setup();
    await createClaim("free");
    expect(await eventually(async () => (await claims.get("free", ns)).metadata.finalizers !== undefined)).toBe(true);
    await claims.delete("free", ns);
    expect(await eventually(() => gone(() => claims.get("free", ns)))).toBe(true);
  });
});
