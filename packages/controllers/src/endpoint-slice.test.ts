import { Client, endpointSlicesRef, inProcessTransport, podsRef, servicesRef } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import { desiredSlices, EndpointSliceController, endpointSliceController, maxEndpointsPerSlice } from "./endpoint-slice.js";
import { conflictOnce, eventually, runController, type RunningController } from "./internal/testing.js";

const running: RunningController[] = [];
const servers: APIServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const s of servers.splice(0)) await s.shutdown();
});

const pod = (name: string, extra: Record<string, unknown> = {}): APIObject => ({
  metadata: { name, namespace: "ns", labels: { app: "web" }, ...extra },
  spec: { nodeName: "node-1", containers: [{ name: "c", image: "i", ports: [{ name: "http", containerPort: 8080 }] }] },
});

const webService: APIObject = {
  metadata: { name: "web", namespace: "ns", labels: { tier: "front" } },
  spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http", appProtocol: "http" }] },
};

async function setup(options: { conflictOnce?: boolean; domain?: string } = {}) {
  const server = new APIServer({ admission: [], ...(options.domain ? { domain: options.domain } : {}) });
  servers.push(server);
  const intercepted = conflictOnce(inProcessTransport(server), "/endpointslices/", options.conflictOnce);
  const client = new Client({ ...(options.domain ? { domain: options.domain } : {}), transport: intercepted.transport });
  await client.namespaces.create({ metadata: { name: "ns" } });
  const pods = client.resource(podsRef);
  const slices = client.resource(endpointSlicesRef);
  const runningPod = async (object: APIObject, ip: string, ready: boolean) => {
    const created = await pods.create(object);
    return pods.updateStatus({
      ...created,
      status: { phase: "Running", podIP: ip, podIPs: [{ ip }], conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
    });
  };
  const list = async (): Promise<APIObject[]> => (await slices.list({ namespace: "ns" })).items;
  const controller = await runController(new EndpointSliceController(), client);
  running.push(controller);
  return { client, pods, slices, services: client.resource(servicesRef), runningPod, list, logs: controller.logs, conflicted: intercepted.conflicted };
}

/** The endpoints of the only slice, when there is exactly one. */
const onlyEndpoints = (slices: APIObject[]): Record<string, unknown>[] | undefined =>
  slices.length === 1 ? ((slices[0]?.["endpoints"] as Record<string, unknown>[] | undefined) ?? []) : undefined;

describe("EndpointSliceController", () => {
  it("is named endpointslice and on by default", () => {
    expect(endpointSliceController).toMatchObject({ name: "endpointslice", enabledByDefault: true });
  });

  it("writes a labelled, owned slice of the Service's Pods with conditions from readiness and deletion", async () => {
    const { pods, services, runningPod, list, logs } = await setup();
    await runningPod(pod("web-1"), "10.0.0.1", true);
    await runningPod(pod("web-2"), "10.0.0.2", false);
    await runningPod(pod("web-3", { finalizers: ["example.com/hold"] }), "10.0.0.3", true);
    await pods.delete("web-3", { namespace: "ns" });
    const service = await services.create(webService);
    // The informers of Pods and Services are separate streams: wait for the slice with every Pod as it is now.
    const terminatingSeen = (slices: APIObject[]): boolean =>
      onlyEndpoints(slices)?.length === 3 && (onlyEndpoints(slices)?.[2]?.["conditions"] as { terminating?: boolean } | undefined)?.terminating === true;
    expect(await eventually(async () => terminatingSeen(await list()))).toBe(true);
    const [slice] = await list();
    expect(slice?.metadata.name?.startsWith("web-")).toBe(true);
    expect(slice?.metadata.labels).toEqual({
      tier: "front",
      "orch.io/service-name": "web",
      "endpointslice.orch.io/managed-by": "endpointslice-controller.orch.io",
    });
    expect(slice?.metadata.ownerReferences).toEqual([
      { apiVersion: "v1", kind: "Service", name: "web", uid: service.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(slice?.metadata.annotations?.["endpoints.orch.io/last-change-trigger-time"]).toBeDefined();
    expect(slice).toMatchObject({ addressType: "IPv4", ports: [{ name: "http", port: 8080, protocol: "TCP", appProtocol: "http" }] });
    expect(slice?.["endpoints"]).toEqual([
      {
        addresses: ["10.0.0.1"],
        conditions: { ready: true, serving: true, terminating: false },
        targetRef: expect.objectContaining({ kind: "Pod", name: "web-1", namespace: "ns" }),
        nodeName: "node-1",
      },
      {
        addresses: ["10.0.0.2"],
        conditions: { ready: false, serving: false, terminating: false },
        targetRef: expect.objectContaining({ name: "web-2" }),
        nodeName: "node-1",
      },
      {
        addresses: ["10.0.0.3"],
        conditions: { ready: false, serving: true, terminating: true },
        targetRef: expect.objectContaining({ name: "web-3" }),
        nodeName: "node-1",
      },
    ]);
    expect(logs).toEqual([]);
  });

  it("keeps one empty slice for a Service without endpoints, replaces it as Pods come, and retries a lost race quietly", async () => {
    const { services, runningPod, list, logs, conflicted } = await setup({ conflictOnce: true });
    await services.create(webService);
    expect(await eventually(async () => onlyEndpoints(await list())?.length === 0)).toBe(true);
    const [placeholder] = await list();
    expect(placeholder).toMatchObject({ addressType: "IPv4", endpoints: [], ports: [] });
    await runningPod(pod("web-1"), "10.0.0.1", true);
    expect(await eventually(async () => onlyEndpoints(await list())?.length === 1)).toBe(true);
    // The placeholder's ports differ from the Pod's: it was replaced, and nothing else is left.
    const slices = await list();
    expect(slices).toHaveLength(1);
    expect(slices[0]?.["ports"]).toEqual([{ name: "http", port: 8080, protocol: "TCP", appProtocol: "http" }]);
    // A second Pod with the same ports joins that slice: an update, whose first attempt is refused with a 409.
    await runningPod(pod("web-2"), "10.0.0.2", true);
    expect(await eventually(async () => onlyEndpoints(await list())?.length === 2)).toBe(true);
    expect((await list())[0]?.metadata.name).toBe(slices[0]?.metadata.name);
    expect(conflicted()).toBe(true);
    expect(logs).toEqual([]);
  });

  it("uses the kubernetes.io label names under k8s.io", async () => {
    const { services, list } = await setup({ domain: "k8s.io" });
    await services.create(webService);
    expect(await eventually(async () => (await list()).length === 1)).toBe(true);
    expect((await list())[0]?.metadata.labels).toMatchObject({
      "kubernetes.io/service-name": "web",
      "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    });
  });
});

describe("desiredSlices", () => {
  it("gives each endpoint the zone of its Pod's node", () => {
    const onNode = (name: string, node: string): APIObject => ({
      metadata: { name, namespace: "ns", uid: name },
      spec: { nodeName: node },
      status: { podIP: `10.0.0.${name.length}` },
    });
    const service: APIObject = { metadata: { name: "s", namespace: "ns" }, spec: { selector: {}, ports: [] } };
    const [slice] = desiredSlices(service, [onNode("a", "n1"), onNode("bb", "n2")], (node) => (node === "n1" ? "zone-a" : undefined));
    expect(slice?.endpoints.map((e) => [e["nodeName"], e["zone"]])).toEqual([
      ["n1", "zone-a"],
      ["n2", undefined],
    ]);
  });

  it("splits endpoints into slices of at most maxEndpointsPerSlice, by address family", () => {
    const pods: APIObject[] = [];
    for (let i = 0; i < maxEndpointsPerSlice + 5; i++) {
      pods.push({
        metadata: { name: `p${i}`, namespace: "ns", uid: `u${i}` },
        spec: {},
        status: { podIPs: [{ ip: `10.0.${Math.floor(i / 200)}.${i % 200}` }, { ip: `fd00::${i.toString(16)}` }] },
      });
    }
    const service: APIObject = { metadata: { name: "s", namespace: "ns" }, spec: { selector: {}, ipFamilies: ["IPv4", "IPv6"], ports: [{ port: 80 }] } };
    const slices = desiredSlices(service, pods);
    expect(slices.map((s) => [s.addressType, s.endpoints.length])).toEqual([
      ["IPv4", maxEndpointsPerSlice],
      ["IPv4", 5],
      ["IPv6", maxEndpointsPerSlice],
      ["IPv6", 5],
    ]);
  });
});
