/**
 * {@link JobController}: the `job` controller, the reference's `pkg/controller/job`. It runs a
 * Job's Pods from its template, up to `parallelism` at once, until `completions` of them
 * succeeded (`NonIndexed`), or one Pod of each index `0..completions-1` did (`Indexed`: each Pod
 * carries its index in the `batch.<domain>/job-completion-index` annotation and label, the
 * `JOB_COMPLETION_INDEX` variable and the hostname `<job>-<index>`). A Job without `completions`
 * is done when one Pod succeeded and none runs.
 *
 * It fails the Job (`FailureTarget` then `Failed`, deleting the running Pods) when more Pods
 * failed than `backoffLimit` (with `restartPolicy: OnFailure`, the restarts of the running Pods
 * count too; reason `BackoffLimitExceeded`) or when it ran longer than `activeDeadlineSeconds`
 * since `status.startTime` (reason `DeadlineExceeded`). It completes it (`SuccessCriteriaMet`
 * then `Complete`, with `completionTime`). A suspended Job has its running Pods deleted and the
 * `Suspended` condition; resuming resets `startTime`.
 *
 * Accounting is simple, without the `batch.<domain>/job-tracking` finalizer: `succeeded` and
 * `failed` are the finished Pods the controller sees, never lower than the counts already in the
 * status (a finished Pod deleted after it was counted is not forgotten, one deleted before the
 * controller saw it is); `uncountedTerminatedPods` stays empty. After a failure new Pods wait
 * {@link jobPodFailureBackoffMs}, doubled for each failure since the last success (at most ten
 * minutes), from the time the last failed Pod finished. Pods are read with a list per sync, so
 * Pods just created are always seen and never made twice.
 * @module
 */
import { jobsRef, podsRef, type Informer } from "@orch/client";
import { formatTime, jsonEqual, type APIObject } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { conditionOf, hasTrueCondition, setCondition } from "./internal/conditions.js";
import { controlledBy, newControllerRef, queueOwners } from "./internal/controller-ref.js";
import { labelDomain } from "./internal/label-domain.js";
import { arr, int, rec, specOf, statusOf } from "./internal/object-fields.js";
import { deletePod, podFromTemplate } from "./internal/pod-control.js";
import { isPodActive, isPodReady, isPodTerminal, podPhase } from "./internal/pods.js";
import { QueueController } from "./internal/queue-controller.js";
import { selects } from "./internal/selector.js";
import { timeOf } from "./internal/time-of.js";

/** The annotation and label of an Indexed Job's Pod that carry its completion index: `batch.<domain>/job-completion-index`. */
export function jobCompletionIndexKey(domain: string): string {
  return `batch.${labelDomain(domain)}/job-completion-index`;
}

/** True when the Job has finished: its `Complete` or `Failed` condition is True. */
export function isJobFinished(job: APIObject): boolean {
  return hasTrueCondition(job, "Complete") || hasTrueCondition(job, "Failed");
}

/** The ranges of `indexes` as an Indexed Job's `status.completedIndexes` writes them: `1,3-5,7,8`. */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    // Two neighbours print as a list, three or more as a range, as the reference writes them.
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}${j === i + 1 ? "," : "-"}${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/** The indexes of a `completedIndexes` text (`1,3-5`); malformed parts are skipped. */
export function parseIndexes(text: unknown): Set<number> {
  const out = new Set<number>();
  if (typeof text !== "string") return out;
  for (const part of text.split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    for (let i = from; i <= to && i - from < 1_000_000; i++) out.add(i);
  }
  return out;
}

/** The first delay before a Job makes Pods again after one failed (ms); doubled per further failure since the last success. */
export const jobPodFailureBackoffMs = 10_000;
/** The longest delay between failures and new Pods (ms). */
const maxPodFailureBackoffMs = 10 * 60_000;

/** When `pod` finished: the latest `finishedAt` of its containers, else its Ready condition's last change, else its creation. */
function finishedAt(pod: APIObject): number {
  const status = statusOf(pod);
  let latest: number | undefined;
  for (const c of [...arr(status["containerStatuses"]), ...arr(status["initContainerStatuses"])]) {
    const t = timeOf(rec(rec(rec(c)?.["state"])?.["terminated"])?.["finishedAt"]);
    if (t !== undefined && (latest === undefined || t > latest)) latest = t;
  }
  return latest ?? timeOf(conditionOf(pod, "Ready")?.["lastTransitionTime"]) ?? timeOf(pod.metadata.creationTimestamp) ?? 0;
}

/** How long new Pods of a Job must still wait after its failures at `now` (ms; 0 when they need not). */
function remainingBackoff(succeeded: APIObject[], failed: APIObject[], now: number): number {
  const lastSuccess = Math.max(-Infinity, ...succeeded.map(finishedAt));
  const since = failed.map(finishedAt).filter((t) => t > lastSuccess);
  if (since.length === 0) return 0;
  const delay = Math.min(jobPodFailureBackoffMs * 2 ** (since.length - 1), maxPodFailureBackoffMs);
  return Math.max(0, Math.max(...since) + delay - now);
}

const backoffMessage = "Job has reached the specified backoff limit";
const deadlineMessage = "Job was active longer than specified deadline";
const completedMessage = "Reached expected number of succeeded pods";

/** The restarts of the containers of `pod`. */
function restartsOf(pod: APIObject): number {
  const status = statusOf(pod);
  return [...arr(status["containerStatuses"]), ...arr(status["initContainerStatuses"])].reduce<number>((n, c) => n + int(rec(c)?.["restartCount"]), 0);
}

/** The Job loop; create one per term of leadership (the {@link ControllerManager} does). */
export class JobController extends QueueController {
  /** `job`. */
  readonly name = "job";
  #jobs: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const jobs = this.follow(ctx, jobsRef);
    this.#jobs = jobs.informer;
    const pods = queueOwners(ctx.informers, podsRef, { group: "batch", kind: "Job" }, (key) => this.queue.add(key));
    return [jobs.unregister, pods];
  }

  #completionIndexKey(): string {
    return jobCompletionIndexKey(this.client.domain);
  }

  #indexOf(pod: APIObject): number | undefined {
    const text = pod.metadata.annotations?.[this.#completionIndexKey()];
    return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
  }

  protected async sync(key: string): Promise<void> {
    const cached = this.#jobs?.get(key);
    if (!cached || cached.metadata.deletionTimestamp || isJobFinished(cached)) return;
    const job = structuredClone(cached);
    const namespace = job.metadata.namespace ?? "";
    const spec = specOf(job);
    const podsClient = this.client.resource(podsRef);
    const pods = (await podsClient.list({ namespace })).items.filter((p) => controlledBy(p, job.metadata.uid) && selects(spec["selector"], p));
    const now = this.clock.now();
    const nowText = formatTime(now);
    const old = statusOf(cached);
    const status = structuredClone(old);
    const indexed = spec["completionMode"] === "Indexed";
    const completions = typeof spec["completions"] === "number" ? spec["completions"] : undefined;
    const parallelism = int(spec["parallelism"], 1);
    const suspended = spec["suspend"] === true;

    let active = pods.filter(isPodActive);
    const succeededPods = pods.filter((p) => podPhase(p) === "Succeeded");
    const failedPods = pods.filter((p) => podPhase(p) === "Failed");
    let completedIndexes = new Set<number>();
    let succeeded: number;
    if (indexed) {
      completedIndexes = parseIndexes(old["completedIndexes"]);
      for (const p of succeededPods) {
        const i = this.#indexOf(p);
        if (i !== undefined && i < (completions ?? 0)) completedIndexes.add(i);
      }
      succeeded = completedIndexes.size;
    } else succeeded = Math.max(int(old["succeeded"]), succeededPods.length);
    const failed = Math.max(int(old["failed"]), failedPods.length);

    if (!suspended && status["startTime"] === undefined) status["startTime"] = nowText;
    const toDelete: APIObject[] = [];
    let failure: { reason: string; message: string } | undefined;
    const backoffLimit = int(spec["backoffLimit"], 6);
    const onFailure = rec(rec(spec["template"])?.["spec"])?.["restartPolicy"] === "OnFailure";
    const restarts = onFailure ? active.reduce((n, p) => n + restartsOf(p), 0) : 0;
    if (failed > backoffLimit || (onFailure && (backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit))) {
      failure = { reason: "BackoffLimitExceeded", message: backoffMessage };
    }
    const deadline = typeof spec["activeDeadlineSeconds"] === "number" ? spec["activeDeadlineSeconds"] * 1000 : undefined;
    const started = timeOf(status["startTime"]);
    if (!failure && !suspended && deadline !== undefined && started !== undefined) {
      if (now - started >= deadline) failure = { reason: "DeadlineExceeded", message: deadlineMessage };
      else this.queue.addAfter(key, started + deadline - now);
    }

    let complete = false;
    if (!failure) {
      if (indexed) complete = completions !== undefined && succeeded >= completions;
      else if (completions === undefined) complete = succeeded > 0 && active.length === 0;
      else complete = succeeded >= completions;
    }

    const backoff = remainingBackoff(succeededPods, failedPods, now);
    if (failure || complete) toDelete.push(...active);
    else if (suspended) toDelete.push(...active);
    else if (indexed) await this.#manageIndexed(job, active, completedIndexes, completions ?? 0, parallelism, toDelete, backoff, key);
    else {
      const wantActive =
        completions === undefined ? (succeeded > 0 ? active.length : parallelism) : Math.max(0, Math.min(parallelism, completions - succeeded));
      if (active.length > wantActive) toDelete.push(...this.#deletionOrder(active).slice(0, active.length - wantActive));
      if (active.length < wantActive && backoff > 0) this.queue.addAfter(key, backoff);
      else for (let i = active.length; i < wantActive; i++) await this.#createPod(job);
    }
    for (const pod of toDelete) await deletePod(this.client, pod);
    const deleted = new Set(toDelete.map((p) => p.metadata.uid));
    active = active.filter((p) => !deleted.has(p.metadata.uid));

    // Created Pods show up at the next sync, which their events queue.
    status["active"] = active.length;
    status["ready"] = active.filter(isPodReady).length;
    status["succeeded"] = succeeded;
    status["failed"] = failed;
    status["terminating"] = pods.filter((p) => p.metadata.deletionTimestamp !== undefined && !isPodTerminal(p)).length;
    if (indexed) status["completedIndexes"] = formatIndexes(completedIndexes);
    if (failure) {
      setCondition(status, { type: "FailureTarget", status: "True", ...failure }, nowText);
      setCondition(status, { type: "Failed", status: "True", ...failure }, nowText);
      status["active"] = 0;
      status["ready"] = 0;
    } else if (complete) {
      setCondition(status, { type: "SuccessCriteriaMet", status: "True", reason: "CompletionsReached", message: completedMessage }, nowText);
      setCondition(status, { type: "Complete", status: "True", reason: "CompletionsReached", message: completedMessage }, nowText);
      status["completionTime"] = nowText;
      status["active"] = 0;
      status["ready"] = 0;
    } else if (suspended) {
      setCondition(status, { type: "Suspended", status: "True", reason: "JobSuspended", message: "Job suspended" }, nowText);
    } else if (hasTrueCondition(cached, "Suspended")) {
      setCondition(status, { type: "Suspended", status: "False", reason: "JobResumed", message: "Job resumed" }, nowText);
      // Resuming restarts the clock of activeDeadlineSeconds.
      status["startTime"] = nowText;
    }
    if (!jsonEqual(status, old)) await this.client.resource(jobsRef).updateStatus({ ...job, status }, { namespace });
  }

  /** Active Pods in the order the reference deletes them: not ready before ready, newer before older. */
  #deletionOrder(active: APIObject[]): APIObject[] {
    return [...active].sort((a, b) => {
      const ready = Number(isPodReady(a)) - Number(isPodReady(b));
      if (ready !== 0) return ready;
      return (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? "");
    });
  }

  async #manageIndexed(
    job: APIObject,
    active: APIObject[],
    completed: Set<number>,
    completions: number,
    parallelism: number,
    toDelete: APIObject[],
    backoff: number,
    key: string,
  ): Promise<void> {
    const running = new Set<number>();
    for (const pod of active) {
      const i = this.#indexOf(pod);
      // Pods without a valid index, of an index done or outside the range, or a second one of an index, go.
      if (i === undefined || i >= completions || completed.has(i) || running.has(i)) toDelete.push(pod);
      else running.add(i);
    }
    let room = parallelism - running.size;
    if (room > 0 && backoff > 0 && running.size + completed.size < completions) {
      this.queue.addAfter(key, backoff);
      room = 0;
    }
    for (let i = 0; i < completions && room > 0; i++) {
      if (completed.has(i) || running.has(i)) continue;
      await this.#createPod(job, i);
      room--;
    }
    if (room < 0) {
      const keep = active.filter((p) => !toDelete.includes(p));
      toDelete.push(...this.#deletionOrder(keep).slice(0, -room));
    }
  }

  async #createPod(job: APIObject, index?: number): Promise<void> {
    const name = job.metadata.name ?? "";
    const template = rec(specOf(job)["template"]);
    const ref = newControllerRef(job, "batch/v1", "Job");
    let pod: APIObject;
    if (index === undefined) pod = podFromTemplate(template, job, ref);
    else {
      const indexKey = this.#completionIndexKey();
      pod = podFromTemplate(template, job, ref, {
        generateName: `${name}-${index}-`,
        labels: { [indexKey]: `${index}` },
        annotations: { [indexKey]: `${index}` },
      });
      const podSpec = specOf(pod);
      if (podSpec["hostname"] === undefined) podSpec["hostname"] = `${name}-${index}`;
      const env = { name: "JOB_COMPLETION_INDEX", valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${indexKey}']` } } };
      for (const field of ["containers", "initContainers"]) {
        for (const c of arr(podSpec[field])) {
          const container = rec(c);
          if (!container) continue;
          const vars = arr(container["env"]);
          if (!vars.some((v) => rec(v)?.["name"] === env.name)) container["env"] = [...vars, env];
        }
      }
    }
    await this.client.resource(podsRef).create(pod, { namespace: job.metadata.namespace ?? "" });
  }
}

/** The {@link ControllerDescriptor} of the Job loop: `job`, on by default. */
export const jobController: ControllerDescriptor = {
  name: "job",
  enabledByDefault: true,
  create: () => new JobController(),
};
