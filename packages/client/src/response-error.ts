/**
 * {@link responseError}: the `StatusError` of a non-2xx response, whatever its body.
 * @module
 */
import { isFailureStatus, StatusError, statusCodes, type Status, type StatusReason } from "@orch/meta";

const reasonByCode = new Map<number, StatusReason>(
  (Object.entries(statusCodes) as [StatusReason, number][]).filter(([r]) => r !== "AlreadyExists" && r !== "Expired").map(([r, c]) => [c, r]),
);

/**
 * The error of a non-2xx response: the server's own Status when the body is one, else a Status
 * made from the HTTP code (reason from the code, or `InternalError`), with the body as message.
 */
export function responseError(code: number, body: string): StatusError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (isFailureStatus(parsed)) return new StatusError(parsed);
  const reason = reasonByCode.get(code) ?? "InternalError";
  const text = body.trim();
  const message = text ? `the server responded with HTTP ${code}: ${text.slice(0, 1024)}` : `the server responded with HTTP ${code}`;
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  return new StatusError(status);
}
