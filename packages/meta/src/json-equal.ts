/**
 * {@link jsonEqual}: equality of JSON values as values, whatever the order of object members.
 * @module
 */

/**
 * True when `a` and `b` are the same JSON value: objects with the same members in any order
 * (members whose value is `undefined` count as absent), arrays element by element.
 *
 * @example
 * jsonEqual({ a: 1, b: [2] }, { b: [2], a: 1 }); // true
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  // Loops, not filter/every: every write compares the stored object with the new one this way.
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let members = 0;
  for (const key of Object.keys(ra)) {
    const value = ra[key];
    if (value === undefined) continue;
    members++;
    if (!jsonEqual(value, rb[key])) return false;
  }
  for (const key of Object.keys(rb)) if (rb[key] !== undefined) members--;
  return members === 0;
}
