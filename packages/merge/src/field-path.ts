/**
 * Path elements of server-side apply, kept in their FieldsV1 spelling so a field set is a trie
 * of plain strings: `f:<name>` a struct field or map key, `k:{"name":"x"}` an entry of a map
 * list (its key fields, sorted by name), `v:"x"` an element of a set list, `i:0` a list index.
 * @module
 */
import { badRequest } from "@orch/meta";

/** One path element in its FieldsV1 spelling (`f:spec`, `k:{"name":"x"}`, `v:"x"`, `i:0`). */
export type PathElement = string;

/** A path from the root of an object: one element per level. */
export type FieldPathElements = readonly PathElement[];

// The elements of recently seen names. The same few hundred names come back on every write, and
// one string per name (its hash computed once) is cheaper as a Set, Map and property key than a
// new concatenation per use. Names come from clients, so the cache is emptied when it fills.
const fieldElements = new Map<string, PathElement>();
const fieldElementsMax = 4096;

/** The element of a struct field or map key `name`. */
export function fieldElement(name: string): PathElement {
  let element = fieldElements.get(name);
  if (element === undefined) {
    if (fieldElements.size >= fieldElementsMax) fieldElements.clear();
    element = `f:${name}`;
    fieldElements.set(name, element);
  }
  return element;
}

/**
 * Canonical compact JSON: object keys sorted, so equal values give equal strings (the identity
 * of `k:` and `v:` elements).
 */
export function canonicalJSON(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON(record[k])}`).join(",")}}`;
}

/** The element of a map-list entry whose key fields are `key` (sorted by name here). */
export function keyElement(key: Readonly<Record<string, unknown>>): PathElement {
  return `k:${canonicalJSON(key)}`;
}

/** The element of a set-list value. */
export function valueElement(value: unknown): PathElement {
  return `v:${canonicalJSON(value)}`;
}

/** The element of a list index (used where no key identifies an entry). */
export function indexElement(index: number): PathElement {
  return `i:${index}`;
}

/** The four kinds of path element, named as the reference names them. */
export type PathElementKind = "field" | "key" | "value" | "index";

/** The kind of `element`, or `undefined` when its prefix is none of `f:`, `k:`, `v:`, `i:`. */
export function elementKind(element: PathElement): PathElementKind | undefined {
  switch (element.slice(0, 2)) {
    case "f:":
      return "field";
    case "k:":
      return "key";
    case "v:":
      return "value";
    case "i:":
      return "index";
    default:
      return undefined;
  }
}

/**
 * Checks and canonicalises one element read from outside (FieldsV1, a client): `k:` must hold a
 * non-empty JSON object of scalars, `v:` any JSON value, `i:` a non-negative integer.
 * @throws StatusError 400 naming the element when it is malformed.
 */
export function parseElement(element: string): PathElement {
  const kind = elementKind(element);
  const body = element.slice(2);
  const bad = (why: string) => badRequest(`invalid managed fields entry ${JSON.stringify(element)}: ${why}`);
  switch (kind) {
    case "field":
      return element;
    case "index":
      if (!/^(0|[1-9][0-9]*)$/.test(body)) throw bad("an index must be a non-negative integer");
      return element;
    case "key":
    case "value": {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        throw bad("not valid JSON");
      }
      if (kind === "value") return valueElement(parsed);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed) || Object.keys(parsed).length === 0) {
        throw bad("a key must be a non-empty JSON object");
      }
      return keyElement(parsed as Record<string, unknown>);
    }
    default:
      throw bad("the prefix must be one of f:, k:, v:, i:, or the key '.'");
  }
}

function printScalar(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") {
    if (Array.isArray(value)) return `[${value.map(printScalar).join(", ")}]`;
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}=${printScalar(v)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** One element as the reference prints it: `.name`, `[name="x",port=80]`, `[="x"]`, `[0]`. */
export function formatElement(element: PathElement): string {
  const body = element.slice(2);
  switch (elementKind(element)) {
    case "field":
      return `.${body}`;
    case "index":
      return `[${body}]`;
    case "value":
      return `[=${printScalar(JSON.parse(body))}]`;
    case "key": {
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.keys(key)
        .sort()
        .map((k) => `${k}=${printScalar(key[k])}`)
        .join(",")}]`;
    }
    default:
      return "{{invalid path element}}";
  }
}

/** A path as the reference prints it in conflicts: `.spec.containers[name="nginx"].image`. */
export function formatPath(path: FieldPathElements): string {
  return path.map(formatElement).join("");
}

/** The rank of an element's kind in encoded output: `f:` 0, `k:` 1, `v:` 2, `i:` 3, anything else 4. */
function kindOrder(e: PathElement): number {
  if (e.charCodeAt(1) !== 58 /* ":" */) return 4;
  switch (e.charCodeAt(0)) {
    case 102 /* f */:
      return 0;
    case 107 /* k */:
      return 1;
    case 118 /* v */:
      return 2;
    case 105 /* i */:
      return 3;
    default:
      return 4;
  }
}

/** The order of elements in encoded output: fields, keys, values, indexes; then by text. */
export function compareElements(a: PathElement, b: PathElement): number {
  const ka = kindOrder(a);
  const kb = kindOrder(b);
  if (ka !== kb) return ka - kb;
  if (ka === 3) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}
