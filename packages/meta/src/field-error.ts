/**
 * Field errors of validation, with the field paths and messages the reference system prints
 * (`metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain ...`).
 * @module
 */
import type { StatusCause } from "./types.js";

/** The kinds of field error; each is a `reason` of a Status cause. */
export type FieldErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueDuplicate"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid"
  | "InternalError";

/** One problem with one field. `detail` is what is wrong, in words. */
export interface FieldError {
  type: FieldErrorType;
  /** The field path, as {@link FieldPath} prints it. */
  field: string;
  /** The offending value, when there is one to show. */
  value?: unknown;
  detail: string;
}

/**
 * An immutable path to a field: `spec.rules[0].verbs`, `data[a b]`.
 *
 * @example
 * FieldPath.root("metadata").child("labels").key("app").toString() // "metadata.labels[app]"
 */
export class FieldPath {
  private constructor(private readonly text: string) {}

  /** A path starting at a top-level field (or the empty path for `""`). */
  static root(name = ""): FieldPath {
    return new FieldPath(name);
  }

  /** The path of field `name` below this one. */
  child(name: string): FieldPath {
    return new FieldPath(this.text === "" ? name : `${this.text}.${name}`);
  }

  /** The path of element `index` of the list at this path. */
  index(index: number): FieldPath {
    return new FieldPath(`${this.text}[${index}]`);
  }

  /** The path of key `key` of the map at this path. */
  key(key: string): FieldPath {
    return new FieldPath(`${this.text}[${key}]`);
  }

  /** The printed path. */
  toString(): string {
    return this.text;
  }
}

type PathLike = FieldPath | string;

function make(type: FieldErrorType, path: PathLike, detail: string, value?: unknown): FieldError {
  const error: FieldError = { type, field: String(path), detail };
  if (value !== undefined) error.value = value;
  return error;
}

/** `field: Required value: detail`. */
export function requiredField(path: PathLike, detail = ""): FieldError {
  return make("FieldValueRequired", path, detail);
}

/** `field: Invalid value: "v": detail`. */
export function invalidField(path: PathLike, value: unknown, detail: string): FieldError {
  return make("FieldValueInvalid", path, detail, value);
}

/** `field: Duplicate value: "v"`. */
export function duplicateField(path: PathLike, value: unknown): FieldError {
  return make("FieldValueDuplicate", path, "", value);
}

/** `field: Unsupported value: "v": supported values: "a", "b"`. */
export function notSupportedField(path: PathLike, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}` : "";
  return make("FieldValueNotSupported", path, detail, value);
}

/** `field: Forbidden: detail`. */
export function forbiddenField(path: PathLike, detail: string): FieldError {
  return make("FieldValueForbidden", path, detail);
}

/** `field: Too long: may not be more than N bytes`. */
export function tooLongField(path: PathLike, value: unknown, max: number): FieldError {
  return make("FieldValueTooLong", path, `may not be more than ${max} bytes`, value);
}

/** `field: Too many: N: must have at most M items`. */
export function tooManyField(path: PathLike, actual: number, max: number): FieldError {
  return make("FieldValueTooMany", path, `must have at most ${max} items`, actual);
}

/** `field: Invalid value: "v": detail` for a value of the wrong JSON type. */
export function typeInvalidField(path: PathLike, value: unknown, detail: string): FieldError {
  return make("FieldValueTypeInvalid", path, detail, value);
}

const typeWords: Record<FieldErrorType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueTypeInvalid: "Invalid value",
  InternalError: "Internal error",
};

function printValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  try {
    const json = JSON.stringify(value);
    return json === undefined ? String(value) : json;
  } catch {
    return String(value);
  }
}

/** The message body of a field error without its path: `Invalid value: "Foo": detail`. */
export function fieldErrorBody(error: FieldError): string {
  const showsValue = error.value !== undefined && error.type !== "FieldValueRequired" && error.type !== "FieldValueForbidden";
  let body = typeWords[error.type];
  if (showsValue) body += `: ${printValue(error.value)}`;
  if (error.detail) body += `: ${error.detail}`;
  return body;
}

/** The whole message of a field error: `metadata.name: Invalid value: "Foo": detail`. */
export function formatFieldError(error: FieldError): string {
  return error.field ? `${error.field}: ${fieldErrorBody(error)}` : fieldErrorBody(error);
}

/** The Status cause of a field error. */
export function fieldErrorCause(error: FieldError): StatusCause {
  return { reason: error.type, message: fieldErrorBody(error), field: error.field };
}
