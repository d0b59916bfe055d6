/**
 * The message of what was thrown, for a log line.
 * @module
 */

/** The message of what was thrown, for a log line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
