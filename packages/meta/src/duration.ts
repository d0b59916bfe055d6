/**
 * Durations as the reference's flags and clients write them (Go's `time.ParseDuration`).
 * @module
 */

const durationUnits: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a duration as the reference's clients write it (`5s`, `1m30s`, `250ms`, `-1s`, `0`)
 * into milliseconds.
 * @throws Error with the reference's wording (`time: invalid duration "x"`,
 *   `time: missing unit in duration "5"`, `time: unknown unit "d" in duration "1d"`).
 */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    if (rest.startsWith("-")) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new Error(`time: invalid duration ${quoted}`);
  let total = 0;
  while (rest !== "") {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const digits = number?.[0] ?? "";
    if (digits === "" || digits === ".") throw new Error(`time: invalid duration ${quoted}`);
    rest = rest.slice(digits.length);
    const unit = /^[^\d.]*/.exec(rest)?.[0] ?? "";
    if (unit === "") throw new Error(`time: missing unit in duration ${quoted}`);
    const scale = durationUnits[unit];
    if (scale === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    total += Number(digits.endsWith(".") ? digits.slice(0, -1) : digits) * scale;
    rest = rest.slice(unit.length);
  }
  return sign * total;
}
