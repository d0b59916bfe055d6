/**
 * Deep freezing of stored values, so one object can be handed to every reader.
 * @module
 */

/**
 * Freezes `value` and every object reachable from it, in place, and returns it. A subtree that
 * is already frozen is taken as deeply frozen and skipped, so re-storing a value read from the
 * store costs one check. Typed arrays and other buffer views cannot be frozen and are left as is.
 */
export function deepFreeze<T extends object>(value: T): T {
  if (!Object.isFrozen(value)) freezeTree(value);
  return value;
}

function freezeTree(value: object): void {
  if (ArrayBuffer.isView(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === "object" && child !== null && !Object.isFrozen(child)) freezeTree(child);
    }
    return;
  }
  const record = value as Record<string, unknown>;
  for (const k in record) {
    const child = record[k];
    if (typeof child === "object" && child !== null && !Object.isFrozen(child)) freezeTree(child);
  }
}
