/**
 * The `metadata.managedFields` of a stored object as decoding a body that carries them unchanged
 * would leave them, made without running the decoder. A patch is applied to the stored object,
 * so the patched body carries the stored list (shared, not copied) unless the patch names it;
 * that list is often as large as the rest of the object, and running the schema, the unknown-field
 * walk and the null walk over it was a sixth of a merge patch's CPU.
 * @module
 */
import { isEncodedFieldsV1 } from "@orch/merge";
import { hasNullMember, normalizeTime, type ManagedFieldsEntry } from "@orch/meta";

/** The members of a ManagedFieldsEntry, in the order the decoder writes them (its schema's). */
const entryMembers = ["apiVersion", "fieldsType", "fieldsV1", "manager", "operation", "subresource", "time"] as const;

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

// The decoder's copy of a FieldsV1 value: a new object with the same members (their values shared).
function decodedFieldsV1(fields: unknown): Record<string, unknown> | undefined {
  if (!isPlainRecord(fields)) return undefined;
  // What the server encoded and stored holds only nested objects: no member to check.
  if (isEncodedFieldsV1(fields)) return { ...fields };
  if (hasNullMember(fields)) return undefined;
  // The decoder refuses a symbol as a key; the hidden slot of an encoded value is not enumerable.
  for (const symbol of Object.getOwnPropertySymbols(fields)) if (Object.prototype.propertyIsEnumerable.call(fields, symbol)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    if (key === "__proto__") return undefined;
    out[key] = fields[key];
  }
  return out;
}

// The decoder's copy of one entry, or undefined when it would do more than copy it.
function decodedEntry(entry: unknown): ManagedFieldsEntry | undefined {
  if (!isPlainRecord(entry)) return undefined;
  const out: Record<string, unknown> = {};
  let members = 0;
  for (const key of entryMembers) {
    const value = entry[key];
    if (value === undefined) continue;
    members++;
    if (key === "fieldsV1") {
      const fields = decodedFieldsV1(value);
      if (!fields) return undefined;
      out[key] = fields;
    } else if (typeof value !== "string") return undefined;
    else if (key === "time" && !isStoredTime(value)) return undefined;
    else out[key] = value;
  }
  // A member the schema does not know (or one set to undefined) is the decoder's to report or drop.
  if (Object.keys(entry).length !== members) return undefined;
  return out as ManagedFieldsEntry;
}

function isStoredTime(text: string): boolean {
  try {
    return normalizeTime(text) === text;
  } catch {
    return false;
  }
}

/**
 * What decoding leaves of `entries`, the `metadata.managedFields` of a stored object, when
 * decoding would only copy them: a new list of new entries, members in the schema's order, each
 * `fieldsV1` a new object whose members are shared. `undefined` when decoding would report,
 * drop, normalise or refuse something in them (an unknown or null member, a time not in stored
 * form, a value of the wrong type): the caller then decodes them as any body.
 */
export function decodedStoredManagedFields(entries: unknown): ManagedFieldsEntry[] | undefined {
  if (!Array.isArray(entries)) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const entry of entries) {
    const decoded = decodedEntry(entry);
    if (!decoded) return undefined;
    out.push(decoded);
  }
  return out;
}
