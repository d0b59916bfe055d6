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

/** The rank of each name of an order. */
function ranks(order: readonly string[]): ReadonlyMap<string, number> {
  return new Map(order.map((key, i) => [key, i]));
}

const leadingRanks = ranks(leading);
const metadataRanks = ranks(metadataOrder);

/**
 * `record` with the members named in `order` (ranked by {@link ranks}) first, in that order, then
 * the others as they were (but for names an object inherits, such as `toString`); without the
 * member `skip` and members whose value is `undefined`. Only the members `record` has are read:
 * looking up each name of the order, most of them absent, cost more than the copy.
 */
function ordered(record: Record<string, unknown>, order: ReadonlyMap<string, number>, skip?: string): Record<string, unknown> {
  const placed: (string | undefined)[] = [];
  let rest: string[] | undefined;
  for (const key of Object.keys(record)) {
    if (key === skip) continue;
    const rank = order.get(key);
    if (rank !== undefined) placed[rank] = key;
    else if (!(key in Object.prototype)) (rest ??= []).push(key);
  }
  const out: Record<string, unknown> = {};
  for (let i = 0; i < placed.length; i++) {
    const key = placed[i];
    if (key === undefined) continue;
    const value = record[key];
    if (value !== undefined) out[key] = value;
  }
  if (rest) {
    for (const key of rest) {
      const value = record[key];
      if (value !== undefined) out[key] = value;
    }
  }
  return out;
}

/**
 * `object` with `kind`, `apiVersion` and `metadata` first (and the members of `metadata` in the
 * reference's order), the rest as it was: a new object, shallow (members are shared). With
 * `withoutResourceVersion`, `metadata.resourceVersion` is left out (what a store keeps: the
 * version is the entry's revision), in the same copy.
 */
export function inWireOrder(object: APIObject, withoutResourceVersion = false): APIObject {
  const record = object as unknown as Record<string, unknown>;
  const out = ordered(record, leadingRanks);
  const metadata = record["metadata"];
  if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata))
    out["metadata"] = ordered(metadata as Record<string, unknown>, metadataRanks, withoutResourceVersion ? "resourceVersion" : undefined);
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
  const members = metadata as Record<string, unknown>;
  for (const key in members) {
    const value = members[key];
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
