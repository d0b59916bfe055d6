/**
 * The state of a Pod as the workload loops read it (the reference's `pkg/api/v1/pod` helpers and
 * those of `controller_utils.go`): its phase, node, whether it is active, finished, ready and
 * available, and since when it is ready.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { conditionOf } from "./conditions.js";
import { specOf, statusOf } from "./object-fields.js";
import { timeOf } from "./time-of.js";

/** The phase of a Pod (`Pending` when unset). */
export function podPhase(pod: APIObject): string {
  const phase = statusOf(pod)["phase"];
  return typeof phase === "string" ? phase : "Pending";
}

/** The node a Pod is bound to, `""` while unscheduled. */
export function nodeNameOf(pod: APIObject): string {
  const node = specOf(pod)["nodeName"];
  return typeof node === "string" ? node : "";
}

/** Not `Succeeded`, not `Failed` and not being deleted (`IsPodActive`). */
export function isPodActive(pod: APIObject): boolean {
  return !isPodTerminal(pod) && pod.metadata.deletionTimestamp === undefined;
}

/** True for a Pod that has finished: `Succeeded` or `Failed`. */
export function isPodTerminal(pod: APIObject): boolean {
  const phase = podPhase(pod);
  return phase === "Succeeded" || phase === "Failed";
}

/** The Pod's `Ready` condition is `True` (`IsPodReady`). */
export function isPodReady(pod: APIObject): boolean {
  return conditionOf(pod, "Ready")?.["status"] === "True";
}

/** When the Pod became ready (ms since the epoch); 0 when it is not ready or the time is unknown. */
export function podReadyTime(pod: APIObject): number {
  const condition = conditionOf(pod, "Ready");
  if (condition?.["status"] !== "True") return 0;
  return timeOf(condition["lastTransitionTime"]) ?? 0;
}

/**
 * Ready for longer than `minReadySeconds` at `now` (ms), or ready at all when it is 0
 * (`IsPodAvailable`: the ready time plus the minimum must be strictly before now, and a ready
 * Pod without a known transition time is not available while a minimum applies).
 */
export function isPodAvailable(pod: APIObject, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = podReadyTime(pod);
  return since !== 0 && since + minReadySeconds * 1000 < now;
}
