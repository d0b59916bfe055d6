import { parseTime } from "@orch/meta";

/**
 * The milliseconds since the epoch of an RFC 3339 time field; undefined when it is absent, not a
 * string, or not a strict RFC 3339 time.
 */
export function timeOf(value: unknown): number | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  try {
    return parseTime(value);
  } catch {
    return undefined;
  }
}
