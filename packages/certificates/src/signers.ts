/**
 * The built-in signers and what each lets into a certificate (the reference's table of built-in
 * signers, its `pkg/controller/certificates/signer` and
 * `pkg/apis/certificates/v1/helpers.go`):
 *
 * | signer | subject | subjectAltName | key usages |
 * |---|---|---|---|
 * | `<d>/<p>-apiserver-client` | any | kept | `client auth`, optionally `digital signature`, `key encipherment` |
 * | `<d>/<p>-apiserver-client-<agent>` | O `system:nodes`, CN `system:node:*` | none | exactly `key encipherment`, `digital signature`, `client auth` |
 * | `<d>/<agent>-serving` | O `system:nodes`, CN `system:node:*` | DNS and IP only, at least one | exactly `key encipherment`, `digital signature`, `server auth` |
 * | `<d>/legacy-unknown` | any | kept | any |
 *
 * None issues a CA certificate. `legacy-unknown` cannot be asked for in `v1`: the CSR
 * validation of `@orch/resources` refuses it, so it is only reached through older versions.
 * @module
 */
import { builtInSignerNames } from "@orch/resources";
import type { CertificateRequest } from "./certificate-request.js";

/** The kinds of subject alternative name a certificate can carry. */
export type SubjectAltNameType = "dns" | "ip" | "email" | "uri";

/** What a built-in signer allows; from {@link signerPolicy}. */
export interface SignerPolicy {
  /** Which of the request's subject alternative names the issued certificate keeps. */
  readonly subjectAltNames: readonly SubjectAltNameType[];
  /**
   * Checks a request and its `spec.usages` against the signer's restrictions; answers every
   * restriction broken, in the reference's words (none when the request may be signed).
   */
  check(request: CertificateRequest, usages: readonly string[]): string[];
}

const nodesOrganization = "system:nodes";
const nodeUserPrefix = "system:node:";
const allNames: readonly SubjectAltNameType[] = ["dns", "ip", "email", "uri"];

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/** Subject problems of a node-agent signer: O exactly `system:nodes`, CN `system:node:<name>`. */
function nodeSubjectProblems(request: CertificateRequest): string[] {
  const problems: string[] = [];
  if (request.organizations.length !== 1 || request.organizations[0] !== nodesOrganization) problems.push("subject organization is not system:nodes");
  if (!request.commonName.startsWith(nodeUserPrefix)) problems.push("subject common name does not begin with system:node:");
  return problems;
}

function caProblems(request: CertificateRequest): string[] {
  return request.requestsCA ? ["CA certificates are not allowed"] : [];
}

/** `usages did not match [a b c]`, the set printed sorted as Go's `sets.String.List`. */
function exactUsages(usages: readonly string[], required: readonly string[]): string[] {
  return sameSet(usages, required) ? [] : [`usages did not match [${[...required].sort().join(" ")}]`];
}

const apiServerClient: SignerPolicy = {
  subjectAltNames: allNames,
  check(request, usages) {
    const problems: string[] = [];
    for (const usage of usages) {
      if (!["digital signature", "key encipherment", "client auth"].includes(usage)) problems.push(`invalid usage for client certificate: ${usage}`);
    }
    if (!usages.includes("client auth")) problems.push("invalid usage for client certificate: missing required usage: client auth");
    return [...problems, ...caProblems(request)];
  },
};

const apiServerClientNodeAgent: SignerPolicy = {
  subjectAltNames: [],
  check(request, usages) {
    const problems = nodeSubjectProblems(request);
    if (request.dnsNames.length) problems.push("DNS subjectAltNames are not allowed");
    if (request.emailAddresses.length) problems.push("Email subjectAltNames are not allowed");
    if (request.ipAddresses.length) problems.push("IP subjectAltNames are not allowed");
    if (request.uris.length) problems.push("URI subjectAltNames are not allowed");
    return [...problems, ...exactUsages(usages, ["digital signature", "key encipherment", "client auth"]), ...caProblems(request)];
  },
};

const nodeAgentServing: SignerPolicy = {
  subjectAltNames: ["dns", "ip"],
  check(request, usages) {
    const problems = nodeSubjectProblems(request);
    if (request.dnsNames.length === 0 && request.ipAddresses.length === 0) problems.push("DNS or IP subjectAltName is required");
    if (request.emailAddresses.length) problems.push("Email subjectAltNames are not allowed");
    if (request.uris.length) problems.push("URI subjectAltNames are not allowed");
    return [...problems, ...exactUsages(usages, ["digital signature", "key encipherment", "server auth"]), ...caProblems(request)];
  },
};

const legacyUnknown: SignerPolicy = {
  subjectAltNames: allNames,
  check: caProblems,
};

/**
 * The policy of `signerName` when it is one of the built-in signers of `domain` (see
 * `builtInSignerNames` of `@orch/resources`), `undefined` for any other signer.
 * @example
 * const problems = signerPolicy("orch.io/nodeagent-serving", "orch.io")?.check(parseCertificateRequest(pem), usages);
 */
export function signerPolicy(signerName: string, domain: string): SignerPolicy | undefined {
  const names = builtInSignerNames(domain);
  switch (signerName) {
    case names.apiServerClient:
      return apiServerClient;
    case names.apiServerClientNodeAgent:
      return apiServerClientNodeAgent;
    case names.nodeAgentServing:
      return nodeAgentServing;
    case names.legacyUnknown:
      return legacyUnknown;
    default:
      return undefined;
  }
}

/**
 * Every restriction of built-in signer `signerName` (of `domain`) that `request` with
 * `usages` breaks, in the reference's words; none for a request the signer may sign.
 * @throws Error when `signerName` is not a built-in signer of `domain`.
 */
export function signerRestrictionProblems(request: CertificateRequest, usages: readonly string[], signerName: string, domain: string): string[] {
  const policy = signerPolicy(signerName, domain);
  if (!policy) throw new Error(`${signerName} is not a built-in signer of ${domain}`);
  return policy.check(request, usages);
}
