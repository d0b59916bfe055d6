import { FakeClock, MemoryStore } from "@orch/store";
import { describe, expect, it, vi } from "vitest";
import { APIServer } from "../api-server.js";
import { noopMetrics } from "../metrics.js";
import type { ServedResource } from "../served-resource.js";
import { bootstrapConfiguration } from "./bootstrap.js";
import { FlowControl, seatsOf } from "./flow-control.js";

const base = "http://x/apis/flowcontrol.apiserver.orch.io/v1beta2";
type Obj = {
  metadata: { name: string; annotations?: Record<string, string>; resourceVersion?: string };
  spec: Record<string, unknown>;
  status?: { conditions?: Record<string, unknown>[] };
};

async function call(server: APIServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const init: RequestInit = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await server.fetch(new Request(`${base}/${path}`, init));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const get = async (server: APIServer, path: string) => (await call(server, "GET", path)).body as unknown as Obj;
const names = async (server: APIServer, resource: string) => ((await call(server, "GET", resource)).body["items"] as Obj[]).map((o) => o.metadata.name).sort();

async function started(): Promise<APIServer> {
  const server = new APIServer({ flowControl: {} });
  await server.ready();
  return server;
}

describe("the flow-control configuration controller", () => {
  it("creates the built-in levels and schemas at start, annotated for autoupdate", async () => {
    const server = await started();
    const b = bootstrapConfiguration("orch.io");
    expect(await names(server, "prioritylevelconfigurations")).toEqual(
      [...b.mandatoryPriorityLevels, ...b.suggestedPriorityLevels].map((o) => o.metadata.name).sort(),
    );
    expect(await names(server, "flowschemas")).toEqual([...b.mandatoryFlowSchemas, ...b.suggestedFlowSchemas].map((o) => o.metadata.name).sort());
    const catchAll = await get(server, "prioritylevelconfigurations/catch-all");
    expect(catchAll.metadata.annotations?.["apf.orch.io/autoupdate-spec"]).toBe("true");
    expect(catchAll.spec).toMatchObject({ type: "Limited", limited: { assuredConcurrencyShares: 5, limitResponse: { type: "Reject" } } });
    const exempt = await get(server, "flowschemas/exempt");
    expect(exempt.spec).toMatchObject({ matchingPrecedence: 1, priorityLevelConfiguration: { name: "exempt" } });
    await vi.waitFor(async () =>
      expect((await get(server, "flowschemas/exempt")).status?.conditions?.[0]).toMatchObject({ type: "Dangling", status: "False", reason: "Found" }),
    );
    await server.shutdown();
  });

  it("puts back a mandatory level that is deleted or changed", async () => {
    const server = await started();
    expect((await call(server, "DELETE", "prioritylevelconfigurations/catch-all")).status).toBe(200);
    await vi.waitFor(async () => expect((await call(server, "GET", "prioritylevelconfigurations/catch-all")).status).toBe(200));
    const current = await get(server, "prioritylevelconfigurations/catch-all");
    const changed = { ...current, spec: { type: "Limited", limited: { assuredConcurrencyShares: 50, limitResponse: { type: "Reject" } } } };
    expect((await call(server, "PUT", "prioritylevelconfigurations/catch-all", changed)).status).toBe(200);
    await vi.waitFor(async () =>
      expect((await get(server, "prioritylevelconfigurations/catch-all")).spec).toMatchObject({ limited: { assuredConcurrencyShares: 5 } }),
    );
    await server.shutdown();
  });

  it("keeps a suggested level changed with autoupdate-spec false, and recreates a deleted one", async () => {
    const server = await started();
    const current = await get(server, "prioritylevelconfigurations/workload-low");
    const changed = {
      ...current,
      metadata: { ...current.metadata, annotations: { "apf.orch.io/autoupdate-spec": "false" } },
      spec: { type: "Limited", limited: { assuredConcurrencyShares: 7, limitResponse: { type: "Reject" } } },
    };
    expect((await call(server, "PUT", "prioritylevelconfigurations/workload-low", changed)).status).toBe(200);
    expect((await call(server, "DELETE", "prioritylevelconfigurations/global-default")).status).toBe(200);
    await vi.waitFor(async () => expect((await call(server, "GET", "prioritylevelconfigurations/global-default")).status).toBe(200));
    expect((await get(server, "prioritylevelconfigurations/workload-low")).spec).toMatchObject({ limited: { assuredConcurrencyShares: 7 } });
    await server.shutdown();
  });

  it("sets the Dangling condition of a schema whose level is missing, and clears it when the level appears", async () => {
    const server = await started();
    const schema = {
      apiVersion: "flowcontrol.apiserver.orch.io/v1beta2",
      kind: "FlowSchema",
      metadata: { name: "mine" },
      spec: {
        priorityLevelConfiguration: { name: "mine-level" },
        matchingPrecedence: 500,
        rules: [{ subjects: [{ kind: "User", user: { name: "alice" } }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] }],
      },
    };
    expect((await call(server, "POST", "flowschemas", schema)).status).toBe(201);
    await vi.waitFor(async () =>
      expect((await get(server, "flowschemas/mine")).status?.conditions?.find((c) => c["type"] === "Dangling")).toMatchObject({
        status: "True",
        reason: "NotFound",
        message: 'This FlowSchema references the PriorityLevelConfiguration object named "mine-level" but there is no such object',
      }),
    );
    const level = {
      apiVersion: "flowcontrol.apiserver.orch.io/v1beta2",
      kind: "PriorityLevelConfiguration",
      metadata: { name: "mine-level" },
      spec: { type: "Limited", limited: { assuredConcurrencyShares: 1, limitResponse: { type: "Reject" } } },
    };
    expect((await call(server, "POST", "prioritylevelconfigurations", level)).status).toBe(201);
    await vi.waitFor(async () =>
      expect((await get(server, "flowschemas/mine")).status?.conditions?.find((c) => c["type"] === "Dangling")).toMatchObject({
        status: "False",
        reason: "Found",
        message: "This FlowSchema references an existing PriorityLevelConfiguration object",
      }),
    );
    await server.shutdown();
  });
});

describe("seatsOf", () => {
  it("gives each limited level ceil(limit * shares / total shares) and nothing to exempt", () => {
    const b = bootstrapConfiguration("orch.io");
    const seats = seatsOf([...b.mandatoryPriorityLevels, ...b.suggestedPriorityLevels], 600);
    // Shares: catch-all 5, system 30, node-high 40, leader-election 10, workload-high 40, workload-low 100, global-default 20 = 245.
    expect(seats.get("catch-all")).toBe(Math.ceil((600 * 5) / 245));
    expect(seats.get("workload-low")).toBe(Math.ceil((600 * 100) / 245));
    expect(seats.has("exempt")).toBe(false);
  });
});

describe("FlowControl.estimate", () => {
  it("makes a LIST one seat per 100 stored objects of its resource (all namespaces), once they are counted", async () => {
    const clock = new FakeClock();
    const store = new MemoryStore({ clock });
    for (let i = 0; i < 250; i++) await store.create(`/registry/configmaps/ns-${i % 3}/cm-${i}`, { metadata: { name: `cm-${i}` } });
    const configmaps = { namespaced: true, keyPrefix: "/registry/configmaps/" } as unknown as ServedResource;
    const input = {
      domain: "orch.io",
      clock,
      store,
      objects: undefined as never,
      served: (group: string, resource: string) => (group === "" && resource === "configmaps" ? configmaps : undefined),
      log: () => undefined,
    };
    // 600 seats: catch-all (the only limited level of the mandatory configuration) has them all.
    const flowControl = new FlowControl(input, { serverConcurrencyLimit: 600, maxQueueWaitMs: 1000, metrics: noopMetrics });
    const classification = flowControl.classify({ user: { name: "alice", groups: ["system:authenticated"] }, isResourceRequest: true, verb: "list" });
    if (!classification) throw new Error("not classified");
    const list = { verb: "list", isResourceRequest: true, group: "", resource: "configmaps", name: "", query: new URLSearchParams() };
    // Not counted yet: one seat, as the reference for a resource of unknown count.
    expect(flowControl.estimate(classification, list)).toEqual({ objects: 0, seats: 1 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(flowControl.estimate(classification, list)).toEqual({ objects: 250, seats: 3 });
    expect(flowControl.estimate(classification, { ...list, query: new URLSearchParams("fieldSelector=metadata.name%3Dcm-1") })).toEqual({
      objects: 1,
      seats: 1,
    });
    expect(flowControl.estimate(classification, { ...list, verb: "get", name: "cm-1" })).toEqual({ objects: 0, seats: 1 });
    expect(flowControl.estimate(classification, { ...list, resource: "secrets" })).toEqual({ objects: 0, seats: 1 });
  });
});
