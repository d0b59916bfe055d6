import { Client, inProcessTransport, type Transport } from "@orch/client";
import { isNotFound, type APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import type { NamespaceCondition } from "./internal/namespace-conditions.js";
import { serviceAccountsRef } from "./internal/refs.js";
import { eventually, interceptTransport, jsonResponse, runController, type RunningController } from "./internal/testing.js";
import { NamespaceController, namespaceController } from "./namespace.js";

const running: RunningController[] = [];
const servers: APIServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const s of servers.splice(0)) await s.shutdown();
});

async function setup(wrap: (inner: Transport) => Transport = (t) => t) {
  const server = new APIServer();
  servers.push(server);
  const client = new Client({ transport: wrap(inProcessTransport(server)) });
  const controller = await runController(new NamespaceController(), client);
  running.push(controller);
  const gone = async (get: () => Promise<unknown>): Promise<boolean> => {
    try {
      await get();
      return false;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  };
  const conditions = async (name: string): Promise<Record<string, NamespaceCondition>> => {
    const ns = await client.namespaces.get(name);
    const list = ((ns["status"] as { conditions?: NamespaceCondition[] } | undefined)?.conditions ?? []) as NamespaceCondition[];
    return Object.fromEntries(list.map((c) => [c.type, c]));
  };
  const fill = async (namespace: string) => {
    await client.namespaces.create({ metadata: { name: namespace } });
    await client.configMaps.create({ metadata: { name: "a", namespace }, data: { k: "v" } });
    await client.configMaps.create({ metadata: { name: "b", namespace } });
    await client.secrets.create({ metadata: { name: "s", namespace }, data: {} });
    await client.resource(serviceAccountsRef).create({ metadata: { name: "builder", namespace } });
    await client.leases.create({ metadata: { name: "l", namespace }, spec: {} });
  };
  return { client, gone, conditions, fill, logs: controller.logs };
}

describe("NamespaceController", () => {
  it("is named namespace and on by default", () => {
    expect(namespaceController).toMatchObject({ name: "namespace", enabledByDefault: true });
  });

  it("empties a terminating namespace of every resource, then removes its finalizer and the namespace goes", async () => {
    // Secrets lose deletecollection in discovery: they are listed and deleted one by one.
    const deletes: string[] = [];
    const { client, gone, fill, logs } = await setup((inner) =>
      interceptTransport(inner, async (request, next) => {
        if (request.method === "DELETE") deletes.push(request.path);
        const res = await next();
        if (request.path !== "/api/v1") return res;
        const doc = JSON.parse(await res.text()) as { resources: { name: string; verbs?: string[] }[] };
        for (const r of doc.resources) if (r.name === "secrets") r.verbs = (r.verbs ?? []).filter((v) => v !== "deletecollection");
        return jsonResponse(res.status, doc);
      }),
    );
    await fill("team");
    await client.configMaps.create({ metadata: { name: "elsewhere", namespace: "default" } });
    await client.namespaces.delete("team");
    expect(await eventually(() => gone(() => client.namespaces.get("team")))).toBe(true);
    expect((await client.configMaps.list({ namespace: "team" })).items).toEqual([]);
    expect((await client.secrets.list({ namespace: "team" })).items).toEqual([]);
    expect((await client.leases.list({ namespace: "team" })).items).toEqual([]);
    expect((await client.resource(serviceAccountsRef).list({ namespace: "team" })).items).toEqual([]);
    expect((await client.configMaps.get("elsewhere", { namespace: "default" })).metadata.name).toBe("elsewhere");
    expect(logs).toContain("namespace: namespace team is empty: removed its finalizer orch");
    expect(deletes).toContain("/api/v1/namespaces/team/configmaps");
    expect(deletes).toContain("/api/v1/namespaces/team/secrets/s");
    expect(deletes).not.toContain("/api/v1/namespaces/team/secrets");
  });

  it("keeps the namespace's other finalizers: only its own goes", async () => {
    const { client, conditions } = await setup();
    await client.namespaces.create({ metadata: { name: "kept" }, spec: { finalizers: ["example.com/keep"] } });
    await client.configMaps.create({ metadata: { name: "a", namespace: "kept" } });
    await client.namespaces.delete("kept");
    expect(await eventually(async () => ((await client.namespaces.get("kept"))["spec"] as { finalizers?: string[] }).finalizers?.length === 1)).toBe(true);
    const ns = await client.namespaces.get("kept");
    expect(ns["spec"]).toEqual({ finalizers: ["example.com/keep"] });
    expect(ns["status"]).toMatchObject({ phase: "Terminating" });
    expect((await client.configMaps.list({ namespace: "kept" })).items).toEqual([]);
    expect(await conditions("kept")).toMatchObject({
      NamespaceDeletionDiscoveryFailure: { status: "False", reason: "ResourcesDiscovered", message: "All resources successfully discovered" },
      NamespaceDeletionContentFailure: { status: "False", reason: "ContentDeleted" },
      NamespaceContentRemaining: { status: "False", reason: "ContentRemoved" },
      NamespaceFinalizersRemaining: { status: "False", reason: "ContentHasNoFinalizers" },
    });
  });

  it("waits for objects held by finalizers, saying so in the conditions, and lets the namespace go once they are gone", async () => {
    const { client, gone, conditions, fill } = await setup();
    await fill("held");
    await client.configMaps.create({ metadata: { name: "pinned", namespace: "held", finalizers: ["example.com/hold"] } });
    await client.namespaces.delete("held");
    expect(await eventually(async () => (await conditions("held"))["NamespaceFinalizersRemaining"]?.status === "True")).toBe(true);
    const set = await conditions("held");
    expect(set["NamespaceContentRemaining"]).toMatchObject({
      status: "True",
      reason: "SomeResourcesRemain",
      message: "Some resources are remaining: configmaps. has 1 resource instances",
      lastTransitionTime: expect.any(String),
    });
    expect(set["NamespaceFinalizersRemaining"]).toMatchObject({
      status: "True",
      reason: "SomeFinalizersRemain",
      message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
    });
    expect(set["NamespaceDeletionContentFailure"]).toMatchObject({ status: "False", reason: "ContentDeleted" });
    expect(set["NamespaceDeletionDiscoveryFailure"]).toMatchObject({ status: "False", reason: "ResourcesDiscovered" });
    expect((await client.configMaps.list({ namespace: "held" })).items.map((c) => c.metadata.name)).toEqual(["pinned"]);
    expect((await client.secrets.list({ namespace: "held" })).items).toEqual([]);
    expect(await client.namespaces.get("held")).toMatchObject({ spec: { finalizers: ["orch"] } });

    const pinned = await client.configMaps.get("pinned", { namespace: "held" });
    expect(pinned.metadata.deletionTimestamp).toBeDefined();
    await client.configMaps.update({ ...pinned, metadata: { ...pinned.metadata, finalizers: [] } } as APIObject as typeof pinned);
    expect(await eventually(() => gone(() => client.namespaces.get("held")))).toBe(true);
  });

  it("does not finalize while the discovery of a group fails, and says which in NamespaceDeletionDiscoveryFailure", async () => {
    let failing = true;
    const { client, gone, conditions, logs } = await setup((inner) =>
      interceptTransport(inner, (request, next) =>
        failing && request.path === "/apis/coordination.orch.io/v1"
          ? Promise.resolve(
              jsonResponse(503, {
                kind: "Status",
                apiVersion: "v1",
                status: "Failure",
                message: "the service is unavailable",
                reason: "ServiceUnavailable",
                code: 503,
              }),
            )
          : next(),
      ),
    );
    await client.namespaces.create({ metadata: { name: "blind" } });
    await client.configMaps.create({ metadata: { name: "a", namespace: "blind" } });
    await client.namespaces.delete("blind");
    expect(await eventually(async () => (await conditions("blind"))["NamespaceDeletionDiscoveryFailure"]?.status === "True")).toBe(true);
    expect((await conditions("blind"))["NamespaceDeletionDiscoveryFailure"]).toMatchObject({
      reason: "DiscoveryFailed",
      message:
        "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: coordination.orch.io/v1: the service is unavailable",
    });
    // What could be discovered is deleted all the same; the namespace stays.
    expect((await client.configMaps.list({ namespace: "blind" })).items).toEqual([]);
    expect(await client.namespaces.get("blind")).toMatchObject({ spec: { finalizers: ["orch"] }, status: { phase: "Terminating" } });
    expect(logs.some((l) => l.includes("namespace blind: Discovery failed for some groups"))).toBe(true);

    failing = false;
    expect(await eventually(() => gone(() => client.namespaces.get("blind")))).toBe(true);
  });

  it("leaves namespaces that are not being deleted alone", async () => {
    const { client } = await setup();
    await client.namespaces.create({ metadata: { name: "live" } });
    await client.configMaps.create({ metadata: { name: "a", namespace: "live" } });
    await new Promise((r) => setTimeout(r, 100));
    expect((await client.configMaps.list({ namespace: "live" })).items).toHaveLength(1);
    expect((await client.namespaces.get("live"))["status"]).toEqual({ phase: "Active" });
  });
});
