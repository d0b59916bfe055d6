/**
 * Untyped reads of the fields of objects the loops hold as plain JSON (a Pod's `spec`, a Job's
 * `status`): each answers a safe default for a missing or mistyped field.
 * @module
 */
import type { APIObject } from "@orch/meta";

/** `value` when it is a plain object (not an array), else undefined. */
export function rec(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** `value` when it is an array, else an empty one. */
export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `value` when it is a finite number, else `fallback`. */
export function int(value: unknown, fallback = 0): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/** The `spec` of `object` (empty when absent). */
export function specOf(object: APIObject): Record<string, unknown> {
  return rec(object["spec"]) ?? {};
}

/** The `status` of `object` (empty when absent). */
export function statusOf(object: APIObject): Record<string, unknown> {
  return rec(object["status"]) ?? {};
}
