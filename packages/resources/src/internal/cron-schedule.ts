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

function checkRange(expr: string, bounds: Bounds): number[] {
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
  const values: number[] = [];
  for (let v = start; v <= end; v += step) values.push(v);
  return values;
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

/** What {@link checkSchedule} parsed: the values of each field, or a fixed period. */
type ParsedSchedule =
  | { kind: "fields"; zone: string | undefined; fields: Set<number>[]; domStar: boolean; dowStar: boolean }
  | { kind: "every"; zone: string | undefined; periodMs: number };

const descriptorFields: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

function checkSchedule(input: string): ParsedSchedule {
  let spec = input;
  let zone: string | undefined;
  if (spec === "") throw new Error("empty spec string");
  if (spec.startsWith("TZ=") || spec.startsWith("CRON_TZ=")) {
    const space = spec.indexOf(" ");
    const eq = spec.indexOf("=");
    zone = space < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, space);
    const zoneError = timeZoneLoadError(zone);
    if (zoneError) throw new Error(`provided bad location ${zone}: ${zoneError}`);
    spec = space < 0 ? "" : spec.slice(space).trim();
  }
  if (spec.startsWith("@")) {
    const fields = descriptorFields[spec];
    if (descriptors.has(spec) && fields !== undefined) spec = fields;
    else if (spec.startsWith("@every ")) {
      let ms: number;
      try {
        ms = parseGoDuration(spec.slice("@every ".length));
      } catch (error) {
        throw new Error(`failed to parse duration ${spec}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      // The cron library's constant delay: whole seconds, at least one.
      return { kind: "every", zone, periodMs: Math.max(1000, Math.floor(ms / 1000) * 1000) };
    } else throw new Error(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== "");
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`);
  const sets = fields.map((field, i) => {
    const values = new Set<number>();
    for (const expr of field.split(",").filter((e) => e !== "")) for (const v of checkRange(expr, fieldBounds[i] as Bounds)) values.add(v);
    return values;
  });
  const star = (f: string | undefined) => f !== undefined && (f.startsWith("*") || f.startsWith("?"));
  return { kind: "fields", zone, fields: sets, domStar: star(fields[2]), dowStar: star(fields[4]) };
}

/** A parsed CronJob schedule: {@link CronSchedule.next} finds the times it fires. */
export interface CronSchedule {
  /**
   * The first time after `afterMs` (ms since the epoch) the schedule fires, read in `timeZone`
   * (an IANA name; UTC when absent, a `TZ=` prefix of the schedule wins), or undefined when it
   * never fires in the five years after (`0 0 30 2 *`).
   */
  next(afterMs: number, timeZone?: string): number | undefined;
}

/**
 * Parses `schedule` as CronJob validation checks it, into a schedule that computes its
 * times as the reference's cron library does: minute resolution, a day matching when both the
 * day of month and the day of week match if either is `*` or `?`, and either otherwise;
 * `@every <duration>` fires that long after the given time, in whole seconds.
 * @throws Error with the cron library's message for a schedule that does not parse.
 * @example
 * parseCronSchedule("30 2 * * *").next(Date.UTC(2026, 0, 1)); // Date.UTC(2026, 0, 1, 2, 30)
 */
export function parseCronSchedule(schedule: string): CronSchedule {
  const parsed = checkSchedule(schedule);
  if (parsed.kind === "every") return { next: (afterMs) => Math.floor(afterMs / 1000) * 1000 + parsed.periodMs };
  const [minutes, hours, doms, months, dows] = parsed.fields as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  const dayMatches = (d: Date): boolean => {
    const dom = doms.has(d.getUTCDate());
    const dow = dows.has(d.getUTCDay());
    return parsed.domStar || parsed.dowStar ? dom && dow : dom || dow;
  };
  return {
    next(afterMs, timeZone) {
      const zone = parsed.zone ?? timeZone ?? "UTC";
      // Walk wall-clock time in the zone (kept as a UTC date), then map it back to an instant.
      const startWall = afterMs + zoneOffsetMs(afterMs, zone);
      let w = Math.floor(startWall / 60_000) * 60_000 + 60_000;
      const limit = startWall + 5 * 366 * 86_400_000;
      while (w <= limit) {
        const d = new Date(w);
        const [y, mo, day, h] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()];
        if (!months.has(mo + 1)) w = Date.UTC(y, mo + 1, 1);
        else if (!dayMatches(d)) w = Date.UTC(y, mo, day + 1);
        else if (!hours.has(h)) w = Date.UTC(y, mo, day, h + 1);
        else if (!minutes.has(d.getUTCMinutes())) w += 60_000;
        else {
          const instant = wallToInstant(w, zone);
          if (instant > afterMs) return instant;
          w += 60_000;
        }
      }
      return undefined;
    },
  };
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** How far wall-clock time in `zone` is ahead of UTC at the instant `ms`, in ms. */
export function zoneOffsetMs(ms: number, zone: string): number {
  if (zone === "UTC" || zone === "Etc/UTC") return 0;
  let format = zoneFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    zoneFormats.set(zone, format);
  }
  const parts: Record<string, number> = {};
  for (const p of format.formatToParts(ms)) if (p.type !== "literal") parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts["year"] ?? 1970, (parts["month"] ?? 1) - 1, parts["day"] ?? 1, parts["hour"] ?? 0, parts["minute"] ?? 0, parts["second"] ?? 0);
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The instant the wall-clock time `wall` (a UTC date standing for the zone's clock) is in `zone`; a skipped time moves forward. */
function wallToInstant(wall: number, zone: string): number {
  const guess = wall - zoneOffsetMs(wall, zone);
  const instant = wall - zoneOffsetMs(guess, zone);
  return instant + zoneOffsetMs(instant, zone) === wall ? instant : guess;
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
