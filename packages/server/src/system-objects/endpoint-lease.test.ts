import { FakeClock, MemoryStore } from "@orch/store";
import { describe, expect, it, vi } from "vitest";
import { APIServer } from "../api-server.js";
import { endpointLeaseName } from "./endpoint-lease.js";

async function call(server: APIServer, method: string, url: string, body?: unknown) {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json" }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  return { status: res.status, json: JSON.parse(typeof res.body === "string" ? res.body : new TextDecoder().decode(res.body)) as Record<string, unknown> };
}

async function addresses(server: APIServer): Promise<string[]> {
  const endpoints = await call(server, "GET", "/api/v1/namespaces/default/endpoints/kubernetes");
  const subsets = endpoints.json["subsets"] as { addresses: { ip: string }[] }[];
  return (subsets[0]?.addresses ?? []).map((a) => a.ip);
}

describe("the endpoint leases of the API servers", () => {
  it("name the address", () => {
    expect(endpointLeaseName("192.0.2.10")).toBe("apiserver-endpoint-192-0-2-10");
    expect(endpointLeaseName("FD00::1")).toBe("apiserver-endpoint-fd00--1");
  });

  it("list every live server, drop one that stops renewing once its lease expires, and one that shuts down at once", async () => {
    const store = new MemoryStore();
    const clock = new FakeClock();
    const a = new APIServer({ store, clock, advertise: { address: "192.0.2.11", port: 6443 } });
    const b = new APIServer({ store, clock, advertise: { address: "192.0.2.2", port: 6443 } });
    await a.ready();
    await b.ready();
    expect(await addresses(a)).toEqual(["192.0.2.2", "192.0.2.11"]);
    // A server that died: its lease was renewed now, and never again.
    const lease = await call(a, "POST", "/apis/coordination.orch.io/v1/namespaces/orch-system/leases", {
      apiVersion: "coordination.orch.io/v1",
      kind: "Lease",
      metadata: { name: endpointLeaseName("192.0.2.99"), labels: { "apiserver.orch.io/endpoint-of": "kubernetes" } },
      spec: { holderIdentity: "192.0.2.99", leaseDurationSeconds: 15, renewTime: new Date(clock.now()).toISOString().replace("Z", "000Z") },
    });
    expect(lease.status).toBe(201);
    clock.advance(10_000);
    await vi.waitFor(async () => expect(await addresses(a)).toEqual(["192.0.2.2", "192.0.2.11", "192.0.2.99"]), { timeout: 10_000 });
    clock.advance(10_000);
    await vi.waitFor(async () => expect(await addresses(a)).toEqual(["192.0.2.2", "192.0.2.11"]), { timeout: 10_000 });
    await b.shutdown();
    expect(await addresses(a)).toEqual(["192.0.2.11"]);
    expect((await call(a, "GET", `/apis/coordination.orch.io/v1/namespaces/orch-system/leases/${endpointLeaseName("192.0.2.2")}`)).status).toBe(404);
    // b renews no more: its lease is gone, and the next renewals of a keep it out.
    clock.advance(10_000);
    await vi.waitFor(async () => expect(await addresses(a)).toEqual(["192.0.2.11"]), { timeout: 10_000 });
    await a.shutdown();
    expect(await addresses(b)).toEqual([]);
  });
});
