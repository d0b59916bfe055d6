/**
 * When a CertificateSigningRequest is garbage: the reference's CSR cleaner
 * (`pkg/controller/certificates/cleaner`) and its garbage collection periods.
 * @module
 */
import { parseTime, type APIObject } from "@orch/meta";
import { csrConditionTypes } from "@orch/resources";
import { textOfBase64 } from "./internal/base64.js";
import { x509 } from "./internal/x509.js";

/** How long a request without any condition is kept after its creation (24 hours). */
export const pendingCSRExpirationMs = 24 * 3600 * 1000;
/** How long an issued, denied or failed request is kept after its condition last changed (1 hour). */
export const decidedCSRExpirationMs = 3600 * 1000;

/** When a request should be deleted, and why; from {@link csrExpiry}. */
export interface CSRExpiry {
  /** The instant (ms since the epoch) after which the request is garbage. */
  at: number;
  /** Whether `now` is past `at`: delete the request now (otherwise look again at `at`). */
  due: boolean;
  /** Which rule: `pending`, `issued`, `denied`, `failed` or `certificate-expired`. */
  reason: "pending" | "issued" | "denied" | "failed" | "certificate-expired";
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function timeOf(value: unknown): number | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  try {
    return parseTime(value);
  } catch {
    return undefined;
  }
}

/** The end of the first certificate of a PEM bundle (base64 in `status.certificate`); `undefined` when unreadable. */
function certificateNotAfter(base64: string): number | undefined {
  try {
    const pem = textOfBase64(base64);
    return new x509.X509Certificate(x509.PemConverter.decodeFirst(pem)).notAfter.getTime();
  } catch {
    return undefined;
  }
}

/**
 * When `csr` should be deleted, as the reference's cleaner decides, or `undefined` when no
 * rule applies yet. The rules, the earliest winning:
 * - pending (no condition at all): 24 hours after `metadata.creationTimestamp`;
 * - Denied or Failed: 1 hour after the condition's `lastUpdateTime`;
 * - Approved and issued (`status.certificate` set): 1 hour after the Approved condition's
 *   `lastUpdateTime` (an approved request still waiting for its certificate is kept, as the
 *   reference keeps it);
 * - approved and issued: once the certificate's `notAfter` has passed.
 *
 * A condition without `lastUpdateTime` (or a request without `creationTimestamp`) does not
 * count, as the reference skips a zero time; an unreadable certificate gives no expiry. A rule
 * is due once `now` is strictly past its instant, as the reference's `time.Since(t) > d`.
 */
export function csrExpiry(csr: APIObject, now: number): CSRExpiry | undefined {
  const status = record(csr["status"]) ?? {};
  const conditions = Array.isArray(status["conditions"]) ? status["conditions"].map((c) => record(c) ?? {}) : [];
  const certificate = typeof status["certificate"] === "string" ? status["certificate"] : "";
  const candidates: Omit<CSRExpiry, "due">[] = [];
  if (conditions.length === 0) {
    const created = timeOf(csr.metadata?.creationTimestamp);
    if (created !== undefined) candidates.push({ at: created + pendingCSRExpirationMs, reason: "pending" });
  }
  for (const condition of conditions) {
    const updated = timeOf(condition["lastUpdateTime"]);
    const type = condition["type"];
    if (updated === undefined) continue;
    if (type === csrConditionTypes.denied) candidates.push({ at: updated + decidedCSRExpirationMs, reason: "denied" });
    if (type === csrConditionTypes.failed) candidates.push({ at: updated + decidedCSRExpirationMs, reason: "failed" });
    if (type === csrConditionTypes.approved && certificate !== "") candidates.push({ at: updated + decidedCSRExpirationMs, reason: "issued" });
  }
  if (certificate !== "" && conditions.some((c) => c["type"] === csrConditionTypes.approved)) {
    const notAfter = certificateNotAfter(certificate);
    if (notAfter !== undefined) candidates.push({ at: notAfter, reason: "certificate-expired" });
  }
  const first = candidates.sort((a, b) => a.at - b.at)[0];
  return first && { ...first, due: now > first.at };
}
