/**
 * {@link TTLAfterFinishedController}: the `ttl-after-finished` controller, the reference's
 * `pkg/controller/ttlafterfinished`. A Job with `spec.ttlSecondsAfterFinished` is deleted (in the
 * foreground, so its Pods go first, and only while it is the same Job) that many seconds after it
 * finished: its `completionTime`, else the time its `Complete` or `Failed` condition became True.
 * Until then its key waits on the clock.
 * @module
 */
import { jobsRef, type Informer } from "@orch/client";
import { isNotFound, type APIObject } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { conditionOf } from "./internal/conditions.js";
import { specOf, statusOf } from "./internal/object-fields.js";
import { QueueController } from "./internal/queue-controller.js";
import { timeOf } from "./internal/time-of.js";
import { isJobFinished } from "./job.js";

/** When the finished `job` finished (ms), or undefined while it runs. */
export function jobFinishTime(job: APIObject): number | undefined {
  if (!isJobFinished(job)) return undefined;
  const completion = timeOf(statusOf(job)["completionTime"]);
  if (completion !== undefined) return completion;
  for (const type of ["Complete", "Failed"]) {
    const c = conditionOf(job, type);
    if (c?.["status"] === "True") return timeOf(c["lastTransitionTime"]);
  }
  return undefined;
}

/** The finished-Job clean-up loop; create one per term of leadership (the {@link ControllerManager} does). */
export class TTLAfterFinishedController extends QueueController {
  /** `ttl-after-finished`. */
  readonly name = "ttl-after-finished";
  #jobs: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const jobs = this.follow(ctx, jobsRef, { when: (job) => typeof specOf(job)["ttlSecondsAfterFinished"] === "number" && isJobFinished(job) });
    this.#jobs = jobs.informer;
    return [jobs.unregister];
  }

  protected async sync(key: string): Promise<void> {
    const job = this.#jobs?.get(key);
    if (!job || job.metadata.deletionTimestamp) return;
    const ttl = specOf(job)["ttlSecondsAfterFinished"];
    const finished = jobFinishTime(job);
    if (typeof ttl !== "number" || finished === undefined) return;
    const wait = finished + ttl * 1000 - this.clock.now();
    if (wait > 0) return this.queue.addAfter(key, wait);
    try {
      await this.client.resource(jobsRef).delete(job.metadata.name ?? "", {
        namespace: job.metadata.namespace ?? "",
        propagationPolicy: "Foreground",
        preconditions: { uid: job.metadata.uid ?? "", ...(job.metadata.resourceVersion ? { resourceVersion: job.metadata.resourceVersion } : {}) },
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/** The {@link ControllerDescriptor} of the finished-Job clean-up loop: `ttl-after-finished`, on by default. */
export const ttlAfterFinishedController: ControllerDescriptor = {
  name: "ttl-after-finished",
  enabledByDefault: true,
  create: () => new TTLAfterFinishedController(),
};
