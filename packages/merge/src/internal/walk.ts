/**
 * The walks of server-side apply over a value and its type: the field set a value sets, the
 * comparison of two values (added, modified, removed), the merge of an applied configuration
 * into a live object, the pruning of fields an applier gave up, and the reconciliation of
 * stored field sets with the current schema. Values are never mutated; unchanged subtrees are
 * shared between input and output.
 * @module
 */
import { statusError } from "@orch/meta";
import { fieldElement, formatElement, formatPath, indexElement, keyElement, valueElement, type PathElement } from "../field-path.js";
import { FieldSet } from "../field-set.js";
import { resolveType, type TypeNode } from "../type-info.js";

type Obj = Record<string, unknown>;

/** Whether `v` is a JSON object (not an array, not null). */
export function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Structural equality of JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Obj;
  const bo = b as Obj;
  let n = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    n++;
    if (!deepEqual(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) n--;
  return n === 0;
}

function isEmptyContainer(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) {
    for (const k in v) if (v[k] !== undefined) return false;
    return true;
  }
  return false;
}

/** A 422 for a configuration whose list cannot be keyed (duplicates, missing keys). */
function typedPatchError(path: readonly PathElement[], why: string) {
  const field = formatPath(path);
  return statusError("Invalid", `failed to create typed patch object: ${field}: ${why}`, {
    details: { causes: [{ reason: "FieldValueInvalid", message: why, field }] },
  });
}

/**
 * The element naming `item` in a list of `type`: `v:` for sets, `k:` for map lists (missing
 * keys take their schema default), `i:` otherwise or when no key can be read (lenient mode).
 */
const itemElements = new WeakMap<TypeNode, WeakMap<object, PathElement>>();

/** The `k:` element of a keyed entry, built directly (keys sorted once per type). */
function keyOf(type: TypeNode, item: Obj): PathElement | undefined {
  const keys = type.keys.length > 1 ? [...type.keys].sort() : type.keys;
  let text = "k:{";
  let found = 0;
  for (const k of keys) {
    const v = item[k] !== undefined ? item[k] : type.keyDefaults.get(k);
    if (v === undefined) continue;
    const value = typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? JSON.stringify(v) : undefined;
    if (value === undefined) return undefined;
    text += `${found++ ? "," : ""}${JSON.stringify(k)}:${value}`;
  }
  return found ? `${text}}` : undefined;
}

function itemElement(type: TypeNode, item: unknown, index: number, strict: readonly PathElement[] | undefined): PathElement {
  if (type.listType === "set") return valueElement(item);
  if (type.listType === "map" && isObject(item)) {
    let cache = itemElements.get(type);
    if (!cache) itemElements.set(type, (cache = new WeakMap()));
    let pe = cache.get(item);
    if (pe === undefined) {
      pe = (strict ? undefined : keyOf(type, item)) ?? slowItemElement(type, item, index, strict);
      if (pe.startsWith("k:")) cache.set(item, pe);
    }
    return pe;
  }
  return slowItemElement(type, item, index, strict);
}

function slowItemElement(type: TypeNode, item: unknown, index: number, strict: readonly PathElement[] | undefined): PathElement {
  if (type.listType === "map") {
    if (isObject(item)) {
      if (strict) {
        for (const k of type.keys) {
          if (item[k] === undefined && type.keyDefaults.get(k) === undefined) {
            throw typedPatchError(
              [...strict, indexElement(index)],
              `associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
            );
          }
        }
        const fast = keyOf(type, item);
        if (fast) return fast;
      }
      const key: Obj = {};
      let found = 0;
      for (const k of type.keys) {
        const v = item[k] !== undefined ? item[k] : type.keyDefaults.get(k);
        if (v !== undefined) {
          key[k] = v;
          found++;
        } else if (strict) {
          throw typedPatchError(
            [...strict, indexElement(index)],
            `associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
          );
        }
      }
      if (found > 0) return keyElement(key);
    } else if (strict) {
      throw typedPatchError([...strict, indexElement(index)], "expected an object in an associative list");
    }
  }
  return indexElement(index);
}

/** The elements of the entries of `list`, first occurrence of each; duplicates throw in strict mode. */
function indexList(type: TypeNode, list: readonly unknown[], strict: readonly PathElement[] | undefined): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const pe = itemElement(type, item, i, strict);
    if (out.has(pe)) {
      if (strict) throw typedPatchError(strict, `duplicate entries for key ${formatElement(pe)}`);
      continue;
    }
    out.set(pe, item);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// fieldSetOf

function collectStruct(value: Obj, type: TypeNode, into: FieldSet, strict: PathElement[] | undefined): void {
  for (const key in value) {
    const v = value[key];
    if (v === undefined) continue;
    const pe = fieldElement(key);
    const t = resolveType(type.field(key), v);
    if (strict) strict.push(pe);
    collectValue(v, t, pe, into, strict, !type.declares(key));
    if (strict) strict.pop();
  }
}

function collectValue(v: unknown, t: TypeNode, pe: PathElement, into: FieldSet, strict: PathElement[] | undefined, entry: boolean): void {
  if (t.atomic || v === null) {
    into.addMember(pe);
    return;
  }
  if (t.kind === "list") {
    const list = v as unknown[];
    if (list.length === 0) {
      // An empty list is owned as a whole, so an applier can say "none".
      into.addMember(pe);
      return;
    }
    const child = new FieldSet();
    const items = t.items;
    for (const [ipe, item] of indexList(t, list, strict)) {
      if (t.listType !== "set") {
        const it = resolveType(items, item);
        if (!it.atomic && isObject(item) && !isEmptyContainer(item)) {
          const sub = new FieldSet();
          if (strict) strict.push(ipe);
          collectStruct(item, it, sub, strict);
          if (strict) strict.pop();
          if (!sub.isEmpty()) (child.children ??= new Map()).set(ipe, sub);
        }
      }
      child.addMember(ipe);
    }
    (into.children ??= new Map()).set(pe, child);
    return;
  }
  // granular struct or map
  const obj = v as Obj;
  if (isEmptyContainer(obj)) {
    into.addMember(pe);
    return;
  }
  const child = new FieldSet();
  collectStruct(obj, t, child, strict);
  if (!child.isEmpty()) (into.children ??= new Map()).set(pe, child);
  if (entry) into.addMember(pe);
}

/**
 * The leaf fields `object` sets: scalars, atomic lists, maps and structs as one member each,
 * every entry of a set or map list as a member (and, for map lists, its fields below it), map
 * entries as members, empty or null objects as members.
 *
 * In `strict` mode (an applied configuration) a map-list entry without its keys or a duplicate
 * entry is a 422; otherwise the first of duplicates wins and unkeyed entries go by index.
 */
export function fieldSetOf(object: unknown, type: TypeNode, strict = false): FieldSet {
  const set = new FieldSet();
  const t = resolveType(type, object);
  if (isObject(object) && !t.atomic) collectStruct(object, t, set, strict ? [] : undefined);
  return set;
}

// ---------------------------------------------------------------------------------------------
// compare

/** What changed between two values: each a set of leaf paths (and of added/removed containers). */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

class Cmp {
  added = new FieldSet();
  modified = new FieldSet();
  removed = new FieldSet();
}

// Hangs the comparison of the children of `pe` below `pe` in `parent`.
function attachChild(c: Cmp, pe: PathElement, parent: Cmp): void {
  if (!c.added.isEmpty()) (parent.added.children ??= new Map()).set(pe, c.added);
  if (!c.modified.isEmpty()) (parent.modified.children ??= new Map()).set(pe, c.modified);
  if (!c.removed.isEmpty()) (parent.removed.children ??= new Map()).set(pe, c.removed);
}

function compareValue(lhs: unknown, rhs: unknown, type: TypeNode, pe: PathElement, out: Cmp): void {
  if (lhs === rhs) return;
  if (lhs === undefined) {
    addedValue(rhs, type, pe, out.added);
    return;
  }
  const t = resolveType(type, rhs !== undefined ? rhs : lhs);
  const tl = resolveType(type, lhs);
  const leaf = t.atomic || tl.kind !== t.kind || tl.atomic || (isEmptyContainer(lhs) && isEmptyContainer(rhs)) || lhs === null || rhs === null;
  if (leaf) {
    if (rhs === undefined) out.removed.addMember(pe);
    else if (!deepEqual(lhs, rhs)) out.modified.addMember(pe);
    return;
  }
  const c = new Cmp();
  if (t.kind === "list") compareLists(lhs as unknown[], rhs as unknown[] | undefined, t, c);
  else compareStructs(lhs as Obj, rhs as Obj | undefined, t, c);
  attachChild(c, pe, out);
  // A container that appears or disappears is itself added or removed (declared struct fields
  // excepted: the reference's typed objects always carry them).
  if (rhs === undefined) out.removed.addMember(pe);
}

// What comparing `undefined` with `rhs` finds (see compareValue): every path of `rhs` is added,
// nothing is modified or removed, so only the added set is built.
function addedValue(rhs: unknown, type: TypeNode, pe: PathElement, added: FieldSet): void {
  const t = resolveType(type, rhs);
  if (t.atomic || isEmptyContainer(rhs)) {
    added.addMember(pe);
    return;
  }
  const child = new FieldSet();
  if (t.kind === "list") addedList(rhs as unknown[], t, child);
  else addedStruct(rhs as Obj, t, child);
  if (!child.isEmpty()) (added.children ??= new Map()).set(pe, child);
  if (!(t.kind === "struct" && t.typed)) added.addMember(pe);
}

function addedStruct(rhs: Obj, t: TypeNode, added: FieldSet): void {
  for (const k in rhs) {
    const r = rhs[k];
    if (r !== undefined) addedValue(r, t.field(k), fieldElement(k), added);
  }
}

function addedList(rhs: unknown[], t: TypeNode, added: FieldSet): void {
  const items = t.items;
  const set = t.listType === "set";
  for (const [pe, rv] of indexList(t, rhs, undefined)) {
    added.addMember(pe);
    if (!set) addedItem(rv, items, pe, added);
  }
}

// compareItem of `undefined` and `rhs`: the fields of an added entry of a map or index list.
function addedItem(rhs: unknown, type: TypeNode, pe: PathElement, added: FieldSet): void {
  if (rhs === undefined) return;
  const t = resolveType(type, rhs);
  if (t.atomic || !isObject(rhs)) return;
  const child = new FieldSet();
  addedStruct(rhs, t, child);
  if (!child.isEmpty()) (added.children ??= new Map()).set(pe, child);
}

function compareStructs(lhs: Obj | undefined, rhs: Obj | undefined, t: TypeNode, out: Cmp): void {
  if (lhs) {
    for (const k in lhs) {
      const l = lhs[k];
      if (l === undefined) continue;
      compareValue(l, rhs ? rhs[k] : undefined, t.field(k), fieldElement(k), out);
    }
  }
  if (rhs) {
    for (const k in rhs) {
      const r = rhs[k];
      if (r === undefined || (lhs && lhs[k] !== undefined)) continue;
      addedValue(r, t.field(k), fieldElement(k), out.added);
    }
  }
}

function compareLists(lhs: unknown[] | undefined, rhs: unknown[] | undefined, t: TypeNode, out: Cmp): void {
  const l = lhs ? indexList(t, lhs, undefined) : new Map<PathElement, unknown>();
  const r = rhs ? indexList(t, rhs, undefined) : new Map<PathElement, unknown>();
  const items = t.items;
  const set = t.listType === "set";
  for (const [pe, lv] of l) {
    const rv = r.get(pe);
    if (rv === undefined) {
      out.removed.addMember(pe);
      if (!set) compareItem(lv, undefined, items, pe, out);
    } else if (!set) compareItem(lv, rv, items, pe, out);
  }
  for (const [pe, rv] of r) {
    if (l.has(pe)) continue;
    out.added.addMember(pe);
    if (!set) addedItem(rv, items, pe, out.added);
  }
}

function compareItem(lhs: unknown, rhs: unknown, type: TypeNode, pe: PathElement, out: Cmp): void {
  if (lhs === rhs) return;
  if (lhs === undefined) {
    addedItem(rhs, type, pe, out.added);
    return;
  }
  const t = resolveType(type, rhs !== undefined ? rhs : lhs);
  if (t.atomic || !isObject(lhs) || !(isObject(rhs) || rhs === undefined)) {
    if (rhs !== undefined && !deepEqual(lhs, rhs)) out.modified.addMember(pe);
    return;
  }
  const c = new Cmp();
  compareStructs(lhs, rhs as Obj | undefined, t, c);
  attachChild(c, pe, out);
}

/** Compares `lhs` (old) with `rhs` (new), both whole objects of `type`. */
export function compareObjects(lhs: unknown, rhs: unknown, type: TypeNode): Comparison {
  const out = new Cmp();
  const t = resolveType(type, rhs ?? lhs);
  if (lhs !== rhs && !t.atomic) compareStructs(isObject(lhs) ? lhs : undefined, isObject(rhs) ? rhs : undefined, t, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// merge

/**
 * Orders the merged entries of a list: entries in both lists follow the applied order, entries
 * only in the live list keep their place relative to them (the reference's merge order).
 */
function mergeOrder(l: Map<PathElement, unknown>, r: Map<PathElement, unknown>): PathElement[] {
  const lhsOrder = [...l.keys()];
  const rhsOrder = [...r.keys()];
  const shared = rhsOrder.filter((pe) => l.has(pe));
  let sharedIdx = 0;
  let nextShared = shared[sharedIdx];
  const out: PathElement[] = [];
  let li = 0;
  let ri = 0;
  while (li < lhsOrder.length || ri < rhsOrder.length) {
    if (li < lhsOrder.length && ri < rhsOrder.length) {
      const pe = lhsOrder[li] as PathElement;
      if (pe === rhsOrder[ri]) {
        out.push(pe);
        li++;
        ri++;
        nextShared = shared[++sharedIdx];
        continue;
      }
      if (r.has(pe) && nextShared !== undefined && nextShared !== pe) {
        li++;
        continue;
      }
    }
    if (li < lhsOrder.length) {
      const pe = lhsOrder[li] as PathElement;
      if (!r.has(pe)) {
        out.push(pe);
        li++;
        continue;
      }
    }
    if (ri < rhsOrder.length) {
      const pe = rhsOrder[ri] as PathElement;
      out.push(pe);
      ri++;
      if (nextShared !== undefined && nextShared === pe) nextShared = shared[++sharedIdx];
    }
  }
  return out;
}

function mergeValue(lhs: unknown, rhs: unknown, type: TypeNode): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined || lhs === null || rhs === null) return rhs;
  const t = resolveType(type, rhs);
  // Leaves keep the live value when equal, so unchanged subtrees stay shared with the live object.
  if (t.atomic || resolveType(type, lhs).kind !== t.kind) return lhs === rhs || deepEqual(lhs, rhs) ? lhs : rhs;
  if (t.kind === "list") {
    const l = indexList(t, lhs as unknown[], undefined);
    const r = indexList(t, rhs as unknown[], undefined);
    const out: unknown[] = [];
    let changed = false;
    for (const pe of mergeOrder(l, r)) {
      const lv = l.get(pe);
      const rv = r.get(pe);
      const v = t.listType === "set" ? (rv !== undefined ? rv : lv) : mergeValue(lv, rv, t.items);
      out.push(v);
    }
    if (out.length === (lhs as unknown[]).length) {
      for (let i = 0; i < out.length; i++) if (out[i] !== (lhs as unknown[])[i]) changed = true;
    } else changed = true;
    return changed ? out : lhs;
  }
  return mergeStructs(lhs as Obj, rhs as Obj, t);
}

function mergeStructs(lhs: Obj, rhs: Obj, t: TypeNode): Obj {
  let out: Obj | undefined;
  for (const k in rhs) {
    const r = rhs[k];
    if (r === undefined) continue;
    const l = lhs[k];
    const v = r === null && t.kind === "struct" ? undefined : mergeValue(l, r, t.field(k));
    if (v !== l) {
      out ??= { ...lhs };
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
  }
  return out ?? lhs;
}

/** Merges an applied configuration into a live object: applied values win, nothing is removed. */
export function mergeObjects(live: Obj, applied: Obj, type: TypeNode): Obj {
  return mergeStructs(live, applied, resolveType(type, applied));
}

// ---------------------------------------------------------------------------------------------
// prune

/**
 * Removes from `value` what the applier owned before (`last`) and nobody owns now (`owned`,
 * every manager's set after the apply). A field owned before through a field below it counts
 * as owned (`EnsureNamedFieldsAreMembers` of the reference); a path counts as owned now when
 * anyone owns it or anything below it.
 */
function touchesAny(owned: readonly FieldSet[], pe: PathElement): boolean {
  for (const o of owned) if (o.touches(pe)) return true;
  return false;
}

function below(owned: readonly FieldSet[], pe: PathElement): FieldSet[] {
  const out: FieldSet[] = [];
  for (const o of owned) {
    const c = o.get(pe);
    if (c) out.push(c);
  }
  return out;
}

function pruneStruct(value: Obj, type: TypeNode, last: FieldSet, owned: readonly FieldSet[]): Obj {
  let out: Obj | undefined;
  for (const k in value) {
    const v = value[k];
    if (v === undefined) continue;
    const pe = fieldElement(k);
    const lastChild = last.get(pe);
    if (!lastChild && !last.hasMember(pe)) continue;
    if (!touchesAny(owned, pe)) {
      out ??= { ...value };
      delete out[k];
      continue;
    }
    if (!lastChild) continue;
    const next = pruneValue(v, type.field(k), lastChild, below(owned, pe));
    if (next !== v) (out ??= { ...value })[k] = next;
  }
  return out ?? value;
}

function pruneValue(v: unknown, type: TypeNode, last: FieldSet, owned: readonly FieldSet[]): unknown {
  const t = resolveType(type, v);
  if (t.atomic || v === null) return v;
  if (t.kind !== "list") return pruneStruct(v as Obj, t, last, owned);
  const list = v as unknown[];
  let out: unknown[] | undefined;
  const seen = new Set<PathElement>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const pe = itemElement(t, item, i, undefined);
    let next: unknown = item;
    if (!seen.has(pe)) {
      seen.add(pe);
      if (last.hasMember(pe) && !touchesAny(owned, pe)) next = undefined;
      else {
        const lastChild = last.get(pe);
        if (lastChild && isObject(item)) next = pruneStruct(item, resolveType(t.items, item), lastChild, below(owned, pe));
      }
    }
    if (next !== item && !out) out = list.slice(0, i);
    if (out && next !== undefined) out.push(next);
  }
  return out ?? list;
}

/**
 * Removes from `object` the fields `last` held that none of `owned` holds any longer (see
 * {@link pruneStruct}); `owned` are every manager's sets after the apply.
 */
export function pruneObject(object: Obj, type: TypeNode, last: FieldSet, owned: readonly FieldSet[]): Obj {
  return pruneStruct(object, resolveType(type, object), last, owned);
}

// ---------------------------------------------------------------------------------------------
// reconcile

/**
 * Rewrites a stored field set for the current schema: below a position that is now atomic (or
 * a scalar), ownership collapses onto the position itself (spec point 10: the owners of the
 * elements own the atomic field). Returns `set` itself when nothing changes.
 */
export function reconcileFieldSet(set: FieldSet, type: TypeNode): FieldSet {
  let byType = reconciled.get(set);
  if (!byType) reconciled.set(set, (byType = new WeakMap()));
  let out = byType.get(type);
  if (!out) byType.set(type, (out = reconcileNode(set, type) ?? set));
  return out;
}

const reconciled = new WeakMap<FieldSet, WeakMap<TypeNode, FieldSet>>();

function typeBelow(type: TypeNode, pe: PathElement): TypeNode {
  if (pe.startsWith("f:")) {
    const t = type.kind === "unstructured" ? resolveType(type, {}) : type;
    return t.kind === "struct" || t.kind === "map" ? t.field(pe.slice(2)) : t;
  }
  return type.items;
}

/** The type of the container below `pe` as seen from the elements stored under it. */
function containerType(type: TypeNode, children: FieldSet): TypeNode {
  if (type.kind !== "unstructured") return type;
  const first = children.members?.values().next().value ?? children.children?.keys().next().value;
  return resolveType(type, first !== undefined && !first.startsWith("f:") ? [] : {});
}

function reconcileNode(set: FieldSet, type: TypeNode): FieldSet | undefined {
  if (!set.children) return undefined;
  let out: FieldSet | undefined;
  for (const [pe, child] of set.children) {
    const t = containerType(typeBelow(type, pe), child);
    let replacement: FieldSet | undefined | null;
    if (t.atomic) replacement = null;
    else replacement = reconcileNode(child, t);
    if (replacement === undefined) continue;
    if (!out) {
      out = new FieldSet();
      if (set.members) out.members = new Set(set.members);
      out.children = new Map(set.children);
    }
    if (replacement === null) {
      out.children?.delete(pe);
      out.addMember(pe);
    } else out.children?.set(pe, replacement);
  }
  return out;
}
