import { StatusError } from "@orch/meta";

/**
 * True for the refusal of a create in a namespace being deleted (a Status cause
 * `NamespaceTerminating`, from the NamespaceLifecycle admission plugin): nothing can be made
 * there, which is not a failure of the loop that tried.
 */
export function refusedAsTerminating(error: unknown): boolean {
  return error instanceof StatusError && (error.status.details?.causes ?? []).some((c) => c.reason === "NamespaceTerminating");
}
