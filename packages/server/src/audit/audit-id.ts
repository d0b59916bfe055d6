/**
 * The default audit ID of a request: a random (version 4) UUID, as `crypto.randomUUID()` makes
 * it, but built as one string from a pool of random bytes. Every audited request gets one, and
 * the runtime's own joins 20 pieces into a string that is copied again when first read.
 * @module
 */

/** How many IDs one draw of random bytes serves. */
const idsPerDraw = 256;

const pool = new Uint8Array(16 * idsPerDraw);
let next = pool.length;

/** The character codes of the hex digits. */
const hex = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
const dash = 0x2d;
const fromCodes = String.fromCharCode;

/** The character code of the high hex digit of `byte`. */
const h = (byte: number) => hex[byte >> 4] as number;
/** The character code of the low hex digit of `byte`. */
const l = (byte: number) => hex[byte & 15] as number;

/**
 * A random UUID (version 4, variant 10, lower-case: `xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`)
 * from the runtime's cryptographic random source (`crypto.getRandomValues`), drawn 256 IDs'
 * worth at a time.
 */
export function randomAuditID(): string {
  if (next === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  const b = pool;
  const i = next;
  next += 16;
  const b0 = b[i] as number;
  const b1 = b[i + 1] as number;
  const b2 = b[i + 2] as number;
  const b3 = b[i + 3] as number;
  const b4 = b[i + 4] as number;
  const b5 = b[i + 5] as number;
  const b6 = ((b[i + 6] as number) & 0x0f) | 0x40; // version 4
  const b7 = b[i + 7] as number;
  const b8 = ((b[i + 8] as number) & 0x3f) | 0x80; // variant 10
  const b9 = b[i + 9] as number;
  const b10 = b[i + 10] as number;
  const b11 = b[i + 11] as number;
  const b12 = b[i + 12] as number;
  const b13 = b[i + 13] as number;
  const b14 = b[i + 14] as number;
  const b15 = b[i + 15] as number;
  // One call, one flat string of 36 characters.
  return fromCodes(
    h(b0),
    l(b0),
    h(b1),
    l(b1),
    h(b2),
    l(b2),
    h(b3),
    l(b3),
    dash,
    h(b4),
    l(b4),
    h(b5),
    l(b5),
    dash,
    h(b6),
    l(b6),
    h(b7),
    l(b7),
    dash,
    h(b8),
    l(b8),
    h(b9),
    l(b9),
    dash,
    h(b10),
    l(b10),
    h(b11),
    l(b11),
    h(b12),
    l(b12),
    h(b13),
    l(b13),
    h(b14),
    l(b14),
    h(b15),
    l(b15),
  );
}
