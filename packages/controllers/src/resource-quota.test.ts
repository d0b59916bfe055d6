import { Client, inProcessTransport } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { podsRef, resourceQuotasRef, serviceAccountsRef } from "./internal/refs.js";
import { interceptTransport, runController, settle, type RunningController } from "./internal/testing.js";
import { quotaResyncPeriodMs, quotaSyncDelayMs, ResourceQuotaController, resourceQuotaController } from "./resource-quota.js";

const running: RunningController[] = [];
const servers: APIServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const s of servers.splice(0)) await s.shutdown();
});

const pod = (name: string): APIObject => ({
  metadata: { name, namespace: "ns" },
  spec: { containers: [{ name: "c", image: "i", resources: { requests: { cpu: "100m" } } }] },
});

type QuotaStatus = { hard?: Record<string, string>; used?: Record<string, string> };

async function setup() {
  const clock = new FakeClock(Date.now());
  const server = new APIServer();
  servers.push(server);
  const statusWrites: string[] = [];
  const client = new Client({
    transport: interceptTransport(inProcessTransport(server), (request, next) => {
      if (request.method === "PUT" && request.path.endsWith("/status")) statusWrites.push(request.path);
      return next();
    }),
  });
  await client.namespaces.create({ metadata: { name: "ns" } });
  // The ServiceAccount admission plugin wants the account pods run as (its loop is off here).
  await client.resource(serviceAccountsRef).create({ metadata: { name: "default", namespace: "ns" } });
  const quotas = client.resource(resourceQuotasRef);
  const pods = client.resource(podsRef);
  const status = async (name = "q"): Promise<QuotaStatus | undefined> => (await quotas.get(name, { namespace: "ns" }))["status"] as QuotaStatus | undefined;
  const start = async () => {
    const controller = await runController(new ResourceQuotaController(), client, { clock });
    running.push(controller);
    return controller;
  };
  /** Lets requests and informers run, then `periods` debounce periods pass on the fake clock. */
  const tick = async (periods = 1) => {
    for (let i = 0; i < periods; i++) {
      await settle(20);
      clock.advance(quotaSyncDelayMs);
      await settle(20);
    }
  };
  return { clock, client, quotas, pods, status, start, tick, statusWrites };
}

describe("ResourceQuotaController", () => {
  it("is named resourcequota and on by default", () => {
    expect(resourceQuotaController).toMatchObject({ name: "resourcequota", enabledByDefault: true });
  });

  it("sets status.hard and status.used of a quota from the objects of its namespace", async () => {
    const { client, quotas, pods, status, start, tick } = await setup();
    await pods.create(pod("a"));
    await client.configMaps.create({ metadata: { name: "cm", namespace: "ns" } });
    await client.configMaps.create({ metadata: { name: "other", namespace: "default" } });
    await start();
    await quotas.create({
      metadata: { name: "q", namespace: "ns" },
      spec: { hard: { pods: "5", "count/pods": "5", "requests.cpu": "1", configmaps: "3" } },
    } as APIObject);
    await tick(3);
    expect(await status()).toEqual({
      hard: { configmaps: "3", "count/pods": "5", pods: "5", "requests.cpu": "1" },
      used: { configmaps: "1", "count/pods": "1", pods: "1", "requests.cpu": "100m" },
    });
  });

  it("gives usage back after a delete, once it held for a debounce period", async () => {
    const { client, quotas, status, start, tick } = await setup();
    await quotas.create({ metadata: { name: "q", namespace: "ns" }, spec: { hard: { configmaps: "5" } } } as APIObject);
    await client.configMaps.create({ metadata: { name: "a", namespace: "ns" } });
    await client.configMaps.create({ metadata: { name: "b", namespace: "ns" } });
    await start();
    await tick(3);
    expect((await status())?.used).toEqual({ configmaps: "2" });
    await client.configMaps.delete("a", { namespace: "ns" });
    await tick(1);
    expect((await status())?.used).toEqual({ configmaps: "2" });
    await tick(2);
    expect((await status())?.used).toEqual({ configmaps: "1" });
  });

  it("follows spec.hard into status.hard, and counts the resources a changed spec adds", async () => {
    const { client, quotas, pods, status, start, tick } = await setup();
    await quotas.create({ metadata: { name: "q", namespace: "ns" }, spec: { hard: { configmaps: "5" } } } as APIObject);
    await start();
    await tick(2);
    expect(await status()).toEqual({ hard: { configmaps: "5" }, used: { configmaps: "0" } });
    await client.configMaps.create({ metadata: { name: "a", namespace: "ns" } });
    await tick(1);
    expect((await status())?.used).toEqual({ configmaps: "1" });

    const q = await quotas.get("q", { namespace: "ns" });
    await quotas.update({ ...q, spec: { hard: { configmaps: "7", pods: "2" } } } as APIObject);
    await tick(2);
    expect(await status()).toEqual({ hard: { configmaps: "7", pods: "2" }, used: { configmaps: "1", pods: "0" } });
    // A resource counted only since the spec changed is followed too.
    await pods.create(pod("p"));
    await pods.delete("p", { namespace: "ns" });
    await pods.create(pod("p2"));
    await tick(3);
    expect((await status())?.used).toEqual({ configmaps: "1", pods: "1" });
  });

  it("writes nothing when the status is right, and gathers a burst of changes into one write", async () => {
    const { client, quotas, status, start, tick, statusWrites } = await setup();
    await quotas.create({ metadata: { name: "q", namespace: "ns" }, spec: { hard: { configmaps: "50" } } } as APIObject);
    await start();
    await tick(2);
    expect((await status())?.used).toEqual({ configmaps: "0" });
    // The ResourceQuota admission plugin charges each create itself (inside the server): the loop has nothing to add.
    const before = statusWrites.length;
    for (const name of ["a", "b", "c"]) await client.configMaps.create({ metadata: { name, namespace: "ns" } });
    await tick(3);
    expect((await status())?.used).toEqual({ configmaps: "3" });
    expect(statusWrites.length).toBe(before);
    for (const name of ["a", "b", "c"]) await client.configMaps.delete(name, { namespace: "ns" });
    await tick(4);
    expect((await status())?.used).toEqual({ configmaps: "0" });
    expect(statusWrites.length).toBe(before + 1);
  });

  it("recomputes every namespace with quotas each resync period", async () => {
    const { clock, quotas, status, start, tick } = await setup();
    await quotas.create({ metadata: { name: "q", namespace: "ns" }, spec: { hard: { configmaps: "5" } } } as APIObject);
    await start();
    await tick(2);
    // A status written by someone else (a charge for a create that then failed) is not followed...
    const q = await quotas.get("q", { namespace: "ns" });
    await quotas.updateStatus({ ...q, status: { hard: { configmaps: "5" }, used: { configmaps: "4" } } } as APIObject);
    await tick(3);
    expect((await status())?.used).toEqual({ configmaps: "4" });
    // ... until the resync.
    clock.advance(quotaResyncPeriodMs);
    await tick(3);
    expect((await status())?.used).toEqual({ configmaps: "0" });
  });
});
