import { Client, configMapsRef, inProcessTransport, secretsRef } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { describe, expect, it } from "vitest";
import { eventually } from "./internal/testing.js";
import { SharedInformers } from "./shared-informers.js";

describe("SharedInformers", () => {
  it("shares one informer per resource and replays the cache to late handlers", async () => {
    const client = new Client({ transport: inProcessTransport(new APIServer()) });
    await client.configMaps.create({ metadata: { name: "a" } } as APIObject, { namespace: "default" });
    const informers = new SharedInformers(client);
    const first = informers.informerFor(configMapsRef);
    expect(informers.informerFor({ ...configMapsRef })).toBe(first);
    expect(informers.informerFor(secretsRef)).not.toBe(first);
    expect(informers.size).toBe(2);
    informers.start();
    await informers.waitForSync();
    const seen: string[] = [];
    const remove = informers.addEventHandler(configMapsRef, { onAdd: (o) => seen.push(o.metadata.name ?? "") });
    expect(seen).toEqual(["a"]);
    await client.configMaps.create({ metadata: { name: "b" } } as APIObject, { namespace: "default" });
    expect(await eventually(() => seen.includes("b"))).toBe(true);
    remove();
    await informers.stop();
  });
});
