/**
 * Client certificate chain verification shared by the x509 and request-header authenticators:
 * what Go's `x509.Certificate.Verify` with `KeyUsages: [ExtKeyUsageClientAuth]` checks for the
 * reference's `request/x509` verifier.
 * @module
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { AuthenticationError } from "./authenticator.js";

/**
 * The trusted roots of a client CA bundle, parsed once by {@link parseCertificateBundle} and
 * handed to every {@link verifyClientChain}.
 */
export type CertificateBundle = readonly x509.X509Certificate[];

/** The certificates of a verified path: the leaf first, the trusted root last. */
export type VerifiedChain = readonly x509.X509Certificate[];

/** Go's bound on signature checks while building paths, against chains crafted to blow up. */
const maxSignatureChecks = 100;

const oidBasicConstraints = "2.5.29.19";
const oidExtKeyUsage = "2.5.29.37";
const oidAnyExtendedKeyUsage = "2.5.29.37.0";
const oidClientAuth = "1.3.6.1.5.5.7.3.2";
const oidSubjectKeyIdentifier = "2.5.29.14";
const oidAuthorityKeyIdentifier = "2.5.29.35";
const oidCommonName = "2.5.4.3";
const oidOrganization = "2.5.4.10";

/**
 * The extensions Go's parser handles (key usage, basic constraints, SAN, name constraints, CRL
 * distribution points, policies, key identifiers, extended key usage, authority info access); a
 * critical extension outside this set makes a certificate unusable, as in the reference.
 */
const handledExtensions = new Set([
  "2.5.29.14",
  "2.5.29.15",
  "2.5.29.17",
  "2.5.29.19",
  "2.5.29.30",
  "2.5.29.31",
  "2.5.29.32",
  "2.5.29.33",
  "2.5.29.35",
  "2.5.29.36",
  "2.5.29.37",
  "2.5.29.54",
  "1.3.6.1.5.5.7.1.1",
]);

/**
 * Parses a PEM bundle of CA certificates (a `--client-ca-file`): every `CERTIFICATE` block, in
 * order; other blocks (keys, CRLs) are skipped. Call it once, at construction.
 * @throws Error when the bundle holds no certificate or a certificate block does not parse.
 */
export function parseCertificateBundle(pem: string): CertificateBundle {
  let blocks: x509.PemStruct[];
  try {
    blocks = x509.PemConverter.decodeWithHeaders(pem);
  } catch (error) {
    throw new Error(`CA bundle is not valid PEM: ${messageOf(error)}`, { cause: error });
  }
  const certificates: x509.X509Certificate[] = [];
  for (const block of blocks) {
    if (block.type !== "CERTIFICATE") continue;
    try {
      certificates.push(new x509.X509Certificate(block.rawData));
    } catch (error) {
      throw new Error(`CA bundle: certificate ${certificates.length + 1} is malformed: ${messageOf(error)}`, { cause: error });
    }
  }
  if (certificates.length === 0) throw new Error("CA bundle contains no PEM CERTIFICATE block");
  return certificates;
}

/**
 * Verifies a client certificate chain as the reference does: builds a path from the leaf
 * (`chain[0]`) through the presented intermediates (`chain[1..]`, in any order) to one of
 * `roots`, checking each signature with the issuer's key and issuer/subject name equality, every
 * certificate's validity window against `now` (ms since the epoch, bounds inclusive), that every
 * issuer in the path is a CA (basicConstraints CA=true) within its path length, and that every
 * certificate in the path with an extended key usage lists clientAuth or anyExtendedKeyUsage.
 * A leaf that is itself one of `roots` verifies alone. Roots of version 1 (no basicConstraints)
 * are refused, and name constraints are not enforced.
 * @returns the verified path, leaf first, root last.
 * @throws AuthenticationError for an empty or malformed chain, or one that does not verify; the
 *   message is Go's (`x509: certificate signed by unknown authority`, ...), for the log.
 */
export async function verifyClientChain(chain: readonly Uint8Array[], roots: CertificateBundle, now: number): Promise<VerifiedChain> {
  const [leafDer, ...intermediateDers] = chain;
  if (leafDer === undefined) throw new AuthenticationError("x509: no client certificate");
  const leaf = parseCertificate(leafDer);
  const intermediates = intermediateDers.map(parseCertificate);

  const leafError = validityError(leaf, now) ?? criticalExtensionError(leaf);
  if (leafError !== undefined) throw new AuthenticationError(leafError);

  let chains: x509.X509Certificate[][];
  if (roots.some((root) => sameCertificate(root, leaf))) {
    chains = [[leaf]];
  } else {
    const built = await buildChains([leaf], { roots, intermediates, now, signatureChecks: 0 });
    if (built.chains.length === 0) throw new AuthenticationError(built.error ?? unknownAuthority());
    chains = built.chains;
  }
  const usable = chains.find((path) => path.every(allowsClientAuth));
  if (!usable) throw new AuthenticationError("x509: certificate specifies an incompatible key usage");
  return usable;
}

/** The subject's common name: the last CN attribute (as Go's `pkix.Name.CommonName`); `""` when none. */
export function commonNameOf(certificate: x509.X509Certificate): string {
  return certificate.subjectName.getField(oidCommonName).at(-1) ?? "";
}

/** The subject's organizations: every O attribute, in order. */
export function organizationsOf(certificate: x509.X509Certificate): string[] {
  return certificate.subjectName.getField(oidOrganization);
}

/**
 * Names a presented leaf certificate for the log as the reference does
 * (`SN=1234, SKID=AB:CD, AKID=EF:01`), or `(malformed)` when the DER does not parse.
 */
export function describeCertificate(der: Uint8Array | undefined): string {
  if (der === undefined) return "(none)";
  let certificate: x509.X509Certificate;
  try {
    certificate = parseCertificate(der);
  } catch {
    return "(malformed)";
  }
  const keyId = (oid: string): string => {
    const extension = certificate.getExtension(oid);
    const id = extension && "keyId" in extension && typeof extension.keyId === "string" ? extension.keyId : "";
    return (id.toUpperCase().match(/../g) ?? []).join(":");
  };
  return `SN=${serialOf(certificate)}, SKID=${keyId(oidSubjectKeyIdentifier)}, AKID=${keyId(oidAuthorityKeyIdentifier)}`;
}

interface BuildContext {
  readonly roots: CertificateBundle;
  readonly intermediates: readonly x509.X509Certificate[];
  readonly now: number;
  signatureChecks: number;
}

interface Built {
  chains: x509.X509Certificate[][];
  /** Why no path was found (Go's `err` of `buildChains`), when none was. */
  error?: string;
}

/**
 * Go's `buildChains`: extends `current` (leaf first) by every root, then every intermediate,
 * that can have issued its last certificate; a candidate that fails a check becomes the hint of
 * the unknown-authority error.
 */
async function buildChains(current: x509.X509Certificate[], context: BuildContext): Promise<Built> {
  const child = current[current.length - 1] as x509.X509Certificate;
  const chains: x509.X509Certificate[][] = [];
  let error: string | undefined;
  let hint: { error: string; candidate: x509.X509Certificate } | undefined;

  const consider = async (candidate: x509.X509Certificate, kind: "root" | "intermediate"): Promise<void> => {
    if (current.some((certificate) => sameCertificate(certificate, candidate))) return;
    if (++context.signatureChecks > maxSignatureChecks) {
      throw new AuthenticationError("x509: signature check attempts limit reached while verifying certificate chain");
    }
    const problem = (await signatureError(child, candidate)) ?? issuerError(candidate, kind, current, context.now);
    if (problem !== undefined) {
      hint ??= { error: problem, candidate };
      return;
    }
    const path = [...current, candidate];
    if (kind === "root") {
      chains.push(path);
      return;
    }
    const nested = await buildChains(path, context);
    chains.push(...nested.chains);
    error = nested.error;
  };

  for (const root of context.roots) if (issuedBy(child, root)) await consider(root, "root");
  for (const intermediate of context.intermediates) if (issuedBy(child, intermediate)) await consider(intermediate, "intermediate");

  if (chains.length > 0) return { chains };
  return { chains, error: error ?? unknownAuthority(hint) };
}

/** Go's `CheckSignatureFrom`: the issuer must be a CA and its key must verify the signature. */
async function signatureError(child: x509.X509Certificate, issuer: x509.X509Certificate): Promise<string | undefined> {
  if (!isCA(issuer)) return "x509: invalid signature: parent certificate cannot sign this kind of certificate";
  let valid: boolean;
  try {
    valid = await child.verify({ publicKey: issuer.publicKey, signatureOnly: true }, globalThis.crypto);
  } catch {
    valid = false;
  }
  return valid ? undefined : "x509: invalid signature";
}

/** Go's `isValid` for an issuer: its validity window, critical extensions and path length. */
function issuerError(candidate: x509.X509Certificate, kind: "root" | "intermediate", below: readonly x509.X509Certificate[], now: number): string | undefined {
  const window = validityError(candidate, now);
  if (window !== undefined) return window;
  if (kind === "intermediate") {
    const critical = criticalExtensionError(candidate);
    if (critical !== undefined) return critical;
  }
  const pathLength = basicConstraintsOf(candidate)?.pathLength;
  if (pathLength !== undefined && pathLength >= 0 && below.length - 1 > pathLength) {
    return "x509: too many intermediates for path length constraint";
  }
  return undefined;
}

function validityError(certificate: x509.X509Certificate, now: number): string | undefined {
  const prefix = "x509: certificate has expired or is not yet valid: current time";
  if (now < certificate.notBefore.getTime()) return `${prefix} ${rfc3339(now)} is before ${rfc3339(certificate.notBefore.getTime())}`;
  if (now > certificate.notAfter.getTime()) return `${prefix} ${rfc3339(now)} is after ${rfc3339(certificate.notAfter.getTime())}`;
  return undefined;
}

function criticalExtensionError(certificate: x509.X509Certificate): string | undefined {
  const unhandled = certificate.extensions.some((extension) => extension.critical && !handledExtensions.has(extension.type));
  return unhandled ? "x509: unhandled critical extension" : undefined;
}

/** Whether a certificate's extended key usage, when it has one, allows client authentication. */
function allowsClientAuth(certificate: x509.X509Certificate): boolean {
  const extension = certificate.getExtension(oidExtKeyUsage);
  if (extension === null) return true;
  if (!(extension instanceof x509.ExtendedKeyUsageExtension)) return false;
  // An empty list counts as none, as in Go.
  if (extension.usages.length === 0) return true;
  return extension.usages.some((usage) => usage === oidClientAuth || usage === oidAnyExtendedKeyUsage);
}

function basicConstraintsOf(certificate: x509.X509Certificate): x509.BasicConstraintsExtension | null {
  const extension = certificate.getExtension(oidBasicConstraints);
  return extension instanceof x509.BasicConstraintsExtension ? extension : null;
}

function isCA(certificate: x509.X509Certificate): boolean {
  return basicConstraintsOf(certificate)?.ca === true;
}

function unknownAuthority(hint?: { error: string; candidate: x509.X509Certificate }): string {
  const message = "x509: certificate signed by unknown authority";
  if (!hint) return message;
  const name = commonNameOf(hint.candidate) || organizationsOf(hint.candidate)[0] || `serial:${serialOf(hint.candidate)}`;
  return `${message} (possibly because of ${JSON.stringify(hint.error)} while trying to verify candidate authority certificate ${JSON.stringify(name)})`;
}

function parseCertificate(der: Uint8Array): x509.X509Certificate {
  try {
    // A copy: the parser wants a Uint8Array over an ArrayBuffer, which a view of a shared or
    // pooled buffer may not be.
    return new x509.X509Certificate(new Uint8Array(der));
  } catch (error) {
    throw new AuthenticationError(`x509: malformed certificate: ${messageOf(error)}`, { cause: error });
  }
}

/** Encoded names, computed once per parsed certificate. */
const encodedNames = new WeakMap<x509.X509Certificate, { subject: Uint8Array; issuer: Uint8Array }>();

function namesOf(certificate: x509.X509Certificate): { subject: Uint8Array; issuer: Uint8Array } {
  let names = encodedNames.get(certificate);
  if (!names) {
    names = { subject: new Uint8Array(certificate.subjectName.toArrayBuffer()), issuer: new Uint8Array(certificate.issuerName.toArrayBuffer()) };
    encodedNames.set(certificate, names);
  }
  return names;
}

/** Whether `issuer`'s subject is `child`'s issuer, byte for byte (Go's pool lookup by raw name). */
function issuedBy(child: x509.X509Certificate, issuer: x509.X509Certificate): boolean {
  return sameBytes(namesOf(child).issuer, namesOf(issuer).subject);
}

function sameCertificate(a: x509.X509Certificate, b: x509.X509Certificate): boolean {
  return a === b || sameBytes(new Uint8Array(a.rawData), new Uint8Array(b.rawData));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The serial number in decimal, as Go prints a `*big.Int`. */
function serialOf(certificate: x509.X509Certificate): string {
  try {
    return BigInt(`0x${certificate.serialNumber || "0"}`).toString();
  } catch {
    return certificate.serialNumber;
  }
}

/** Go's `time.RFC3339` in UTC: seconds, no fraction. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
