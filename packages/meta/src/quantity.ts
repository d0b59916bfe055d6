/**
 * Quantities: the fixed-point numbers of resource requests, limits and capacities (`500m`,
 * `10Gi`, `1e3`), with the grammar, rounding and canonical printing of the reference system
 * (`k8s.io/apimachinery/pkg/api/resource`).
 *
 * A quantity is held as an exact count of nano-units in a bigint, so arithmetic never touches
 * floating point. Parsing rounds finer values up to `1n` (away from zero), caps binary-suffixed
 * values at 2^63-1, and remembers the suffix family (decimal SI, binary SI or decimal exponent)
 * for printing.
 *
 * Unlike the reference, which accepts them and then may spend unbounded time and memory on
 * them, a value of 10^1000 or more, or one with more than 1000 significant digits, is rejected.
 * @module
 */
import { parseInt64 } from "./internal/int64.js";
import { badRequest } from "./status-error.js";

/** The suffix family a quantity prints in: `12e6`, `12Mi` (12 * 2^20) or `12M` (12 * 10^6). */
export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

const nano = 1_000_000_000n;
const maxBinary = ((1n << 63n) - 1n) * nano;
const maxDigits = 1000;

const formatWrongMessage = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const numericMessage = "unable to parse numeric part of quantity";
const suffixMessage = "unable to parse quantity's suffix";

const constructing: unique symbol = Symbol("Quantity");

const decimalSuffixes = new Map<number, string>([
  [-9, "n"],
  [-6, "u"],
  [-3, "m"],
  [0, ""],
  [3, "k"],
  [6, "M"],
  [9, "G"],
  [12, "T"],
  [15, "P"],
  [18, "E"],
]);
const binarySuffixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] as const;

/**
 * An immutable, exact quantity. Build one with {@link parseQuantity}, {@link newQuantity} or
 * {@link newMilliQuantity}; it serialises to JSON as its canonical string.
 *
 * @example
 * parseQuantity("1.5").toString(); // "1500m"
 * parseQuantity("1024Mi").toString(); // "1Gi"
 * parseQuantity("100m").add(parseQuantity("1")).toString(); // "1100m"
 */
export class Quantity {
  /** The suffix family used when printing. */
  readonly format: QuantityFormat;
  private readonly nanos: bigint;
  private text: string | undefined;

  /** @internal Use the factory functions. */
  constructor(token: typeof constructing, nanos: bigint, format: QuantityFormat, text?: string) {
    if (token !== constructing) throw new TypeError("use parseQuantity or newQuantity");
    this.nanos = nanos;
    this.format = format;
    this.text = text;
  }

  /** True when the quantity is zero. */
  isZero(): boolean {
    return this.nanos === 0n;
  }

  /** -1, 0 or 1 by the sign of the quantity. */
  sign(): -1 | 0 | 1 {
    return this.nanos === 0n ? 0 : this.nanos < 0n ? -1 : 1;
  }

  /** -1, 0 or 1 as this quantity is less than, equal to or greater than `other`. */
  cmp(other: Quantity): -1 | 0 | 1 {
    return this.nanos === other.nanos ? 0 : this.nanos < other.nanos ? -1 : 1;
  }

  /** True when both quantities have the same value, whatever their formats. */
  equals(other: Quantity): boolean {
    return this.nanos === other.nanos;
  }

  /** The sum; it keeps this quantity's format, or takes `other`'s when this one is zero. */
  add(other: Quantity): Quantity {
    return new Quantity(constructing, this.nanos + other.nanos, this.nanos === 0n ? other.format : this.format);
  }

  /** The difference; it keeps this quantity's format, or takes `other`'s when this one is zero. */
  sub(other: Quantity): Quantity {
    return new Quantity(constructing, this.nanos - other.nanos, this.nanos === 0n ? other.format : this.format);
  }

  /** The negated quantity, in the same format. */
  neg(): Quantity {
    return new Quantity(constructing, -this.nanos, this.format);
  }

  /** The value as an integer, rounded away from zero (`1500m` gives 2n, `-1500m` gives -2n). */
  value(): bigint {
    return scaled(this.nanos, nano);
  }

  /** The value in thousandths, rounded away from zero (`1.5` gives 1500n, `1n` gives 1n). */
  milliValue(): bigint {
    return scaled(this.nanos, 1_000_000n);
  }

  /**
   * The canonical form: no fractional digits, the largest suffix of the quantity's family that
   * loses nothing (`1.5` is `1500m`, `1536Mi` stays, `1000` is `1k`), `0` for zero. A binary
   * quantity below 1024 in magnitude, or with a fraction, prints as decimal SI. A string that
   * was already canonical when parsed is kept as written, as the reference keeps it.
   */
  toString(): string {
    this.text ??= canonical(this.nanos, this.format);
    return this.text;
  }

  /** The canonical string, which is how a quantity travels in JSON. */
  toJSON(): string {
    return this.toString();
  }
}

function scaled(nanos: bigint, unit: bigint): bigint {
  const q = nanos / unit;
  if (nanos % unit === 0n) return q;
  return nanos > 0n ? q + 1n : q - 1n;
}

function canonical(nanos: bigint, format: QuantityFormat): string {
  if (nanos === 0n) return "0";
  let family = format;
  if (family === "BinarySI") {
    const small = nanos > -1024n * nano && nanos < 1024n * nano;
    if (small || nanos % nano !== 0n) {
      family = "DecimalSI";
    } else {
      let v = nanos / nano;
      let times = 0;
      // Suffixes end at Ei; the reference would print a larger power without its suffix.
      while (times < binarySuffixes.length - 1 && v % 1024n === 0n) {
        v /= 1024n;
        times++;
      }
      return `${v}${binarySuffixes[times]}`;
    }
  }
  const negative = nanos < 0n;
  let digits = (negative ? -nanos : nanos).toString();
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 0x30) end--;
  let exponent = -9 + (digits.length - end);
  digits = digits.slice(0, end);
  while (exponent % 3 !== 0) {
    digits += "0";
    exponent--;
  }
  let suffix = family === "DecimalSI" ? decimalSuffixes.get(exponent) : undefined;
  // Decimal SI has no suffix past E (10^18); the reference falls back to an exponent there.
  suffix ??= exponent === 0 ? "" : `e${exponent}`;
  return `${negative ? "-" : ""}${digits}${suffix}`;
}

interface Scanned {
  positive: boolean;
  /** The sign, digits and point as written, before the suffix. */
  value: string;
  /** Integer digits without leading zeros ("0" when there are none). */
  num: string;
  /** Fraction digits as written. */
  denom: string;
  suffix: string;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

const suffixChars = "eEinumkKMGTP";

// A port of the reference's parseQuantityString, quirks included: "1." and ".5" are numbers,
// and a string of zeros (or a bare sign) is zero.
function scan(str: string): Scanned {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === "-") {
    positive = false;
    pos++;
  } else if (str[0] === "+") {
    pos++;
  }
  while (pos < end && str.charCodeAt(pos) === 0x30) pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };

  let i = pos;
  while (i < end && isDigit(str.charCodeAt(i))) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: "", suffix: "" };
  const num = i > pos ? str.slice(pos, i) : "0";
  pos = i;

  let denom = "";
  if (str.charCodeAt(pos) === 0x2e) {
    pos++;
    i = pos;
    while (i < end && isDigit(str.charCodeAt(i))) i++;
    if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: "" };
    denom = str.slice(pos, i);
    pos = i;
  }
  const value = str.slice(0, pos);

  const suffixStart = pos;
  while (pos < end && suffixChars.includes(str[pos] as string)) pos++;
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  while (pos < end && isDigit(str.charCodeAt(pos))) pos++;
  if (pos < end) throw badRequest(formatWrongMessage);
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

const knownSuffixes = new Map<string, Suffix>([
  ["", { base: 10, exponent: 0, format: "DecimalSI" }],
  ["n", { base: 10, exponent: -9, format: "DecimalSI" }],
  ["u", { base: 10, exponent: -6, format: "DecimalSI" }],
  ["m", { base: 10, exponent: -3, format: "DecimalSI" }],
  ["k", { base: 10, exponent: 3, format: "DecimalSI" }],
  ["M", { base: 10, exponent: 6, format: "DecimalSI" }],
  ["G", { base: 10, exponent: 9, format: "DecimalSI" }],
  ["T", { base: 10, exponent: 12, format: "DecimalSI" }],
  ["P", { base: 10, exponent: 15, format: "DecimalSI" }],
  ["E", { base: 10, exponent: 18, format: "DecimalSI" }],
  ["Ki", { base: 2, exponent: 10, format: "BinarySI" }],
  ["Mi", { base: 2, exponent: 20, format: "BinarySI" }],
  ["Gi", { base: 2, exponent: 30, format: "BinarySI" }],
  ["Ti", { base: 2, exponent: 40, format: "BinarySI" }],
  ["Pi", { base: 2, exponent: 50, format: "BinarySI" }],
  ["Ei", { base: 2, exponent: 60, format: "BinarySI" }],
]);

function interpretSuffix(suffix: string): Suffix {
  const known = knownSuffixes.get(suffix);
  if (known) return known;
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const exponent = parseInt64(suffix.slice(1));
    if (exponent !== undefined) return { base: 10, exponent: Number(exponent), format: "DecimalExponent" };
  }
  throw badRequest(suffixMessage);
}

// Whether the reference would keep the input string as the quantity's printed form: it does so
// on its int64 fast path when the digits are already canonical for the suffix.
function keepsText(scanned: Scanned, suffix: Suffix): boolean {
  const { num, denom } = scanned;
  if (suffix.format === "BinarySI") {
    if (denom.length !== 0) return false;
    const precision = 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
    return precision >= 0 && Number(num) % 8 !== 0;
  }
  const precision = 18 - (num.length + denom.length);
  const scale = suffix.exponent - denom.length;
  if (precision < 0 || scale < -9) return false;
  const shifted = num + denom;
  return scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
}

// The reference reads the value with inf.Dec on its slow path, which needs a digit.
function takesSlowPath(scanned: Scanned, suffix: Suffix): boolean {
  const { num, denom } = scanned;
  if (suffix.format === "BinarySI") {
    return denom.length !== 0 || 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1 < 0;
  }
  return 18 - (num.length + denom.length) < 0 || suffix.exponent - denom.length < -9;
}

/** The magnitude in nano-units, rounded up; `format` may turn from BinarySI to DecimalSI. */
function magnitude(scanned: Scanned, suffix: Suffix): { nanos: bigint; format: QuantityFormat } {
  let format = suffix.format;
  // digits * 10^exp10 (* 2^exponent for binary) is the value, digits without outer zeros.
  let digits = scanned.num + scanned.denom;
  let exp10 = (suffix.base === 10 ? suffix.exponent : 0) - scanned.denom.length;
  let lead = 0;
  while (lead < digits.length && digits.charCodeAt(lead) === 0x30) lead++;
  let trail = digits.length;
  while (trail > lead && digits.charCodeAt(trail - 1) === 0x30) trail--;
  exp10 += digits.length - trail;
  digits = digits.slice(lead, trail);
  if (digits.length === 0) return { nanos: 0n, format };
  if (digits.length > maxDigits) throw badRequest(numericMessage);

  if (suffix.base === 10) {
    if (digits.length + exp10 > maxDigits) throw badRequest(numericMessage);
    const shift = exp10 + 9;
    if (shift >= 0) return { nanos: BigInt(digits) * 10n ** BigInt(shift), format };
    // Finer than nano: drop the digits below it and round up (they are not all zero).
    const keep = digits.length + shift;
    return { nanos: keep > 0 ? BigInt(digits.slice(0, keep)) + 1n : 1n, format };
  }

  let nanos: bigint;
  if (digits.length + exp10 > 20) {
    nanos = maxBinary + 1n; // at least 10^20, far above the cap
  } else {
    const power = 1n << BigInt(suffix.exponent);
    const shift = exp10 + 9;
    if (shift >= 0) nanos = BigInt(digits) * 10n ** BigInt(shift) * power;
    else if (digits.length + 19 <= -shift)
      nanos = 1n; // below 10^-shift even times 2^60
    else {
      const scaledUp = BigInt(digits) * power;
      const unit = 10n ** BigInt(-shift);
      nanos = scaledUp / unit + (scaledUp % unit === 0n ? 0n : 1n);
    }
  }
  if (nanos > maxBinary) nanos = maxBinary;
  if (nanos < nano) format = "DecimalSI";
  return { nanos, format };
}

/**
 * Parses a quantity: `<signedNumber><suffix>`, the number digits with an optional `.`, the
 * suffix one of `Ki Mi Gi Ti Pi Ei`, `n u m k M G T P E`, nothing, or a decimal exponent
 * (`e3`, `E-2`). No whitespace is allowed.
 *
 * @throws StatusError 400 BadRequest with the reference's messages: `quantities must match the
 *   regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`, `unable to parse
 *   quantity's suffix`, or `unable to parse numeric part of quantity` (also for values of
 *   10^1000 or more, or with more than 1000 significant digits).
 */
export function parseQuantity(text: string): Quantity {
  const cached = parsedQuantities.get(text);
  if (cached) return cached;
  const quantity = parseQuantityText(text);
  if (text.length > 64) return quantity;
  if (parsedQuantities.size >= parsedQuantitiesMax) parsedQuantities.clear();
  parsedQuantities.set(text, quantity);
  return quantity;
}

// Quantities are immutable and the same few texts (`100m`, `64Mi`) recur in every object, so
// parses are remembered; the BigInt arithmetic of a parse costs far more than a lookup.
const parsedQuantities = new Map<string, Quantity>();
const parsedQuantitiesMax = 4096;

function parseQuantityText(text: string): Quantity {
  if (text.length === 0) throw badRequest(formatWrongMessage);
  if (text === "0") return new Quantity(constructing, 0n, "DecimalSI", "0");
  const scanned = scan(text);
  const suffix = interpretSuffix(scanned.suffix);
  if (takesSlowPath(scanned, suffix) && !/[0-9]/.test(scanned.value)) throw badRequest(numericMessage);
  const { nanos, format } = magnitude(scanned, suffix);
  const kept = keepsText(scanned, suffix) ? text : undefined;
  return new Quantity(constructing, scanned.positive ? nanos : -nanos, format, kept);
}

function toBigInt(value: bigint | number, what: string): bigint {
  if (typeof value === "bigint") return value;
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} must be a safe integer, got ${value}`);
  return BigInt(value);
}

/**
 * A quantity of `value` units in `format` (`newQuantity(1024, "BinarySI")` prints `1Ki`).
 * @throws RangeError when `value` is a number that is not a safe integer.
 */
export function newQuantity(value: bigint | number, format: QuantityFormat = "DecimalSI"): Quantity {
  return new Quantity(constructing, toBigInt(value, "value") * nano, format);
}

/**
 * A quantity of `value` thousandths in `format` (`newMilliQuantity(1500)` prints `1500m`).
 * @throws RangeError when `value` is a number that is not a safe integer.
 */
export function newMilliQuantity(value: bigint | number, format: QuantityFormat = "DecimalSI"): Quantity {
  return new Quantity(constructing, toBigInt(value, "value") * 1_000_000n, format);
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`; a comparator for `sort`. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  return a.cmp(b);
}
