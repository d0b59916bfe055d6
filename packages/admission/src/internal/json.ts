/**
 * Readers of plain JSON (objects decoded from a request, a configuration file or a webhook's
 * answer) that never throw: each returns an empty or `undefined` value for a field of the wrong
 * type. With them, the reference's semantic equality of JSON values and the names Go's
 * `encoding/json` gives JSON types in its errors. Shared by the plugins, PodSecurity, quota and
 * the webhooks.
 * @module
 */

/** A JSON object. */
export type JSONRecord = Record<string, unknown>;

/** `value` as an object, or `undefined` when it is not a (non-array, non-null) object. */
export function record(value: unknown): JSONRecord | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JSONRecord) : undefined;
}

/** `value` as a string, `""` when it is not one. */
export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** `value` as an array (the array itself, not a copy), `[]` when it is not one. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The objects of the array `value` (other elements dropped). */
export function records(value: unknown): JSONRecord[] {
  return list(value).flatMap((x) => {
    const r = record(x);
    return r ? [r] : [];
  });
}

/** The strings of the array `value` (other elements dropped). */
export function strings(value: unknown): string[] {
  return list(value).filter((x): x is string => typeof x === "string");
}

/** The string entries of the object `value` (a label map, `auditAnnotations`), other entries dropped. */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(value) ?? {})) if (typeof v === "string") out[k] = v;
  return out;
}

/** `object[key]` as an object, `{}` when absent or not an object. */
export function child(object: unknown, key: string): JSONRecord {
  return record(record(object)?.[key]) ?? {};
}

/** True when `value` is neither `undefined` nor `null` (a Go pointer that is set). */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * The name Go's `encoding/json` gives the type of a decoded value in its `cannot unmarshal X`
 * errors: `array`, `bool`, `null`, `number`, `string` or `object`.
 */
export function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return value === null ? "null" : typeof value;
}

/** True for what the reference's semantic equality counts as unset: absent, null, `[]`, `{}`. */
function unset(value: unknown): boolean {
  if (!isSet(value)) return true;
  if (Array.isArray(value)) return value.length === 0;
  const r = record(value);
  return r !== undefined && Object.keys(r).length === 0;
}

/**
 * Deep equality as the reference's `equality.Semantic.DeepEqual` sees JSON: an absent field, a
 * null, an empty list and an empty object are all equal (Go's nil and empty slices and maps).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (unset(a) && unset(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  const ra = record(a);
  const rb = record(b);
  if (ra === undefined || rb === undefined) return a === b;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const key of keys) if (!semanticEqual(ra[key], rb[key])) return false;
  return true;
}

/**
 * The paths (`metadata.labels`, `status.phase`) where `a` and `b` differ under
 * {@link semanticEqual}, descending through objects (lists are compared whole).
 */
export function differingPaths(a: unknown, b: unknown, path = ""): string[] {
  if (semanticEqual(a, b)) return [];
  const ra = record(a);
  const rb = record(b);
  if (ra === undefined || rb === undefined) return [path];
  const keys = [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort();
  return keys.flatMap((key) => differingPaths(ra[key], rb[key], path ? `${path}.${key}` : key));
}
