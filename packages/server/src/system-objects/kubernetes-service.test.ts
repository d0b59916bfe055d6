import { FakeClock, MemoryStore } from "@orch/store";
import { describe, expect, it } from "vitest";
import { APIServer } from "../api-server.js";
import { firstServiceIP } from "./kubernetes-service.js";

// Servers here run on a FakeClock: their endpoint leases are never renewed (endpoint-lease.test.ts does that).

/** A JSON document as the tests read it: any field may be followed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads nested fields of answers it checks
type Json = Record<string, any>;

async function get(server: APIServer, url: string) {
  const res = await server.handle({ method: "GET", url, headers: new Headers() });
  return { status: res.status, json: JSON.parse(typeof res.body === "string" ? res.body : new TextDecoder().decode(res.body)) as Json };
}

describe("firstServiceIP", () => {
  it("is the first address of an IPv4 or IPv6 range", () => {
    expect(firstServiceIP("10.96.0.0/12")).toBe("10.96.0.1");
    expect(firstServiceIP("10.96.5.7/12")).toBe("10.96.0.1");
    expect(firstServiceIP("192.168.0.0/24")).toBe("192.168.0.1");
    expect(firstServiceIP("fd00:10:96::/112")).toBe("fd00:10:96::1");
  });

  it("refuses what is not a range with room for an address", () => {
    expect(() => firstServiceIP("10.96.0.0")).toThrow(TypeError);
    expect(() => firstServiceIP("10.96.0.0/32")).toThrow(TypeError);
    expect(() => firstServiceIP("300.0.0.0/8")).toThrow(TypeError);
  });
});

describe("the kubernetes Service", () => {
  it("is created at start with the reference's port, labels and the range's first address, with Endpoints and EndpointSlice", async () => {
    const server = new APIServer({ clock: new FakeClock(), advertise: { address: "192.0.2.10", port: 6443 }, serviceClusterIPRange: "10.96.0.0/12" });
    const service = await get(server, "/api/v1/namespaces/default/services/kubernetes");
    expect(service.status).toBe(200);
    expect(service.json.metadata.labels).toEqual({ component: "apiserver", provider: "kubernetes" });
    expect(service.json.spec).toMatchObject({
      type: "ClusterIP",
      clusterIP: "10.96.0.1",
      clusterIPs: ["10.96.0.1"],
      ports: [{ name: "https", protocol: "TCP", port: 443, targetPort: 6443 }],
      sessionAffinity: "None",
    });
    const endpoints = await get(server, "/api/v1/namespaces/default/endpoints/kubernetes");
    expect(endpoints.json.subsets).toEqual([{ addresses: [{ ip: "192.0.2.10" }], ports: [{ name: "https", port: 6443, protocol: "TCP" }] }]);
    expect(endpoints.json.metadata.labels).toEqual({ "endpointslice.orch.io/skip-mirror": "true" });
    const slice = await get(server, "/apis/discovery.orch.io/v1/namespaces/default/endpointslices/kubernetes");
    expect(slice.json).toMatchObject({
      addressType: "IPv4",
      endpoints: [{ addresses: ["192.0.2.10"], conditions: { ready: true } }],
      ports: [{ name: "https", port: 6443, protocol: "TCP" }],
    });
    expect(slice.json.metadata.labels["orch.io/service-name"]).toBe("kubernetes");
  });

  it("has no EndpointSlice when the server does not serve EndpointSlices", async () => {
    const store = new MemoryStore();
    const server = new APIServer({
      store,
      clock: new FakeClock(),
      advertise: { address: "192.0.2.10", port: 6443 },
      runtimeConfig: { "discovery.orch.io/v1": false },
    });
    await server.ready();
    expect((await get(server, "/api/v1/namespaces/default/endpoints/kubernetes")).status).toBe(200);
    expect(await store.get("/registry/discovery.orch.io/endpointslices/default/kubernetes")).toBeUndefined();
  });

  it("is not made by a server that does not know where it is reached", async () => {
    const server = new APIServer({ clock: new FakeClock() });
    expect((await get(server, "/api/v1/namespaces/default/services/kubernetes")).status).toBe(404);
    await server.advertise({ address: "192.0.2.10", port: 7443 });
    expect((await get(server, "/api/v1/namespaces/default/services/kubernetes")).json.spec.ports[0].targetPort).toBe(7443);
  });

  it("lists every server on one store once, and loses a server's address when it shuts down", async () => {
    const store = new MemoryStore();
    const a = new APIServer({ store, clock: new FakeClock(), advertise: { address: "192.0.2.11", port: 6443 } });
    const b = new APIServer({ store, clock: new FakeClock(), advertise: { address: "192.0.2.2", port: 6443 } });
    await Promise.all([a.ready(), b.ready()]);
    const both = await get(a, "/api/v1/namespaces/default/endpoints/kubernetes");
    expect(both.json.subsets[0].addresses).toEqual([{ ip: "192.0.2.2" }, { ip: "192.0.2.11" }]);
    const services = await get(a, "/api/v1/namespaces/default/services");
    expect(services.json.items.filter((s: { metadata: { name: string } }) => s.metadata.name === "kubernetes")).toHaveLength(1);
    await b.shutdown();
    const one = await get(a, "/api/v1/namespaces/default/endpoints/kubernetes");
    expect(one.json.subsets[0].addresses).toEqual([{ ip: "192.0.2.11" }]);
    await a.shutdown();
    expect((await get(a, "/api/v1/namespaces/default/endpoints/kubernetes")).json.subsets).toEqual([]);
  });

  it("puts back the Service's port after it was changed, at the next start", async () => {
    const store = new MemoryStore();
    const first = new APIServer({ store, clock: new FakeClock(), advertise: { address: "192.0.2.10", port: 6443 } });
    await first.ready();
    const second = new APIServer({ store, clock: new FakeClock(), advertise: { address: "192.0.2.10", port: 8443 } });
    await second.ready();
    const service = await get(second, "/api/v1/namespaces/default/services/kubernetes");
    expect(service.json.spec.ports).toEqual([{ name: "https", protocol: "TCP", port: 443, targetPort: 8443 }]);
    const endpoints = await get(second, "/api/v1/namespaces/default/endpoints/kubernetes");
    expect(endpoints.json.subsets).toEqual([{ addresses: [{ ip: "192.0.2.10" }], ports: [{ name: "https", port: 8443, protocol: "TCP" }] }]);
  });

  it("lists no loopback address: a server advertised on loopback has the Service but no address", async () => {
    const server = new APIServer({ clock: new FakeClock(), advertise: { address: "127.0.0.1", port: 6443 } });
    expect((await get(server, "/api/v1/namespaces/default/services/kubernetes")).status).toBe(200);
    expect((await get(server, "/api/v1/namespaces/default/endpoints/kubernetes")).json.subsets).toEqual([]);
  });

  it("refuses a service range that does not parse when the server is built", () => {
    expect(() => new APIServer({ serviceClusterIPRange: "nope" })).toThrow(TypeError);
  });
});
