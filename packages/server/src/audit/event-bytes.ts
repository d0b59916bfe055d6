/**
 * The JSON text of an audit event written straight into bytes, as UTF-8: the same bytes as
 * `JSON.stringify` and a UTF-8 encoding of its result, without either string. An audited
 * request writes one event of about 600 bytes; building that text as a string and copying it
 * into the log's buffer costs the server more than the rest of its audit record. Plain records,
 * arrays, strings, numbers and booleans are written here, character by character (an ASCII
 * character is its byte); anything else (a string with characters to escape or beyond ASCII, an
 * object of a class, one with a `toJSON` method, a value nested deeper than 32 levels) goes
 * through `JSON.stringify` and a `TextEncoder`.
 * @module
 */

const encoder = new TextEncoder();

/** Below this depth values are written here; deeper ones are left to `JSON.stringify`, which also reports cycles. */
const maxDepth = 32;

/** Thrown inside when the bytes do not fit in the room given; never escapes {@link writeAuditEventJSON}. */
const full: unique symbol = Symbol("full");

/** `text` (any string) as UTF-8 at `at`; the position after it. */
function writeText(text: string, bytes: Uint8Array, at: number, end: number): number {
  const { read, written } = encoder.encodeInto(text, bytes.subarray(at, end));
  if (read < text.length) throw full;
  return at + written;
}

/** An ASCII string known to need no escape (keys of the writer's own), without quotes. */
function writeASCII(text: string, bytes: Uint8Array, at: number, end: number): number {
  const n = text.length;
  if (at + n > end) throw full;
  for (let i = 0; i < n; i++) bytes[at + i] = text.charCodeAt(i);
  return at + n;
}

/** `s` as a JSON string (quoted, escaped as `JSON.stringify` escapes it). */
function writeString(s: string, bytes: Uint8Array, at: number, end: number): number {
  const n = s.length;
  if (at + n + 2 > end) throw full;
  bytes[at] = 0x22;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    // A quote, a backslash, a control character or anything beyond ASCII: the whole string the slow way.
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return writeText(JSON.stringify(s), bytes, at, end);
    bytes[at + 1 + i] = c;
  }
  bytes[at + n + 1] = 0x22;
  return at + n + 2;
}

/** Whether `value` is a plain object (its prototype `Object.prototype` or none) without a `toJSON` method. */
function isPlainRecord(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/** Whether `JSON.stringify` leaves `value` out of an object (and writes `null` for it in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** `value` (not {@link omitted}) as JSON at `at`; the position after it. */
function writeValue(value: unknown, bytes: Uint8Array, at: number, end: number, depth: number): number {
  switch (typeof value) {
    case "string":
      return writeString(value, bytes, at, end);
    case "number":
      return writeASCII(Number.isFinite(value) ? String(value) : "null", bytes, at, end);
    case "boolean":
      return writeASCII(value ? "true" : "false", bytes, at, end);
    case "object":
      if (value === null) return writeASCII("null", bytes, at, end);
      if (depth < maxDepth) {
        if (Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype) return writeArray(value, bytes, at, end, depth + 1);
        if (!Array.isArray(value) && isPlainRecord(value)) return writeRecord(value as Record<string, unknown>, bytes, at, end, depth + 1);
      }
      return writeText(JSON.stringify(value), bytes, at, end);
    default:
      // A bigint: `JSON.stringify` throws, as it does for the event.
      return writeText(JSON.stringify(value) ?? "null", bytes, at, end);
  }
}

function writeArray(array: readonly unknown[], bytes: Uint8Array, at: number, end: number, depth: number): number {
  if (at >= end) throw full;
  bytes[at++] = 0x5b;
  for (let i = 0; i < array.length; i++) {
    if (i > 0) {
      if (at >= end) throw full;
      bytes[at++] = 0x2c;
    }
    const item = array[i];
    at = omitted(item) ? writeASCII("null", bytes, at, end) : writeValue(item, bytes, at, end, depth);
  }
  if (at >= end) throw full;
  bytes[at++] = 0x5d;
  return at;
}

function writeRecord(record: Record<string, unknown>, bytes: Uint8Array, at: number, end: number, depth: number): number {
  if (at >= end) throw full;
  bytes[at++] = 0x7b;
  let first = true;
  // `for in` lists the own keys in the order `JSON.stringify` writes them (a plain record inherits none).
  for (const key in record) {
    const item = record[key];
    if (omitted(item)) continue;
    if (!first) {
      if (at >= end) throw full;
      bytes[at++] = 0x2c;
    }
    first = false;
    at = writeString(key, bytes, at, end);
    if (at >= end) throw full;
    bytes[at++] = 0x3a;
    at = writeValue(item, bytes, at, end, depth);
  }
  if (at >= end) throw full;
  bytes[at++] = 0x7d;
  return at;
}

/**
 * Writes the JSON text of `event` (an audit event, or any JSON value) as UTF-8 into `bytes` from
 * `at` on, the same bytes as `new TextEncoder().encode(JSON.stringify(event))`: keys in the same
 * order, the same escapes, `undefined` members left out. Returns the position after the last
 * byte written, or -1 when the text does not fit before `end` (what was written past `at` is
 * then garbage; write the event elsewhere).
 * @throws TypeError for a value `JSON.stringify` refuses (a bigint, a cycle) or leaves out
 *   entirely (`undefined`, a function, a symbol).
 * @example
 * ```ts
 * const bytes = new Uint8Array(1024);
 * const end = writeAuditEventJSON({ kind: "Event", level: "Metadata" }, bytes, 0, bytes.length);
 * new TextDecoder().decode(bytes.subarray(0, end)); // '{"kind":"Event","level":"Metadata"}'
 * ```
 */
export function writeAuditEventJSON(event: unknown, bytes: Uint8Array, at: number, end: number): number {
  if (omitted(event)) throw new TypeError("an audit event must be a JSON value");
  try {
    return writeValue(event, bytes, at, Math.min(end, bytes.length), 0);
  } catch (error) {
    if (error === full) return -1;
    throw error;
  }
}
