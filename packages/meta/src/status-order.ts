/**
 * {@link inStatusOrder}: a Status with its members in the order the reference writes them.
 * @module
 */
import type { Status } from "./types.js";

/** The members of a Status, in the reference's order (its Go struct's). */
const statusMembers = ["kind", "apiVersion", "metadata", "status", "message", "reason", "details", "code"] as const;

/**
 * `status` with its members in the reference's order: `kind`, `apiVersion`, `metadata`,
 * `status`, `message`, `reason`, `details`, `code` (absent ones left out, members of other
 * names kept after them), so its JSON is the reference's byte for byte. `status` itself when
 * already in that order.
 */
export function inStatusOrder(status: Status): Status {
  const record = status as unknown as Record<string, unknown>;
  const keys = Object.keys(record);
  let next = 0;
  let ordered = true;
  for (const member of statusMembers) {
    if (record[member] === undefined) continue;
    if (keys[next] !== member) {
      ordered = false;
      break;
    }
    next++;
  }
  if (ordered) return status;
  const out: Record<string, unknown> = {};
  for (const member of statusMembers) if (record[member] !== undefined) out[member] = record[member];
  for (const key of keys) if (!(key in out)) out[key] = record[key];
  return out as unknown as Status;
}
