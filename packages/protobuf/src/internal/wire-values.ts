/**
 * The scalar conversions between the JSON shape orch stores and the protobuf wire: base64 for
 * bytes, RFC 3339 strings for `Time` and `MicroTime`, numbers for int64.
 * @module
 */
import { badRequest, formatMicroTime, formatTime, parseTime } from "@orch/meta";

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard padded base64 (as Go's `encoding/base64.StdEncoding`) to bytes; 400 on anything else. */
export function fromBase64(text: string, where: string): Uint8Array {
  if (!base64Pattern.test(text)) throw badRequest(`${where}: illegal base64 data`);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Bytes to standard padded base64. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(binary);
}

/** A protobuf `Timestamp`-shaped time (`Time` and `MicroTime` of the reference). */
export interface WireTime {
  seconds: number;
  nanos: number;
}

/** An RFC 3339 string to seconds and nanoseconds; 400 for a malformed time. */
export function timeToWire(text: string): WireTime {
  const ms = parseTime(text);
  const seconds = Math.floor(ms / 1000);
  const fraction = /\.([0-9]+)(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$/.exec(text)?.[1] ?? "";
  return { seconds, nanos: Number(fraction.slice(0, 9).padEnd(9, "0")) };
}

function checkedMillis(time: WireTime, what: string): number {
  if (!Number.isSafeInteger(time.seconds) || !Number.isInteger(time.nanos) || time.nanos < 0 || time.nanos > 999_999_999) {
    throw badRequest(`${what}: seconds ${time.seconds} and nanos ${time.nanos} are not a valid time`);
  }
  return time.seconds * 1000 + Math.floor(time.nanos / 1_000_000);
}

/** A wire `Time` to RFC 3339 with whole seconds; 400 outside years 0000-9999. */
export function timeFromWire(time: WireTime, what: string): string {
  const ms = checkedMillis(time, what);
  try {
    return formatTime(ms);
  } catch (error) {
    throw badRequest(`${what}: ${(error as Error).message}`);
  }
}

/** A wire `MicroTime` to RFC 3339 with six fraction digits; 400 outside years 0000-9999. */
export function microTimeFromWire(time: WireTime, what: string): string {
  const ms = checkedMillis(time, what);
  try {
    return formatMicroTime(ms, Math.floor(time.nanos / 1000) % 1000);
  } catch (error) {
    throw badRequest(`${what}: ${(error as Error).message}`);
  }
}

/** An int64 as protobufjs decodes it (a number, or a `Long` when the long package is present) to a number. */
export function int64ToNumber(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "object" && value !== null && "toNumber" in value && typeof value.toNumber === "function") {
    return (value as { toNumber(): number }).toNumber();
  }
  return Number(value);
}
