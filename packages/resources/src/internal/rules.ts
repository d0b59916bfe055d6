/**
 * Rules several kinds share: config-map keys (ConfigMap and Secret), finalizer names of the core
 * kinds, immutability, and small readers of untyped objects.
 * @module
 */
import {
  utf8ByteLength as utf8Length,
  extensionPrefix,
  forbiddenField,
  invalidField,
  validateQualifiedName,
  type FieldError,
  type FieldPath,
} from "@orch/meta";

/** The most bytes `data` plus `binaryData` of a ConfigMap, or `data` of a Secret, may hold. */
export const maxDataBytes = 1024 * 1024;

const configKeyFmt = "[-._a-zA-Z0-9]+";
const configKeyPattern = /^[-._a-zA-Z0-9]+$/;
const configKeyMessage =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '" +
  configKeyFmt +
  "')";

/** The reference's `IsConfigMapKey` messages for `key` (empty when it is valid). */
export function configKeyMessages(key: string): string[] {
  const messages: string[] = [];
  if (key.length > 253 && utf8Length(key) > 253) messages.push("must be no more than 253 characters");
  if (!configKeyPattern.test(key)) messages.push(configKeyMessage);
  if (key === ".") messages.push("must not be '.'");
  else if (key === "..") messages.push("must not be '..'");
  else if (key.startsWith("..")) messages.push("must not start with '..'");
  return messages;
}

/** Field errors for the keys of `map` at `path` (`data[key]`). */
export function validateConfigKeys(map: Readonly<Record<string, unknown>> | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of Object.keys(map ?? {})) {
    for (const msg of configKeyMessages(key)) errors.push(invalidField(path.key(key), key, msg));
  }
  return errors;
}

/**
 * The finalizer names a core kind accepts without a `/`: the product's own (`orch`, or
 * `kubernetes` for domain `k8s.io`), `orphan` and `foregroundDeletion`.
 */
export function standardFinalizers(domain: string): ReadonlySet<string> {
  return new Set([extensionPrefix(domain), "orphan", "foregroundDeletion"]);
}

/** The core kinds' extra finalizer rule (`validateKubeFinalizerName`). */
export function validateStandardFinalizerName(name: string, path: FieldPath | string, domain: string): FieldError[] {
  if (!name.includes("/") && !standardFinalizers(domain).has(name)) {
    return [invalidField(path, name, "name is neither a standard finalizer name nor is it fully qualified")];
  }
  return [];
}

/** Every rule of a core kind's finalizer name: a qualified name, then {@link validateStandardFinalizerName}. */
export function validateFinalizerName(name: string, path: FieldPath | string, domain: string): FieldError[] {
  return [...validateQualifiedName(name, path), ...validateStandardFinalizerName(name, path, domain)];
}

/** A plain JSON object, or `undefined`. */
export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A string map (labels, data), or `{}`. */
export function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(value) ?? {})) if (typeof v === "string") out[k] = v;
  return out;
}

/** A string, or `""`. */
export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The array at `value`, or `[]`. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The strings of the array at `value` (other entries dropped), or `[]`. */
export function strings(value: unknown): string[] {
  return list(value).filter((v): v is string => typeof v === "string");
}

/** The objects of the array at `value` (other entries as `{}`), or `[]`. */
export function records(value: unknown): Record<string, unknown>[] {
  return list(value).map((v) => record(v) ?? {});
}

/** Semantic equality of JSON values: key order ignored, an absent map equals an empty one. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ra = record(a);
  const rb = record(b);
  if ((a === undefined && rb && Object.keys(rb).length === 0) || (b === undefined && ra && Object.keys(ra).length === 0)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (ra && rb) {
    const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
    for (const k of keys) if (!jsonEqual(ra[k], rb[k])) return false;
    return true;
  }
  return false;
}

/**
 * The `immutable` rule of ConfigMap and Secret: once the old object has `immutable: true`, it
 * cannot be unset and `fields` cannot change.
 */
export function validateImmutableData(
  object: Readonly<Record<string, unknown>>,
  old: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): FieldError[] {
  if (old["immutable"] !== true) return [];
  const msg = "field is immutable when `immutable` is set";
  const errors: FieldError[] = [];
  if (object["immutable"] !== true) errors.push(forbiddenField("immutable", msg));
  for (const f of fields) if (!jsonEqual(object[f], old[f])) errors.push(forbiddenField(f, msg));
  return errors;
}
