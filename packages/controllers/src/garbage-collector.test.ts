import { Client, inProcessTransport } from "@orch/client";
import { isNotFound, type APIObject, type OwnerReference } from "@orch/meta";
import { APIServer } from "@orch/server";
import { systemClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { GarbageCollector } from "./garbage-collector.js";
import { eventually, runController } from "./internal/testing.js";
import { NamespaceController } from "./namespace.js";
import { SharedInformers } from "./shared-informers.js";

const running: { stop(): Promise<void> }[] = [];

afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

async function setup() {
  const server = new APIServer();
  const client = new Client({ transport: inProcessTransport(server) });
  const informers = new SharedInformers(client);
  const gc = new GarbageCollector();
  const logs: string[] = [];
  informers.start();
  await gc.run({ client, informers, clock: systemClock, log: (m) => logs.push(m) });
  running.push({
    stop: async () => {
      await gc.stop();
      await informers.stop();
    },
  });
  const cms = client.configMaps;
  const create = (name: string, owners: OwnerReference[] = [], namespace = "default") =>
    cms.create({ metadata: { name, namespace, ownerReferences: owners } } as APIObject, { namespace });
  const exists = async (name: string, namespace = "default") => {
    try {
      await cms.get(name, { namespace });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  };
  return { server, client, gc, cms, create, exists, logs };
}

const ownerRef = (o: APIObject, blockOwnerDeletion = false): OwnerReference => ({
  apiVersion: o.apiVersion ?? "v1",
  kind: o.kind ?? "ConfigMap",
  name: o.metadata.name ?? "",
  uid: o.metadata.uid ?? "",
  ...(blockOwnerDeletion ? { blockOwnerDeletion } : {}),
});

describe("GarbageCollector", () => {
  it("background: deletes dependents whose owners are all gone, keeps those with a live owner", async () => {
    const { cms, create, exists } = await setup();
    const owner = await create("owner");
    const other = await create("other");
    await create("only-child", [ownerRef(owner)]);
    await create("grandchild", [ownerRef(await cms.get("only-child", { namespace: "default" }))]);
    await create("two-parents", [ownerRef(owner), ownerRef(other)]);
    await cms.delete("owner", { namespace: "default" });
    expect(await eventually(async () => !(await exists("only-child")) && !(await exists("grandchild")))).toBe(true);
    expect(await eventually(async () => (await cms.get("two-parents", { namespace: "default" })).metadata.ownerReferences?.length === 1)).toBe(true);
    expect((await cms.get("two-parents", { namespace: "default" })).metadata.ownerReferences?.[0]?.uid).toBe(other.metadata.uid);
    expect(await exists("other")).toBe(true);
  });

  it("background: a dependent created with an owner that never existed (or has another uid) is deleted", async () => {
    const { create, exists } = await setup();
    const real = await create("real");
    await create("dangling", [{ apiVersion: "v1", kind: "ConfigMap", name: "ghost", uid: "no-such-uid" }]);
    await create("wrong-uid", [{ ...ownerRef(real), uid: "not-the-real-uid" }]);
    await create("kept", [ownerRef(real)]);
    expect(await eventually(async () => !(await exists("dangling")) && !(await exists("wrong-uid")))).toBe(true);
    expect(await exists("kept")).toBe(true);
  });

  it("foreground: DELETE with propagationPolicy=Foreground deletes the dependents first, then the owner", async () => {
    const { cms, create, exists } = await setup();
    const owner = await create("owner");
    const child = await create("child", [ownerRef(owner, true)]);
    await create("grandchild", [ownerRef(child, true)]);
    await create("loose", [ownerRef(owner)]);
    const answer = await cms.delete("owner", { namespace: "default", propagationPolicy: "Foreground" });
    expect((answer as APIObject).metadata.finalizers).toContain("foregroundDeletion");
    expect(await eventually(async () => !(await exists("owner")))).toBe(true);
    expect(await exists("child")).toBe(false);
    expect(await exists("grandchild")).toBe(false);
    expect(await eventually(async () => !(await exists("loose")))).toBe(true);
  });

  it("foreground: an owner without blocking dependents goes at once", async () => {
    const { cms, create, exists } = await setup();
    await create("alone");
    await cms.delete("alone", { namespace: "default", propagationPolicy: "Foreground" });
    expect(await eventually(async () => !(await exists("alone")))).toBe(true);
  });

  it("orphan: removes the owner's reference from each dependent, then the finalizer; dependents stay", async () => {
    const { cms, create, exists } = await setup();
    const owner = await create("owner");
    const other = await create("other");
    await create("a", [ownerRef(owner, true)]);
    await create("b", [ownerRef(owner), ownerRef(other)]);
    await cms.delete("owner", { namespace: "default", propagationPolicy: "Orphan" });
    expect(await eventually(async () => !(await exists("owner")))).toBe(true);
    expect((await cms.get("a", { namespace: "default" })).metadata.ownerReferences ?? []).toEqual([]);
    expect((await cms.get("b", { namespace: "default" })).metadata.ownerReferences?.map((r) => r.name)).toEqual(["other"]);
  });

  it("an owner in another namespace is not a valid owner: the dependent is collected", async () => {
    const { client, create, exists } = await setup();
    await client.namespaces.create({ metadata: { name: "elsewhere" } });
    const foreign = await create("foreign", [], "elsewhere");
    await create("misplaced", [ownerRef(foreign)]);
    expect(await eventually(async () => !(await exists("misplaced")))).toBe(true);
    expect(await exists("foreign", "elsewhere")).toBe(true);
  });

  it("a cluster-scoped owner of a namespaced dependent is valid, and its deletion collects the dependent", async () => {
    const { client, create, exists } = await setup();
    // The namespace controller empties the namespace and finalizes it: only then is the owner gone.
    running.push(await runController(new NamespaceController(), client));
    const ns = await client.namespaces.create({ metadata: { name: "owner-ns" } });
    await create("owned", [{ apiVersion: "v1", kind: "Namespace", name: "owner-ns", uid: ns.metadata.uid ?? "" }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(await exists("owned")).toBe(true);
    await client.namespaces.delete("owner-ns");
    expect(await eventually(async () => !(await exists("owned")))).toBe(true);
  });

  it("cycles do not spin: two objects owning each other both go on a foreground deletion", async () => {
    const { cms, create, exists, logs } = await setup();
    const a = await create("a");
    const b = await create("b", [ownerRef(a, true)]);
    await cms.patch("a", { metadata: { ownerReferences: [ownerRef(b, true)] } }, "merge", { namespace: "default" });
    await new Promise((r) => setTimeout(r, 50));
    expect(await exists("a")).toBe(true);
    await cms.delete("a", { namespace: "default", propagationPolicy: "Foreground" });
    expect(await eventually(async () => !(await exists("a")) && !(await exists("b")))).toBe(true);
    const deletions = logs.filter((l) => l.includes("deleting"));
    await new Promise((r) => setTimeout(r, 100));
    expect(logs.filter((l) => l.includes("deleting"))).toEqual(deletions);
  });
});
