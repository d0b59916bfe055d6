/**
 * `metadata.managedFields`: decoding and encoding of the entries, the ownership an update
 * (POST, PUT, non-apply PATCH) records, clearing through a one-empty-entry list, and the field
 * manager name (default from the User-Agent, validation).
 * @module
 */
import { badRequest, formatTime, invalidField, isBadRequest, requiredField, tooLongField, type FieldError, type ManagedFieldsEntry } from "@orch/meta";
import { FieldSet } from "./field-set.js";
import { decodeFieldsV1, encodeFieldsV1 } from "./fieldsV1.js";
import {
  capUpdateManagers,
  dropEmptyManagers,
  managerKey,
  setFields,
  stripOwnership,
  transferOwnership,
  withManagedFields,
  withoutManagedFields,
  type ManagerState,
  type Managers,
} from "./internal/ownership.js";
import { compareObjects, deepEqual, isObject, reconcileFieldSet } from "./internal/walk.js";
import type { TypeNode } from "./type-info.js";

export type { ManagerState, Managers } from "./internal/ownership.js";

/** The longest field manager name, in bytes (the reference's `FieldManagerMaxLength`). */
export const fieldManagerMaxLength = 128;

/**
 * The field manager of a write that names none: the `User-Agent` up to its first `/`, at most
 * 128 characters (`kubectl/v1.30.0 (linux/amd64)` gives `kubectl`).
 */
export function defaultFieldManager(userAgent: string | undefined): string {
  const agent = userAgent ?? "";
  // A client sends the same User-Agent with each write: the last answer is kept.
  if (agent === lastAgent.agent) return lastAgent.manager;
  const prefix = agent.split("/")[0] ?? "";
  const manager = [...prefix].slice(0, fieldManagerMaxLength).join("");
  lastAgent = { agent, manager };
  return manager;
}

/** The last User-Agent {@link defaultFieldManager} was asked about, and its answer. */
let lastAgent = { agent: "", manager: "" };

const utf8 = new TextEncoder();

/**
 * The errors of a `fieldManager` query parameter, as the reference's `ValidateFieldManager`:
 * over 128 bytes is `Too long`, a non-printable character is `Invalid value`, and for apply a
 * missing one is `Required`. The reference reports them as a 422 `Invalid` of kind
 * `PatchOptions` (or `CreateOptions`/`UpdateOptions`) in group `meta.<domain>`.
 */
export function validateFieldManager(manager: string | undefined, options: { apply?: boolean; path?: string } = {}): FieldError[] {
  const path = options.path ?? "fieldManager";
  if (!manager) return options.apply ? [requiredField(path, "is required for apply patch")] : [];
  const errors: FieldError[] = [];
  if (utf8.encode(manager).length > fieldManagerMaxLength) errors.push(tooLongField(path, manager, fieldManagerMaxLength));
  let i = 0;
  for (const ch of manager) {
    const cp = ch.codePointAt(0) ?? 0;
    if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/u.test(ch) || (ch !== " " && /\p{Zs}/u.test(ch))) {
      errors.push(invalidField(path, manager, `invalid character U+${cp.toString(16).toUpperCase().padStart(4, "0")} (at position ${i})`));
    }
    i += ch.length;
  }
  return errors;
}

function entryError(index: number, why: string) {
  return badRequest(`invalid managedFields entry ${index}: ${why}`);
}

/**
 * Decodes `metadata.managedFields`. `undefined` or `null` decode to no manager.
 * @throws StatusError 400 naming the entry: not an object, an operation other than `Apply` or
 *   `Update`, an empty `apiVersion`, a `fieldsType` other than `FieldsV1`, malformed `fieldsV1`,
 *   or two entries for the same manager identity.
 */
export function decodeManagedFields(entries: unknown): Managers {
  const managers: Managers = new Map();
  if (entries === undefined || entries === null) return managers;
  if (!Array.isArray(entries)) throw badRequest("invalid managedFields: expected a list");
  entries.forEach((raw: unknown, index) => {
    if (!isObject(raw)) throw entryError(index, "expected an object");
    const e = raw as ManagedFieldsEntry & Record<string, unknown>;
    if (e.operation !== "Apply" && e.operation !== "Update") throw entryError(index, "operation must be `Apply` or `Update`");
    if (typeof e.apiVersion !== "string" || e.apiVersion === "") throw entryError(index, "apiVersion must not be empty");
    if (e.fieldsType === undefined || (e.fieldsType as string) === "") throw entryError(index, "missing fieldsType");
    if (e.fieldsType !== "FieldsV1") throw entryError(index, `invalid fieldsType ${JSON.stringify(e.fieldsType)}`);
    if (e.manager !== undefined && typeof e.manager !== "string") throw entryError(index, "manager must be a string");
    if (e.subresource !== undefined && typeof e.subresource !== "string") throw entryError(index, "subresource must be a string");
    if (e.time !== undefined && typeof e.time !== "string") throw entryError(index, "time must be a string");
    let fields: FieldSet;
    try {
      fields = e.fieldsV1 === undefined || e.fieldsV1 === null ? new FieldSet() : decodeFieldsV1(e.fieldsV1);
    } catch (err) {
      if (isBadRequest(err)) throw entryError(index, err.message);
      throw err;
    }
    const state: ManagerState = { manager: e.manager ?? "", operation: e.operation, apiVersion: e.apiVersion, fields, entry: e };
    if (isObject(e.fieldsV1)) state.encoded = e.fieldsV1;
    if (e.subresource) state.subresource = e.subresource;
    if (e.time !== undefined) state.time = e.time;
    const key = managerKey(state);
    if (managers.has(key)) throw entryError(index, `duplicate entry for manager ${JSON.stringify(state.manager)}`);
    managers.set(key, state);
  });
  return managers;
}

/** Decodes, treating a malformed list as empty (the reference's behaviour for stored objects). */
export function decodeManagedFieldsLenient(entries: unknown): Managers {
  try {
    return decodeManagedFields(entries);
  } catch {
    return new Map();
  }
}

const operationOrder = (op: string) => (op === "Apply" ? 0 : 1);

/**
 * Encodes managers as `metadata.managedFields` entries, sorted as the reference sorts them:
 * applies before updates, then by time, manager, API version and sub-resource. An entry whose
 * manager did not change is returned as it was stored.
 */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  // Sized up front: the list is kept with every stored object, and one grown by `push` keeps room
  // for 17 entries whatever it holds.
  const out = new Array<ManagedFieldsEntry>(managers.size);
  let i = 0;
  for (const m of managers.values()) {
    if (m.entry) {
      out[i++] = m.entry;
      continue;
    }
    const e: ManagedFieldsEntry = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion };
    if (m.time !== undefined) e.time = m.time;
    e.fieldsType = "FieldsV1";
    e.fieldsV1 = m.encoded ?? (m.encoded = encodeFieldsV1(m.fields));
    if (m.subresource) e.subresource = m.subresource;
    out[i++] = e;
  }
  return out.length > 1 ? out.sort(compareEntries) : out;
}

/** The reference's order of managedFields entries: applies before updates, then by time, manager, API version and sub-resource. */
function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  if (p.operation !== q.operation) return operationOrder(p.operation ?? "") - operationOrder(q.operation ?? "");
  const pt = p.time ?? "";
  const qt = q.time ?? "";
  if (pt !== qt) return pt < qt ? -1 : 1;
  for (const k of ["manager", "apiVersion", "subresource"] as const) {
    const a = p[k] ?? "";
    const b = q[k] ?? "";
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

/** Whether `managedFields` asks for ownership to be cleared: a list holding one empty entry. */
export function isResetManagedFields(managedFields: unknown): boolean {
  return (
    Array.isArray(managedFields) && managedFields.length === 1 && isObject(managedFields[0]) && Object.values(managedFields[0]).every((v) => v === undefined)
  );
}

/** Reconciles every manager's fields with the current schema (spec point 10). */
export function reconcileManagers(managers: Managers, typeInfo: TypeNode): void {
  for (const m of managers.values()) setFields(m, reconcileFieldSet(m.fields, typeInfo));
}

/** A JSON object (an API object). */
export type JSONObject = Record<string, unknown>;

/** The inputs of {@link updateManagedFields}. */
export interface UpdateManagedFieldsOptions {
  /** The stored object, `undefined` on create. */
  live: JSONObject | undefined;
  /** The object about to be stored (its `managedFields` are read as the reference reads them). */
  next: JSONObject;
  /** The field manager (see {@link defaultFieldManager}). */
  manager: string;
  /** Always `Update`: every write that is not an apply. */
  operation?: "Update";
  /** The API version of the request. */
  apiVersion: string;
  /** The sub-resource written through, if any (`status`, `scale`). */
  subresource?: string | undefined;
  /** The time of the write, in milliseconds since the epoch. */
  now: number;
  /** The type of the object (from {@link typeInfoOf}, or {@link unstructured}). */
  typeInfo: TypeNode;
  /** Fields this write cannot set (a main-resource write's `status`): never owned through it. */
  ignoredFields?: FieldSet | undefined;
}

/** The outcome of a write: the object to store and its `managedFields` (empty when nobody owns anything). */
export interface ManagedWriteResult {
  object: JSONObject;
  managedFields: ManagedFieldsEntry[];
}

function managersOfUpdate(live: JSONObject | undefined, next: JSONObject, subresource: string | undefined): Managers {
  const liveMeta = live?.["metadata"];
  const liveEntries = isObject(liveMeta) ? liveMeta["managedFields"] : undefined;
  if (subresource) return decodeManagedFieldsLenient(liveEntries);
  const nextMeta = next["metadata"];
  const nextEntries = isObject(nextMeta) ? nextMeta["managedFields"] : undefined;
  if (isResetManagedFields(nextEntries)) return new Map();
  if (Array.isArray(nextEntries) && nextEntries.length > 0 && !deepEqual(nextEntries, liveEntries)) {
    // A client may write managedFields directly; a malformed or empty list keeps the stored one.
    try {
      const managers = decodeManagedFields(nextEntries);
      for (const m of managers.values()) {
        delete m.entry;
        delete m.encoded;
      }
      if (managers.size) return managers;
    } catch {
      // fall through
    }
  }
  return decodeManagedFieldsLenient(liveEntries);
}

/**
 * Records the ownership of an update (POST, PUT, non-apply PATCH): the manager takes every field
 * it added or changed, those fields leave every other manager, removed fields leave everyone,
 * managers left with nothing disappear, and at most 10 update entries remain (older ones fold
 * into `ancient-changes`). `managedFields` in `next` are honoured as the reference honours them:
 * one empty entry clears ownership first, an empty or malformed list keeps the stored entries,
 * a valid list replaces them. Never conflicts.
 */
export function updateManagedFields(options: UpdateManagedFieldsOptions): ManagedWriteResult {
  const next = options.next;
  const nextS = withoutManagedFields(next);
  const managedFields = recordedManagedFields(options, nextS);
  if (nextS !== next && managedFields.length > 0) {
    // `nextS` and its metadata are this call's own copies, without managedFields: they take the
    // entries last, where `withManagedFields` would put them in another copy.
    (nextS["metadata"] as Record<string, unknown>)["managedFields"] = managedFields;
    return { object: nextS, managedFields };
  }
  return { object: withManagedFields(nextS, managedFields), managedFields };
}

/**
 * The `managedFields` {@link updateManagedFields} would set on its object, without making that
 * object (a create needs only the entries: the object it stores is made later).
 */
export function updatedManagedFields(options: UpdateManagedFieldsOptions): ManagedFieldsEntry[] {
  return recordedManagedFields(options, withoutManagedFields(options.next));
}

/** The update step of {@link updateManagedFields} on `nextS` (`options.next` without its `managedFields`): the encoded entries. */
function recordedManagedFields(options: UpdateManagedFieldsOptions, nextS: JSONObject): ManagedFieldsEntry[] {
  const { live, next, manager, apiVersion, subresource, now, typeInfo, ignoredFields } = options;
  const managers = managersOfUpdate(live, next, subresource);
  reconcileManagers(managers, typeInfo);
  const liveS = live ? withoutManagedFields(live) : {};
  recordUpdate(managers, liveS, nextS, { manager, apiVersion, subresource, now, typeInfo, ignoredFields });
  capUpdateManagers(managers);
  return encodeManagedFields(managers);
}

/** The update step on decoded managers (shared with apply's `before-first-apply`). */
export function recordUpdate(
  managers: Managers,
  live: JSONObject,
  next: JSONObject,
  o: { manager: string; apiVersion: string; subresource?: string | undefined; now: number; typeInfo: TypeNode; ignoredFields?: FieldSet | undefined },
): void {
  const cmp = compareObjects(live, next, o.typeInfo);
  let changed = cmp.added.union(cmp.modified);
  let removed = cmp.removed;
  if (o.ignoredFields) {
    changed = changed.recursiveDifference(o.ignoredFields);
    removed = removed.recursiveDifference(o.ignoredFields);
  }
  const selfState: ManagerState = { manager: o.manager, operation: "Update", apiVersion: o.apiVersion, fields: new FieldSet() };
  if (o.subresource) selfState.subresource = o.subresource;
  const self = managerKey(selfState);
  transferOwnership(managers, self, changed, removed, true);
  const mine = managers.get(self);
  if (mine) setFields(mine, mine.fields.difference(removed));
  const taken = stripOwnership(changed, undefined);
  if (!taken.isEmpty()) {
    const state = mine ?? selfState;
    setFields(state, state.fields.union(taken));
    state.time = formatTime(o.now);
    delete state.entry;
    managers.set(self, state);
  }
  dropEmptyManagers(managers);
}
