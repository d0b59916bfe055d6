/**
 * CronJob schedules and time zones as the reference checks them: the standard five-field cron
 * format with names and the `@hourly`-style descriptors (and `@every <duration>`), with the cron
 * library's error messages; and IANA time zone names.
 * @module
 */
import { parseGoDuration } from "@orch/meta";

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const months: Readonly<Record<string, number>> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const weekdays: Readonly<Record<string, number>> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const fieldBounds: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: months },
  { min: 0, max: 6, names: weekdays },
];
const descriptors = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

// Go's strconv.Atoi: an optional sign and decimal digits.
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = Number(text);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63 - 1) {
    throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  }
  return n;
}

function mustParseInt(text: string): number {
  const n = atoi(text);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${text}`);
  return n;
}

function parseIntOrName(text: string, names: Readonly<Record<string, number>> | undefined): number {
  const named = names?.[text.toLowerCase()];
  return named ?? mustParseInt(text);
}

function checkRange(expr: string, bounds: Bounds): void {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = (rangeAndStep[0] ?? "").split("-");
  const low = lowAndHigh[0] ?? "";
  let start: number;
  let end: number;
  if (low === "*" || low === "?") {
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parseIntOrName(low, bounds.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] ?? "", bounds.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1] ?? "");
    // `N/step` means `N-max/step`.
    if (lowAndHigh.length === 1) end = bounds.max;
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < bounds.min) throw new Error(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new Error(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

/**
 * The error of the reference's standard cron parser for `schedule`, or `undefined` when it
 * parses: five fields (minute, hour, day of month, month, day of week; ranges, steps, lists,
 * `*` and `?`, month and weekday names), a descriptor (`@daily`, `@every 1h30m`), optionally
 * after `TZ=<zone> ` or `CRON_TZ=<zone> `.
 * @example
 * cronScheduleError("*\/5 * * * *"); // undefined
 * cronScheduleError("* * *"); // "expected exactly 5 fields, found 3: [* * *]"
 */
export function cronScheduleError(schedule: string): string | undefined {
  try {
    checkSchedule(schedule);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function checkSchedule(input: string): void {
  let spec = input;
  if (spec === "") throw new Error("empty spec string");
  if (spec.startsWith("TZ=") || spec.startsWith("CRON_TZ=")) {
    const space = spec.indexOf(" ");
    const eq = spec.indexOf("=");
    const zone = space < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, space);
    const zoneError = timeZoneLoadError(zone);
    if (zoneError) throw new Error(`provided bad location ${zone}: ${zoneError}`);
    spec = space < 0 ? "" : spec.slice(space).trim();
  }
  if (spec.startsWith("@")) {
    if (descriptors.has(spec)) return;
    if (spec.startsWith("@every ")) {
      try {
        parseGoDuration(spec.slice("@every ".length));
      } catch (error) {
        throw new Error(`failed to parse duration ${spec}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      return;
    }
    throw new Error(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== "");
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`);
  fields.forEach((field, i) => {
    for (const expr of field.split(",").filter((e) => e !== "")) checkRange(expr, fieldBounds[i] as Bounds);
  });
}

/** Go's `time.LoadLocation` error for `zone` (`unknown time zone X`), or `undefined` when known. */
function timeZoneLoadError(zone: string): string | undefined {
  if (zone === "" || zone === "UTC") return undefined;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return `unknown time zone ${zone}`;
  }
  // Zone names are files to the reference, so their case matters; Intl ignores it.
  if (resolved.toLowerCase() === zone.toLowerCase() && resolved !== zone) return `unknown time zone ${zone}`;
  if (/^[+-]/.test(zone)) return `unknown time zone ${zone}`;
  return undefined;
}

const timeZoneCharacters = /^[A-Za-z.\-_0-9+]{1,14}$/;

/**
 * The messages of the reference's CronJob `timeZone` check: non-empty, each `/`-separated part of
 * at most 14 of `A-Za-z0-9.-_+` (not `.`, `..` or starting with `-`), not `Local`, and a zone
 * the IANA database knows. Empty when valid.
 */
export function timeZoneMessages(zone: string): string[] {
  if (zone === "") return ["timeZone must be nil or non-empty string"];
  for (const part of zone.split("/")) {
    if (part === "." || part === ".." || part.startsWith("-") || !timeZoneCharacters.test(part)) return [`unknown time zone ${zone}`];
  }
  const messages: string[] = [];
  if (zone.toLowerCase() === "local") messages.push("timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
  const loadError = zone === "Local" ? undefined : timeZoneLoadError(zone);
  if (loadError) messages.push(loadError);
  return messages;
}
