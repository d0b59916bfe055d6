/**
 * The ownership bookkeeping shared by apply and update: the managers of an object keyed by
 * identity, the fields no manager may own (`metadata.name`, `metadata.managedFields`, ...), the
 * transfer of changed fields away from other managers, and the cap on update entries.
 * @module
 */
import type { ManagedFieldsEntry } from "@orch/meta";
import { FieldSet } from "../field-set.js";
import { fieldElement } from "../field-path.js";

/** One manager's state while a write is computed. */
export interface ManagerState {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  subresource?: string;
  time?: string;
  fields: FieldSet;
  /** The stored entry this state was decoded from, reused when nothing about it changed. */
  entry?: ManagedFieldsEntry;
  /** The FieldsV1 of `fields`, when already encoded (reused while `fields` stay equal). */
  encoded?: Record<string, unknown>;
}

/** The managers of an object, keyed by identity (name, operation, sub-resource, and API version for updates). */
export type Managers = Map<string, ManagerState>;

/**
 * The identity of a manager: name, operation, sub-resource, and for updates the API version
 * (an applier keeps one identity across versions, as in the reference).
 */
export function managerKey(m: { manager: string; operation: "Apply" | "Update"; apiVersion: string; subresource?: string | undefined }): string {
  const version = m.operation === "Update" ? m.apiVersion : "";
  const subresource = m.subresource ?? "";
  // The JSON of the array below, built without the array: a string's JSON is the same inside it.
  if (
    typeof m.manager === "string" &&
    typeof version === "string" &&
    typeof subresource === "string" &&
    (m.operation === "Update" || m.operation === "Apply")
  ) {
    // Most writes in a row come from one manager: its key is kept and not built again.
    const last = lastKey;
    if (last.manager === m.manager && last.operation === m.operation && last.version === version && last.subresource === subresource) return last.key;
    const key = `[${JSON.stringify(m.manager)},"${m.operation}",${JSON.stringify(version)},${JSON.stringify(subresource)}]`;
    lastKey = { manager: m.manager, operation: m.operation, version, subresource, key };
    return key;
  }
  return JSON.stringify([m.manager, m.operation, version, subresource]);
}

/** The last key {@link managerKey} built, with what it was built from. */
let lastKey = { manager: "", operation: "", version: "", subresource: "", key: '["","Update","",""]' };

/** How the reference prints a manager in conflicts: `"name"`, `"name" using v1`, `... with subresource "status"`. */
export function printManager(m: ManagerState): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === "Update") s += ` using ${m.apiVersion}`;
  return s;
}

const metadataOnly = FieldSet.of([fieldElement("metadata")]);
const stripped = FieldSet.of(
  [fieldElement("apiVersion")],
  [fieldElement("kind")],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"].map((f) => [
    fieldElement("metadata"),
    fieldElement(f),
  ]),
);

/** The fields apply never prunes: type meta and the identity and server-set metadata. */
export const protectedFields: FieldSet = stripped.union(metadataOnly);

/** Removes the fields no manager owns (type meta, identity and server-set metadata) and `ignored` subtrees. */
export function stripOwnership(set: FieldSet, ignored: FieldSet | undefined): FieldSet {
  let s = set.difference(metadataOnly).recursiveDifference(stripped);
  if (ignored) s = s.recursiveDifference(ignored);
  return s;
}

/**
 * A shallow copy of `record` without the member `skip` and, unless `value` is `undefined`, with
 * `key` set to `value` (in its place when `record` has it, else last). Built member by member: a
 * rest pattern (`{ skip, ...rest }`) makes an object that every later copy of it pays for.
 */
function copyMembers(record: Record<string, unknown>, skip: string | undefined, key?: string, value?: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(record)) {
    if (k === skip) continue;
    const v = k === key ? value : record[k];
    if (k === "__proto__") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  if (key !== undefined && value !== undefined && !Object.hasOwn(out, key)) out[key] = value;
  return out;
}

/** `object` without `metadata.managedFields` (a shallow copy only when it has them). */
export function withoutManagedFields<T extends Record<string, unknown>>(object: T): T {
  const metadata = object["metadata"];
  if (metadata === null || typeof metadata !== "object" || !("managedFields" in metadata)) return object;
  return copyMembers(object, undefined, "metadata", copyMembers(metadata as Record<string, unknown>, "managedFields")) as T;
}

/** `object` with `metadata.managedFields` set to `entries` (removed when `entries` is empty). */
export function withManagedFields<T extends Record<string, unknown>>(object: T, entries: ManagedFieldsEntry[]): T {
  const metadata = (object["metadata"] ?? {}) as Record<string, unknown>;
  if (entries.length === 0) {
    if (!("managedFields" in metadata)) return object;
    return copyMembers(object, undefined, "metadata", copyMembers(metadata, "managedFields")) as T;
  }
  return copyMembers(object, undefined, "metadata", copyMembers(metadata, undefined, "managedFields", entries)) as T;
}

/** Sets a manager's fields, marking its stored entry stale when they change. */
export function setFields(m: ManagerState, fields: FieldSet): void {
  if (fields === m.fields || fields.equals(m.fields)) return;
  delete m.entry;
  delete m.encoded;
  m.fields = fields;
}

/** The default cap on update entries before the oldest fold into `ancient-changes`. */
export const maxUpdateManagers = 10;

/**
 * Folds the oldest update entries into one `ancient-changes` entry per API version until at
 * most `max` update entries remain (the reference's `capManagersManager`).
 */
export function capUpdateManagers(managers: Managers, max = maxUpdateManagers): void {
  // Counted first: nearly every write is under the cap, and then nothing is copied.
  let count = 0;
  for (const m of managers.values()) if (m.operation === "Update") count++;
  if (count <= max) return;
  const updaters = [...managers.entries()].filter(([, m]) => m.operation === "Update");
  updaters.sort(([ka, a], [kb, b]) => {
    const ta = a.time ?? "";
    const tb = b.time ?? "";
    if (ta !== tb) return ta < tb ? -1 : 1;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const [key, m] = updaters[i] as [string, ManagerState];
    const bucketKey = managerKey({ manager: "ancient-changes", operation: "Update", apiVersion: m.apiVersion });
    const first = firstOfVersion.get(m.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(m.apiVersion, key);
      continue;
    }
    let bucket = managers.get(bucketKey);
    if (!bucket) {
      const firstState = managers.get(first);
      if (!firstState) continue;
      managers.delete(first);
      bucket = { manager: "ancient-changes", operation: "Update", apiVersion: m.apiVersion, fields: firstState.fields };
      if (firstState.time !== undefined) bucket.time = firstState.time;
      managers.set(bucketKey, bucket);
    }
    const merged: ManagerState = { manager: "ancient-changes", operation: "Update", apiVersion: m.apiVersion, fields: bucket.fields.union(m.fields) };
    if (m.time !== undefined) merged.time = m.time;
    managers.set(bucketKey, merged);
    managers.delete(key);
    length--;
  }
}

/**
 * Takes `changed` (added or modified) and `removed` fields away from every manager but `self`;
 * with `force` false, returns instead the fields of other managers that `changed` touches.
 */
export function transferOwnership(managers: Managers, self: string, changed: FieldSet, removed: FieldSet, force: boolean): Map<string, FieldSet> | undefined {
  const conflicts = new Map<string, FieldSet>();
  if (changed.isEmpty() && removed.isEmpty()) return undefined;
  for (const [key, m] of managers) {
    if (key === self) continue;
    const c = m.fields.intersection(changed);
    if (!c.isEmpty()) conflicts.set(key, c);
  }
  if (!force && conflicts.size) return conflicts;
  for (const [key, m] of managers) {
    if (key === self) continue;
    let f = m.fields;
    if (conflicts.has(key)) f = f.difference(changed);
    f = f.difference(removed);
    setFields(m, f);
  }
  return undefined;
}

/** Drops managers that own nothing. */
export function dropEmptyManagers(managers: Managers): void {
  for (const [key, m] of managers) if (m.fields.isEmpty()) managers.delete(key);
}
