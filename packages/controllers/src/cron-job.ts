/**
 * {@link CronJobController}: the `cronjob` controller, the reference's `pkg/controller/cronjob`
 * (the second version of it). For every CronJob it:
 *
 * - keeps `status.active` to the Jobs it made that still run, and `status.lastSuccessfulTime` to
 *   the latest completion of those that completed;
 * - unless the CronJob is suspended or being deleted, finds the latest time the schedule
 *   (read in `spec.timeZone`, UTC when unset) fired since `status.lastScheduleTime` (or the
 *   creation) and not before `startingDeadlineSeconds` ago, and makes a Job for it, named
 *   `<cronjob>-<scheduled time in minutes since the epoch>`, from `jobTemplate`, with the
 *   `batch.<domain>/cronjob-scheduled-timestamp` annotation (RFC 3339 in the time zone) and the
 *   CronJob as controller; a time missed by more than `startingDeadlineSeconds` is skipped;
 * - with `concurrencyPolicy: Forbid` makes none while one runs, with `Replace` deletes the running
 *   ones first (in the background), with `Allow` (the default) runs them side by side;
 * - deletes the oldest finished Jobs beyond `successfulJobsHistoryLimit` (3) and
 *   `failedJobsHistoryLimit` (1);
 * - looks at the CronJob again at the next scheduled time, on the injected clock.
 * @module
 */
import { cronJobsRef, jobsRef, namespaceIndex, type Informer } from "@orch/client";
import { formatTime, isAlreadyExists, isNotFound, jsonEqual, type APIObject } from "@orch/meta";
import { parseCronSchedule, zoneOffsetMs, type CronSchedule } from "@orch/resources";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { hasTrueCondition } from "./internal/conditions.js";
import { controlledBy, newControllerRef, queueOwners } from "./internal/controller-ref.js";
import { labelDomain } from "./internal/label-domain.js";
import { arr, int, rec, specOf, statusOf } from "./internal/object-fields.js";
import { QueueController } from "./internal/queue-controller.js";
import { timeOf } from "./internal/time-of.js";
import { isJobFinished } from "./job.js";

/** The annotation of a CronJob's Job that carries its scheduled time: `batch.<domain>/cronjob-scheduled-timestamp`. */
export function cronJobScheduledTimestampAnnotation(domain: string): string {
  return `batch.${labelDomain(domain)}/cronjob-scheduled-timestamp`;
}

/** The name of the Job a CronJob makes for `scheduledMs`: `<cronjob>-<minutes since the epoch>`. */
export function cronJobJobName(cronJob: string, scheduledMs: number): string {
  return `${cronJob}-${Math.floor(scheduledMs / 60_000)}`;
}

/** `ms` as RFC 3339 in `zone`: `2026-01-01T09:00:00-05:00` (`Z` in UTC). */
export function formatInZone(ms: number, zone: string | undefined): string {
  const offset = zone ? zoneOffsetMs(ms, zone) : 0;
  if (offset === 0) return formatTime(ms);
  const wall = formatTime(ms + offset).slice(0, -1);
  const minutes = Math.abs(offset) / 60_000;
  const sign = offset < 0 ? "-" : "+";
  return `${wall}${sign}${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

/** How many scheduled times are walked at most when looking for the latest missed one. */
const maxWalk = 1_000_000;

/**
 * The latest time `schedule` fired after `earliestMs` and at or before `nowMs`, and the first
 * time after `nowMs`; `latest` is undefined when none fired.
 */
export function mostRecentScheduleTime(
  schedule: CronSchedule,
  earliestMs: number,
  nowMs: number,
  zone?: string,
): { latest: number | undefined; next: number | undefined } {
  let latest: number | undefined;
  let t = schedule.next(earliestMs, zone);
  for (let i = 0; t !== undefined && t <= nowMs && i < maxWalk; i++) {
    latest = t;
    t = schedule.next(t, zone);
  }
  if (t !== undefined && t <= nowMs) return { latest: undefined, next: schedule.next(nowMs, zone) };
  return { latest, next: t };
}

/** The CronJob loop; create one per term of leadership (the {@link ControllerManager} does). */
export class CronJobController extends QueueController {
  /** `cronjob`. */
  readonly name = "cronjob";
  #cronJobs: Informer | undefined;
  #jobs: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const cronJobs = this.follow(ctx, cronJobsRef);
    this.#cronJobs = cronJobs.informer;
    this.#jobs = ctx.informers.informerFor(jobsRef);
    const jobs = queueOwners(ctx.informers, jobsRef, { group: "batch", kind: "CronJob" }, (key) => this.queue.add(key));
    return [cronJobs.unregister, jobs];
  }

  protected async sync(key: string): Promise<void> {
    const cached = this.#cronJobs?.get(key);
    if (!cached) return;
    const cronJob = structuredClone(cached);
    const namespace = cronJob.metadata.namespace ?? "";
    const name = cronJob.metadata.name ?? "";
    const spec = specOf(cronJob);
    const old = statusOf(cached);
    const status = structuredClone(old);
    const now = this.clock.now();
    let jobs = (this.#jobs?.byIndex(namespaceIndex, namespace) ?? []).filter((j) => controlledBy(j, cronJob.metadata.uid));

    // Active: the Jobs it made that still run; one the cache lacks is asked for, as the reference does.
    const byUid = new Map(jobs.map((j) => [j.metadata.uid ?? "", j]));
    const active: Record<string, unknown>[] = [];
    for (const ref of arr(old["active"]).map((r) => rec(r) ?? {})) {
      const job = byUid.get(String(ref["uid"] ?? "")) ?? (await this.#fetchJob(namespace, String(ref["name"] ?? ""), String(ref["uid"] ?? "")));
      if (job && !isJobFinished(job)) active.push(ref);
    }
    for (const job of jobs) {
      if (!isJobFinished(job) && !active.some((r) => r["uid"] === job.metadata.uid)) active.push(this.#refOf(job));
    }
    let lastSuccess = timeOf(old["lastSuccessfulTime"]);
    for (const job of jobs) {
      const completed = hasTrueCondition(job, "Complete") ? timeOf(statusOf(job)["completionTime"]) : undefined;
      if (completed !== undefined && (lastSuccess === undefined || completed > lastSuccess)) lastSuccess = completed;
    }
    if (lastSuccess !== undefined) status["lastSuccessfulTime"] = formatTime(lastSuccess);

    if (!cronJob.metadata.deletionTimestamp && spec["suspend"] !== true) {
      const zone = typeof spec["timeZone"] === "string" ? spec["timeZone"] : undefined;
      let schedule: CronSchedule | undefined;
      try {
        schedule = parseCronSchedule(String(spec["schedule"] ?? ""));
      } catch {
        // Validation keeps bad schedules out; an old one stays unscheduled rather than retried.
      }
      if (schedule) {
        let earliest = timeOf(old["lastScheduleTime"]) ?? timeOf(cronJob.metadata.creationTimestamp) ?? now;
        const deadline = typeof spec["startingDeadlineSeconds"] === "number" ? spec["startingDeadlineSeconds"] * 1000 : undefined;
        if (deadline !== undefined) earliest = Math.max(earliest, now - deadline);
        const { latest, next } = mostRecentScheduleTime(schedule, earliest, now, zone);
        if (next !== undefined) this.queue.addAfter(key, next - now + 100);
        const jobName = latest === undefined ? undefined : cronJobJobName(name, latest);
        const tooLate = latest !== undefined && deadline !== undefined && latest + deadline < now;
        const exists = jobName !== undefined && (jobs.some((j) => j.metadata.name === jobName) || active.some((r) => r["name"] === jobName));
        const policy = spec["concurrencyPolicy"] ?? "Allow";
        if (latest !== undefined && jobName !== undefined && !tooLate && !exists && !(policy === "Forbid" && active.length > 0)) {
          if (policy === "Replace") {
            for (const ref of active.splice(0)) await this.#deleteJob(namespace, String(ref["name"] ?? ""), String(ref["uid"] ?? ""));
          }
          const created = await this.#createJob(cronJob, jobName, latest, zone);
          if (created) {
            active.push(this.#refOf(created));
            jobs = [...jobs, created];
          }
          status["lastScheduleTime"] = formatTime(latest);
        }
      }
    }
    if (active.length > 0) status["active"] = active;
    else delete status["active"];
    if (!jsonEqual(status, old)) await this.client.resource(cronJobsRef).updateStatus({ ...cronJob, status }, { namespace });
    await this.#cleanUpHistory(jobs, spec);
  }

  /** The Job `namespace/name` of `uid` read from the server, or undefined when it is gone. */
  async #fetchJob(namespace: string, name: string, uid: string): Promise<APIObject | undefined> {
    try {
      const job = await this.client.resource(jobsRef).get(name, { namespace });
      return job.metadata.uid === uid ? job : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  #refOf(job: APIObject): Record<string, unknown> {
    return {
      apiVersion: "batch/v1",
      kind: "Job",
      name: job.metadata.name ?? "",
      namespace: job.metadata.namespace ?? "",
      uid: job.metadata.uid ?? "",
      resourceVersion: job.metadata.resourceVersion ?? "",
    };
  }

  async #createJob(cronJob: APIObject, name: string, scheduled: number, zone: string | undefined): Promise<APIObject | undefined> {
    const namespace = cronJob.metadata.namespace ?? "";
    const template = rec(specOf(cronJob)["jobTemplate"]) ?? {};
    const meta = rec(template["metadata"]) ?? {};
    const labels = (rec(meta["labels"]) ?? {}) as Record<string, string>;
    const annotations = {
      ...((rec(meta["annotations"]) ?? {}) as Record<string, string>),
      [cronJobScheduledTimestampAnnotation(this.client.domain)]: formatInZone(scheduled, zone),
    };
    const job: APIObject = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name,
        namespace,
        ...(Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
        annotations,
        ownerReferences: [newControllerRef(cronJob, "batch/v1", "CronJob")],
      },
      spec: structuredClone(rec(template["spec"]) ?? {}),
    };
    try {
      return await this.client.resource(jobsRef).create(job, { namespace });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      // Made by an earlier sync whose write the cache has not shown yet.
      const existing = await this.client.resource(jobsRef).get(name, { namespace });
      return controlledBy(existing, cronJob.metadata.uid) ? existing : undefined;
    }
  }

  async #deleteJob(namespace: string, name: string, uid: string): Promise<void> {
    try {
      await this.client.resource(jobsRef).delete(name, { namespace, propagationPolicy: "Background", preconditions: { uid } });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Deletes the oldest finished Jobs beyond the history limits. */
  async #cleanUpHistory(jobs: APIObject[], spec: Record<string, unknown>): Promise<void> {
    // By start time, Jobs that never started last, names breaking ties (the reference's order).
    const startOf = (j: APIObject) => timeOf(statusOf(j)["startTime"]) ?? Infinity;
    const order = (a: APIObject, b: APIObject) => startOf(a) - startOf(b) || (a.metadata.name ?? "").localeCompare(b.metadata.name ?? "");
    const groups: [APIObject[], number][] = [
      [jobs.filter((j) => hasTrueCondition(j, "Complete")), int(spec["successfulJobsHistoryLimit"], 3)],
      [jobs.filter((j) => hasTrueCondition(j, "Failed")), int(spec["failedJobsHistoryLimit"], 1)],
    ];
    for (const [finished, limit] of groups) {
      const sorted = [...finished].filter((j) => !j.metadata.deletionTimestamp).sort(order);
      for (const job of sorted.slice(0, Math.max(0, sorted.length - limit))) {
        await this.#deleteJob(job.metadata.namespace ?? "", job.metadata.name ?? "", job.metadata.uid ?? "");
      }
    }
  }
}

/** The {@link ControllerDescriptor} of the CronJob loop: `cronjob`, on by default. */
export const cronJobController: ControllerDescriptor = {
  name: "cronjob",
  enabledByDefault: true,
  create: () => new CronJobController(),
};
