import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareQuantities, newMilliQuantity, newQuantity, parseQuantity, type QuantityFormat } from "./quantity.js";
import { StatusError } from "./status-error.js";

function failure(text: string): StatusError {
  try {
    parseQuantity(text);
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return e as StatusError;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

// The inputs of the reference's TestQuantityParse, with the canonical form of the value it
// expects and the format it expects.
const parseTable: [input: string, canonical: string, format: QuantityFormat][] = [
  ["0", "0", "DecimalSI"],
  ["0n", "0", "DecimalSI"],
  ["0u", "0", "DecimalSI"],
  ["0m", "0", "DecimalSI"],
  ["0Ki", "0", "BinarySI"],
  ["0k", "0", "DecimalSI"],
  ["0Mi", "0", "BinarySI"],
  ["0M", "0", "DecimalSI"],
  ["0Gi", "0", "BinarySI"],
  ["0G", "0", "DecimalSI"],
  ["0Ti", "0", "BinarySI"],
  ["0T", "0", "DecimalSI"],
  ["1", "1", "DecimalSI"],
  ["1Ki", "1Ki", "BinarySI"],
  ["8Ki", "8Ki", "BinarySI"],
  ["7Mi", "7Mi", "BinarySI"],
  ["6Gi", "6Gi", "BinarySI"],
  ["5Ti", "5Ti", "BinarySI"],
  ["4Pi", "4Pi", "BinarySI"],
  ["3Ei", "3Ei", "BinarySI"],
  ["10Ti", "10Ti", "BinarySI"],
  ["100Ti", "100Ti", "BinarySI"],
  ["5n", "5n", "DecimalSI"],
  ["4u", "4u", "DecimalSI"],
  ["3m", "3m", "DecimalSI"],
  ["9", "9", "DecimalSI"],
  ["8k", "8k", "DecimalSI"],
  ["50k", "50k", "DecimalSI"],
  ["7M", "7M", "DecimalSI"],
  ["6G", "6G", "DecimalSI"],
  ["5T", "5T", "DecimalSI"],
  ["40T", "40T", "DecimalSI"],
  ["300T", "300T", "DecimalSI"],
  ["2P", "2P", "DecimalSI"],
  ["1E", "1E", "DecimalSI"],
  ["1E-3", "1e-3", "DecimalExponent"],
  ["1e3", "1e3", "DecimalExponent"],
  ["1E6", "1e6", "DecimalExponent"],
  ["1e9", "1e9", "DecimalExponent"],
  ["1E12", "1e12", "DecimalExponent"],
  ["1e15", "1e15", "DecimalExponent"],
  ["1E18", "1e18", "DecimalExponent"],
  ["1e14", "100e12", "DecimalExponent"],
  ["1e13", "10e12", "DecimalExponent"],
  ["100.035k", "100035", "DecimalSI"],
  ["0.001", "1m", "DecimalSI"],
  ["0.0005k", "500m", "DecimalSI"],
  ["0.005", "5m", "DecimalSI"],
  ["0.05", "50m", "DecimalSI"],
  ["0.5", "500m", "DecimalSI"],
  ["0.00050k", "500m", "DecimalSI"],
  ["0.00500", "5m", "DecimalSI"],
  ["0.05000", "50m", "DecimalSI"],
  ["0.50000", "500m", "DecimalSI"],
  ["0.5e0", "500e-3", "DecimalExponent"],
  ["0.5e-1", "50e-3", "DecimalExponent"],
  ["0.5e-2", "5e-3", "DecimalExponent"],
  ["10.035M", "10035k", "DecimalSI"],
  ["1.2e3", "1200", "DecimalExponent"],
  ["1.3E+6", "1300e3", "DecimalExponent"],
  ["1.40e9", "1400e6", "DecimalExponent"],
  ["1.53E12", "1530e9", "DecimalExponent"],
  ["1.6e15", "1600e12", "DecimalExponent"],
  ["1.7E18", "1700e15", "DecimalExponent"],
  ["9.01", "9010m", "DecimalSI"],
  ["8.1k", "8100", "DecimalSI"],
  ["7.123456M", "7123456", "DecimalSI"],
  ["6.987654321G", "6987654321", "DecimalSI"],
  ["5.444T", "5444G", "DecimalSI"],
  ["40.1T", "40100G", "DecimalSI"],
  ["300.2T", "300200G", "DecimalSI"],
  ["2.5P", "2500T", "DecimalSI"],
  ["1.01E", "1010P", "DecimalSI"],
  ["3.001n", "4n", "DecimalSI"],
  ["1.1E-9", "2e-9", "DecimalExponent"],
  ["0.0000000001", "1n", "DecimalSI"],
  ["0.0000000005", "1n", "DecimalSI"],
  ["0.00000000050", "1n", "DecimalSI"],
  ["0.5e-9", "1e-9", "DecimalExponent"],
  ["0.9n", "1n", "DecimalSI"],
  ["0.00000012345", "124n", "DecimalSI"],
  ["0.00000012354", "124n", "DecimalSI"],
  ["9Ei", "9223372036854775807", "BinarySI"],
  ["9223372036854775807Ki", "9223372036854775807", "BinarySI"],
  ["12E", "12E", "DecimalSI"],
  ["100.035Ki", "102435840m", "BinarySI"],
  ["0.5Mi", "512Ki", "BinarySI"],
  ["0.05Gi", "53687091200m", "BinarySI"],
  ["0.025Ti", "27487790694400m", "BinarySI"],
  ["0.000000000001Ki", "2n", "DecimalSI"],
  [".001", "1m", "DecimalSI"],
  [".0001k", "100m", "DecimalSI"],
  ["1.", "1", "DecimalSI"],
  ["1.G", "1G", "DecimalSI"],
];

// The reference's TestQuantityString: canonical strings (kept as written when parsed) and an
// alternate spelling of the same value that prints as the canonical one.
const stringTable: [canonical: string, alternate: string][] = [
  ["1Gi", "1024Mi"],
  ["300Mi", "307200Ki"],
  ["6Ki", ""],
  ["1001Gi", "1025024Mi"],
  ["1Ti", "1024Gi"],
  ["5", "5000m"],
  ["500m", "0.5"],
  ["1G", "1000M"],
  ["1G", "0.001T"],
  ["1m", "1000u"],
  ["80m", ""],
  ["1080m", "1.08"],
  ["1080m", "1080000000n"],
  ["300M", ""],
  ["1T", ""],
  ["1E", ""],
  ["1e21", "1000E"],
  ["5e21", "5000E"],
  ["1e24", "1000000E"],
  ["1234567M", ""],
  ["1234567m", ""],
  ["3k", ""],
  ["1025", ""],
  ["0", "00"],
  ["1e9", ".001e12"],
  ["1e-3", "0.001e0"],
  ["1e-9", "1000e-12"],
  ["80e-3", ""],
  ["300e6", ""],
  ["1e12", ""],
  ["1e3", ""],
  ["3e3", ""],
  ["1n", ""],
  ["80n", ""],
  ["1080n", ""],
  ["1u", ""],
  ["80u", ""],
  ["1080u", ""],
];

describe("parseQuantity", () => {
  it("reads the reference's table with its values and formats", () => {
    for (const [input, canonical, format] of parseTable) {
      const q = parseQuantity(input);
      expect(q.format, input).toBe(format);
      expect(q.equals(parseQuantity(canonical)), input).toBe(true);
      expect(q.neg().toString(), input).toBe(canonical === "0" ? "0" : `-${canonical}`);
      for (const sign of ["-", "+"]) {
        const signed = parseQuantity(sign + input);
        expect(signed.format, sign + input).toBe(format);
        expect(signed.equals(sign === "-" ? q.neg() : q), sign + input).toBe(true);
      }
    }
  });

  it("keeps a canonical string as written and canonicalises the rest", () => {
    for (const [canonical, alternate] of stringTable) {
      expect(parseQuantity(canonical).toString(), canonical).toBe(canonical);
      if (alternate) expect(parseQuantity(alternate).toString(), alternate).toBe(canonical);
      if (canonical !== "0")
        expect(
          parseQuantity(alternate || canonical)
            .neg()
            .toString(),
        ).toBe(`-${canonical}`);
    }
  });

  it("prints the examples of the brief", () => {
    const cases: [string, string][] = [
      ["1500m", "1500m"],
      ["1.5", "1500m"],
      ["1024Mi", "1Gi"],
      ["1e3", "1e3"],
      ["1000", "1k"],
      ["0.1", "100m"],
      ["1.5Gi", "1536Mi"],
      ["0.9Gi", "966367641600m"],
      ["0.30000000000000004", "300000001n"],
    ];
    for (const [input, printed] of cases) expect(parseQuantity(input).toString(), input).toBe(printed);
  });

  it("emits what the reference's TestQuantityParseEmit expects", () => {
    const cases: [string, string][] = [
      ["1Ki", "1Ki"],
      ["1Mi", "1Mi"],
      ["1Gi", "1Gi"],
      ["1024Mi", "1Gi"],
      ["1000M", "1G"],
      [".001Ki", "1024m"],
      [".000001Ki", "1024u"],
      [".000000001Ki", "1024n"],
      [".000000000001Ki", "2n"],
    ];
    for (const [input, printed] of cases) {
      expect(parseQuantity(input).toString(), input).toBe(printed);
      expect(parseQuantity(`-${input}`).toString(), input).toBe(`-${printed}`);
    }
  });

  it("reads a bare point or sign as zero, as the reference's scanner does", () => {
    for (const text of [".", "-.", "-", "+"]) expect(parseQuantity(text).isZero(), text).toBe(true);
  });

  it("keeps other already-canonical spellings as the reference does", () => {
    expect(parseQuantity("+1k").toString()).toBe("+1k");
    expect(parseQuantity("1E3").toString()).toBe("1E3");
    expect(parseQuantity("-5Gi").toString()).toBe("-5Gi");
  });

  it("rejects the reference's invalid quantities with its messages", () => {
    const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    const suffix = "unable to parse quantity's suffix";
    const cases: [string, string][] = [
      ["", formatWrong],
      ["1.1.M", formatWrong],
      ["1+1.0M", formatWrong],
      ["0.1mi", suffix],
      ["0.1am", formatWrong],
      ["aoeu", formatWrong],
      [".5i", suffix],
      ["1i", suffix],
      ["-3.01i", suffix],
      ["-3.01e-", suffix],
      [" 1", formatWrong],
      ["1 ", formatWrong],
      ["1e", suffix],
      ["-.e-20", "unable to parse numeric part of quantity"],
    ];
    for (const [input, message] of cases) {
      const error = failure(input);
      expect(error.code, input).toBe(400);
      expect(error.message, input).toBe(message);
    }
  });

  it("refuses absurd magnitudes instead of spending unbounded work on them", () => {
    expect(parseQuantity("1e999").toString()).toBe("1e999");
    expect(failure("1e1000").message).toBe("unable to parse numeric part of quantity");
    expect(failure("1e9223372036854775807").code).toBe(400);
    expect(failure(`1${"1".repeat(1000)}`).code).toBe(400);
    expect(parseQuantity("1e-9223372036854775807").toString()).toBe("1e-9");
    expect(parseQuantity(`0.${"0".repeat(200_000)}1`).toString()).toBe("1n");
    expect(parseQuantity(`0.${"0".repeat(200_000)}1Ki`).toString()).toBe("1n");
    expect(parseQuantity("99999999999999999999999Ei").toString()).toBe("9223372036854775807");
  });
});

describe("Quantity", () => {
  it("compares values across formats", () => {
    const cases: [string, string, number][] = [
      ["0", "0", 0],
      ["100m", "50m", 1],
      ["50m", "100m", -1],
      ["10000T", "100Gi", 1],
      ["1Ki", "1024", 0],
      ["1e3", "1k", 0],
    ];
    for (const [a, b, want] of cases) {
      expect(parseQuantity(a).cmp(parseQuantity(b)), `${a} vs ${b}`).toBe(want);
      expect(compareQuantities(parseQuantity(b), parseQuantity(a))).toBe(0 - want || 0);
    }
    const sorted = ["1Gi", "500m", "2", "1k"].map(parseQuantity).sort(compareQuantities).map(String);
    expect(sorted).toEqual(["500m", "2", "1k", "1Gi"]);
  });

  it("adds and subtracts exactly, a zero taking the other's format", () => {
    for (const v of ["100m", "1Gi"]) {
      const q = parseQuantity(v);
      const zero = parseQuantity("0");
      expect(q.add(zero).toString()).toBe(v);
      expect(zero.add(q).toString()).toBe(v);
      expect(q.sub(zero).toString()).toBe(v);
      expect(zero.sub(q).toString()).toBe(`-${v}`);
    }
    expect(parseQuantity("10").add(parseQuantity("1Ki")).toString()).toBe("1034");
    expect(parseQuantity("10Ki").sub(parseQuantity("1")).format).toBe("BinarySI");
    expect(parseQuantity("0.1").add(parseQuantity("0.2")).toString()).toBe("300m");
    expect(parseQuantity("9Ei").add(parseQuantity("9Ei")).toString()).toBe("18446744073709551614");
    expect(parseQuantity("8Ei").add(parseQuantity("8Ei")).toString()).toBe("18446744073709551614");
    expect(newQuantity(1n << 70n, "BinarySI").toString()).toBe("1024Ei");
  });

  it("gives integer and milli values rounded away from zero", () => {
    expect(parseQuantity("9.01").value()).toBe(10n);
    expect(parseQuantity("-9.01").value()).toBe(-10n);
    expect(parseQuantity("1Gi").value()).toBe(1073741824n);
    expect(parseQuantity("1.5").milliValue()).toBe(1500n);
    expect(parseQuantity("1n").milliValue()).toBe(1n);
    expect(parseQuantity("-1n").milliValue()).toBe(-1n);
    expect(parseQuantity("1e30").value()).toBe(10n ** 30n);
  });

  it("reports sign and zero", () => {
    expect([parseQuantity("-1m").sign(), parseQuantity("0Ki").sign(), parseQuantity("1m").sign()]).toEqual([-1, 0, 1]);
    expect(parseQuantity("0.0").isZero()).toBe(true);
  });

  it("builds quantities from integers as the reference's NewQuantity and NewMilliQuantity", () => {
    const whole: [number, QuantityFormat, string][] = [
      [1, "DecimalSI", "1"],
      [1000, "DecimalSI", "1k"],
      [1234000, "DecimalSI", "1234k"],
      [1024, "BinarySI", "1Ki"],
      [1000000, "DecimalExponent", "1e6"],
      [1024 * 1024, "BinarySI", "1Mi"],
    ];
    for (const [v, format, printed] of whole) expect(newQuantity(v, format).toString()).toBe(printed);
    const milli: [number, QuantityFormat, string][] = [
      [1, "DecimalSI", "1m"],
      [1000, "DecimalSI", "1"],
      [1234000, "DecimalSI", "1234"],
      [1024, "BinarySI", "1024m"],
      [1000000, "DecimalExponent", "1e3"],
      [1024 * 1024, "BinarySI", "1048576m"],
    ];
    for (const [v, format, printed] of milli) expect(newMilliQuantity(v, format).toString()).toBe(printed);
    expect(() => newQuantity(1.5)).toThrow(RangeError);
  });

  it("travels in JSON as its canonical string", () => {
    expect(JSON.stringify({ cpu: parseQuantity("1.5"), memory: parseQuantity("1024Mi") })).toBe('{"cpu":"1500m","memory":"1Gi"}');
  });
});

const suffixArb = fc.constantFrom("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E-2", "e+7", "e-12", "e0");
const quantityTextArb = fc
  .tuple(fc.constantFrom("", "-", "+"), fc.stringMatching(/^[0-9]{0,12}$/), fc.option(fc.stringMatching(/^[0-9]{0,12}$/)), suffixArb)
  .map(([sign, int, frac, suffix]) => `${sign}${int || "0"}${frac === null ? "" : `.${frac}`}${suffix}`);

describe("properties", () => {
  it("re-parses the canonical string to an equal quantity printing the same string", () => {
    fc.assert(
      fc.property(quantityTextArb, (text) => {
        const q = parseQuantity(text);
        const printed = q.toString();
        const again = parseQuantity(printed);
        expect(again.equals(q)).toBe(true);
        expect(again.toString()).toBe(printed);
        const canonical = q.add(parseQuantity("0")).toString();
        expect(parseQuantity(canonical).toString()).toBe(canonical);
      }),
      { numRuns: 500 },
    );
  });

  it("matches exact rational arithmetic for decimal quantities", () => {
    const decimal = fc.constantFrom(["n", -9], ["u", -6], ["m", -3], ["", 0], ["k", 3], ["M", 6], ["e-4", -4], ["e2", 2]) as fc.Arbitrary<[string, number]>;
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), decimal, (n, [suffix, exp]) => {
        const q = parseQuantity(`${n}${suffix}`);
        // n * 10^exp in thousandths, rounded away from zero.
        const shift = exp + 3;
        const expected = shift >= 0 ? n * 10n ** BigInt(shift) : roundAway(n, 10n ** BigInt(-shift));
        expect(q.milliValue()).toBe(expected);
      }),
    );
  });

  it("adds and subtracts as a group", () => {
    fc.assert(
      fc.property(quantityTextArb, quantityTextArb, (a, b) => {
        const x = parseQuantity(a);
        const y = parseQuantity(b);
        expect(x.add(y).sub(y).equals(x)).toBe(true);
        expect(x.add(y).equals(y.add(x))).toBe(true);
        expect(x.cmp(y)).toBe(0 - y.cmp(x) || 0);
      }),
    );
  });

  it("either parses any string or throws a 400 StatusError", () => {
    const soup = fc.array(fc.constantFrom("0", "1", "9", ".", "-", "+", "e", "E", "i", "K", "m", "n", "x", " "), { maxLength: 12 }).map((p) => p.join(""));
    for (const arb of [fc.string({ maxLength: 20 }), soup]) {
      fc.assert(
        fc.property(arb, (text) => {
          try {
            parseQuantity(text);
          } catch (e) {
            expect(e).toBeInstanceOf(StatusError);
            expect((e as StatusError).code).toBe(400);
          }
        }),
        { numRuns: 500 },
      );
    }
  });
});

function roundAway(n: bigint, unit: bigint): bigint {
  const q = n / unit;
  if (n % unit === 0n) return q;
  return n > 0n ? q + 1n : q - 1n;
}
