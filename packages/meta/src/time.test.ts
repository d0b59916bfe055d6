import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StatusError } from "./status-error.js";
import { formatMicroTime, formatTime, normalizeMicroTime, normalizeTime, parseMicroTime, parseTime } from "./time.js";

const at = Date.UTC(2026, 10, 21, 20, 49, 14, 123);

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return e as StatusError;
  }
  throw new Error("did not throw");
}

describe("formatTime and formatMicroTime", () => {
  it("print RFC 3339 UTC with seconds, or with six fraction digits", () => {
    expect(formatTime(at)).toBe("2026-11-21T20:49:14Z");
    expect(formatMicroTime(at)).toBe("2026-11-21T20:49:14.123000Z");
    expect(formatMicroTime(at, 456)).toBe("2026-11-21T20:49:14.123456Z");
    expect(formatMicroTime(at, 1500)).toBe("2026-11-21T20:49:14.124500Z");
    expect(formatMicroTime(at + 0.9)).toBe("2026-11-21T20:49:14.123000Z");
  });

  it("truncate to the second rather than round", () => {
    expect(formatTime(Date.UTC(2026, 0, 1, 0, 0, 0, 999))).toBe("2026-01-01T00:00:00Z");
    expect(formatTime(-1)).toBe("1969-12-31T23:59:59Z");
    expect(formatMicroTime(-1)).toBe("1969-12-31T23:59:59.999000Z");
  });

  it("cover years 0000 to 9999 and refuse others", () => {
    expect(formatTime(new Date("0000-01-01T00:00:00Z").getTime())).toBe("0000-01-01T00:00:00Z");
    expect(formatTime(new Date("9999-12-31T23:59:59.999Z").getTime())).toBe("9999-12-31T23:59:59Z");
    expect(formatTime(new Date("2024-02-29T12:00:00Z").getTime())).toBe("2024-02-29T12:00:00Z");
    expect(() => formatTime(new Date("+010000-01-01T00:00:00Z").getTime())).toThrow(RangeError);
    expect(() => formatTime(Number.NaN)).toThrow(RangeError);
    expect(() => formatMicroTime(at, 0.5)).toThrow(RangeError);
  });
});

describe("parseTime and parseMicroTime", () => {
  it("read Z and offsets, with or without fractions", () => {
    expect(parseTime("2026-11-21T20:49:14Z")).toBe(at - 123);
    expect(parseTime("2026-11-21T20:49:14.123Z")).toBe(at);
    expect(parseTime("2026-11-21T20:49:14.1239999999999Z")).toBe(at);
    expect(parseTime("2026-11-21T21:49:14.123+01:00")).toBe(at);
    expect(parseTime("2026-11-21T15:19:14.123-05:30")).toBe(at);
    expect(parseMicroTime("2026-11-21T20:49:14.123456Z")).toBe(at);
    expect(parseMicroTime("2026-11-21T20:49:14Z")).toBe(at - 123);
    expect(parseTime("1969-12-31T23:59:59.5Z")).toBe(-500);
    expect(parseTime("0000-01-01T00:00:00Z")).toBe(new Date("0000-01-01T00:00:00Z").getTime());
  });

  it("refuse what strict RFC 3339 refuses, with a 400", () => {
    const bad = [
      "",
      "2026-11-21",
      "2026-11-21 20:49:14Z",
      "2026-11-21t20:49:14Z",
      "2026-11-21T20:49:14z",
      "2026-11-21T20:49:14",
      "2026-11-21T20:49Z",
      "2026-13-01T00:00:00Z",
      "2026-00-01T00:00:00Z",
      "2026-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-11-21T24:00:00Z",
      "2026-11-21T20:60:00Z",
      "2026-11-21T20:49:60Z",
      "2026-11-21T20:49:14.Z",
      "2026-11-21T20:49:14+0100",
      "2026-11-21T20:49:14+24:00",
      "26-11-21T20:49:14Z",
      "+02026-11-21T20:49:14Z",
      " 2026-11-21T20:49:14Z",
      "2026-11-21T20:49:14Z ",
      "Sat, 21 Nov 2026 20:49:14 GMT",
    ];
    for (const text of bad) {
      const error = failure(() => parseTime(text));
      expect(error.code, text).toBe(400);
      expect(failure(() => parseMicroTime(text)).code).toBe(400);
    }
    expect(failure(() => parseTime("2026-13-01T00:00:00Z")).message).toBe('invalid time "2026-13-01T00:00:00Z": month out of range');
  });
});

describe("normalizeTime and normalizeMicroTime", () => {
  it("rewrite times in the stored form", () => {
    expect(normalizeTime("2026-11-21T21:49:14.5+01:00")).toBe("2026-11-21T20:49:14Z");
    expect(normalizeMicroTime("2026-11-21T21:49:14.1234567+01:00")).toBe("2026-11-21T20:49:14.123456Z");
    expect(normalizeMicroTime("2026-11-21T20:49:14Z")).toBe("2026-11-21T20:49:14.000000Z");
    expect(normalizeMicroTime("1969-12-31T23:59:59.000001Z")).toBe("1969-12-31T23:59:59.000001Z");
  });

  it("refuse a time the offset moves out of the printable years", () => {
    expect(failure(() => normalizeTime("0000-01-01T00:30:00+01:00")).code).toBe(400);
    expect(failure(() => normalizeMicroTime("9999-12-31T23:30:00-01:00")).code).toBe(400);
  });
});

const msArb = fc.integer({ min: new Date("0000-01-01T00:00:00Z").getTime(), max: new Date("9999-12-31T23:59:59.999Z").getTime() });

describe("properties", () => {
  it("round-trips formatted times", () => {
    fc.assert(
      fc.property(msArb, fc.integer({ min: 0, max: 999 }), (ms, micros) => {
        expect(parseTime(formatTime(ms))).toBe(Math.floor(ms / 1000) * 1000);
        expect(parseMicroTime(formatMicroTime(ms, micros))).toBe(ms);
        expect(normalizeMicroTime(formatMicroTime(ms, micros))).toBe(formatMicroTime(ms, micros));
        expect(normalizeTime(formatTime(ms))).toBe(formatTime(ms));
      }),
    );
  });

  it("agrees with Date on the instant and the printed form", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799999 }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(formatMicroTime(ms)).toBe(iso.replace(/Z$/, "000Z"));
        expect(parseTime(iso)).toBe(ms);
      }),
    );
  });

  it("either parses any string or throws a 400 StatusError", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        try {
          parseTime(text);
        } catch (e) {
          expect((e as StatusError).code).toBe(400);
        }
      }),
    );
  });
});
