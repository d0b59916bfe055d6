import { describe, expect, it } from "vitest";
import { parseCronSchedule, zoneOffsetMs } from "./cron-schedule.js";

const at = (text: string) => Date.parse(text);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe("parseCronSchedule", () => {
  it("finds the next minute, hour and day a five-field schedule fires", () => {
    expect(iso(parseCronSchedule("*/15 * * * *").next(at("2026-01-01T10:07:30Z")))).toBe("2026-01-01T10:15:00.000Z");
    expect(iso(parseCronSchedule("30 2 * * *").next(at("2026-01-01T02:30:00Z")))).toBe("2026-01-02T02:30:00.000Z");
    expect(iso(parseCronSchedule("0 9 * * mon-fri").next(at("2026-01-02T10:00:00Z")))).toBe("2026-01-05T09:00:00.000Z");
    expect(iso(parseCronSchedule("0 0 1 jan *").next(at("2026-03-01T00:00:00Z")))).toBe("2027-01-01T00:00:00.000Z");
  });

  it("matches either day field when both are restricted, both when one is a star", () => {
    // The 13th or any Friday: Friday 2026-01-09 comes first.
    expect(iso(parseCronSchedule("0 0 13 * 5").next(at("2026-01-05T00:00:00Z")))).toBe("2026-01-09T00:00:00.000Z");
    expect(iso(parseCronSchedule("0 0 * * 5").next(at("2026-01-05T00:00:00Z")))).toBe("2026-01-09T00:00:00.000Z");
  });

  it("knows the descriptors and @every", () => {
    expect(iso(parseCronSchedule("@hourly").next(at("2026-01-01T10:07:00Z")))).toBe("2026-01-01T11:00:00.000Z");
    expect(iso(parseCronSchedule("@weekly").next(at("2026-01-01T00:00:00Z")))).toBe("2026-01-04T00:00:00.000Z");
    expect(iso(parseCronSchedule("@every 90s").next(at("2026-01-01T00:00:00.500Z")))).toBe("2026-01-01T00:01:30.000Z");
  });

  it("reads the schedule in a time zone", () => {
    // 09:00 in New York is 14:00 UTC in winter.
    expect(iso(parseCronSchedule("0 9 * * *").next(at("2026-01-01T00:00:00Z"), "America/New_York"))).toBe("2026-01-01T14:00:00.000Z");
    expect(zoneOffsetMs(at("2026-07-01T00:00:00Z"), "Europe/Berlin")).toBe(2 * 3_600_000);
  });

  it("answers undefined for a schedule that never fires, and throws for one that does not parse", () => {
    expect(parseCronSchedule("0 0 30 2 *").next(at("2026-01-01T00:00:00Z"))).toBeUndefined();
    expect(() => parseCronSchedule("* * *")).toThrow("expected exactly 5 fields, found 3: [* * *]");
  });
});
