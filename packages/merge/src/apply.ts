/**
 * Server-side apply: merges an applied configuration into the live object under field
 * ownership, as the reference's structured-merge-diff `Updater.Apply` wrapped by the API
 * server's field manager.
 * @module
 */
import { badRequest, formatTime, statusError, type ManagedFieldsEntry, type StatusCause, type StatusError } from "@orch/meta";
import { formatPath } from "./field-path.js";
import type { FieldSet } from "./field-set.js";
import {
  capUpdateManagers,
  dropEmptyManagers,
  managerKey,
  printManager,
  protectedFields,
  setFields,
  stripOwnership,
  transferOwnership,
  withManagedFields,
  withoutManagedFields,
  type ManagerState,
} from "./internal/ownership.js";
import { compareObjects, deepEqual, fieldSetOf, isObject, mergeObjects, pruneObject } from "./internal/walk.js";
import {
  decodeManagedFieldsLenient,
  encodeManagedFields,
  reconcileManagers,
  recordUpdate,
  type JSONObject,
  type ManagedWriteResult,
} from "./managed-fields.js";
import type { TypeNode } from "./type-info.js";

/** The manager that owns the fields of an object first applied to without any managedFields. */
export const beforeFirstApplyManager = "before-first-apply";

/** The inputs of {@link apply}. */
export interface ApplyOptions {
  /** The stored object, `undefined` when the apply creates it. */
  live: JSONObject | undefined;
  /** The applied configuration (parsed body); must not carry `metadata.managedFields`. */
  applied: JSONObject;
  /** The field manager (required for apply; see `validateFieldManager`). */
  manager: string;
  /** Take conflicting fields from their owners instead of failing. */
  force: boolean;
  /** The API version of the request (recorded on the entry). */
  apiVersion: string;
  /** The time of the write, in milliseconds since the epoch. */
  now: number;
  /** The type of the object (from {@link typeInfoOf}, or {@link unstructured}). */
  typeInfo: TypeNode;
  /** The sub-resource applied through, if any. */
  subresource?: string | undefined;
  /** Fields this write cannot set (a main-resource write's `status`): never owned through it. */
  ignoredFields?: FieldSet | undefined;
  /**
   * Re-applies defaults after fields were pruned, so a field left without owner is reset to
   * its default rather than removed. Must not mutate its argument.
   */
  defaults?: ((object: JSONObject) => JSONObject) | undefined;
}

/** One field of an apply conflict: who owns it and where it is. */
export interface ApplyConflict {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  subresource?: string;
  /** As the reference prints it: `.spec.replicas`, `.spec.containers[name="x"].image`. */
  field: string;
}

/**
 * The 409 of an apply conflict, as the reference builds it: reason `Conflict`, one cause per
 * field (`FieldManagerConflict`, `conflict with "<manager>"[ using <apiVersion>]`), and the
 * message `Apply failed with 1 conflict: conflict with "m": .spec.replicas` or, for several,
 * `Apply failed with N conflicts: conflicts with "m":\n- .a\n- .b`.
 */
export function applyConflictError(conflicts: readonly ApplyConflict[]): StatusError {
  const printed = conflicts.map((c) => {
    const state: ManagerState = { manager: c.manager, operation: c.operation, apiVersion: c.apiVersion, fields: undefined as unknown as FieldSet };
    if (c.subresource) state.subresource = c.subresource;
    return { who: printManager(state), field: c.field };
  });
  const causes: StatusCause[] = printed.map((p) => ({ reason: "FieldManagerConflict", message: `conflict with ${p.who}`, field: p.field }));
  let message: string;
  if (printed.length === 1) {
    const only = printed[0] as { who: string; field: string };
    message = `Apply failed with 1 conflict: conflict with ${only.who}: ${only.field}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const p of printed) {
      const list = byManager.get(p.who) ?? [];
      list.push(p.field);
      byManager.set(p.who, list);
    }
    const lines: string[] = [];
    for (const who of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${who}:`);
      for (const f of byManager.get(who) ?? []) lines.push(`- ${f}`);
    }
    message = `Apply failed with ${printed.length} conflicts: ${lines.join("\n")}`;
  }
  return statusError("Conflict", message, { details: { causes } });
}

/**
 * Applies `applied` to `live` for `manager`:
 *
 * - applied values win; lists, maps and structs merge by their type (atomic replaced whole,
 *   granular key by key, set and map lists entry by entry);
 * - the manager owns exactly the fields it applied (equal values give shared ownership);
 * - fields it applied before and omits now are removed, unless another manager owns them;
 *   `defaults` then resets what was removed to its default;
 * - changing a field another manager owns is a 409 (see {@link applyConflictError}) unless
 *   `force`, which takes the field from every other manager;
 * - an object that has no managedFields yet is first owned whole by `before-first-apply`;
 * - an apply that changes nothing returns the live object and its managedFields unchanged.
 *
 * @throws StatusError 409 Conflict on conflicts without `force`; 400 when `applied` carries
 *   `metadata.managedFields`; 422 when a keyed list of `applied` has duplicate or unkeyed entries.
 */
export function apply(options: ApplyOptions): ManagedWriteResult {
  const { live, applied, manager, force, apiVersion, now, typeInfo, subresource, ignoredFields, defaults } = options;
  const appliedMeta = applied["metadata"];
  if (isObject(appliedMeta) && appliedMeta["managedFields"] !== undefined && appliedMeta["managedFields"] !== null) {
    throw badRequest("metadata.managedFields must be nil");
  }
  const liveMeta = live?.["metadata"];
  const managers = decodeManagedFieldsLenient(isObject(liveMeta) ? liveMeta["managedFields"] : undefined);
  const originalEntries = encodeManagedFields(managers);
  reconcileManagers(managers, typeInfo);
  const liveS: JSONObject = live ? withoutManagedFields(live) : {};
  if (live && managers.size === 0) {
    recordUpdate(managers, {}, liveS, { manager: beforeFirstApplyManager, apiVersion, subresource: undefined, now, typeInfo, ignoredFields });
  }

  const selfState: ManagerState = { manager, operation: "Apply", apiVersion, fields: undefined as unknown as FieldSet };
  if (subresource) selfState.subresource = subresource;
  const self = managerKey(selfState);
  const previous = managers.get(self);
  const lastSet = previous?.fields;

  const appliedS = withoutManagedFields(applied);
  const fullConfigSet = fieldSetOf(appliedS, typeInfo, true);
  const configSet = stripOwnership(fullConfigSet, ignoredFields);
  let merged = mergeObjects(liveS, appliedS, typeInfo);

  const mine: ManagerState = previous ?? selfState;
  if (previous) {
    if (previous.apiVersion !== apiVersion) {
      previous.apiVersion = apiVersion;
      delete previous.entry;
    }
    setFields(previous, configSet);
  } else {
    mine.fields = configSet;
    managers.set(self, mine);
  }

  if (lastSet && !lastSet.isEmpty()) {
    const owned = [...[...managers.values()].map((m) => m.fields), fullConfigSet, protectedFields];
    {
      const pruned = pruneObject(merged, typeInfo, lastSet, owned);
      if (pruned !== merged) merged = defaults ? defaults(pruned) : pruned;
    }
  }

  const cmp = compareObjects(liveS, merged, typeInfo);
  let changed = cmp.added.union(cmp.modified);
  let removed = cmp.removed;
  if (ignoredFields) {
    changed = changed.recursiveDifference(ignoredFields);
    removed = removed.recursiveDifference(ignoredFields);
  }
  const conflicts = transferOwnership(managers, self, changed, removed, force);
  if (conflicts) {
    const list: ApplyConflict[] = [];
    for (const [key, fields] of conflicts) {
      const m = managers.get(key) as ManagerState;
      for (const path of fields.leaves()) {
        const c: ApplyConflict = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion, field: formatPath(path) };
        if (m.subresource) c.subresource = m.subresource;
        list.push(c);
      }
    }
    throw applyConflictError(list);
  }
  dropEmptyManagers(managers);
  capUpdateManagers(managers);

  // A no-op apply keeps the stored entries, timestamps included (the reference's
  // IgnoreManagedFieldsTimestampsTransformer), so applying twice changes nothing.
  if (live && (merged === liveS || deepEqual(merged, liveS))) {
    const entries = encodeManagedFields(managers);
    if (sameOwnership(entries, originalEntries)) return { object: live, managedFields: originalEntries };
    const stillMine = managers.get(self);
    if (stillMine) {
      stillMine.time = formatTime(now);
      delete stillMine.entry;
    }
    const managedFields = encodeManagedFields(managers);
    return { object: withManagedFields(liveS, managedFields), managedFields };
  }
  const stillMine = managers.get(self);
  if (stillMine) {
    stillMine.time = formatTime(now);
    delete stillMine.entry;
  }
  const managedFields = encodeManagedFields(managers);
  return { object: withManagedFields(merged, managedFields), managedFields };
}

function sameOwnership(a: readonly ManagedFieldsEntry[], b: readonly ManagedFieldsEntry[]): boolean {
  if (a.length !== b.length) return false;
  const key = (e: ManagedFieldsEntry) => JSON.stringify([e.manager, e.operation, e.apiVersion, e.subresource ?? ""]);
  const byKey = new Map(b.map((e) => [key(e), e]));
  for (const e of a) {
    const o = byKey.get(key(e));
    if (!o) return false;
    if (o !== e && !deepEqual(o.fieldsV1, e.fieldsV1)) return false;
  }
  return true;
}
