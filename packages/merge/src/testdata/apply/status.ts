/** Test helper: whether `e` is a StatusError. */
import { StatusError } from "@orch/meta";
export function isStatusError(e: unknown): e is StatusError {
  return e instanceof StatusError;
}
