/**
 * Validation of object names, labels and annotations, with the field paths and messages of the
 * reference system. Every `validate*` function returns the field errors it found (empty when the
 * value is fine); pass them to `invalid(kind, name, errors)` for a 422.
 * @module
 */
import { FieldPath, invalidField, requiredField, type FieldError } from "./field-error.js";
import { dns1123LabelMessages, dns1123SubdomainMessages, labelValueMessages, qualifiedNameMessages, utf8Length } from "./internal/name-rules.js";

/** A field path as a {@link FieldPath} or its printed form (`metadata.labels`). */
export type FieldPathLike = FieldPath | string;

/** The most bytes all annotation keys and values of one object may take together (256 KiB). */
export const totalAnnotationSizeLimitBytes = 256 * 1024;

function invalidEach(path: FieldPathLike, value: string, messages: readonly string[]): FieldError[] {
  return messages.map((msg) => invalidField(path, value, msg));
}

/** True when `value` is a lowercase RFC 1123 subdomain of at most 253 characters (`example.com`). */
export function isDNS1123Subdomain(value: string): boolean {
  return dns1123SubdomainMessages(value).length === 0;
}

/** True when `value` is a lowercase RFC 1123 label of at most 63 characters (`my-name`, no dots). */
export function isDNS1123Label(value: string): boolean {
  return dns1123LabelMessages(value).length === 0;
}

/**
 * Validates a lowercase RFC 1123 subdomain: at most 253 characters, `[a-z0-9]` and `-` in
 * dot-separated labels that start and end alphanumeric. The empty string is invalid.
 */
export function validateDNS1123Subdomain(value: string, path: FieldPathLike): FieldError[] {
  return invalidEach(path, value, dns1123SubdomainMessages(value));
}

/** Validates a lowercase RFC 1123 label: at most 63 characters, `[a-z0-9]` and `-`, no dots. */
export function validateDNS1123Label(value: string, path: FieldPathLike): FieldError[] {
  return invalidEach(path, value, dns1123LabelMessages(value));
}

/** How {@link validateObjectName} checks a name. */
export interface ObjectNameOptions {
  /** Names of this kind are DNS labels (Namespace), not DNS subdomains (most kinds). */
  label?: boolean;
  /**
   * Names of this kind need only be valid path segments (RBAC roles and bindings such as
   * `system:discovery`): not `.` or `..`, no `/` or `%`.
   */
  pathSegment?: boolean;
  /**
   * The value is a `generateName` prefix: a trailing `-` is allowed because random characters
   * follow it (the reference masks the last two characters as `a`, and so does this).
   */
  prefix?: boolean;
}

// The reference's maskTrailingDash: replaces the last two characters by "a".
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}

/**
 * Validates `metadata.name` (or a `generateName` prefix with `{ prefix: true }`): a DNS subdomain
 * for most kinds, a DNS label with `{ label: true }`. The empty name is `Required value: name or
 * generateName is required`.
 */
export function validateObjectName(
  name: string,
  options: ObjectNameOptions = {},
  path: FieldPathLike = FieldPath.root("metadata").child("name"),
): FieldError[] {
  if (name.length === 0) return [requiredField(path, "name or generateName is required")];
  const checked = options.prefix ? maskTrailingDash(name) : name;
  const messages = options.pathSegment ? pathSegmentNameMessages(name) : options.label ? dns1123LabelMessages(checked) : dns1123SubdomainMessages(checked);
  return invalidEach(path, name, messages);
}

/**
 * The problems of `name` as a path segment (the reference's `IsValidPathSegmentName`): it may
 * not be `.` or `..`, nor contain `/` or `%`. Empty when it is fine.
 */
export function pathSegmentNameMessages(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const problems: string[] = [];
  for (const illegal of ["/", "%"]) if (name.includes(illegal)) problems.push(`may not contain '${illegal}'`);
  return problems;
}

/**
 * Validates a qualified name (label key, annotation key, finalizer): an optional DNS-subdomain
 * prefix and `/`, then a name of at most 63 characters matching
 * `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. One error per problem, all on `path`.
 */
export function validateQualifiedName(value: string, path: FieldPathLike): FieldError[] {
  return invalidEach(path, value, qualifiedNameMessages(value));
}

/** Validates a label value: empty, or at most 63 characters matching the qualified-name pattern. */
export function validateLabelValue(value: string, path: FieldPathLike): FieldError[] {
  return invalidEach(path, value, labelValueMessages(value));
}

/**
 * Validates `metadata.labels`: keys are qualified names, values label values. As in the
 * reference system, every error is on the map's own path (`metadata.labels`) and shows the
 * offending key or value.
 */
export function validateLabels(
  labels: Readonly<Record<string, string>> | undefined,
  path: FieldPathLike = FieldPath.root("metadata").child("labels"),
): FieldError[] {
  const errors: FieldError[] = [];
  if (!labels) return errors;
  for (const [key, value] of Object.entries(labels)) {
    errors.push(...validateQualifiedName(key, path));
    errors.push(...validateLabelValue(value, path));
  }
  return errors;
}

/**
 * Validates `metadata.annotations`: keys are qualified names compared without case, and all keys
 * and values together take at most {@link totalAnnotationSizeLimitBytes} bytes of UTF-8
 * (`metadata.annotations: Too long: must have at most 262144 bytes`). Values are free text.
 */
export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  path: FieldPathLike = FieldPath.root("metadata").child("annotations"),
): FieldError[] {
  const errors: FieldError[] = [];
  if (!annotations) return errors;
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const msg of qualifiedNameMessages(key.toLowerCase())) errors.push(invalidField(path, key, msg));
    total += utf8Length(key) + utf8Length(value);
  }
  if (total > totalAnnotationSizeLimitBytes) {
    // The reference omits the value of a too-long error, so the error carries none.
    errors.push({
      type: "FieldValueTooLong",
      field: String(path),
      detail: `must have at most ${totalAnnotationSizeLimitBytes} bytes`,
    });
  }
  return errors;
}

/** Length in bytes of the UTF-8 encoding of `text` (what the reference's size limits count), without encoding it. */
export function utf8ByteLength(text: string): number {
  return utf8Length(text);
}
