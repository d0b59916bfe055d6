/**
 * {@link inWireOrder}: an object with its members in the order the reference writes them, put
 * so once when it is stored, so every answer made from the stored text (get, list items, watch
 * events, the answer of a write) has that order at no cost per read.
 * @module
 */
import type { APIObject } from "@orch/meta";

/** The members the reference writes first, in its order (TypeMeta, then ObjectMeta). */
const leading = ["kind", "apiVersion", "metadata"] as const;

/** The members of ObjectMeta in the reference's order. */
const metadataOrder = [
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
] as const;

/** `record` with the members named in `order` first, in that order, then the others as they were. */
function ordered(record: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of order) if (record[key] !== undefined) out[key] = record[key];
  for (const key of Object.keys(record)) if (!(key in out) && record[key] !== undefined) out[key] = record[key];
  return out;
}

/**
 * `object` with `kind`, `apiVersion` and `metadata` first (and the members of `metadata` in the
 * reference's order), the rest as it was: a new object, shallow (members are shared).
 */
export function inWireOrder(object: APIObject): APIObject {
  const record = object as unknown as Record<string, unknown>;
  const out = ordered(record, leading);
  const metadata = record["metadata"];
  if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata))
    out["metadata"] = ordered(metadata as Record<string, unknown>, metadataOrder);
  return out as unknown as APIObject;
}

/** The members of ObjectMeta the reference writes before `resourceVersion`. */
const beforeResourceVersion: ReadonlySet<string> = new Set(metadataOrder.slice(0, metadataOrder.indexOf("resourceVersion")));

/**
 * `metadata` (of a stored object, in the reference's order) with `resourceVersion` set to
 * `resourceVersion` at the reference's place: after `uid`, before `generation`. A new object.
 */
export function withResourceVersion<M extends object>(metadata: M, resourceVersion: string): M & { resourceVersion: string } {
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const [key, value] of Object.entries(metadata)) {
    if (key === "resourceVersion") continue;
    if (!placed && !beforeResourceVersion.has(key)) {
      out["resourceVersion"] = resourceVersion;
      placed = true;
    }
    out[key] = value;
  }
  if (!placed) out["resourceVersion"] = resourceVersion;
  return out as M & { resourceVersion: string };
}
