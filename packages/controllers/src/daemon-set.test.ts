import { daemonSetsRef, nodesRef, podsRef } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { afterEach, describe, expect, it } from "vitest";
import { DaemonSetController, daemonSetController, resolveMaxUnavailable, targetNodeName } from "./daemon-set.js";
import { TestClusters } from "./internal/testing-cluster.js";
import { eventually } from "./internal/testing.js";

const clusters = new TestClusters();
afterEach(() => clusters.stop());

async function setup() {
  const { client, logs } = await clusters.start(new DaemonSetController());
  const sets = client.resource(daemonSetsRef);
  const pods = client.resource(podsRef);
  const nodes = client.resource(nodesRef);
  const podNodes = async () =>
    (await pods.list({ namespace: "default" })).items
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => targetNodeName(p))
      .sort();
  const status = async (name: string) => ((await sets.get(name, { namespace: "default" }))["status"] ?? {}) as Record<string, unknown>;
  /** Creates a Node and, unless `taints` are given, clears the not-ready taint admission gives a new Node (as the node lifecycle does once it is Ready). */
  const node = async (name: string, labels: Record<string, string> = {}, taints: unknown[] = []) => {
    await nodes.create({ metadata: { name, labels } });
    await nodes.patch(name, { spec: { taints } }, "merge");
  };
  return { sets, pods, nodes, node, podNodes, status, logs };
}

function daemonSet(name: string, podSpec: Record<string, unknown> = {}): APIObject {
  return {
    metadata: { name, namespace: "default" },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "agent:1" }], ...podSpec } },
    },
  };
}

describe("DaemonSetController", () => {
  it("is named daemonset and on by default", () => {
    expect(daemonSetController).toMatchObject({ name: "daemonset", enabledByDefault: true });
  });

  it("resolves maxUnavailable from an int or a percentage rounded up", () => {
    expect(resolveMaxUnavailable(undefined, 5)).toBe(1);
    expect(resolveMaxUnavailable("30%", 5)).toBe(2);
    expect(resolveMaxUnavailable(0, 5)).toBe(1);
    expect(resolveMaxUnavailable(3, 5)).toBe(3);
  });

  it("runs a Pod per fitting Node bound by a metadata.name affinity, and follows Nodes coming and going", async () => {
    const { sets, nodes, node, pods, podNodes, status, logs } = await setup();
    await node("n1", { disk: "ssd" });
    await node("n2", { disk: "ssd" });
    await node("n3", { disk: "hdd" });
    await node("tainted", { disk: "ssd" }, [{ key: "dedicated", value: "db", effect: "NoSchedule" }]);
    await nodes.create({ metadata: { name: "not-ready", labels: { disk: "ssd" } } });
    await sets.create(daemonSet("agent", { nodeSelector: { disk: "ssd" } }), { namespace: "default" });
    expect(await eventually(async () => (await podNodes()).length === 2)).toBe(true);
    expect(await podNodes()).toEqual(["n1", "n2"]);
    const pod = (await pods.list({ namespace: "default" })).items[0] as APIObject;
    const affinity = (pod["spec"] as { affinity?: unknown }).affinity;
    expect(affinity).toMatchObject({
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In" }] }] } },
    });
    expect(pod.metadata.labels).toMatchObject({ app: "agent", "pod-template-generation": "1" });
    expect(pod.metadata.labels?.["controller-revision-hash"]).toBeTruthy();
    expect(await eventually(async () => (await status("agent"))["currentNumberScheduled"] === 2)).toBe(true);
    expect(await status("agent")).toMatchObject({ desiredNumberScheduled: 2, numberMisscheduled: 0, updatedNumberScheduled: 2, observedGeneration: 1 });

    await node("n4", { disk: "ssd" });
    expect(await eventually(async () => (await podNodes()).length === 3)).toBe(true);
    await nodes.delete("n1");
    expect(await eventually(async () => jsonOf(await podNodes()) === jsonOf(["n2", "n4"]))).toBe(true);
    await nodes.patch("n2", { metadata: { labels: { disk: "hdd" } } }, "merge");
    expect(await eventually(async () => jsonOf(await podNodes()) === jsonOf(["n4"]))).toBe(true);
    expect(await eventually(async () => (await status("agent"))["desiredNumberScheduled"] === 1)).toBe(true);
    expect(logs).toEqual([]);
  });

  it("replaces Pods of an older template on a rolling update", async () => {
    const { sets, node, pods, podNodes } = await setup();
    await node("n1");
    await node("n2");
    await sets.create(daemonSet("roll"), { namespace: "default" });
    expect(await eventually(async () => (await podNodes()).length === 2)).toBe(true);
    const before = (await pods.list({ namespace: "default" })).items[0]?.metadata.labels?.["controller-revision-hash"];
    await sets.patch("roll", { spec: { template: { spec: { containers: [{ name: "c", image: "agent:2" }] } } } }, "merge", { namespace: "default" });
    const images = async () =>
      (await pods.list({ namespace: "default" })).items
        .filter((p) => !p.metadata.deletionTimestamp)
        .map((p) => [(p["spec"] as { containers: { image: string }[] }).containers[0]?.image, p.metadata.labels?.["controller-revision-hash"]]);
    // Unready Pods count as unavailable: all are replaced at once.
    expect(await eventually(async () => jsonOf(await images()).split("agent:2").length === 3 && (await images()).length === 2)).toBe(true);
    expect((await images()).every(([, hash]) => hash !== before)).toBe(true);
  });
});

function jsonOf(value: unknown): string {
  return JSON.stringify(value);
}
