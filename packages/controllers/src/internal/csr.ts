/**
 * Reading a CertificateSigningRequest as the certificate loops need it: its spec, its
 * conditions and its certificate, tolerant of missing or malformed fields.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { csrConditionTypes } from "@orch/resources";
import { textOfBase64 } from "./base64.js";

/** A condition of a request's status. */
export interface CSRCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

/** The fields of a request the loops read. */
export interface CSRView {
  /** `metadata.name`. */
  name: string;
  /** `spec.request` decoded: the PEM request (`""` when missing or not base64). */
  requestPem: string;
  /** `spec.signerName`. */
  signerName: string;
  /** `spec.usages`. */
  usages: string[];
  /** `spec.expirationSeconds`, when set. */
  expirationSeconds: number | undefined;
  /** `spec.username`. */
  username: string;
  /** `spec.uid`. */
  uid: string;
  /** `spec.groups`. */
  groups: string[];
  /** `spec.extra`. */
  extra: Record<string, string[]>;
  /** `status.conditions`. */
  conditions: CSRCondition[];
  /** `status.certificate` (base64), `""` until signed. */
  certificate: string;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const text = (value: unknown): string => (typeof value === "string" ? value : "");
const texts = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

function decoded(value: string): string {
  try {
    return textOfBase64(value);
  } catch {
    return "";
  }
}

/** The fields of `csr` the loops read. */
export function viewCSR(csr: APIObject): CSRView {
  const spec = record(csr["spec"]);
  const status = record(csr["status"]);
  const extra: Record<string, string[]> = {};
  for (const [key, values] of Object.entries(record(spec["extra"]))) extra[key] = texts(values);
  const expiration = spec["expirationSeconds"];
  return {
    name: csr.metadata.name ?? "",
    requestPem: decoded(text(spec["request"])),
    signerName: text(spec["signerName"]),
    usages: texts(spec["usages"]),
    expirationSeconds: typeof expiration === "number" ? expiration : undefined,
    username: text(spec["username"]),
    uid: text(spec["uid"]),
    groups: texts(spec["groups"]),
    extra,
    conditions: Array.isArray(status["conditions"]) ? status["conditions"].map((c) => record(c) as CSRCondition) : [],
    certificate: text(status["certificate"]),
  };
}

/** Whether `csr` has a condition of `type` with status `True` (the reference's `HasTrueCondition`). */
export function hasTrueCondition(csr: CSRView, type: string): boolean {
  return csr.conditions.some((c) => c.type === type && c.status === "True");
}

/** Whether `csr` was approved (and not denied), as the reference's `IsCertificateRequestApproved`. */
export function isApproved(csr: CSRView): boolean {
  const approved = csr.conditions.some((c) => c.type === csrConditionTypes.approved);
  const denied = csr.conditions.some((c) => c.type === csrConditionTypes.denied);
  return approved && !denied;
}

/** Whether `csr` was approved or denied (the reference's `GetCertApprovalCondition`). */
export function isDecided(csr: CSRView): boolean {
  return csr.conditions.some((c) => c.type === csrConditionTypes.approved || c.type === csrConditionTypes.denied);
}

/** `csr` with `condition` appended to its status conditions. */
export function withCondition(csr: APIObject, condition: CSRCondition): APIObject {
  const status = record(csr["status"]);
  const conditions = Array.isArray(status["conditions"]) ? status["conditions"] : [];
  return { ...csr, status: { ...status, conditions: [...conditions, condition] } };
}
