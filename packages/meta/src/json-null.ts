/**
 * Finding nulls in decoded JSON.
 * @module
 */

/**
 * Whether some object member at or below `value` is `null` (what makes a decoder that drops null
 * members change the value, as the reference's decoder does). Array items that are `null` do not
 * count; members of objects inside arrays do. Allocates nothing: most bodies have none.
 */
export function hasNullMember(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (hasNullMember(item)) return true;
    return false;
  }
  for (const key in value) {
    const member = (value as Record<string, unknown>)[key];
    if (member === null || hasNullMember(member)) return true;
  }
  return false;
}
