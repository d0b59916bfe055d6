import { Client, endpointsRef, inProcessTransport, podsRef, servicesRef } from "@orch/client";
import { isNotFound, type APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import { EndpointsController, endpointsController, maxEndpointsCapacity, packSubsets, truncateSubsets } from "./endpoints.js";
import { TriggerTimeTracker } from "./internal/service-endpoints.js";
import { conflictOnce, eventually, runController, type RunningController } from "./internal/testing.js";

const running: RunningController[] = [];
const servers: APIServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const s of servers.splice(0)) await s.shutdown();
});

/** A Pod of `app: web` with a container port `http` (8080) on `node-1`. */
const pod = (name: string, labels: Record<string, string> = { app: "web" }, spec: Record<string, unknown> = {}): APIObject => ({
  metadata: { name, namespace: "ns", labels },
  spec: { nodeName: "node-1", containers: [{ name: "c", image: "i", ports: [{ name: "http", containerPort: 8080 }] }], ...spec },
});

const webService: APIObject = {
  metadata: { name: "web", namespace: "ns", labels: { tier: "front" } },
  spec: {
    selector: { app: "web" },
    ports: [
      { name: "http", port: 80, targetPort: "http" },
      { name: "metrics", port: 9090 },
    ],
  },
};

async function setup(options: { conflictOnce?: boolean; domain?: string } = {}) {
  const server = new APIServer({ admission: [], ...(options.domain ? { domain: options.domain } : {}) });
  servers.push(server);
  const intercepted = conflictOnce(inProcessTransport(server), "/endpoints/", options.conflictOnce);
  const client = new Client({ ...(options.domain ? { domain: options.domain } : {}), transport: intercepted.transport });
  await client.namespaces.create({ metadata: { name: "ns" } });
  const pods = client.resource(podsRef);
  const endpoints = client.resource(endpointsRef);
  /** Creates `object` and gives it `ip`, ready or not. */
  const runningPod = async (object: APIObject, ip: string | undefined, ready: boolean) => {
    const created = await pods.create(object);
    const conditions = [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: "2026-11-24T10:00:00Z" }];
    return pods.updateStatus({ ...created, status: { phase: "Running", ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}), conditions } });
  };
  const read = async (name = "web"): Promise<APIObject | undefined> => {
    try {
      return await endpoints.get(name, { namespace: "ns" });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  const controller = await runController(new EndpointsController(), client);
  running.push(controller);
  return { client, pods, endpoints, services: client.resource(servicesRef), runningPod, read, logs: controller.logs, conflicted: intercepted.conflicted };
}

describe("EndpointsController", () => {
  it("is named endpoint and on by default", () => {
    expect(endpointsController).toMatchObject({ name: "endpoint", enabledByDefault: true });
  });

  it("lists the ready and not-ready Pods a Service selects, with named target ports resolved, in an Endpoints of its name", async () => {
    const { services, runningPod, read, logs } = await setup();
    await runningPod(pod("web-1", { app: "web" }, { hostname: "one", subdomain: "web" }), "10.0.0.1", true);
    await runningPod(pod("web-2"), "10.0.0.2", false);
    await runningPod(pod("web-3"), undefined, true);
    await runningPod(pod("other", { app: "db" }), "10.0.0.9", true);
    const service = await services.create(webService);
    // The informers of Pods and Services are separate streams: wait for the Endpoints with every Pod seen.
    const complete = (e: APIObject | undefined): boolean => {
      const subset = (e?.["subsets"] as { addresses?: { hostname?: string }[]; notReadyAddresses?: unknown[]; ports?: unknown[] }[] | undefined)?.[0];
      return subset?.addresses?.[0]?.hostname === "one" && subset.notReadyAddresses?.length === 1 && subset.ports?.length === 2;
    };
    expect(await eventually(async () => complete(await read()))).toBe(true);
    const endpoints = (await read()) as APIObject;
    expect(endpoints.metadata.labels).toEqual({ tier: "front" });
    expect(endpoints.metadata.annotations?.["endpoints.orch.io/last-change-trigger-time"]).toBe(service.metadata.creationTimestamp);
    const subsets = endpoints["subsets"] as Record<string, unknown>[];
    expect(subsets).toHaveLength(1);
    expect(subsets[0]).toMatchObject({
      addresses: [{ ip: "10.0.0.1", hostname: "one", nodeName: "node-1", targetRef: { kind: "Pod", name: "web-1", namespace: "ns" } }],
      notReadyAddresses: [{ ip: "10.0.0.2", nodeName: "node-1", targetRef: { kind: "Pod", name: "web-2" } }],
    });
    expect(subsets[0]?.["ports"]).toEqual(
      expect.arrayContaining([
        { name: "http", port: 8080, protocol: "TCP" },
        { name: "metrics", port: 9090, protocol: "TCP" },
      ]),
    );
    expect(logs).toEqual([]);
  });

  it("follows Pods becoming ready, and deletes the Endpoints with the Service", async () => {
    const { pods, services, runningPod, read, logs } = await setup();
    await services.create(webService);
    const unready = await runningPod(pod("web-1"), "10.0.0.1", false);
    expect(
      await eventually(async () => ((await read())?.["subsets"] as { notReadyAddresses?: unknown[] }[] | undefined)?.[0]?.notReadyAddresses?.length === 1),
    ).toBe(true);
    await pods.updateStatus({ ...unready, status: { ...(unready["status"] as object), conditions: [{ type: "Ready", status: "True" }] } });
    expect(await eventually(async () => ((await read())?.["subsets"] as { addresses?: unknown[] }[] | undefined)?.[0]?.addresses?.length === 1)).toBe(true);
    await services.delete("web", { namespace: "ns" });
    expect(await eventually(async () => (await read()) === undefined)).toBe(true);
    expect(logs).toEqual([]);
  });

  it("leaves the Endpoints of a Service without a selector to their owner", async () => {
    const { services, endpoints, read } = await setup();
    await endpoints.create({ metadata: { name: "external", namespace: "ns" }, subsets: [{ addresses: [{ ip: "192.0.2.1" }], ports: [{ port: 443 }] }] });
    await services.create({ metadata: { name: "external", namespace: "ns" }, spec: { ports: [{ port: 443 }] } });
    await services.create(webService);
    expect(await eventually(async () => (await read()) !== undefined)).toBe(true);
    expect((await read("external"))?.["subsets"]).toEqual([{ addresses: [{ ip: "192.0.2.1" }], ports: [{ port: 443, protocol: "TCP" }] }]);
  });

  it("retries a write that lost a race without a log line", async () => {
    const { services, runningPod, read, logs, conflicted } = await setup({ conflictOnce: true });
    await services.create(webService);
    expect(await eventually(async () => (await read()) !== undefined)).toBe(true);
    await runningPod(pod("web-1"), "10.0.0.1", true);
    expect(await eventually(async () => ((await read())?.["subsets"] as unknown[] | undefined)?.length === 1)).toBe(true);
    expect(conflicted()).toBe(true);
    expect(logs).toEqual([]);
  });

  it("names its annotation and headless label after kubernetes.io under k8s.io", async () => {
    const { services, runningPod, read } = await setup({ domain: "k8s.io" });
    await runningPod(pod("web-1"), "10.0.0.1", true);
    await services.create({ ...webService, spec: { ...(webService["spec"] as object), clusterIP: "None" } });
    expect(await eventually(async () => (await read()) !== undefined)).toBe(true);
    const endpoints = (await read()) as APIObject;
    expect(endpoints.metadata.labels).toEqual({ tier: "front", "service.kubernetes.io/headless": "" });
    expect(Object.keys(endpoints.metadata.annotations ?? {})).toEqual(["endpoints.kubernetes.io/last-change-trigger-time"]);
  });
});

describe("packSubsets", () => {
  it("groups addresses by the ports they serve, in a stable order", () => {
    const http = { name: "http", port: 80, protocol: "TCP" };
    const dns = { name: "dns", port: 53, protocol: "UDP" };
    const address = (ip: string) => ({ ip, targetRef: { kind: "Pod", name: ip, uid: ip } });
    const subsets = packSubsets([
      { address: address("10.0.0.2"), ready: true, ports: [http] },
      { address: address("10.0.0.1"), ready: false, ports: [http] },
      { address: address("10.0.0.3"), ready: true, ports: [http, dns] },
    ]);
    expect(subsets).toEqual([
      { addresses: [address("10.0.0.3")], ports: [dns, http] },
      { addresses: [address("10.0.0.2")], notReadyAddresses: [address("10.0.0.1")], ports: [http] },
    ]);
  });
});

describe("TriggerTimeTracker", () => {
  const service: APIObject = { metadata: { name: "web", namespace: "ns", creationTimestamp: "2026-11-24T09:00:00Z" } };
  const readyAt = (name: string, time: string): APIObject => ({
    metadata: { name, namespace: "ns" },
    status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: time }] },
  });

  it("answers the Service's creation first, then the earliest Ready transition that moved on, and nothing without a change", () => {
    const tracker = new TriggerTimeTracker();
    const a = readyAt("a", "2026-11-24T10:00:00Z");
    expect(tracker.compute("ns/web", service, [a])).toBe("2026-11-24T09:00:00Z");
    expect(tracker.compute("ns/web", service, [a])).toBeUndefined();
    const moved = [readyAt("a", "2026-11-24T10:05:00Z"), readyAt("b", "2026-11-24T10:03:00Z")];
    expect(tracker.compute("ns/web", service, moved)).toBe("2026-11-24T10:03:00Z");
    tracker.forget("ns/web");
    expect(tracker.compute("ns/web", service, moved)).toBe("2026-11-24T09:00:00Z");
  });
});

describe("truncateSubsets", () => {
  const addresses = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ ip: `10.0.${Math.floor((from + i) / 250)}.${(from + i) % 250}` }));

  it("leaves an Endpoints within capacity alone", () => {
    expect(truncateSubsets([{ addresses: addresses(maxEndpointsCapacity) }])).toBeUndefined();
  });

  it("cuts not-ready addresses first, each subset by its share", () => {
    const cut = truncateSubsets([{ addresses: addresses(900), notReadyAddresses: addresses(150, 900) }, { notReadyAddresses: addresses(50, 1050) }]);
    expect(cut?.map((s) => [(s["addresses"] as unknown[] | undefined)?.length, (s["notReadyAddresses"] as unknown[] | undefined)?.length])).toEqual([
      [900, 75],
      [undefined, 25],
    ]);
  });

  it("drops every not-ready address and cuts the ready ones when they alone are too many", () => {
    const cut = truncateSubsets([{ addresses: addresses(1200), notReadyAddresses: addresses(10, 1200) }, { addresses: addresses(300, 1300) }]);
    expect(cut?.map((s) => [(s["addresses"] as unknown[]).length, s["notReadyAddresses"]])).toEqual([
      [800, undefined],
      [200, undefined],
    ]);
  });
});
