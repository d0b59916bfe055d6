import { StatusError, badRequest } from "@orch/meta";

/** A StatusError as is; anything else (protobufjs throws `Error` and `RangeError`) as a 400 naming `what`. */
export function toStatusErrorOf(error: unknown, what: string): StatusError {
  if (error instanceof StatusError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return badRequest(`${what}: ${detail}`);
}
