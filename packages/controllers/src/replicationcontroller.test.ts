import { podsRef, replicationControllersRef } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { afterEach, describe, expect, it } from "vitest";
import { TestClusters } from "./internal/testing-cluster.js";
import { eventually, settle } from "./internal/testing.js";
import { ReplicationControllerController, replicationControllerController } from "./replicationcontroller.js";

const clusters = new TestClusters();
afterEach(() => clusters.stop());

const ns = { namespace: "default" };

describe("ReplicationControllerController", () => {
  it("is named replicationcontroller and on by default", () => {
    expect(replicationControllerController).toMatchObject({ name: "replicationcontroller", enabledByDefault: true });
  });

  it("keeps spec.replicas Pods of a ReplicationController, replacing deleted ones and removing the surplus", async () => {
    const { client, logs } = await clusters.start(new ReplicationControllerController());
    const rcs = client.resource(replicationControllersRef);
    const pods = client.resource(podsRef);
    const podList = async () => (await pods.list(ns)).items.filter((p) => !p.metadata.deletionTimestamp);
    const rc = await rcs.create({
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { name: "db", namespace: "default" },
      spec: { replicas: 2, selector: { app: "db" }, template: { metadata: { labels: { app: "db" } }, spec: { containers: [{ name: "c", image: "redis" }] } } },
    });
    expect(await eventually(async () => (await podList()).length === 2)).toBe(true);
    const [first] = await podList();
    expect(first?.metadata.ownerReferences).toEqual([
      { apiVersion: "v1", kind: "ReplicationController", name: "db", uid: rc.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(first?.metadata.name).toMatch(/^db-[a-z0-9]{5}$/);
    await pods.delete(first?.metadata.name ?? "", ns);
    expect(await eventually(async () => (await podList()).length === 2 && !(await podList()).some((p) => p.metadata.name === first?.metadata.name))).toBe(true);
    await rcs.patch("db", { spec: { replicas: 1 } }, "merge", ns);
    expect(await eventually(async () => (await podList()).length === 1)).toBe(true);
    const status = async () => ((await rcs.get("db", ns)) as APIObject & { status?: Record<string, unknown> }).status;
    expect(await eventually(async () => (await status())?.["replicas"] === 1)).toBe(true);
    await settle(50);
    expect(await status()).toEqual({ replicas: 1, fullyLabeledReplicas: 1, observedGeneration: 2 });
    expect(logs).toEqual([]);
  });
});
