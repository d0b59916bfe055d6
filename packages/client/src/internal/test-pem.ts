/**
 * Test-only PEM fixtures (not real keys): text the parser accepts as PEM, and its base64.
 * @module
 */

/** A PEM-shaped text labelled `label`. */
export function fakePEM(label: string): string {
  return `-----BEGIN ${label}-----\nAAAA\n-----END ${label}-----\n`;
}

/** `text` as base64, as `*-data` fields hold it. */
export function base64(text: string): string {
  return btoa(text);
}
