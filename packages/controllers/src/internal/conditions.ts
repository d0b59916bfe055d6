/**
 * The `status.conditions` of objects held as plain JSON: reading one, and setting one the way the
 * Job and CronJob loops write theirs.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { arr, rec, statusOf } from "./object-fields.js";

/** The condition of `type` of an object's status, if any. */
export function conditionOf(object: APIObject, type: string): Record<string, unknown> | undefined {
  return arr(statusOf(object)["conditions"])
    .map(rec)
    .find((c) => c?.["type"] === type);
}

/** A condition to set with {@link setCondition}. */
export interface ConditionInput {
  /** The condition's type (`Complete`, `Failed`, ...). */
  type: string;
  /** Its status. */
  status: "True" | "False";
  /** A CamelCase reason. */
  reason: string;
  /** A human-readable message. */
  message: string;
}

/**
 * Sets `condition` in `status.conditions`: a new one (or one whose status changes) gets `now` as
 * its `lastTransitionTime` and `lastProbeTime` (with `probe`); one of the same status keeps its
 * transition time and takes the new reason and message. Answers whether anything changed.
 */
export function setCondition(status: Record<string, unknown>, condition: ConditionInput, now: string, probe = true): boolean {
  const conditions = arr(status["conditions"]).map((c) => rec(c) ?? {});
  const i = conditions.findIndex((c) => c["type"] === condition.type);
  const old = conditions[i];
  if (old && old["status"] === condition.status && old["reason"] === condition.reason && old["message"] === condition.message) return false;
  const transition = old && old["status"] === condition.status && typeof old["lastTransitionTime"] === "string" ? old["lastTransitionTime"] : now;
  const next = { ...condition, ...(probe ? { lastProbeTime: now } : {}), lastTransitionTime: transition };
  if (i < 0) conditions.push(next);
  else conditions[i] = next;
  status["conditions"] = conditions;
  return true;
}

/** True when `object`'s condition of `type` is True. */
export function hasTrueCondition(object: APIObject, type: string): boolean {
  return conditionOf(object, type)?.["status"] === "True";
}
