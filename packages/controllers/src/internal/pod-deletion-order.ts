/**
 * The order in which a replica loop deletes its surplus Pods (the reference's
 * `ActivePodsWithRanks`), see {@link sortPodsForDeletion}.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { arr, int, rec, statusOf } from "./object-fields.js";
import { isPodReady, nodeNameOf, podPhase, podReadyTime } from "./pods.js";
import { timeOf } from "./time-of.js";

const phaseOrdinal: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const ordinalOf = (pod: APIObject): number => phaseOrdinal[podPhase(pod)] ?? 0;

function maxRestarts(pod: APIObject): number {
  return Math.max(0, ...arr(statusOf(pod)["containerStatuses"]).map((c) => int(rec(c)?.["restartCount"])));
}

/** The deletion cost of a Pod from its annotation `key`; 0 when absent or not an int32. */
function deletionCost(pod: APIObject, key: string): number {
  const text = pod.metadata.annotations?.[key];
  if (text === undefined || !/^-?\d+$/.test(text)) return 0;
  const value = Number(text);
  return value >= -(2 ** 31) && value < 2 ** 31 ? value : 0;
}

/** Whether `a` is after `b`, a zero time being before anything (`afterOrZero`). */
function afterOrZero(a: number, b: number): boolean {
  if (a === 0 || b === 0) return a === 0;
  return a > b;
}

/** `floor(log2(now - t))` in nanoseconds, -1 for a time not before now. */
function logRank(t: number, now: number): number {
  const d = (now - t) * 1e6;
  return d > 0 ? Math.floor(Math.log2(d)) : -1;
}

/** Compares two times as the reference does with logarithmic scale-down: newer first, equal log ranks by uid. */
function newerFirst(ta: number, tb: number, a: APIObject, b: APIObject, now: number): number {
  if (ta === tb) return 0;
  if (ta === 0 || tb === 0) return afterOrZero(ta, tb) ? -1 : 1;
  const diff = logRank(ta, now) - logRank(tb, now);
  if (diff === 0) return (a.metadata.uid ?? "") < (b.metadata.uid ?? "") ? -1 : 1;
  return diff < 0 ? -1 : 1;
}

/** A Pod with its rank: the number of active related Pods on its node. */
export interface RankedPod {
  /** The Pod. */
  pod: APIObject;
  /** How many active Pods of the same controller share its node. */
  rank: number;
}

/**
 * Sorts `pods` so that the Pods to delete first come first (`ActivePodsWithRanks`):
 * unscheduled before scheduled, Pending before Unknown before Running, not ready before ready,
 * lower deletion cost (annotation `costAnnotation`) first, more colocated related Pods first,
 * ready for a shorter time first, more container restarts first, newer first (times compared on
 * a logarithmic scale from `now`, ties broken by uid).
 */
export function sortPodsForDeletion(pods: RankedPod[], now: number, costAnnotation: string): RankedPod[] {
  const compare = (x: RankedPod, y: RankedPod): number => {
    const a = x.pod;
    const b = y.pod;
    const na = nodeNameOf(a);
    const nb = nodeNameOf(b);
    if (na !== nb && (na === "" || nb === "")) return na === "" ? -1 : 1;
    if (ordinalOf(a) !== ordinalOf(b)) return ordinalOf(a) - ordinalOf(b);
    if (isPodReady(a) !== isPodReady(b)) return isPodReady(a) ? 1 : -1;
    const ca = deletionCost(a, costAnnotation);
    const cb = deletionCost(b, costAnnotation);
    if (ca !== cb) return ca - cb;
    if (x.rank !== y.rank) return y.rank - x.rank;
    if (isPodReady(a) && isPodReady(b)) {
      const byReady = newerFirst(podReadyTime(a), podReadyTime(b), a, b, now);
      if (byReady !== 0) return byReady;
    }
    if (maxRestarts(a) !== maxRestarts(b)) return maxRestarts(b) - maxRestarts(a);
    return newerFirst(timeOf(a.metadata.creationTimestamp) ?? 0, timeOf(b.metadata.creationTimestamp) ?? 0, a, b, now);
  };
  return [...pods].sort(compare);
}
