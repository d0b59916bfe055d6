import { Client, inProcessTransport } from "@orch/client";
import { isNotFound, type APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import { persistentVolumesRef } from "./internal/refs.js";
import { eventually, runController, settle, type RunningController } from "./internal/testing.js";
import { PVProtectionController } from "./pv-protection.js";

const running: RunningController[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

async function setup() {
  const client = new Client({ transport: inProcessTransport(new APIServer()) });
  running.push(await runController(new PVProtectionController(), client));
  const volumes = client.resource(persistentVolumesRef);
  const gone = async (get: () => Promise<unknown>) => {
    try {
      await get();
      return false;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  };
  return { volumes, gone };
}

describe("PVProtectionController", () => {
  it("keeps a deleted volume while it is Bound, and lets it go once it is not", async () => {
    const { volumes, gone } = await setup();
    await volumes.create({
      metadata: { name: "pv1" },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/data" } },
    } as APIObject);
    expect(await eventually(async () => (await volumes.get("pv1")).metadata.finalizers?.includes("orch.io/pv-protection") ?? false)).toBe(true);
    const bound = await volumes.get("pv1");
    bound["status"] = { phase: "Bound" };
    await volumes.updateStatus(bound);
    await volumes.delete("pv1");
    await settle(100);
    const held = await volumes.get("pv1");
    expect(held.metadata.deletionTimestamp).toBeDefined();
    held["status"] = { phase: "Released" };
    await volumes.updateStatus(held);
    expect(await eventually(() => gone(() => volumes.get("pv1")))).toBe(true);
  });
});
