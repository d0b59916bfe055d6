/**
 * resourceVersion strings. Clients treat them as opaque; orch prints the decimal modRevision of
 * the store, so the server parses them back to revisions here.
 * @module
 */
import { badRequest } from "./status-error.js";

const decimal = /^(0|[1-9][0-9]*)$/;

/**
 * Parses a resourceVersion into a store revision. `""` and `"0"` give 0.
 * @throws StatusError 400 BadRequest for anything that is not a decimal integer in the safe range.
 */
export function parseResourceVersion(resourceVersion: string, field = "resourceVersion"): number {
  if (resourceVersion === "") return 0;
  if (!decimal.test(resourceVersion)) {
    throw badRequest(`invalid ${field} ${JSON.stringify(resourceVersion.slice(0, 64))}: must be a non-negative decimal integer`);
  }
  const revision = Number(resourceVersion);
  if (!Number.isSafeInteger(revision)) {
    throw badRequest(`invalid ${field} ${JSON.stringify(resourceVersion.slice(0, 64))}: out of range`);
  }
  return revision;
}

/** Prints a store revision as a resourceVersion. */
export function formatResourceVersion(revision: number): string {
  return String(revision);
}
