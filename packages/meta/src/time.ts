/**
 * RFC 3339 timestamps as the reference system writes them: `Time` in UTC with whole seconds
 * (`2026-11-21T20:49:14Z`), `MicroTime` (Lease times) with six fraction digits
 * (`2026-11-21T20:49:14.123456Z`). Parsing is strict RFC 3339 (`T` and `Z` upper case, real
 * calendar dates, offsets `+hh:mm`), unlike `Date.parse`; dates are computed with integer
 * arithmetic, so years 0000 to 9999 all work.
 * @module
 */
import { badRequest } from "./status-error.js";

const msPerDay = 86_400_000;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

// The inverse (civil_from_days).
function civilFromDays(days: number): [year: number, month: number, day: number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

// Seconds since the epoch (floored) and the milliseconds past them; RangeError outside 0000-9999.
function split(ms: number, what: string): [datePart: string, msInSecond: number] {
  if (!Number.isFinite(ms)) throw new RangeError(`${what}: not a finite time: ${ms}`);
  const whole = Math.floor(ms);
  const days = Math.floor(whole / msPerDay);
  const msInDay = whole - days * msPerDay;
  const [year, month, day] = civilFromDays(days);
  if (year < 0 || year > 9999) throw new RangeError(`${what}: year outside of range [0,9999]: ${year}`);
  const seconds = Math.floor(msInDay / 1000);
  const text =
    `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T` +
    `${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}`;
  return [text, msInDay - seconds * 1000];
}

/** The second {@link formatTime} formatted last (seconds since the epoch), and its text. */
let lastSecond = Number.NaN;
let lastText: string | undefined;

/**
 * Formats milliseconds since the epoch as RFC 3339 UTC with whole seconds
 * (`2026-11-21T20:49:14Z`), dropping the fraction as the reference's `metav1.Time` does.
 * @throws RangeError for a time that is not finite or whose year is outside 0000-9999.
 */
export function formatTime(ms: number): string {
  // A write formats the same second several times (creationTimestamp, managedFields), and the
  // writes of one second all format it: the last second's text is kept.
  const second = Math.floor(ms / 1000);
  if (second === lastSecond && lastText !== undefined) return lastText;
  const text = `${split(ms, "formatTime")[0]}Z`;
  lastSecond = second;
  lastText = text;
  return text;
}

/**
 * Formats a time as RFC 3339 UTC with six fraction digits (`2026-11-21T20:49:14.123000Z`), as
 * the reference's `metav1.MicroTime`. `ms` is floored to whole milliseconds; `micros` adds
 * microseconds on top of it (0 to 999; other integers carry into the milliseconds).
 * @throws RangeError for a time that is not finite, a `micros` that is not an integer, or a year
 *   outside 0000-9999.
 */
export function formatMicroTime(ms: number, micros = 0): string {
  if (!Number.isInteger(micros)) throw new RangeError(`formatMicroTime: micros must be an integer, got ${micros}`);
  const carry = Math.floor(micros / 1000);
  const [text, msInSecond] = split(Math.floor(ms) + carry, "formatMicroTime");
  return `${text}.${pad(msInSecond * 1000 + (micros - carry * 1000), 6)}Z`;
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

interface Instant {
  /** Whole seconds since the epoch. */
  seconds: number;
  /** Fraction digits as written (possibly empty). */
  fraction: string;
}

function parseInstant(text: string, what: string): Instant {
  const m = rfc3339.exec(text);
  const bad = (why: string) => badRequest(`${what} ${JSON.stringify(text.slice(0, 64))}: ${why}`);
  if (!m) throw bad("must be an RFC 3339 time such as 2006-01-02T15:04:05Z");
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12) throw bad("month out of range");
  if (day < 1 || day > daysInMonth(year, month)) throw bad("day out of range");
  if (hour > 23) throw bad("hour out of range");
  if (minute > 59) throw bad("minute out of range");
  if (second > 59) throw bad("second out of range");
  let offset = 0;
  if (m[8] !== "Z") {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) throw bad("time zone offset out of range");
    offset = (m[9] === "-" ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
  return { seconds, fraction: m[7] ?? "" };
}

/**
 * Parses an RFC 3339 time (`2026-11-21T20:49:14Z`, `2026-11-21T21:49:14.5+01:00`) into
 * milliseconds since the epoch; fraction digits past the millisecond are dropped.
 * @throws StatusError 400 BadRequest for anything that is not a strict RFC 3339 time with a
 *   real date (month 13, February 30, hour 24 and second 60 are all rejected).
 */
export function parseTime(text: string): number {
  const { seconds, fraction } = parseInstant(text, "invalid time");
  return seconds * 1000 + Number(fraction.slice(0, 3).padEnd(3, "0"));
}

/**
 * Parses an RFC 3339 micro-time (`2026-11-21T20:49:14.123456Z`) into milliseconds since the
 * epoch; the same grammar as {@link parseTime} (any number of fraction digits, or none).
 * Microseconds past the millisecond are dropped; {@link normalizeMicroTime} keeps them.
 * @throws StatusError 400 BadRequest for anything that is not a strict RFC 3339 time.
 */
export function parseMicroTime(text: string): number {
  const { seconds, fraction } = parseInstant(text, "invalid micro time");
  return seconds * 1000 + Number(fraction.slice(0, 3).padEnd(3, "0"));
}

const minSeconds = daysFromCivil(0, 1, 1) * 86_400;
const maxSeconds = daysFromCivil(10000, 1, 1) * 86_400 - 1;

function printable(instant: Instant, text: string, what: string): Instant {
  if (instant.seconds < minSeconds || instant.seconds > maxSeconds) {
    throw badRequest(`${what} ${JSON.stringify(text.slice(0, 64))}: year outside of range [0,9999] in UTC`);
  }
  return instant;
}

/**
 * Rewrites an RFC 3339 time in the form the server stores: UTC, whole seconds
 * (`2026-11-21T21:49:14.5+01:00` becomes `2026-11-21T20:49:14Z`).
 * @throws StatusError 400 BadRequest as {@link parseTime}, and when the offset moves the year
 *   outside 0000-9999.
 */
export function normalizeTime(text: string): string {
  if (canonicalTimes.has(text)) return text;
  const { seconds } = printable(parseInstant(text, "invalid time"), text, "invalid time");
  const normal = formatTime(seconds * 1000);
  if (normal === text) {
    if (canonicalTimes.size >= maxCanonicalTimes) canonicalTimes.clear();
    canonicalTimes.add(text);
  }
  return normal;
}

// Times already in stored form, seen lately: every write of an object normalizes its
// creationTimestamp and managedFields times again, and they are mostly the same few texts.
const canonicalTimes = new Set<string>();
const maxCanonicalTimes = 4096;

/**
 * Rewrites an RFC 3339 micro-time in the form the server stores: UTC, six fraction digits,
 * truncated (`2026-11-21T20:49:14.1234567Z` becomes `2026-11-21T20:49:14.123456Z`).
 * @throws StatusError 400 BadRequest as {@link parseMicroTime}, and when the offset moves the
 *   year outside 0000-9999.
 */
export function normalizeMicroTime(text: string): string {
  const { seconds, fraction } = printable(parseInstant(text, "invalid micro time"), text, "invalid micro time");
  const micros = Number(fraction.slice(0, 6).padEnd(6, "0"));
  const ms = Math.floor(micros / 1000);
  return formatMicroTime(seconds * 1000 + ms, micros - ms * 1000);
}
