/**
 * The errors of the webhook plugins, worded as the reference words them: a failed call
 * (`failed calling webhook "<name>": <why>`, a 500 under `failurePolicy: Fail`), a denial (the
 * reference's `ToStatusErr`: the webhook's Status with `admission webhook "<name>" denied the
 * request` before its message), and the dry-run refusal of a webhook with side effects.
 * @module
 */
import { badRequest, internalError, StatusError, type Status, type StatusDetails } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { record, str } from "../internal/json.js";

/**
 * A webhook could not be called or answered unusably (the reference's `ErrCallingWebhook`): the
 * one failure `failurePolicy` governs. `reason` is the cause, without the webhook's name.
 */
export class WebhookCallError extends Error {
  override readonly name = "WebhookCallError";

  /**
   * @param webhook the webhook's name.
   * @param reason why the call failed (`failed to call webhook: ...`, `received invalid webhook response: ...`).
   */
  constructor(
    readonly webhook: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`failed calling webhook ${JSON.stringify(webhook)}: ${reason}`, options);
  }
}

/** The refusal of a failed call under `failurePolicy: Fail`: 500 `Internal error occurred: failed calling webhook "<name>": <why>`. */
export function failedCallingWebhook(error: WebhookCallError): StatusError {
  return internalError(error.message, error);
}

/** The 400 of a dry-run request that would call a webhook with side effects (`Unknown` or `Some`). */
export function dryRunUnsupported(webhook: string): StatusError {
  return badRequest(`admission webhook ${JSON.stringify(webhook)} does not support dry run`);
}

/** The 500 of a patch on a request that has no object to patch (DELETE, CONNECT). */
export function patchWithoutObject(webhook: string): StatusError {
  return internalError(`admission webhook ${JSON.stringify(webhook)} attempted to modify the object, which is not supported for this operation`);
}

/** The reason of a code when the webhook gave none: the reference's Forbidden, InternalError for a 500. */
function defaultReason(code: number): string {
  return code === 500 ? "InternalError" : "Forbidden";
}

/**
 * A webhook's denial (`allowed: false`) as the client gets it, after the reference's
 * `ToStatusErr`: the message is `admission webhook "<name>" denied the request: <message>` (the
 * Status's message, else its reason, else ` without explanation`); the code is the Status's
 * (403 when it has none, 400 when it names a code below 400, which no refusal may carry); the
 * reason and details are kept (Forbidden or InternalError, and the written resource, when absent).
 */
export function webhookDenial(webhook: string, status: unknown, attrs: AdmissionAttributes): StatusError {
  const given = record(status) ?? {};
  const rawCode = typeof given["code"] === "number" && Number.isInteger(given["code"]) ? given["code"] : 0;
  const code = rawCode === 0 ? 403 : rawCode < 400 ? 400 : rawCode;
  const deniedBy = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const message = str(given["message"]);
  const reason = str(given["reason"]);
  const out: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: message ? `${deniedBy}: ${message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`,
    reason: reason || defaultReason(code),
    code,
  };
  const details = record(given["details"]);
  if (details) out.details = details as StatusDetails;
  else if (code === 500) out.details = { causes: [{ message: out.message ?? "" }] };
  else {
    out.details = { name: attrs.name || "Unknown", kind: attrs.resource.resource };
    if (attrs.resource.group) out.details.group = attrs.resource.group;
  }
  return new StatusError(out);
}
