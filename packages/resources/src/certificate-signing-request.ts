/**
 * CertificateSigningRequest (`certificates.{domain}/v1`, cluster-scoped, short name `csr`,
 * sub-resources `status` and `approval`): a PKCS#10 request for a certificate from a named
 * signer. The spec is immutable; `approval` changes only `status.conditions` (Approved or
 * Denied, exclusive and never removed); `status` carries the issued certificate. Signing itself
 * belongs to a later issue.
 * @module
 */
import {
  duplicateField,
  FieldPath,
  forbiddenField,
  forbidden,
  formatTime,
  invalidField,
  listType,
  notSupportedField,
  requiredField,
  tooLongField,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { bytesText, decodePEM, dns1123LabelProblems, dns1123SubdomainProblems, isDERSequence, list, strings } from "./internal/access-rules.js";
import { humanDuration } from "./internal/duration.js";
import { jsonEqual, record, str } from "./internal/rules.js";
import { ageColumn, nameColumn } from "./internal/table-columns.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { atomicStrings, bytes, int32, named, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";
import { serviceAccountClaimKey } from "./token-request.js";

/** `CertificateSigningRequestSpec`. */
export const certificateSigningRequestSpecSchema = named(
  z
    .object({
      expirationSeconds: int32().optional().describe("expirationSeconds is the requested duration of validity of the issued certificate (at least 600)."),
      extra: z
        .record(z.string(), atomicStrings())
        .optional()
        .describe("extra contains extra attributes of the user that created the CertificateSigningRequest."),
      groups: atomicStrings().optional().describe("groups contains group membership of the user that created the CertificateSigningRequest."),
      request: bytes().optional().describe('request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block.'),
      signerName: z.string().optional().describe('signerName indicates the requested signer, and is a qualified name ("example.com/signer-name").'),
      uid: z.string().optional().describe("uid contains the uid of the user that created the CertificateSigningRequest."),
      usages: atomicStrings().optional().describe("usages specifies a set of key usages requested in the issued certificate."),
      username: z.string().optional().describe("username contains the name of the user that created the CertificateSigningRequest."),
    })
    .meta({ description: "CertificateSigningRequestSpec contains the certificate request.", required: ["request", "signerName"] }),
  "api.certificates.v1.CertificateSigningRequestSpec",
);

/** `CertificateSigningRequestCondition`. */
export const certificateSigningRequestConditionSchema = named(
  z
    .object({
      lastTransitionTime: time().optional().describe("lastTransitionTime is the time the condition last transitioned from one status to another."),
      lastUpdateTime: time().optional().describe("lastUpdateTime is the time of the last update to this condition"),
      message: z.string().optional().describe("message contains a human readable message with details about the request state"),
      reason: z.string().optional().describe("reason indicates a brief reason for the request state"),
      status: z
        .string()
        .optional()
        .describe('status of the condition, one of True, False, Unknown. Approved, Denied, and Failed conditions may not be "False" or "Unknown".'),
      type: z.string().optional().describe('type of the condition. Known conditions are "Approved", "Denied", and "Failed".'),
    })
    .meta({ description: "CertificateSigningRequestCondition describes a condition of a CertificateSigningRequest object", required: ["type", "status"] }),
  "api.certificates.v1.CertificateSigningRequestCondition",
);

/** `CertificateSigningRequestStatus`. */
export const certificateSigningRequestStatusSchema = named(
  z
    .object({
      certificate: bytes().optional().describe("certificate is populated with an issued certificate by the signer after an Approved condition is present."),
      conditions: listType(z.array(certificateSigningRequestConditionSchema), "map", ["type"])
        .optional()
        .describe('conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".'),
    })
    .meta({
      description:
        "CertificateSigningRequestStatus contains conditions used to indicate approved/denied/failed status of the request, and the issued certificate.",
    }),
  "api.certificates.v1.CertificateSigningRequestStatus",
);

/** The zod schema of a CertificateSigningRequest in `v1`. */
export const certificateSigningRequestV1Schema = kindSchema(
  {
    spec: certificateSigningRequestSpecSchema.optional().describe("spec contains the certificate request, and is immutable after creation."),
    status: certificateSigningRequestStatusSchema
      .optional()
      .describe("status contains information about whether the request is approved or denied, and the certificate issued by the signer."),
  },
  "CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued.",
);

/** The key usages a request may ask for, sorted as the reference lists them. */
export const keyUsages = [
  "any",
  "cert sign",
  "client auth",
  "code signing",
  "content commitment",
  "crl sign",
  "data encipherment",
  "decipher only",
  "digital signature",
  "email protection",
  "encipher only",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "key agreement",
  "key encipherment",
  "microsoft sgc",
  "netscape sgc",
  "ocsp signing",
  "s/mime",
  "server auth",
  "signing",
  "timestamping",
] as const;

/** The condition types with a meaning: `Approved`, `Denied`, `Failed`. */
export const csrConditionTypes = { approved: "Approved", denied: "Denied", failed: "Failed" } as const;

/** The shortest validity a request may ask for, in seconds (10 minutes). */
export const minExpirationSeconds = 600;

/**
 * Whether the caller may `verb` (`approve`, `sign`) requests of `signerName`: `verb` on the
 * resource `signers` of `certificates.<domain>` named the signer name, or named `<signer
 * domain>/*` (the reference's `isAuthorizedForSignerName`).
 */
async function mayActForSigner(verb: "approve" | "sign", signerName: string, ctx: StrategyContext): Promise<boolean> {
  const authorize = ctx.authorize;
  const user = ctx.user;
  if (!authorize || !user) return true;
  const ask = async (name: string) =>
    (await authorize({ user, verb, resourceRequest: true, apiGroup: `certificates.${ctx.domain}`, resource: "signers", name, namespace: "", subresource: "" }))
      .decision === "allow";
  if (await ask(signerName)) return true;
  const slash = signerName.indexOf("/");
  return slash > 0 && ask(`${signerName.slice(0, slash)}/*`);
}

function conditionTypes(object: APIObject | undefined): string {
  const conditions = record(object?.["status"])?.["conditions"];
  return Array.isArray(conditions)
    ? conditions
        .map((c) => String(record(c)?.["type"] ?? ""))
        .sort()
        .join(",")
    : "";
}

/**
 * The rights a write of a request needs beyond the request's own authorization, as the
 * reference's CertificateApproval and CertificateSigning admission: a write to `approval` that
 * changes the conditions needs `approve` on the signer; a write to `status` that sets or changes
 * `status.certificate` needs `sign` on it. A refusal is 403 `user not permitted to approve
 * requests with signerName "<name>"`.
 */
export async function checkSignerAccess(object: APIObject, old: APIObject | undefined, subresource: string, ctx: StrategyContext): Promise<void> {
  const signerName = str(spec(object)["signerName"]);
  const qr = { group: `certificates.${ctx.domain}`, resource: "certificatesigningrequests" };
  if (subresource === "approval" && conditionTypes(object) !== conditionTypes(old)) {
    if (!(await mayActForSigner("approve", signerName, ctx)))
      throw forbidden(qr, object.metadata.name ?? "", `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
  }
  if (subresource === "status") {
    const certificate = record(object["status"])?.["certificate"];
    if (certificate !== undefined && certificate !== record(old?.["status"])?.["certificate"] && !(await mayActForSigner("sign", signerName, ctx))) {
      throw forbidden(qr, object.metadata.name ?? "", `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
    }
  }
}

/** The names of the four built-in signers of a product domain; see {@link builtInSignerNames}. */
export interface BuiltInSignerNames {
  /** `orch.io/orch-apiserver-client` (`kubernetes.io/kube-apiserver-client`): client certificates for the API server. */
  apiServerClient: string;
  /** `orch.io/orch-apiserver-client-nodeagent` (`kubernetes.io/kube-apiserver-client-kubelet`): node agents' client certificates. */
  apiServerClientNodeAgent: string;
  /** `orch.io/nodeagent-serving` (`kubernetes.io/kubelet-serving`): node agents' serving certificates. */
  nodeAgentServing: string;
  /** `orch.io/legacy-unknown` (`kubernetes.io/legacy-unknown`): no guarantees; v1 refuses it. */
  legacyUnknown: string;
}

/**
 * The built-in signer names of `domain`: under `<d>/` where `<d>` is `kubernetes.io` for
 * `k8s.io` (the reference's names) and the domain itself otherwise; the product prefix is
 * `kube` or the domain's first label, the node agent `kubelet` or `nodeagent`.
 * @example
 * builtInSignerNames("orch.io").nodeAgentServing; // "orch.io/nodeagent-serving"
 * builtInSignerNames("k8s.io").nodeAgentServing; // "kubernetes.io/kubelet-serving"
 */
export function builtInSignerNames(domain: string): BuiltInSignerNames {
  const reference = domain === "k8s.io";
  const prefix = serviceAccountClaimKey(domain);
  const product = reference ? "kube" : (domain.split(".")[0] ?? domain);
  const agent = reference ? "kubelet" : "nodeagent";
  return {
    apiServerClient: `${prefix}/${product}-apiserver-client`,
    apiServerClientNodeAgent: `${prefix}/${product}-apiserver-client-${agent}`,
    nodeAgentServing: `${prefix}/${agent}-serving`,
    legacyUnknown: `${prefix}/legacy-unknown`,
  };
}

/** The signer name v1 refuses: `<domain>/legacy-unknown` (`kubernetes.io/legacy-unknown` under `k8s.io`). */
export function legacyUnknownSignerName(domain: string): string {
  return builtInSignerNames(domain).legacyUnknown;
}

function spec(object: APIObject): Record<string, unknown> {
  return record(object["spec"]) ?? {};
}

function status(object: APIObject): Record<string, unknown> {
  return record(object["status"]) ?? {};
}

function conditions(object: APIObject): Record<string, unknown>[] {
  return list(status(object)["conditions"]).map((c) => record(c) ?? {});
}

/**
 * The reference's `ValidateSignerName` at `path`: `<domain>/<path>` where the domain has at least
 * two DNS-label segments (253 characters at most) and the path is made of DNS subdomains
 * separated by `/` (the whole name at most 253 characters).
 */
export function validateSignerName(signerName: string, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (signerName === "") return [requiredField(path)];
  const segments = signerName.split("/");
  if (segments.length < 2) {
    return [invalidField(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const domain = segments[0] ?? "";
  if (domain.length > 253) errors.push(tooLongField(path, domain, 253));
  const labels = domain.split(".");
  for (const label of labels) {
    const problems = dns1123LabelProblems(label);
    if (problems.length) {
      for (const problem of problems) errors.push(invalidField(path, domain, `validating label "${label}": ${problem}`));
      break;
    }
  }
  if (labels.length < 2) errors.push(invalidField(path, domain, "should be a domain with at least two segments separated by dots"));
  const pathPart = segments.slice(1).join("/");
  const maxPath = 253 - domain.length - 1;
  if (pathPart.length > maxPath) errors.push(tooLongField(path, pathPart, maxPath));
  for (const component of pathPart.split("/")) {
    const problems = dns1123SubdomainProblems(component);
    if (problems.length) {
      for (const problem of problems) errors.push(invalidField(path, pathPart, `validating component "${component}": ${problem}`));
      break;
    }
  }
  return errors;
}

/** The problem of a PEM `CERTIFICATE REQUEST`, as the reference's `ParseCSR` words it (undefined when fine). */
export function csrRequestProblem(pem: string): string | undefined {
  const block = decodePEM(pem)[0];
  if (!block || block.type !== "CERTIFICATE REQUEST") return "PEM block type must be CERTIFICATE REQUEST";
  if (!isDERSequence(block.bytes)) return "asn1: structure error: tags don't match (16 vs {class:0 tag:16 length:0 isCompound:true})";
  return undefined;
}

/** The problem of `status.certificate` PEM data, as the reference's `validateCertificate` words it. */
export function certificateProblem(pem: string): string | undefined {
  if (pem === "") return undefined;
  const blocks = decodePEM(pem);
  for (const block of blocks) {
    if (block.type !== "CERTIFICATE") return `only CERTIFICATE PEM blocks are allowed, found "${block.type}"`;
    if (Object.keys(block.headers).length) return "no PEM block headers are permitted";
    if (!isDERSequence(block.bytes)) return "x509: malformed certificate";
  }
  if (blocks.length === 0) return "must contain at least one CERTIFICATE PEM block";
  return undefined;
}

function validateConditions(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const path = FieldPath.root("status").child("conditions");
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditions(object).forEach((c, i) => {
    const at = path.index(i);
    const type = str(c["type"]);
    const st = str(c["status"]);
    if (type === "") errors.push(requiredField(at.child("type")));
    if (st === "") errors.push(requiredField(at.child("status")));
    else if (!["True", "False", "Unknown"].includes(st)) errors.push(notSupportedField(at.child("status"), st, ["False", "True", "Unknown"]));
    if (type === csrConditionTypes.approved) {
      approved = true;
      if (st !== "True") errors.push(invalidField(at.child("status"), st, "Approved condition may only have status=True"));
    } else if (type === csrConditionTypes.denied) {
      denied = true;
      if (st !== "True") errors.push(invalidField(at.child("status"), st, "Denied condition may only have status=True"));
    }
    if (seen.has(type)) errors.push(duplicateField(at.child("type"), type));
    seen.add(type);
  });
  if (approved && denied) errors.push(invalidField(path, status(object)["conditions"], "Approved and Denied conditions are mutually exclusive"));
  return errors;
}

/**
 * The rules of every write (pair with `validateObjectMeta`), as the reference's
 * `validateCertificateSigningRequest`: `spec.request` a PEM `CERTIFICATE REQUEST` (its DER
 * shape is checked; its signature is not), `spec.usages` known and unique, `spec.signerName`
 * required, not {@link legacyUnknownSignerName}, and `<domain>/<path>`, `spec.expirationSeconds` at
 * least 600, `status.conditions` (types required and unique, status True/False/Unknown,
 * Approved and Denied only True and exclusive), `status.certificate` CERTIFICATE PEM blocks.
 */
export function validateCertificateSigningRequest(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const domain = ctx?.domain ?? "orch.io";
  const errors: FieldError[] = [];
  const s = spec(object);
  const path = FieldPath.root("spec");
  const request = typeof s["request"] === "string" ? s["request"] : "";
  if (request === "") errors.push(requiredField(path.child("request")));
  else {
    const problem = csrRequestProblem(bytesText(request));
    if (problem) errors.push(invalidField(path.child("request"), request, problem));
  }
  const usages = strings(s["usages"]);
  if (usages.length === 0) errors.push(requiredField(path.child("usages")));
  const seen = new Set<string>();
  usages.forEach((usage, i) => {
    if (!(keyUsages as readonly string[]).includes(usage)) errors.push(notSupportedField(path.child("usages").index(i), usage, keyUsages));
  });
  usages.forEach((usage, i) => {
    if (seen.has(usage)) errors.push(duplicateField(path.child("usages").index(i), usage));
    seen.add(usage);
  });
  const signerName = str(s["signerName"]);
  if (signerName === legacyUnknownSignerName(domain)) {
    errors.push(invalidField(path.child("signerName"), signerName, "the legacy signerName is not allowed via this API version"));
  } else errors.push(...validateSignerName(signerName, path.child("signerName")));
  const expiration = s["expirationSeconds"];
  if (typeof expiration === "number" && expiration < minExpirationSeconds) {
    errors.push(invalidField(path.child("expirationSeconds"), expiration, "may not specify a duration less than 600 seconds (10 minutes)"));
  }
  errors.push(...validateConditions(object));
  const certificate = status(object)["certificate"];
  if (typeof certificate === "string" && certificate !== "") {
    const problem = certificateProblem(bytesText(certificate));
    if (problem) errors.push(invalidField(FieldPath.root("status").child("certificate"), "<certificate data>", problem));
  }
  return errors;
}

type Writer = "main" | "status" | "approval";

function countOf(object: APIObject, type: string): number {
  return conditions(object).filter((c) => c["type"] === type).length;
}

/**
 * The rules an update adds, per sub-resource written (`main`, `status`, `approval`), as the
 * reference's `validateCertificateSigningRequestUpdate`: the spec is immutable (`field is
 * immutable` on each changed field); Approved, Denied and Failed conditions cannot be removed;
 * only `approval` may add Approved or Denied; only `status` may set `status.certificate`, and
 * never change one already issued.
 */
export function validateCertificateSigningRequestUpdate(object: APIObject, old: APIObject, writer: Writer = "main"): FieldError[] {
  const errors: FieldError[] = [];
  const s = spec(object);
  const o = spec(old);
  for (const key of new Set([...Object.keys(s), ...Object.keys(o)])) {
    if (!jsonEqual(s[key], o[key])) errors.push(invalidField(FieldPath.root("spec").child(key), s[key] ?? null, "field is immutable"));
  }
  const path = FieldPath.root("status").child("conditions");
  for (const type of [csrConditionTypes.approved, csrConditionTypes.denied, csrConditionTypes.failed]) {
    if (countOf(object, type) < countOf(old, type)) errors.push(forbiddenField(path, `updates may not remove a condition of type "${type}"`));
  }
  if (writer !== "approval") {
    for (const type of [csrConditionTypes.approved, csrConditionTypes.denied]) {
      if (countOf(object, type) > countOf(old, type)) errors.push(forbiddenField(path, `updates may not add a condition of type "${type}"`));
    }
  }
  const certificate = str(status(object)["certificate"]);
  const oldCertificate = str(status(old)["certificate"]);
  const certPath = FieldPath.root("status").child("certificate");
  if (certificate !== oldCertificate) {
    if (writer !== "status") errors.push(forbiddenField(certPath, "updates may not set certificate content"));
    else if (oldCertificate !== "") errors.push(forbiddenField(certPath, "updates may not modify existing certificate content"));
  }
  return errors;
}

/** Defaults of `v1`: `spec.usages` `["digital signature", "key encipherment"]`, condition status `True`. */
function defaults(object: APIObject): void {
  const s = record(object["spec"]);
  if (s && list(s["usages"]).length === 0) s["usages"] = ["digital signature", "key encipherment"];
  for (const c of conditions(object)) if (c["status"] === undefined || c["status"] === "") c["status"] = "True";
}

/** Sets `lastUpdateTime` and `lastTransitionTime` where missing, as the reference does on status writes. */
function populateConditionTimestamps(object: APIObject, old: APIObject, now: number): void {
  const stamp = formatTime(now);
  const oldConditions = conditions(old);
  for (const c of conditions(object)) {
    if (!c["lastUpdateTime"]) c["lastUpdateTime"] = stamp;
    if (!c["lastTransitionTime"]) {
      const same = oldConditions.find((o) => o["type"] === c["type"] && o["status"] === c["status"] && o["lastTransitionTime"]);
      c["lastTransitionTime"] = same?.["lastTransitionTime"] ?? stamp;
    }
  }
}

// Keeps the old instances of conditions of `type` when there are as many in the new object.
function preserveConditionInstances(object: APIObject, old: APIObject, type: string): void {
  const items = list(record(object["status"])?.["conditions"]);
  const oldList = list(record(old["status"])?.["conditions"]);
  const newIdx = items.flatMap((c, i) => (record(c)?.["type"] === type ? [i] : []));
  const oldIdx = oldList.flatMap((c, i) => (record(c)?.["type"] === type ? [i] : []));
  if (newIdx.length !== oldIdx.length) return;
  newIdx.forEach((n, k) => {
    items[n] = structuredClone(oldList[oldIdx[k] as number]);
  });
}

function keepOld(object: APIObject, old: APIObject, key: string): void {
  if (old[key] !== undefined) object[key] = structuredClone(old[key]);
  else delete object[key];
}

/**
 * A new request starts without status and records who asked for it, as the reference does:
 * `spec.username`, `uid`, `groups` and `extra` are the requesting user's, whatever the body
 * said (left as sent for the server's own writes, which have no user).
 */
function prepareForCreate(object: APIObject, ctx: StrategyContext): void {
  delete object["status"];
  const user = ctx.user;
  if (!user) return;
  const s = (object["spec"] ?? {}) as Record<string, unknown>;
  object["spec"] = s;
  s["username"] = user.name;
  if (user.uid) s["uid"] = user.uid;
  else delete s["uid"];
  if (user.groups.length) s["groups"] = [...user.groups];
  else delete s["groups"];
  if (user.extra && Object.keys(user.extra).length) s["extra"] = structuredClone(user.extra);
  else delete s["extra"];
}

function prepareForUpdate(object: APIObject, old: APIObject): void {
  keepOld(object, old, "status");
}

function prepareForStatusUpdate(object: APIObject, old: APIObject, ctx: StrategyContext): void {
  keepOld(object, old, "spec");
  preserveConditionInstances(object, old, csrConditionTypes.approved);
  preserveConditionInstances(object, old, csrConditionTypes.denied);
  populateConditionTimestamps(object, old, ctx.now);
}

function prepareForApproval(object: APIObject, old: APIObject, ctx: StrategyContext): void {
  keepOld(object, old, "spec");
  const newConditions = record(object["status"])?.["conditions"];
  object["status"] = { ...(structuredClone(record(old["status"])) ?? {}) };
  if (newConditions !== undefined) (object["status"] as Record<string, unknown>)["conditions"] = newConditions;
  else delete (object["status"] as Record<string, unknown>)["conditions"];
  populateConditionTimestamps(object, old, ctx.now);
}

/** The CONDITION cell: `Approved`, `Denied` or `Pending`, then `,Failed` and `,Issued` when so. */
export function csrConditionCell(object: APIObject): string {
  const types = new Set(conditions(object).map((c) => c["type"]));
  let text = types.has(csrConditionTypes.denied) ? "Denied" : types.has(csrConditionTypes.approved) ? "Approved" : "Pending";
  if (types.has(csrConditionTypes.failed)) text += ",Failed";
  if (str(status(object)["certificate"]) !== "") text += ",Issued";
  return text;
}

/** The CertificateSigningRequest resource type. */
export const certificateSigningRequestType: ResourceType = {
  group: "certificates.{domain}",
  resource: "certificatesigningrequests",
  singular: "certificatesigningrequest",
  kind: "CertificateSigningRequest",
  shortNames: ["csr"],
  scope: "Cluster",
  versions: [{ name: "v1", schema: certificateSigningRequestV1Schema, storage: true }],
  subresources: ["status", "approval"],
  strategy: {
    defaults,
    prepareForCreate,
    prepareForUpdate,
    prepareForStatusUpdate,
    validate: (object, ctx) => validateCertificateSigningRequest(object, ctx),
    validateUpdate: (object, old) => validateCertificateSigningRequestUpdate(object, old, "main"),
    validateStatusUpdate: (object, old, ctx) => [
      ...validateCertificateSigningRequest(object, ctx),
      ...validateCertificateSigningRequestUpdate(object, old, "status"),
    ],
    subresourceStrategies: {
      approval: {
        prepareForUpdate: prepareForApproval,
        validateUpdate: (object, old, ctx) => [
          ...validateCertificateSigningRequest(object, ctx),
          ...validateCertificateSigningRequestUpdate(object, old, "approval"),
        ],
      },
    },
    checkWriteAccess: (object, old, subresource, ctx) => checkSignerAccess(object, old, subresource, ctx),
    selectableFields: (object) => ({ "spec.signerName": str(spec(object)["signerName"]) }),
    selectableFieldNames: ["spec.signerName"],
    // The reference's printer puts Age second, so the Table lists Name and Age itself.
    tableColumnsComplete: true,
    tableColumns: [
      nameColumn,
      ageColumn,
      {
        name: "SignerName",
        type: "string",
        description: "The requested signer.",
        priority: 0,
        cell: (object) => str(spec(object)["signerName"]),
      },
      {
        name: "Requestor",
        type: "string",
        description: "The user that created the request.",
        priority: 0,
        cell: (object) => str(spec(object)["username"]),
      },
      {
        name: "RequestedDuration",
        type: "string",
        description: "The requested duration of validity of the issued certificate.",
        priority: 0,
        cell: (object) => {
          const seconds = spec(object)["expirationSeconds"];
          return typeof seconds === "number" ? humanDuration(seconds * 1000) : "<none>";
        },
      },
      {
        name: "Condition",
        type: "string",
        description: "The approval and issuance state of the request.",
        priority: 0,
        cell: (object) => csrConditionCell(object),
      },
    ],
  },
};
