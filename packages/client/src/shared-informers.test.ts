import type { APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { describe, expect, it } from "vitest";
import { configMapsRef, secretsRef } from "./builtin-refs.js";
import { Client } from "./client.js";
import { inProcessTransport } from "./in-process-transport.js";
import type { InformerTimers } from "./informer.js";
import { SharedInformers } from "./shared-informers.js";

const eventually = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  return cond();
};

describe("SharedInformers", () => {
  it("shares one informer per resource and replays the cache to late handlers", async () => {
    const client = new Client({ transport: inProcessTransport(new APIServer()) });
    await client.configMaps.create({ metadata: { name: "a" } } as APIObject, { namespace: "default" });
    const informers = new SharedInformers(client);
    const first = informers.informerFor(configMapsRef);
    expect(informers.informerFor({ ...configMapsRef })).toBe(first);
    expect(informers.informerFor(secretsRef)).not.toBe(first);
    expect(informers.size).toBe(2);
    expect(informers.hasSynced()).toBe(false);
    informers.start();
    await informers.waitForSync();
    expect(informers.hasSynced()).toBe(true);
    const seen: string[] = [];
    const remove = informers.addEventHandler(configMapsRef, { onAdd: (o) => seen.push(o.metadata.name ?? "") });
    expect(seen).toEqual(["a"]);
    await client.configMaps.create({ metadata: { name: "b" } } as APIObject, { namespace: "default" });
    expect(await eventually(() => seen.includes("b"))).toBe(true);
    remove();
    await informers.stop();
  });

  it("gives every informer the default resync period, which a handler may override", async () => {
    const periods: number[] = [];
    // Timers that never fire: the test reads which periods were asked for.
    const timers: InformerTimers = { setTimer: (ms) => (periods.push(ms), () => undefined) };
    const client = new Client({ transport: inProcessTransport(new APIServer()) });
    const informers = new SharedInformers(client, { timers, defaultResyncPeriodMs: 60_000 });
    informers.addEventHandler(configMapsRef, {});
    informers.addEventHandler(secretsRef, {}, { resyncPeriodMs: 5_000 });
    informers.addEventHandler(secretsRef, {}, { resyncPeriodMs: 0 });
    informers.start();
    await informers.waitForSync();
    expect(periods.sort((a, b) => a - b)).toEqual([5_000, 60_000]);
    await informers.stop();
  });

  it("rejects waitForSync when an informer is stopped before it synced, or the signal aborts", async () => {
    const informers = new SharedInformers(new Client({ transport: inProcessTransport(new APIServer()) }));
    informers.informerFor(configMapsRef);
    await expect(informers.waitForSync(AbortSignal.abort(new Error("gave up")))).rejects.toThrow("gave up");
    const waiting = informers.waitForSync();
    await informers.stop();
    await expect(waiting).rejects.toThrow(/stopped before it synced/);
  });
});
