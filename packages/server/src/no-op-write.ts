/**
 * {@link isNoOpWrite}: whether an update would store what is stored already, so the write path
 * keeps the stored object, its resourceVersion and its `managedFields` timestamps, and emits no
 * watch event.
 * @module
 */
import { jsonEqual, type APIObject } from "@orch/meta";
import { sameJSON } from "./same-json.js";

type Members = Record<string, unknown>;

function isMembers(value: unknown): value is Members {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What tells two `managedFields` entries apart: everything but the time of the write. */
function entryIdentity(entry: Members): string {
  return JSON.stringify([entry["manager"] ?? "", entry["operation"] ?? "", entry["subresource"] ?? "", entry["apiVersion"] ?? ""]);
}

/**
 * True when the two `managedFields` lists record the same ownership: the same entries, matched
 * by manager, operation, sub-resource and API version, with equal field sets, whatever their
 * timestamps.
 */
function sameOwnership(next: unknown, stored: unknown): boolean {
  const a = Array.isArray(next) ? next : [];
  const b = Array.isArray(stored) ? stored : [];
  if (a.length !== b.length) return false;
  const byIdentity = new Map<string, Members>();
  for (const entry of b) if (isMembers(entry)) byIdentity.set(entryIdentity(entry), entry);
  for (const entry of a) {
    if (!isMembers(entry)) return false;
    const other = byIdentity.get(entryIdentity(entry));
    if (!other) return false;
    for (const key of new Set([...Object.keys(entry), ...Object.keys(other)])) {
      if (key !== "time" && !jsonEqual(entry[key], other[key])) return false;
    }
  }
  return true;
}

/**
 * True when `a` and `b` have the same members with equal values (`jsonEqual`), in any order,
 * leaving out the member named `skip` on both; without copying either.
 */
function sameMembersExcept(a: Members, b: Members, skip: string): boolean {
  let members = 0;
  for (const key of Object.keys(a)) {
    const value = a[key];
    if (key === skip || value === undefined) continue;
    members++;
    if (!jsonEqual(value, b[key])) return false;
  }
  for (const key of Object.keys(b)) if (key !== skip && b[key] !== undefined) members--;
  return members === 0;
}

/**
 * True when storing `next` over `stored` changes nothing a client can see: the same members with
 * the same values, in any order (the stored text's member order is not part of the object), and
 * `managedFields` that differ at most in their timestamps (the reference drops a write whose
 * only change is a newer `time` on an entry whose fields did not change). Neither object carries
 * a resourceVersion.
 */
export function isNoOpWrite(next: APIObject, stored: APIObject): boolean {
  if (sameJSON(next, stored)) return true;
  if (!isMembers(next.metadata) || !isMembers(stored.metadata)) return jsonEqual(next, stored);
  // The cheap refusals first: most writes change something outside metadata, or in it.
  if (!sameMembersExcept(next, stored, "metadata")) return false;
  if (!sameMembersExcept(next.metadata, stored.metadata, "managedFields")) return false;
  return sameOwnership(next.metadata.managedFields, stored.metadata.managedFields);
}

/**
 * True when `a` and `b` have the same members with equal values (`jsonEqual`), in any order,
 * leaving out the members named in `skip` on both; without copying either.
 */
function sameMembersOutside(a: Members, b: Members, skip: ReadonlySet<string>): boolean {
  let members = 0;
  for (const key of Object.keys(a)) {
    const value = a[key];
    if (value === undefined || skip.has(key)) continue;
    members++;
    if (!jsonEqual(value, b[key])) return false;
  }
  for (const key of Object.keys(b)) if (b[key] !== undefined && !skip.has(key)) members--;
  return members === 0;
}

/**
 * True when `a` and `b` hold the same values outside the top-level members in `skip`, in any
 * member order (generation tracking compares the spec of an update with the stored one this way).
 */
export function sameExcept(a: APIObject, b: APIObject, skip: ReadonlySet<string>): boolean {
  return sameJSON(a, b, skip) || sameMembersOutside(a, b, skip);
}
