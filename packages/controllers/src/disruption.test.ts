import { podDisruptionBudgetsRef, podsRef, statefulSetsRef } from "@orch/client";
import { formatTime, type APIObject } from "@orch/meta";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { DisruptionController, disruptionController, resolveIntOrPercent } from "./disruption.js";
import { TestClusters } from "./internal/testing-cluster.js";
import { eventually } from "./internal/testing.js";

const clusters = new TestClusters();
afterEach(() => clusters.stop());

async function setup() {
  const clock = new FakeClock(Date.now());
  const { client, logs } = await clusters.start(new DisruptionController(), { clock });
  const pdbs = client.resource(podDisruptionBudgetsRef);
  const pods = client.resource(podsRef);
  const pod = async (name: string, ready: boolean, owner?: APIObject) => {
    const ownerReferences = owner
      ? [{ apiVersion: "apps/v1", kind: "StatefulSet", name: owner.metadata.name ?? "", uid: owner.metadata.uid ?? "", controller: true }]
      : undefined;
    await pods.create(
      { metadata: { name, labels: { app: "db" }, ...(ownerReferences ? { ownerReferences } : {}) }, spec: { containers: [{ name: "c", image: "db" }] } },
      { namespace: "default" },
    );
    const conditions = [{ type: "Ready", status: ready ? "True" : "False" }];
    await pods.patchStatus(name, { status: { phase: "Running", conditions } }, "merge", { namespace: "default" });
  };
  const status = async (name: string) => ((await pdbs.get(name, { namespace: "default" }))["status"] ?? {}) as Record<string, unknown>;
  return { client, clock, pdbs, pods, pod, status, logs };
}

const condition = (status: Record<string, unknown>) =>
  (status["conditions"] as { type: string; status: string; reason: string; message: string }[] | undefined)?.[0];

describe("DisruptionController", () => {
  it("is named disruption and on by default", () => {
    expect(disruptionController).toMatchObject({ name: "disruption", enabledByDefault: true });
  });

  it("resolves ints and percentages rounded up", () => {
    expect(resolveIntOrPercent(2, 10)).toBe(2);
    expect(resolveIntOrPercent("25%", 10)).toBe(3);
    expect(resolveIntOrPercent("x", 10)).toBeUndefined();
  });

  it("counts healthy Pods against an int minAvailable and follows them", async () => {
    const { pdbs, pods, pod, status, logs } = await setup();
    await pod("a", true);
    await pod("b", true);
    await pod("c", false);
    await pdbs.create({ metadata: { name: "db" }, spec: { minAvailable: 1, selector: { matchLabels: { app: "db" } } } }, { namespace: "default" });
    expect(await eventually(async () => (await status("db"))["disruptionsAllowed"] === 1)).toBe(true);
    const st = await status("db");
    expect(st).toMatchObject({ currentHealthy: 2, desiredHealthy: 1, expectedPods: 3, observedGeneration: 1 });
    expect(condition(st)).toMatchObject({ type: "DisruptionAllowed", status: "True", reason: "SufficientPods" });
    await pods.delete("a", { namespace: "default" });
    expect(await eventually(async () => (await status("db"))["disruptionsAllowed"] === 0)).toBe(true);
    expect(condition(await status("db"))).toMatchObject({ status: "False", reason: "InsufficientPods" });
    expect(logs).toEqual([]);
  });

  it("expects the scale of the Pods' controller with maxUnavailable, and fails the sync for a Pod without one", async () => {
    const { client, pdbs, pod, status } = await setup();
    const set = await client.resource(statefulSetsRef).create(
      {
        metadata: { name: "db" },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: "db" } },
          template: { metadata: { labels: { app: "db" } }, spec: { containers: [{ name: "c", image: "db" }] } },
        },
      },
      { namespace: "default" },
    );
    await pod("db-0", true, set);
    await pod("db-1", true, set);
    await pdbs.create({ metadata: { name: "db" }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: "db" } } } }, { namespace: "default" });
    expect(await eventually(async () => (await status("db"))["expectedPods"] === 3)).toBe(true);
    expect(await status("db")).toMatchObject({ currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 });
    await pod("stray", true);
    expect(await eventually(async () => condition(await status("db"))?.reason === "SyncFailed")).toBe(true);
    expect(condition(await status("db"))?.message).toBe('found no controller ref for pod "stray"');
    expect((await status("db"))["disruptionsAllowed"]).toBe(0);
  });

  it("drops disruptedPods entries of deleted Pods and of evictions older than two minutes", async () => {
    const { clock, pdbs, pods, pod, status } = await setup();
    await pod("a", true);
    await pod("b", true);
    await pdbs.create({ metadata: { name: "db" }, spec: { minAvailable: 0, selector: { matchLabels: { app: "db" } } } }, { namespace: "default" });
    expect(await eventually(async () => (await status("db"))["disruptionsAllowed"] === 2)).toBe(true);
    const pdb = await pdbs.get("db", { namespace: "default" });
    const at = formatTime(clock.now());
    await pdbs.updateStatus({ ...pdb, status: { ...(pdb["status"] as object), disruptedPods: { a: at, b: at } } }, { namespace: "default" });
    expect(await eventually(async () => (await status("db"))["currentHealthy"] === 0)).toBe(true);
    await pods.delete("a", { namespace: "default" });
    expect(await eventually(async () => JSON.stringify((await status("db"))["disruptedPods"]) === JSON.stringify({ b: at }))).toBe(true);
    clock.advance(2 * 60_000 + 10);
    expect(await eventually(async () => (await status("db"))["disruptedPods"] === undefined)).toBe(true);
    expect(await status("db")).toMatchObject({ currentHealthy: 1, disruptionsAllowed: 1 });
  });
});
