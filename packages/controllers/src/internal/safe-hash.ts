/**
 * The hashes names of workload objects carry (a ReplicaSet's `pod-template-hash`, a
 * ControllerRevision's suffix): 32-bit FNV-1a, printed in decimal and spelled with an alphabet
 * in which no word can form (the reference's `SafeEncodeString`).
 * @module
 */

/** The consonants and digits the hashes are spelled with. */
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789";

/** The 32-bit FNV-1a hash of `bytes`, continuing from `seed` (the offset basis by default). */
export function fnv32a(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let hash = seed;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash >>> 0;
}

/** `hash` in decimal, each digit mapped into the safe alphabet. */
export function safeEncodeHash(hash: number): string {
  return [...String(hash)].map((c) => safeAlphabet[c.charCodeAt(0) % safeAlphabet.length]).join("");
}
