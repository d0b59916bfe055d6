/**
 * Go's `strconv.ParseInt(s, 10, 64)` without a regular expression: an optional sign, then at
 * least one decimal digit, in the int64 range. Shared by label selectors (`gt`/`lt`) and
 * quantity exponents.
 * @module
 */

const int64Max = (1n << 63n) - 1n;
const int64Min = -(1n << 63n);

/**
 * The value of `s` as Go's ParseInt reads it, or undefined when ParseInt fails. Values of up to
 * 15 significant digits come back as a number (exact), longer ones as a bigint.
 */
export function parseInt64(s: string): number | bigint | undefined {
  const n = s.length;
  let i = 0;
  const first = s.charCodeAt(0);
  if (first === 0x2b || first === 0x2d) i = 1;
  if (i >= n) return undefined;
  let significant = -1;
  for (let j = i; j < n; j++) {
    const c = s.charCodeAt(j);
    if (c < 0x30 || c > 0x39) return undefined;
    if (significant < 0 && c !== 0x30) significant = j;
  }
  if (significant < 0) return 0;
  const digits = n - significant;
  if (digits <= 15) return Number(s);
  if (digits > 19) return undefined;
  const value = BigInt(s);
  return value > int64Max || value < int64Min ? undefined : value;
}
