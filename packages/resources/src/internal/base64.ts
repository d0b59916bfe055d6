/**
 * Base64 as the reference's JSON decoder reads `[]byte` fields (standard alphabet, padded,
 * carriage returns and newlines ignored), and encoding of UTF-8 text for Secret `stringData`.
 * @module
 */

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const values = new Map<string, number>([...alphabet].map((c, i) => [c, i]));

/** The outcome of checking one base64 string. */
export type Base64Check = { ok: true; bytes: number; canonical: string } | { ok: false; message: string };

/**
 * Checks `text` as padded standard base64; `bytes` is the decoded length and `canonical` the
 * text without line breaks. Errors use the reference's wording:
 * `illegal base64 data at input byte N`.
 */
export function checkBase64(text: string): Base64Check {
  const chars: { c: string; at: number }[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c !== "\r" && c !== "\n") chars.push({ c, at: i });
  }
  const fail = (at: number): Base64Check => ({ ok: false, message: `illegal base64 data at input byte ${at}` });
  let padding = 0;
  for (let i = 0; i < chars.length; i++) {
    const { c, at } = chars[i] as { c: string; at: number };
    if (c === "=") {
      const pos = i % 4;
      if (pos < 2) return fail(at);
      if (pos === 2) {
        if (chars[i + 1]?.c !== "=") return fail(chars[i + 1]?.at ?? text.length);
        if (i + 2 < chars.length) return fail((chars[i + 2] as { at: number }).at);
        padding = 2;
      } else {
        if (i + 1 < chars.length) return fail((chars[i + 1] as { at: number }).at);
        padding = 1;
      }
      break;
    }
    if (!values.has(c)) return fail(at);
  }
  if (chars.length % 4 !== 0) {
    const quantumStart = chars.length - (chars.length % 4);
    return fail((chars[quantumStart] as { at: number }).at);
  }
  const canonical = chars.length === text.length ? text : chars.map((x) => x.c).join("");
  return { ok: true, bytes: (chars.length / 4) * 3 - padding, canonical };
}

/** Decodes valid base64 (as {@link checkBase64} accepts it) to bytes. */
export function decodeBase64(text: string): Uint8Array {
  const clean = text.replace(/[\r\n=]/g, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let n = 0;
  for (const c of clean) {
    buffer = (buffer << 6) | (values.get(c) ?? 0);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (buffer >> bits) & 0xff;
    }
  }
  return out.subarray(0, n);
}

/** Encodes bytes as padded standard base64. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] as number;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const triple = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += alphabet.charAt((triple >> 18) & 63) + alphabet.charAt((triple >> 12) & 63);
    out += b === undefined ? "=" : alphabet.charAt((triple >> 6) & 63);
    out += c === undefined ? "=" : alphabet.charAt(triple & 63);
  }
  return out;
}

/** Encodes text as the base64 of its UTF-8 bytes (Secret `stringData` to `data`). */
export function encodeBase64Text(text: string): string {
  return encodeBase64(new TextEncoder().encode(text));
}

/** The decoded length of valid base64 text, 0 for anything else. */
export function base64ByteLength(text: string): number {
  const check = checkBase64(text);
  return check.ok ? check.bytes : 0;
}
