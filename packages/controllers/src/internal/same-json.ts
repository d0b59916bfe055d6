/**
 * {@link sameJSON}: equality of JSON values whatever the order of their members, for comparing
 * what a loop computed with what the server stored (which may order members otherwise).
 * @module
 */

/** `value` as JSON text with the members of every object in key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** True when `a` and `b` are the same JSON value, members of objects in any order (array order counts). */
export function sameJSON(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
