import { podsRef, replicaSetsRef, resourceQuotasRef, type Client } from "@orch/client";
import { formatTime, type APIObject } from "@orch/meta";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { TestClusters } from "./internal/testing-cluster.js";
import { eventually, settle } from "./internal/testing.js";
import { ReplicaSetController, replicaSetController } from "./replicaset.js";

const clusters = new TestClusters();
afterEach(() => clusters.stop());

async function setup(options: { clock?: FakeClock } = {}) {
  const { client, logs } = await clusters.start(new ReplicaSetController(), options.clock ? { clock: options.clock } : {});
  const pods = client.resource(podsRef);
  const sets = client.resource(replicaSetsRef);
  const podList = async () => (await pods.list({ namespace: "default" })).items;
  return { client, pods, sets, podList, logs };
}

function replicaSet(name: string, replicas: number, extra: { minReadySeconds?: number; labels?: Record<string, string> } = {}): APIObject {
  const labels = extra.labels ?? { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name, namespace: "default" },
    spec: {
      replicas,
      ...(extra.minReadySeconds ? { minReadySeconds: extra.minReadySeconds } : {}),
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx" }] } },
    },
  };
}

/** Binds `pod` to the node `nodeName` (`pods/binding`). */
async function bind(client: Client, pod: APIObject, nodeName: string): Promise<void> {
  const name = pod.metadata.name ?? "";
  await client
    .resource(podsRef)
    .subresource(name, "binding")
    .create({ apiVersion: "v1", kind: "Binding", metadata: { name }, target: { kind: "Node", name: nodeName } }, { namespace: "default" });
}

/** Marks `pod` running and ready through its status sub-resource, ready since `at` (ms). */
async function markReady(client: Client, pod: APIObject, at = Date.now(), nodeName?: string): Promise<void> {
  const pods = client.resource(podsRef);
  if (nodeName) await bind(client, pod, nodeName);
  await pods.patchStatus(
    pod.metadata.name ?? "",
    { status: { phase: "Running", podIP: "10.0.0.1", conditions: [{ type: "Ready", status: "True", lastTransitionTime: formatTime(at) }] } },
    "merge",
    { namespace: "default" },
  );
}

const statusOf = (o: APIObject) => (o["status"] ?? {}) as Record<string, unknown>;

describe("ReplicaSetController", () => {
  it("is named replicaset and on by default", () => {
    expect(replicaSetController).toMatchObject({ name: "replicaset", enabledByDefault: true });
  });

  it("creates spec.replicas Pods from the template, controlled by the ReplicaSet, and reports them", async () => {
    const { sets, podList, logs } = await setup();
    const created = await sets.create(replicaSet("web", 3));
    expect(await eventually(async () => (await podList()).length === 3)).toBe(true);
    await settle(50);
    const pods = await podList();
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.metadata.generateName).toBe("web-");
      expect(pod.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(pod.metadata.labels).toEqual({ app: "web" });
      expect(pod.metadata.ownerReferences).toEqual([
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: created.metadata.uid, controller: true, blockOwnerDeletion: true },
      ]);
    }
    expect(await eventually(async () => statusOf(await sets.get("web", { namespace: "default" }))["replicas"] === 3)).toBe(true);
    expect(statusOf(await sets.get("web", { namespace: "default" }))).toEqual({ replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 1 });
    expect(logs).toEqual([]);
  });

  it("counts ready and available Pods, availability waiting minReadySeconds", async () => {
    const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
    const { client, sets, podList } = await setup({ clock });
    await sets.create(replicaSet("web", 2, { minReadySeconds: 10 }));
    expect(await eventually(async () => (await podList()).length === 2)).toBe(true);
    for (const pod of await podList()) await markReady(client, pod, clock.now());
    expect(await eventually(async () => statusOf(await sets.get("web", { namespace: "default" }))["readyReplicas"] === 2)).toBe(true);
    expect(statusOf(await sets.get("web", { namespace: "default" }))["availableReplicas"]).toBeUndefined();
    clock.advance(11_000);
    expect(await eventually(async () => statusOf(await sets.get("web", { namespace: "default" }))["availableReplicas"] === 2)).toBe(true);
  });

  it("deletes the surplus preferring unscheduled, then not ready, then newer Pods", async () => {
    const { client, sets, podList } = await setup();
    await sets.create(replicaSet("web", 4));
    expect(await eventually(async () => (await podList()).length === 4)).toBe(true);
    const [a, b, c] = await podList();
    // a: bound and ready; b: bound, not ready; c: ready, unscheduled; d: neither.
    await markReady(client, a!, Date.now(), "node-1");
    await bind(client, b!, "node-1");
    await markReady(client, c!);
    await sets.patch("web", { spec: { replicas: 1 } }, "merge", { namespace: "default" });
    expect(await eventually(async () => (await podList()).length === 1)).toBe(true);
    expect((await podList())[0]?.metadata.name).toBe(a!.metadata.name);
    expect(await eventually(async () => statusOf(await sets.get("web", { namespace: "default" }))["replicas"] === 1)).toBe(true);
  });

  it("adopts matching orphans instead of creating, and releases Pods it no longer selects", async () => {
    const { client, pods, sets, podList } = await setup();
    await pods.create({ metadata: { name: "orphan", namespace: "default", labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } });
    const rs = await sets.create(replicaSet("web", 2));
    expect(await eventually(async () => (await podList()).length === 2)).toBe(true);
    await settle(50);
    expect(await podList()).toHaveLength(2);
    const orphan = await pods.get("orphan", { namespace: "default" });
    expect(orphan.metadata.ownerReferences).toEqual([
      { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    await client.resource(podsRef).patch("orphan", { metadata: { labels: { app: "other" } } }, "merge", { namespace: "default" });
    expect(await eventually(async () => ((await pods.get("orphan", { namespace: "default" })).metadata.ownerReferences ?? []).length === 0)).toBe(true);
    expect(await eventually(async () => (await podList()).filter((p) => p.metadata.labels?.["app"] === "web").length === 2)).toBe(true);
  });

  it("sets ReplicaFailure FailedCreate while a quota refuses Pods, and clears it once they fit", async () => {
    const { client, sets, podList, logs } = await setup();
    // No quota controller runs here: the status admission charges against is written by hand.
    const quotas = client.resource(resourceQuotasRef);
    const quota = await quotas.create({ metadata: { name: "q", namespace: "default" }, spec: { hard: { pods: "1" } } });
    await quotas.updateStatus({ ...quota, status: { hard: { pods: "1" }, used: { pods: "0" } } }, { namespace: "default" });
    await sets.create(replicaSet("web", 2));
    const failure = async () =>
      ((statusOf(await sets.get("web", { namespace: "default" }))["conditions"] ?? []) as { type: string; reason?: string; message?: string }[]).find(
        (c) => c.type === "ReplicaFailure",
      );
    expect(await eventually(async () => (await failure()) !== undefined, 10_000)).toBe(true);
    expect(await failure()).toMatchObject({ status: "True", reason: "FailedCreate", message: expect.stringContaining("exceeded quota") as unknown });
    expect(await podList()).toHaveLength(1);
    expect(logs.some((l) => l.startsWith("replicaset: default/web: ") && l.includes("exceeded quota"))).toBe(true);
    await quotas.patch("q", { spec: { hard: { pods: "5" } } }, "merge", { namespace: "default" });
    await quotas.patchStatus("q", { status: { hard: { pods: "5" } } }, "merge", { namespace: "default" });
    expect(await eventually(async () => (await podList()).length === 2 && (await failure()) === undefined, 20_000)).toBe(true);
  });
});
