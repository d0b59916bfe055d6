/**
 * The FieldsV1 encoding of a {@link FieldSet}: a JSON object whose keys are path elements
 * (`f:`, `k:`, `v:`, `i:`) and whose values are the subtrees; `{}` is a member with nothing
 * below it, and the key `"."` inside a subtree says the element itself is a member too.
 * @module
 */
import { badRequest } from "@orch/meta";
import { compareElements, parseElement } from "./field-path.js";
import { FieldSet } from "./field-set.js";

/** A FieldsV1 value: nested objects, leaves `{}`. */
export type FieldsV1 = Record<string, unknown>;

/**
 * Decoded sets by the FieldsV1 object they came from (stored objects are immutable and shared).
 * A FieldsV1 object this module encoded carries its set in a hidden symbol-keyed slot (JSON,
 * copies and comparisons never see it; a WeakMap insertion per write cost more than the whole
 * encoding); objects that came from
 * elsewhere (parsed from a store or a request) are cached here.
 */
const decoded = new WeakMap<object, FieldSet>();
const encodedFrom = Symbol("orch.fieldSet");

// Sorts elements in encoded order: by insertion for the few elements of most nodes, which costs
// a third of `Array.prototype.sort` with a comparator (the sort of each node dominated encoding).
function sortElements(elements: string[]): void {
  if (elements.length > 32) {
    elements.sort(compareElements);
    return;
  }
  for (let i = 1; i < elements.length; i++) {
    const e = elements[i] as string;
    let j = i - 1;
    for (; j >= 0 && compareElements(elements[j] as string, e) > 0; j--) elements[j + 1] = elements[j] as string;
    elements[j + 1] = e;
  }
}

function encodeNode(set: FieldSet, selfMember: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (selfMember) out["."] = {};
  const members = set.members;
  const children = set.children;
  // The members, then the elements that only have something below them.
  const elements: string[] = members ? [...members] : [];
  if (children) for (const [e, c] of children) if (!members?.has(e) && !c.isEmpty()) elements.push(e);
  if (elements.length > 1) sortElements(elements);
  for (const e of elements) {
    const c = children?.get(e);
    out[e] = c !== undefined && !c.isEmpty() ? encodeNode(c, members?.has(e) ?? false) : {};
  }
  return out;
}

/** Encodes `set` as FieldsV1 (elements sorted: fields, keys, values, indexes). */
export function encodeFieldsV1(set: FieldSet): FieldsV1 {
  const out = encodeNode(set, false);
  Object.defineProperty(out, encodedFrom, { value: set });
  return out;
}

/**
 * Whether `value` is a FieldsV1 value {@link encodeFieldsV1} made and that has been frozen since
 * (as stored objects are): it then holds nothing but nested objects, with element keys.
 */
export function isEncodedFieldsV1(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { [encodedFrom]?: FieldSet })[encodedFrom] !== undefined && Object.isFrozen(value);
}

function decodeNode(node: unknown, path: string, into: FieldSet): boolean {
  if (node === null || typeof node !== "object" || Array.isArray(node)) {
    throw badRequest(`invalid managed fields entry at ${JSON.stringify(path || ".")}: expected an object`);
  }
  let self = false;
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === ".") {
      if (path === "") throw badRequest(`invalid managed fields entry ".": the root cannot be a member`);
      self = true;
      continue;
    }
    const element = parseElement(key);
    const child = new FieldSet();
    const isSelf = decodeNode(value, `${path}${key}`, child);
    if (isSelf || child.isEmpty()) into.addMember(element);
    if (!child.isEmpty()) (into.children ??= new Map()).set(element, child);
  }
  return self;
}

/**
 * Decodes FieldsV1 into a FieldSet. Results are cached per object, so decoding the same stored
 * entry again costs nothing; the returned set must not be mutated.
 * @throws StatusError 400 naming the first malformed entry.
 */
export function decodeFieldsV1(fields: unknown): FieldSet {
  if (fields !== null && typeof fields === "object") {
    const cached = (fields as { [encodedFrom]?: FieldSet })[encodedFrom] ?? decoded.get(fields);
    if (cached) return cached;
  }
  const set = new FieldSet();
  decodeNode(fields, "", set);
  if (fields !== null && typeof fields === "object") decoded.set(fields, set);
  return set;
}
