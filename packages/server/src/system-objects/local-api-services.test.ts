import { MemoryStore } from "@orch/store";
import { describe, expect, it } from "vitest";
import { APIServer } from "../api-server.js";
import { apiServicePriority, automanagedLabel } from "./local-api-services.js";

/** A JSON document as the tests read it: any field may be followed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads nested fields of answers it checks
type Json = Record<string, any>;

async function get(server: APIServer, url: string) {
  const res = await server.handle({ method: "GET", url, headers: new Headers() });
  return { status: res.status, json: JSON.parse(typeof res.body === "string" ? res.body : new TextDecoder().decode(res.body)) as Json };
}

const apiServices = "/apis/apiregistration.orch.io/v1/apiservices";

describe("the Local APIServices", () => {
  it("exist for every served version, Local and Available, with the reference's priorities", async () => {
    const server = new APIServer();
    const core = await get(server, `${apiServices}/v1.`);
    expect(core.status).toBe(200);
    expect(core.json.spec).toEqual({ group: "", version: "v1", groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(core.json.metadata.labels).toEqual({ "orch-aggregator.orch.io/automanaged": "onstart" });
    expect(core.json.status.conditions).toEqual([
      expect.objectContaining({ type: "Available", status: "True", reason: "Local", message: "Local APIServices are always available" }),
    ]);
    const apps = await get(server, `${apiServices}/v1.apps`);
    expect(apps.json.spec).toEqual({ group: "apps", version: "v1", groupPriorityMinimum: 17800, versionPriority: 15 });
    const list = await get(server, apiServices);
    const names = (list.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name);
    expect(names).toContain("v1.coordination.orch.io");
    expect(names).toContain("v1.apiregistration.orch.io");
    expect(names).not.toContain("v1alpha1.imagepolicy.orch.io");
  });

  it("follows the runtime config: a version turned off loses its APIService at the next start", async () => {
    const store = new MemoryStore();
    await new APIServer({ store }).ready();
    const later = new APIServer({ store, runtimeConfig: { "batch/v1": false } });
    expect((await get(later, `${apiServices}/v1.batch`)).status).toBe(404);
    expect((await get(later, `${apiServices}/v1.apps`)).status).toBe(200);
  });

  it("keeps an APIService of an extension server that the runtime config does not serve", async () => {
    const store = new MemoryStore();
    const server = new APIServer({ store });
    await server.ready();
    const body = {
      apiVersion: "apiregistration.orch.io/v1",
      kind: "APIService",
      metadata: { name: "v1beta1.metrics.example.com" },
      spec: { group: "metrics.example.com", version: "v1beta1", groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: "default", name: "m" } },
    };
    const created = await server.handle({
      method: "POST",
      url: apiServices,
      headers: new Headers({ "content-type": "application/json" }),
      body: new TextEncoder().encode(JSON.stringify(body)),
    });
    expect(created.status).toBe(201);
    const again = new APIServer({ store });
    expect((await get(again, `${apiServices}/v1beta1.metrics.example.com`)).status).toBe(200);
  });

  it("are not duplicated by servers starting together on one store", async () => {
    const store = new MemoryStore();
    const [a, b] = [new APIServer({ store }), new APIServer({ store })];
    await Promise.all([a.ready(), b.ready()]);
    const core = await get(a, `${apiServices}/v1.`);
    expect(core.json.status.conditions).toHaveLength(1);
  });

  it("name the group under k8s.io as the reference does", () => {
    expect(automanagedLabel("k8s.io")).toBe("kube-aggregator.kubernetes.io/automanaged");
    expect(apiServicePriority({ group: "flowcontrol.apiserver.k8s.io", version: "v1" }, "k8s.io")).toEqual({
      groupPriorityMinimum: 16100,
      versionPriority: 21,
    });
    expect(apiServicePriority({ group: "imagepolicy.orch.io", version: "v1alpha1" }, "orch.io")).toEqual({ groupPriorityMinimum: 15000, versionPriority: 1 });
  });
});
