import { jobsRef, podsRef } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { TestClusters } from "./internal/testing-cluster.js";
import { eventually, settle } from "./internal/testing.js";
import { formatIndexes, JobController, jobCompletionIndexKey, jobController, jobPodFailureBackoffMs, parseIndexes } from "./job.js";

const clusters = new TestClusters();
afterEach(() => clusters.stop());

async function setup() {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const { client, logs } = await clusters.start(new JobController(), { clock, serverClock: clock });
  const jobs = client.resource(jobsRef);
  const pods = client.resource(podsRef);
  const podsOf = async (job: string) => (await pods.list({ namespace: "default", labelSelector: `job-name=${job}` })).items;
  const status = async (job: string) => ((await jobs.get(job, { namespace: "default" }))["status"] ?? {}) as Record<string, unknown>;
  const setPhase = async (pod: APIObject, phase: string, ready = false) => {
    const conditions = ready ? [{ type: "Ready", status: "True" }] : [];
    await pods.patchStatus(pod.metadata.name ?? "", { status: { phase, conditions } }, "merge", { namespace: "default" });
  };
  const conditionTypes = async (job: string) => ((await status(job))["conditions"] as { type: string; status: string; reason: string }[] | undefined) ?? [];
  return { client, clock, jobs, pods, podsOf, status, setPhase, conditionTypes, logs };
}

function job(name: string, spec: Record<string, unknown>): APIObject {
  return {
    metadata: { name, namespace: "default" },
    spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } }, ...spec },
  };
}

describe("JobController", () => {
  it("is named job and on by default", () => {
    expect(jobController).toMatchObject({ name: "job", enabledByDefault: true });
  });

  it("names the completion index key after the product domain", () => {
    expect(jobCompletionIndexKey("orch.io")).toBe("batch.orch.io/job-completion-index");
    expect(jobCompletionIndexKey("k8s.io")).toBe("batch.kubernetes.io/job-completion-index");
  });

  it("prints and parses completed indexes as ranges", () => {
    expect(formatIndexes([5, 1, 3, 4, 7, 3, 8])).toBe("1,3-5,7,8");
    expect([...parseIndexes("1,3-5,7")]).toEqual([1, 3, 4, 5, 7]);
    expect(parseIndexes(undefined).size).toBe(0);
  });

  it("runs parallelism Pods until completions succeeded, then completes the Job", async () => {
    const { jobs, podsOf, status, setPhase, conditionTypes, logs } = await setup();
    await jobs.create(job("work", { completions: 3, parallelism: 2 }), { namespace: "default" });
    expect(await eventually(async () => (await podsOf("work")).length === 2)).toBe(true);
    expect(await eventually(async () => (await status("work"))["active"] === 2)).toBe(true);
    const [first, second] = await podsOf("work");
    expect(first?.metadata.ownerReferences?.[0]).toMatchObject({ kind: "Job", name: "work", controller: true });
    await setPhase(first as APIObject, "Succeeded");
    expect(await eventually(async () => (await podsOf("work")).length === 3)).toBe(true);
    for (const pod of await podsOf("work")) if (pod.metadata.uid !== first?.metadata.uid) await setPhase(pod, "Succeeded");
    expect(await eventually(async () => (await conditionTypes("work")).some((c) => c.type === "Complete" && c.status === "True"))).toBe(true);
    const done = await status("work");
    expect(done).toMatchObject({ succeeded: 3, active: 0, failed: 0 });
    expect(typeof done["completionTime"]).toBe("string");
    expect(typeof done["startTime"]).toBe("string");
    expect((await conditionTypes("work")).map((c) => c.type)).toEqual(["SuccessCriteriaMet", "Complete"]);
    expect(second).toBeDefined();
    expect(logs).toEqual([]);
  });

  it("gives each index of an Indexed Job its Pod, with the index annotation, label, hostname and variable", async () => {
    const { jobs, podsOf, status, setPhase, conditionTypes } = await setup();
    await jobs.create(job("idx", { completions: 2, parallelism: 2, completionMode: "Indexed" }), { namespace: "default" });
    expect(await eventually(async () => (await podsOf("idx")).length === 2)).toBe(true);
    const pods = await podsOf("idx");
    const indexes = pods.map((p) => p.metadata.annotations?.["batch.orch.io/job-completion-index"]).sort();
    expect(indexes).toEqual(["0", "1"]);
    const zero = pods.find((p) => p.metadata.labels?.["batch.orch.io/job-completion-index"] === "0") as APIObject;
    expect((zero["spec"] as { hostname?: string }).hostname).toBe("idx-0");
    expect(zero.metadata.name?.startsWith("idx-0-")).toBe(true);
    const env = (zero["spec"] as { containers: { env?: { name: string }[] }[] }).containers[0]?.env;
    expect(env?.map((e) => e.name)).toContain("JOB_COMPLETION_INDEX");
    await setPhase(zero, "Succeeded");
    expect(await eventually(async () => (await status("idx"))["completedIndexes"] === "0")).toBe(true);
    for (const pod of pods) if (pod !== zero) await setPhase(pod, "Succeeded");
    expect(await eventually(async () => (await conditionTypes("idx")).some((c) => c.type === "Complete"))).toBe(true);
    expect(await status("idx")).toMatchObject({ completedIndexes: "0,1", succeeded: 2 });
  });

  it("replaces a failed Pod after the back-off, and fails the Job with BackoffLimitExceeded once more Pods failed than backoffLimit", async () => {
    const { jobs, podsOf, status, setPhase, conditionTypes, clock } = await setup();
    await jobs.create(job("flaky", { backoffLimit: 1 }), { namespace: "default" });
    for (let attempt = 1; attempt <= 2; attempt++) {
      if (attempt === 2) {
        await settle(50);
        expect(await podsOf("flaky")).toHaveLength(1);
        clock.advance(jobPodFailureBackoffMs);
      }
      expect(await eventually(async () => (await podsOf("flaky")).length === attempt)).toBe(true);
      const pending = (await podsOf("flaky")).find((p) => (p["status"] as { phase?: string } | undefined)?.phase !== "Failed");
      await setPhase(pending as APIObject, "Failed");
    }
    expect(await eventually(async () => (await conditionTypes("flaky")).some((c) => c.type === "Failed"))).toBe(true);
    expect((await conditionTypes("flaky")).find((c) => c.type === "Failed")?.reason).toBe("BackoffLimitExceeded");
    expect(await status("flaky")).toMatchObject({ failed: 2, active: 0 });
    await settle(50);
    expect(await podsOf("flaky")).toHaveLength(2);
  });

  it("fails the Job with DeadlineExceeded after activeDeadlineSeconds on the clock, deleting its Pods", async () => {
    const { jobs, podsOf, clock, conditionTypes } = await setup();
    await jobs.create(job("slow", { activeDeadlineSeconds: 30 }), { namespace: "default" });
    expect(await eventually(async () => (await podsOf("slow")).length === 1)).toBe(true);
    await settle(50);
    clock.advance(31_000);
    expect(await eventually(async () => (await conditionTypes("slow")).some((c) => c.type === "Failed"))).toBe(true);
    expect((await conditionTypes("slow")).find((c) => c.type === "Failed")?.reason).toBe("DeadlineExceeded");
    expect(await eventually(async () => (await podsOf("slow")).every((p) => p.metadata.deletionTimestamp !== undefined))).toBe(true);
  });

  it("deletes the Pods of a suspended Job and marks it Suspended, then resumes it", async () => {
    const { jobs, podsOf, conditionTypes } = await setup();
    await jobs.create(job("pause", { suspend: true, parallelism: 2, completions: 4 }), { namespace: "default" });
    expect(await eventually(async () => (await conditionTypes("pause")).some((c) => c.type === "Suspended" && c.status === "True"))).toBe(true);
    expect(await podsOf("pause")).toHaveLength(0);
    await jobs.patch("pause", { spec: { suspend: false } }, "merge", { namespace: "default" });
    expect(await eventually(async () => (await podsOf("pause")).length === 2)).toBe(true);
    expect(await eventually(async () => (await conditionTypes("pause")).some((c) => c.type === "Suspended" && c.status === "False"))).toBe(true);
    await jobs.patch("pause", { spec: { suspend: true } }, "merge", { namespace: "default" });
    expect(await eventually(async () => (await podsOf("pause")).every((p) => p.metadata.deletionTimestamp !== undefined))).toBe(true);
  });
});
