import { controllerRevisionsRef, persistentVolumeClaimsRef, podsRef, statefulSetsRef } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { afterEach, describe, expect, it } from "vitest";
import { TestClusters } from "./internal/testing-cluster.js";
import { eventually, settle } from "./internal/testing.js";
import { podIndexLabel, StatefulSetController, statefulSetController, statefulSetPodNameLabel } from "./stateful-set.js";

const clusters = new TestClusters();
afterEach(() => clusters.stop());

async function setup() {
  const { client, logs } = await clusters.start(new StatefulSetController());
  const sets = client.resource(statefulSetsRef);
  const pods = client.resource(podsRef);
  const names = async () =>
    (await pods.list({ namespace: "default" })).items
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name)
      .sort();
  const get = (name: string) => pods.get(name, { namespace: "default" });
  const markReady = async (name: string) => {
    const conditions = [{ type: "Ready", status: "True" }];
    await pods.patchStatus(name, { status: { phase: "Running", conditions } }, "merge", { namespace: "default" });
  };
  const status = async (name: string) => ((await sets.get(name, { namespace: "default" }))["status"] ?? {}) as Record<string, unknown>;
  return { client, sets, pods, names, get, markReady, status, logs };
}

function set(name: string, spec: Record<string, unknown>, image = "nginx:1"): APIObject {
  return {
    metadata: { name, namespace: "default" },
    spec: {
      selector: { matchLabels: { app: name } },
      serviceName: name,
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image }] } },
      ...spec,
    },
  };
}

describe("StatefulSetController", () => {
  it("is named statefulset and on by default", () => {
    expect(statefulSetController).toMatchObject({ name: "statefulset", enabledByDefault: true });
  });

  it("names its labels after the product domain: orch.io, and kubernetes.io for k8s.io", () => {
    expect([statefulSetPodNameLabel("orch.io"), podIndexLabel("orch.io")]).toEqual(["statefulset.orch.io/pod-name", "apps.orch.io/pod-index"]);
    expect([statefulSetPodNameLabel("k8s.io"), podIndexLabel("k8s.io")]).toEqual(["statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index"]);
  });

  it("makes <set>-<ordinal> one at a time as each becomes ready, with identity labels and claims", async () => {
    const { client, sets, names, get, markReady, status, logs } = await setup();
    const claimTemplate = { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } };
    await sets.create(set("web", { replicas: 2, volumeClaimTemplates: [claimTemplate] }), { namespace: "default" });
    expect(await eventually(async () => (await names()).includes("web-0"))).toBe(true);
    await settle(50);
    expect(await names()).toEqual(["web-0"]);
    const pod = await get("web-0");
    expect(pod.metadata.labels).toMatchObject({ app: "web", "statefulset.orch.io/pod-name": "web-0", "apps.orch.io/pod-index": "0" });
    const spec = pod["spec"] as { hostname?: string; subdomain?: string; volumes?: unknown[] };
    expect(spec).toMatchObject({ hostname: "web-0", subdomain: "web" });
    expect(spec.volumes).toContainEqual({ name: "data", persistentVolumeClaim: { claimName: "data-web-0" } });
    const claim = await client.resource(persistentVolumeClaimsRef).get("data-web-0", { namespace: "default" });
    expect(claim.metadata.labels).toMatchObject({ app: "web" });
    await markReady("web-0");
    expect(await eventually(async () => (await names()).includes("web-1"))).toBe(true);
    await markReady("web-1");
    expect(await eventually(async () => (await status("web"))["readyReplicas"] === 2)).toBe(true);
    const st = await status("web");
    expect(st).toMatchObject({ replicas: 2, currentReplicas: 2, updatedReplicas: 2, availableReplicas: 2, observedGeneration: 1 });
    expect(st["currentRevision"]).toBe(st["updateRevision"]);
    expect(pod.metadata.labels?.["controller-revision-hash"]).toBe(st["updateRevision"]);
    expect(logs).toEqual([]);
  });

  it("scales down from the highest ordinal, and makes every Pod at once with Parallel", async () => {
    const { client, sets, names } = await setup();
    const claimTemplate = { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } };
    const retention = { whenScaled: "Delete", whenDeleted: "Retain" };
    await sets.create(
      set("par", { replicas: 3, podManagementPolicy: "Parallel", volumeClaimTemplates: [claimTemplate], persistentVolumeClaimRetentionPolicy: retention }),
      {
        namespace: "default",
      },
    );
    expect(await eventually(async () => (await names()).length === 3)).toBe(true);
    expect(await names()).toEqual(["par-0", "par-1", "par-2"]);
    await sets.patch("par", { spec: { replicas: 1 } }, "merge", { namespace: "default" });
    expect(await eventually(async () => (await names()).length === 1)).toBe(true);
    expect(await names()).toEqual(["par-0"]);
    // The claims of the removed Pods are now theirs, for the garbage collector to take along.
    const owners = async (claim: string) =>
      (await client.resource(persistentVolumeClaimsRef).get(claim, { namespace: "default" })).metadata.ownerReferences?.map((r) => `${r.kind}/${r.name}`);
    expect(await owners("data-par-2")).toEqual(["Pod/par-2"]);
    expect(await owners("data-par-0")).toBeUndefined();
  });

  it("rolls Pods at or above the partition to a new revision, highest first, and records revisions", async () => {
    const { client, sets, get, markReady, status, names } = await setup();
    await sets.create(set("roll", { replicas: 2, podManagementPolicy: "Parallel" }), { namespace: "default" });
    expect(await eventually(async () => (await names()).length === 2)).toBe(true);
    for (const n of ["roll-0", "roll-1"]) await markReady(n);
    expect(await eventually(async () => (await status("roll"))["readyReplicas"] === 2)).toBe(true);
    const first = (await status("roll"))["updateRevision"];
    await sets.patch(
      "roll",
      {
        spec: {
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } },
          template: { spec: { containers: [{ name: "c", image: "nginx:2" }] } },
        },
      },
      "merge",
      { namespace: "default" },
    );
    expect(await eventually(async () => (await status("roll"))["updateRevision"] !== first)).toBe(true);
    const second = (await status("roll"))["updateRevision"];
    expect(await eventually(async () => (await get("roll-1").catch(() => undefined))?.metadata.labels?.["controller-revision-hash"] === second)).toBe(true);
    await markReady("roll-1");
    await settle(100);
    expect((await get("roll-0")).metadata.labels?.["controller-revision-hash"]).toBe(first);
    const st = await status("roll");
    expect(st).toMatchObject({ currentRevision: first, updatedReplicas: 1, currentReplicas: 1 });
    const revisions = (await client.resource(controllerRevisionsRef).list({ namespace: "default" })).items;
    expect(revisions.map((r) => [r.metadata.name, r["revision"]]).sort()).toEqual([
      [first, 1],
      [second, 2],
    ]);
  });
});
