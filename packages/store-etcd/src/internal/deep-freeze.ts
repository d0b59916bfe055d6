/**
 * Deep freezing of values decoded from etcd, so readers share them safely.
 * @module
 */

/** Freezes `value` and every object reachable from it, in place, and returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}
