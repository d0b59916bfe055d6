import { deploymentsRef, podsRef, replicaSetsRef } from "@orch/client";
import { formatTime, type APIObject } from "@orch/meta";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { DeploymentController, deploymentController } from "./deployment.js";
import { podTemplateHash, type PodTemplate } from "./internal/deployment-util.js";
import { TestClusters } from "./internal/testing-cluster.js";
import { eventually, settle } from "./internal/testing.js";
import { ReplicaSetController } from "./replicaset.js";

const clusters = new TestClusters();
afterEach(() => clusters.stop());

const ns = { namespace: "default" };
type Condition = { type: string; status: string; reason?: string; message?: string };
const statusOf = (o: APIObject) => (o["status"] ?? {}) as Record<string, unknown> & { conditions?: Condition[] };
const specOf = (o: APIObject) =>
  (o["spec"] ?? {}) as {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> };
    template?: { metadata?: { labels?: Record<string, string> } };
  };

async function setup(options: { clock?: FakeClock } = {}) {
  const client = await clusters.connect();
  const rsLoop = await clusters.run(new ReplicaSetController(), client, options.clock);
  const dLoop = await clusters.run(new DeploymentController(), client, options.clock);
  const deployments = client.resource(deploymentsRef);
  const sets = client.resource(replicaSetsRef);
  const pods = client.resource(podsRef);
  /** The ReplicaSets, by revision. */
  const setList = async () => (await sets.list(ns)).items.sort((a, b) => revision(a) - revision(b));
  const get = () => deployments.get("web", ns);
  /** Marks every active Pod not yet ready running and ready. */
  const markReady = async (at = Date.now()) => {
    for (const pod of (await pods.list(ns)).items) {
      const status = statusOf(pod);
      if (pod.metadata.deletionTimestamp || status.conditions?.some((c) => c.type === "Ready" && c.status === "True")) continue;
      await pods
        .patchStatus(
          pod.metadata.name ?? "",
          { status: { phase: "Running", podIP: "10.0.0.2", conditions: [{ type: "Ready", status: "True", lastTransitionTime: formatTime(at) }] } },
          "merge",
          ns,
        )
        .catch(() => undefined);
    }
  };
  const condition = async (type: string) => statusOf(await get()).conditions?.find((c) => c.type === type);
  /** Marks Pods ready until the rollout is complete (all replicas updated and available). */
  const rollOut = async () =>
    eventually(async () => {
      await markReady();
      const d = await get();
      const s = statusOf(d);
      return (
        s["observedGeneration"] === d.metadata.generation &&
        s["updatedReplicas"] === specOf(d).replicas &&
        s["replicas"] === specOf(d).replicas &&
        s["availableReplicas"] === specOf(d).replicas
      );
    }, 20_000);
  return {
    client,
    deployments,
    sets,
    pods,
    setList,
    get,
    markReady,
    condition,
    rollOut,
    logs: [...dLoop.logs, ...rsLoop.logs],
    dLogs: dLoop.logs,
    rsLogs: rsLoop.logs,
  };
}

function deployment(replicas: number, extra: Record<string, unknown> = {}, image = "nginx:1"): APIObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image }] } },
      ...extra,
    },
  };
}

const revision = (o: APIObject) => Number(o.metadata.annotations?.["deployment.orch.io/revision"] ?? 0);
const jsonText = (value: unknown) => JSON.stringify(value);
const setImage = (image: string) => ({ spec: { template: { spec: { containers: [{ name: "c", image }] } } } });

describe("DeploymentController", () => {
  it("is named deployment and on by default", () => {
    expect(deploymentController).toMatchObject({ name: "deployment", enabledByDefault: true });
  });

  it("creates <name>-<pod-template-hash>, revision 1, and reports the rollout done once the Pods are ready", async () => {
    const { deployments, setList, get, condition, rollOut, dLogs, rsLogs } = await setup();
    const created = await deployments.create(deployment(3));
    expect(await eventually(async () => (await setList()).length === 1)).toBe(true);
    const [rs] = await setList();
    const hash = rs!.metadata.labels?.["pod-template-hash"] ?? "";
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(rs!.metadata.name).toBe(`web-${hash}`);
    expect(rs!.metadata.ownerReferences).toEqual([
      { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: created.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(specOf(rs!).selector).toEqual({ matchLabels: { app: "web", "pod-template-hash": hash } });
    expect(specOf(rs!).template?.metadata?.labels).toEqual({ app: "web", "pod-template-hash": hash });
    expect(rs!.metadata.annotations).toMatchObject({
      "deployment.orch.io/revision": "1",
      "deployment.orch.io/desired-replicas": "3",
      "deployment.orch.io/max-replicas": "4",
    });
    expect(await rollOut()).toBe(true);
    expect((await get()).metadata.annotations?.["deployment.orch.io/revision"]).toBe("1");
    expect(await condition("Available")).toMatchObject({ status: "True", reason: "MinimumReplicasAvailable" });
    expect(await eventually(async () => (await condition("Progressing"))?.reason === "NewReplicaSetAvailable")).toBe(true);
    expect(await condition("Progressing")).toMatchObject({ status: "True", message: `ReplicaSet "web-${hash}" has successfully progressed.` });
    expect(statusOf(await get())).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(dLogs).toEqual([]);
    expect(rsLogs).toEqual([]);
  });

  it("rolls a new template out within maxSurge and maxUnavailable, scaling the old ReplicaSet to 0", async () => {
    const { deployments, sets, setList, get, rollOut, condition } = await setup();
    await deployments.create(deployment(4, { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    expect(await rollOut()).toBe(true);
    await deployments.patch("web", setImage("nginx:2"), "strategic", ns);
    expect(await eventually(async () => (await setList()).length === 2)).toBe(true);
    // No Pod is ready in the new set yet: one surge Pod, and nothing of the old set goes.
    await settle(100);
    const [old, fresh] = await setList();
    expect(specOf(fresh!).replicas).toBe(1);
    expect(specOf(await sets.get(old!.metadata.name ?? "", ns)).replicas).toBe(4);
    expect(["NewReplicaSetCreated", "ReplicaSetUpdated"]).toContain((await condition("Progressing"))?.reason);
    expect(fresh!.metadata.annotations?.["deployment.orch.io/revision"]).toBe("2");
    expect(await rollOut()).toBe(true);
    expect(await eventually(async () => specOf(await sets.get(old!.metadata.name ?? "", ns)).replicas === 0)).toBe(true);
    expect(specOf(await sets.get(fresh!.metadata.name ?? "", ns)).replicas).toBe(4);
    expect((await get()).metadata.annotations?.["deployment.orch.io/revision"]).toBe("2");
  });

  it("scales a Deployment mid-rollout in proportion to its ReplicaSets' sizes", async () => {
    const { deployments, setList, rollOut } = await setup();
    await deployments.create(deployment(10));
    expect(await rollOut()).toBe(true);
    await deployments.patch("web", setImage("nginx:2"), "strategic", ns);
    // maxSurge 3 and maxUnavailable 2 of 10: the new set gets 3, the old one goes to 8, the new one to 5.
    const sizes = async () => (await setList()).map((rs) => specOf(rs).replicas);
    expect(await eventually(async () => jsonText(await sizes()) === "[8,5]")).toBe(true);
    await deployments.patch("web", { spec: { replicas: 20 } }, "merge", ns);
    // 13 -> 25 Pods at most: 8 * 25 / 13 rounds to 15, 5 * 25 / 13 to 10.
    expect(await eventually(async () => jsonText(await sizes()) === "[15,10]")).toBe(true);
  });

  it("counts a name collision in status.collisionCount and takes the next hash", async () => {
    const { deployments, sets, setList, get } = await setup();
    await deployments.create(deployment(1, { paused: true }));
    const template = (await get())["spec"] as { template: PodTemplate };
    const taken = `web-${podTemplateHash(template.template)}`;
    await sets.create({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: taken, namespace: "default" },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "other" } },
        template: { metadata: { labels: { app: "other" } }, spec: { containers: [{ name: "c", image: "busybox" }] } },
      },
    });
    await deployments.patch("web", { spec: { paused: false } }, "merge", ns);
    expect(await eventually(async () => (await setList()).length === 2)).toBe(true);
    expect(statusOf(await get())["collisionCount"]).toBe(1);
    const ours = (await setList()).find((rs) => rs.metadata.name !== taken);
    expect(ours?.metadata.name).toBe(`web-${podTemplateHash(template.template, 1)}`);
  });

  it("goes back to an earlier template by reusing its ReplicaSet under a new revision", async () => {
    const { deployments, sets, setList, rollOut, get } = await setup();
    await deployments.create(deployment(2));
    expect(await rollOut()).toBe(true);
    const [first] = await setList();
    await deployments.patch("web", setImage("nginx:2"), "strategic", ns);
    expect(await eventually(async () => (await setList()).length === 2)).toBe(true);
    expect(await rollOut()).toBe(true);
    await deployments.patch("web", setImage("nginx:1"), "strategic", ns);
    expect(await rollOut()).toBe(true);
    expect(await setList()).toHaveLength(2);
    const back = await sets.get(first!.metadata.name ?? "", ns);
    expect(specOf(back).replicas).toBe(2);
    expect(back.metadata.annotations).toMatchObject({ "deployment.orch.io/revision": "3", "deployment.orch.io/revision-history": "1" });
    expect(await eventually(async () => (await get()).metadata.annotations?.["deployment.orch.io/revision"] === "3")).toBe(true);
  });

  it("Recreate scales the old ReplicaSet to 0 and waits for its Pods to go before creating the new one", async () => {
    const { deployments, pods, setList, rollOut } = await setup();
    await deployments.create(deployment(2, { strategy: { type: "Recreate" } }));
    expect(await rollOut()).toBe(true);
    const [old] = await setList();
    await deployments.patch("web", setImage("nginx:2"), "strategic", ns);
    expect(await eventually(async () => (await setList()).length === 2)).toBe(true);
    // By the time the new set exists the old one was scaled to 0 and its Pods were gone.
    const live = (await pods.list(ns)).items.filter((p) => p.metadata.ownerReferences?.[0]?.uid === old!.metadata.uid);
    expect(live).toEqual([]);
    expect(await rollOut()).toBe(true);
  });

  it("deletes old empty ReplicaSets beyond revisionHistoryLimit", async () => {
    const { deployments, setList, rollOut } = await setup();
    await deployments.create(deployment(1, { revisionHistoryLimit: 0 }));
    expect(await rollOut()).toBe(true);
    await deployments.patch("web", setImage("nginx:2"), "strategic", ns);
    expect(await rollOut()).toBe(true);
    expect(await eventually(async () => (await setList()).length === 1)).toBe(true);
    expect((await setList())[0]?.metadata.annotations?.["deployment.orch.io/revision"]).toBe("2");
  });

  it("does not roll out while paused, but says so and still scales", async () => {
    const { deployments, setList, rollOut, condition } = await setup();
    await deployments.create(deployment(1));
    expect(await rollOut()).toBe(true);
    await deployments.patch("web", { spec: { paused: true } }, "merge", ns);
    expect(await eventually(async () => (await condition("Progressing"))?.reason === "DeploymentPaused")).toBe(true);
    expect(await condition("Progressing")).toMatchObject({ status: "Unknown", message: "Deployment is paused" });
    await deployments.patch("web", { spec: { replicas: 2, ...setImage("nginx:2").spec } }, "strategic", ns);
    expect(await eventually(async () => specOf((await setList())[0]!).replicas === 2)).toBe(true);
    await settle(100);
    expect(await setList()).toHaveLength(1);
    await deployments.patch("web", { spec: { paused: false } }, "merge", ns);
    expect(await eventually(async () => (await setList()).length === 2)).toBe(true);
    expect(await rollOut()).toBe(true);
  });

  it("marks Progressing False ProgressDeadlineExceeded when no progress is made within the deadline", async () => {
    const clock = new FakeClock(Date.now());
    const { deployments, condition, setList } = await setup({ clock });
    await deployments.create(deployment(1, { progressDeadlineSeconds: 30 }));
    expect(await eventually(async () => (await setList()).length === 1 && (await condition("Progressing"))?.status === "True")).toBe(true);
    await settle(100);
    clock.advance(31_000);
    expect(await eventually(async () => (await condition("Progressing"))?.reason === "ProgressDeadlineExceeded")).toBe(true);
    expect(await condition("Progressing")).toMatchObject({
      status: "False",
      message: expect.stringMatching(/^ReplicaSet "web-\w+" has timed out progressing\.$/) as unknown,
    });
    expect(await condition("Available")).toMatchObject({ status: "False", reason: "MinimumReplicasUnavailable" });
  });
});
