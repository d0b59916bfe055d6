/**
 * Base64 of text, as the API carries bytes fields (Secret `data`, `status.certificate`,
 * `certificate-authority-data`).
 * @module
 */

/** Base64 of the UTF-8 bytes of `text`. */
export function base64OfText(text: string): string {
  return btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(""));
}

/** The UTF-8 text of base64 `value`. @throws Error when `value` is not base64. */
export function textOfBase64(value: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));
}
