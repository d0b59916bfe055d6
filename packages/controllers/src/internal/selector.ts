/**
 * Label selectors held as plain JSON in a spec (`spec.selector` of a Job, a ReplicaSet, a
 * PodDisruptionBudget).
 * @module
 */
import { labelSelectorFromObject, type APIObject, type LabelSelector, type LabelSelectorObject } from "@orch/meta";
import { rec } from "./object-fields.js";

/** The selector of the `LabelSelector` object `value`; undefined when it is missing or invalid. */
export function selectorOf(value: unknown): LabelSelector | undefined {
  const s = rec(value);
  if (!s) return undefined;
  const parsed = labelSelectorFromObject(s as unknown as LabelSelectorObject);
  return parsed.ok ? parsed.selector : undefined;
}

/** True when the selector object `selector` (a missing or invalid one matches nothing) matches `object`'s labels. */
export function selects(selector: unknown, object: APIObject): boolean {
  return selectorOf(selector)?.matches(object.metadata.labels ?? {}) ?? false;
}
