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
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = Object.keys(ra).filter((k) => ra[k] !== undefined);
  if (keys.length !== Object.keys(rb).filter((k) => rb[k] !== undefined).length) return false;
  return keys.every((k) => jsonEqual(ra[k], rb[k]));
}
