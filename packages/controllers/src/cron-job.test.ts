import { cronJobsRef, jobsRef } from "@orch/client";
import { formatTime, type APIObject } from "@orch/meta";
import { parseCronSchedule } from "@orch/resources";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { CronJobController, cronJobController, cronJobJobName, cronJobScheduledTimestampAnnotation, formatInZone, mostRecentScheduleTime } from "./cron-job.js";
import { TestClusters } from "./internal/testing-cluster.js";
import { eventually, settle } from "./internal/testing.js";

const clusters = new TestClusters();
afterEach(() => clusters.stop());

const start = Date.UTC(2026, 0, 1, 0, 0, 30);

async function setup() {
  const clock = new FakeClock(start);
  const { client, logs } = await clusters.start(new CronJobController(), { clock, serverClock: clock, serviceAccount: false });
  const cronJobs = client.resource(cronJobsRef);
  const jobs = client.resource(jobsRef);
  const jobNames = async () =>
    (await jobs.list({ namespace: "default" })).items
      .filter((j) => !j.metadata.deletionTimestamp)
      .map((j) => j.metadata.name)
      .sort();
  const status = async (name: string) => ((await cronJobs.get(name, { namespace: "default" }))["status"] ?? {}) as Record<string, unknown>;
  /** Moves the clock to `ms` and lets the controller's timers run. */
  const advanceTo = async (ms: number) => {
    await settle(30);
    clock.advance(ms - clock.now());
    await settle(30);
  };
  const finish = async (name: string, type: "Complete" | "Failed") => {
    const job = await jobs.get(name, { namespace: "default" });
    const now = formatTime(clock.now());
    const conditions = [{ type, status: "True", lastTransitionTime: now }];
    await jobs.updateStatus(
      { ...job, status: { startTime: now, ...(type === "Complete" ? { completionTime: now } : {}), conditions } },
      { namespace: "default" },
    );
  };
  return { clock, cronJobs, jobs, jobNames, status, advanceTo, finish, logs };
}

function cronJob(name: string, spec: Record<string, unknown> = {}): APIObject {
  return {
    metadata: { name, namespace: "default" },
    spec: {
      schedule: "* * * * *",
      jobTemplate: {
        metadata: { labels: { from: name } },
        spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
      },
      ...spec,
    },
  };
}

const minute = 60_000;

describe("CronJobController", () => {
  it("is named cronjob and on by default", () => {
    expect(cronJobController).toMatchObject({ name: "cronjob", enabledByDefault: true });
  });

  it("names Jobs by the scheduled minute and writes the time in the CronJob's zone", () => {
    expect(cronJobJobName("nightly", Date.UTC(2026, 0, 1, 0, 1))).toBe(`nightly-${Date.UTC(2026, 0, 1, 0, 1) / minute}`);
    expect(formatInZone(Date.UTC(2026, 0, 1, 14), "America/New_York")).toBe("2026-01-01T09:00:00-05:00");
    expect(formatInZone(Date.UTC(2026, 0, 1, 14), undefined)).toBe("2026-01-01T14:00:00Z");
    expect(cronJobScheduledTimestampAnnotation("k8s.io")).toBe("batch.kubernetes.io/cronjob-scheduled-timestamp");
    const every = parseCronSchedule("*/10 * * * *");
    expect(mostRecentScheduleTime(every, Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1, 0, 35))).toEqual({
      latest: Date.UTC(2026, 0, 1, 0, 30),
      next: Date.UTC(2026, 0, 1, 0, 40),
    });
  });

  it("makes a Job at each scheduled minute on the clock, with its annotation, owner and status", async () => {
    const { cronJobs, jobs, jobNames, status, advanceTo, logs } = await setup();
    await cronJobs.create(cronJob("tick"), { namespace: "default" });
    await settle(50);
    expect(await jobNames()).toEqual([]);
    const first = Date.UTC(2026, 0, 1, 0, 1);
    await advanceTo(first + 1000);
    expect(await eventually(async () => (await jobNames()).length === 1)).toBe(true);
    const job = await jobs.get(cronJobJobName("tick", first), { namespace: "default" });
    expect(job.metadata.annotations?.["batch.orch.io/cronjob-scheduled-timestamp"]).toBe("2026-01-01T00:01:00Z");
    expect(job.metadata.labels).toMatchObject({ from: "tick" });
    expect(job.metadata.ownerReferences?.[0]).toMatchObject({ kind: "CronJob", name: "tick", controller: true });
    expect(await eventually(async () => (await status("tick"))["lastScheduleTime"] === "2026-01-01T00:01:00Z")).toBe(true);
    expect((await status("tick"))["active"]).toEqual([expect.objectContaining({ kind: "Job", name: cronJobJobName("tick", first) })]);
    await advanceTo(first + minute + 1000);
    expect(await eventually(async () => (await jobNames()).length === 2)).toBe(true);
    expect(logs).toEqual([]);
  });

  it("makes none while one runs with Forbid, replaces the running one with Replace", async () => {
    const { cronJobs, jobNames, advanceTo } = await setup();
    await cronJobs.create(cronJob("forbid", { concurrencyPolicy: "Forbid" }), { namespace: "default" });
    await cronJobs.create(cronJob("replace", { concurrencyPolicy: "Replace" }), { namespace: "default" });
    const first = Date.UTC(2026, 0, 1, 0, 1);
    await advanceTo(first + 1000);
    expect(await eventually(async () => (await jobNames()).length === 2)).toBe(true);
    await advanceTo(first + minute + 1000);
    const second = cronJobJobName("replace", first + minute);
    expect(await eventually(async () => (await jobNames()).includes(second))).toBe(true);
    expect(await eventually(async () => !(await jobNames()).includes(cronJobJobName("replace", first)))).toBe(true);
    await settle(50);
    expect((await jobNames()).filter((n) => n?.startsWith("forbid-"))).toEqual([cronJobJobName("forbid", first)]);
  });

  it("keeps successfulJobsHistoryLimit finished Jobs, records lastSuccessfulTime, and skips a suspended CronJob", async () => {
    const { cronJobs, jobNames, status, advanceTo, finish } = await setup();
    await cronJobs.create(cronJob("hist", { successfulJobsHistoryLimit: 1 }), { namespace: "default" });
    const first = Date.UTC(2026, 0, 1, 0, 1);
    await advanceTo(first + 1000);
    expect(await eventually(async () => (await jobNames()).length === 1)).toBe(true);
    await finish(cronJobJobName("hist", first), "Complete");
    expect(await eventually(async () => typeof (await status("hist"))["lastSuccessfulTime"] === "string")).toBe(true);
    await advanceTo(first + minute + 1000);
    expect(await eventually(async () => (await jobNames()).includes(cronJobJobName("hist", first + minute)))).toBe(true);
    await finish(cronJobJobName("hist", first + minute), "Complete");
    expect(await eventually(async () => JSON.stringify(await jobNames()) === JSON.stringify([cronJobJobName("hist", first + minute)]))).toBe(true);
    await cronJobs.patch("hist", { spec: { suspend: true } }, "merge", { namespace: "default" });
    await advanceTo(first + 3 * minute + 1000);
    await settle(50);
    expect(await jobNames()).toEqual([cronJobJobName("hist", first + minute)]);
  });
});
