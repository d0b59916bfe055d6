import { jobsRef } from "@orch/client";
import { formatTime, isNotFound } from "@orch/meta";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { TestClusters } from "./internal/testing-cluster.js";
import { eventually, settle } from "./internal/testing.js";
import { jobFinishTime, TTLAfterFinishedController, ttlAfterFinishedController } from "./ttl-after-finished.js";

const clusters = new TestClusters();
afterEach(() => clusters.stop());

const template = { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } };

describe("TTLAfterFinishedController", () => {
  it("is named ttl-after-finished and on by default", () => {
    expect(ttlAfterFinishedController).toMatchObject({ name: "ttl-after-finished", enabledByDefault: true });
  });

  it("deletes a finished Job ttlSecondsAfterFinished after its completion time, and leaves running Jobs alone", async () => {
    const client = await clusters.connect({ serviceAccount: false });
    const clock = new FakeClock(Date.now());
    const jobs = client.resource(jobsRef);
    const exists = async (name: string) => {
      try {
        // Deleted in the foreground: without a garbage collector here, the Job stays, marked.
        return (await jobs.get(name, { namespace: "default" })).metadata.deletionTimestamp === undefined;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    };
    await jobs.create({ metadata: { name: "done" }, spec: { ttlSecondsAfterFinished: 60, template } }, { namespace: "default" });
    await jobs.create({ metadata: { name: "busy" }, spec: { ttlSecondsAfterFinished: 0, template } }, { namespace: "default" });
    const done = await jobs.get("done", { namespace: "default" });
    const now = formatTime(clock.now());
    const conditions = [{ type: "Complete", status: "True", lastTransitionTime: now, lastProbeTime: now }];
    await jobs.updateStatus({ ...done, status: { startTime: now, completionTime: now, succeeded: 1, conditions } }, { namespace: "default" });
    expect(jobFinishTime(await jobs.get("done", { namespace: "default" }))).toBe(Date.parse(now));

    const controller = await clusters.run(new TTLAfterFinishedController(), client, clock);
    await settle(50);
    expect(await exists("done")).toBe(true);
    clock.advance(61_000);
    expect(await eventually(async () => !(await exists("done")))).toBe(true);
    expect(await exists("busy")).toBe(true);
    expect(controller.logs).toEqual([]);
  });
});
