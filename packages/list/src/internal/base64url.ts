/**
 * Unpadded base64url (RFC 4648 section 5, Go's `base64.RawURLEncoding`) of UTF-8 text, with web
 * APIs only.
 * @module
 */

const alphabet = /^[A-Za-z0-9_-]*$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Encodes `text` as UTF-8, then as unpadded base64url. */
export function encodeBase64Url(text: string): string {
  const bytes = encoder.encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes unpadded base64url to UTF-8 text; undefined when either layer is malformed. */
export function decodeBase64Url(encoded: string): string | undefined {
  // atob would also accept padding, `+`, `/` and whitespace: the reference decoder does not.
  if (!alphabet.test(encoded) || encoded.length % 4 === 1) return undefined;
  let binary: string;
  try {
    binary = atob(encoded.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
