/**
 * Signing an approved request with a CA, as the built-in signers of the reference do
 * (`pkg/controller/certificates/authority` and the signer's `PermissiveSigningPolicy`).
 * @module
 */
import { parseCertificateRequest, verifyCertificateRequest, type CertificateRequest } from "./certificate-request.js";
import { signerPolicy } from "./signers.js";
import { x509 } from "./internal/x509.js";

/** A refusal to sign, with the reference's message (`unrecognized usage values: ["flying"]`). */
export class SigningError extends Error {
  override readonly name = "SigningError";
}

/** The CA that signs: its certificate and its PKCS#8 private key (ECDSA, RSA or Ed25519), PEM. */
export interface SigningCA {
  /** The CA certificate, PEM. */
  certPem: string;
  /** Its private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`). */
  keyPem: string;
}

/** The input of {@link signCertificate}. */
export interface SignCertificateOptions {
  /** The PEM `CERTIFICATE REQUEST` (`spec.request`, decoded). */
  request: string;
  /** `spec.usages`: key usages (`digital signature`, ...) and extended key usages (`client auth`, ...). */
  usages: readonly string[];
  /** `spec.signerName`: decides which subject alternative names are kept (all for a signer that is not built in). */
  signerName: string;
  /** The product domain the built-in signer names belong to (default `orch.io`). */
  domain?: string;
  /** The CA that signs. */
  ca: SigningCA;
  /** `spec.expirationSeconds`, when set: asks for a shorter lifetime (never below 10 minutes). */
  expirationSeconds?: number;
  /** The cluster signing duration (`--cluster-signing-duration`) in ms, the longest lifetime (default one year). */
  maxDurationMs?: number;
  /** The signing time, ms since the epoch. */
  now: number;
}

/** One year in ms: the default cluster signing duration. */
export const defaultClusterSigningDurationMs = 365 * 24 * 3600 * 1000;
/** How far a certificate's validity starts before the signing time, for clocks behind ours (5 minutes). */
export const signingBackdateMs = 5 * 60 * 1000;
/** Below this lifetime a certificate's end is not moved back by the backdate (8 hours). */
const shortLivedMs = 8 * 3600 * 1000;
/** The shortest lifetime signed, twice the backdate (10 minutes). */
const minDurationMs = 10 * 60 * 1000;

/**
 * The lifetime of a certificate, in ms: the cluster signing duration, or `expirationSeconds`
 * when shorter, but never below 10 minutes (the reference's `signer.duration`).
 */
export function certificateLifetimeMs(expirationSeconds: number | undefined, maxDurationMs = defaultClusterSigningDurationMs): number {
  if (expirationSeconds === undefined) return maxDurationMs;
  const requested = expirationSeconds * 1000;
  return Math.min(maxDurationMs, Math.max(minDurationMs, requested));
}

const keyUsageFlags: Record<string, number> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  "digital signature": x509.KeyUsageFlags.digitalSignature,
  "content commitment": x509.KeyUsageFlags.nonRepudiation,
  "key encipherment": x509.KeyUsageFlags.keyEncipherment,
  "key agreement": x509.KeyUsageFlags.keyAgreement,
  "data encipherment": x509.KeyUsageFlags.dataEncipherment,
  "cert sign": x509.KeyUsageFlags.keyCertSign,
  "crl sign": x509.KeyUsageFlags.cRLSign,
  "encipher only": x509.KeyUsageFlags.encipherOnly,
  "decipher only": x509.KeyUsageFlags.decipherOnly,
};

/** Extended key usages, in Go's `ExtKeyUsage` order (the order they are written in). */
const extendedKeyUsages: readonly (readonly [usages: readonly string[], oid: string])[] = [
  [["any"], "2.5.29.37.0"],
  [["server auth"], x509.ExtendedKeyUsage.serverAuth],
  [["client auth"], x509.ExtendedKeyUsage.clientAuth],
  [["code signing"], x509.ExtendedKeyUsage.codeSigning],
  [["email protection", "s/mime"], x509.ExtendedKeyUsage.emailProtection],
  [["ipsec end system"], "1.3.6.1.5.5.7.3.5"],
  [["ipsec tunnel"], "1.3.6.1.5.5.7.3.6"],
  [["ipsec user"], "1.3.6.1.5.5.7.3.7"],
  [["timestamping"], x509.ExtendedKeyUsage.timeStamping],
  [["ocsp signing"], x509.ExtendedKeyUsage.ocspSigning],
  [["microsoft sgc"], "1.3.6.1.4.1.311.10.3.3"],
  [["netscape sgc"], "2.16.840.1.113730.4.1"],
];

/** Go's `%v` of a UTC time: `2030-01-01 00:00:00 +0000 UTC`. */
function goTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} +0000 UTC`;
}

/** The key usage flags and extended key usage OIDs of `usages`; refuses unknown ones as the reference does. */
function usagesOf(usages: readonly string[]): { flags: number; oids: string[] } {
  let flags = 0;
  const oids = new Set<string>();
  const unrecognized: string[] = [];
  for (const usage of usages) {
    const flag = keyUsageFlags[usage];
    const ext = extendedKeyUsages.find(([names]) => names.includes(usage));
    if (flag !== undefined) flags |= flag;
    else if (ext) oids.add(ext[1]);
    else unrecognized.push(usage);
  }
  if (unrecognized.length) throw new SigningError(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(" ")}]`);
  return { flags, oids: extendedKeyUsages.map(([, oid]) => oid).filter((oid) => oids.has(oid)) };
}

/** The import and signing algorithms of the CA's key, from its certificate. */
function algorithmsOf(ca: x509.X509Certificate): { key: Algorithm | EcKeyImportParams | RsaHashedImportParams; sign: Algorithm | EcdsaParams } {
  const algorithm = ca.publicKey.algorithm as Algorithm & { namedCurve?: string };
  if (algorithm.name === "ECDSA" && algorithm.namedCurve) {
    const hash = algorithm.namedCurve === "P-384" ? "SHA-384" : algorithm.namedCurve === "P-521" ? "SHA-512" : "SHA-256";
    return { key: { name: "ECDSA", namedCurve: algorithm.namedCurve }, sign: { name: "ECDSA", hash } as EcdsaParams };
  }
  if (algorithm.name.startsWith("RSA")) {
    const rsa = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
    return { key: rsa, sign: rsa };
  }
  if (algorithm.name === "Ed25519") return { key: { name: "Ed25519" }, sign: { name: "Ed25519" } };
  throw new SigningError(`unsupported CA key algorithm ${algorithm.name}`);
}

/** A positive 128-bit serial number in hex, its first byte below 0x80 so it stays positive in DER. */
function serialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function subjectAltNames(request: CertificateRequest, signerName: string, domain: string): x509.JsonGeneralName[] {
  const kept = new Set(signerPolicy(signerName, domain)?.subjectAltNames ?? ["dns", "ip", "email", "uri"]);
  return [
    ...(kept.has("dns") ? request.dnsNames.map((value) => ({ type: "dns" as const, value })) : []),
    ...(kept.has("email") ? request.emailAddresses.map((value) => ({ type: "email" as const, value })) : []),
    ...(kept.has("ip") ? request.ipAddresses.map((value) => ({ type: "ip" as const, value })) : []),
    ...(kept.has("uri") ? request.uris.map((value) => ({ type: "url" as const, value })) : []),
  ];
}

/**
 * Signs a PKCS#10 request with `ca` as the reference's built-in signers do, and answers the
 * certificate as PEM. The certificate has the request's subject and public key; key usages
 * and extended key usages from `usages`; basicConstraints CA false; the request's subject
 * alternative names of the kinds the signer keeps (see `signerPolicy`; every kind for a signer
 * that is not built in); no other extension of the request. Its validity starts 5 minutes
 * before `now` and lasts {@link certificateLifetimeMs} (measured from `now` for a lifetime under
 * 8 hours, from the backdated start otherwise), cut at the CA's own end.
 *
 * It does not check the signer's restrictions: run `signerRestrictionProblems` first and mark
 * the request Failed when it breaks any, as the reference's signer does.
 * @throws SigningError with the reference's message when the request cannot be parsed
 *   (`unable to parse certificate request: ...`), its signature does not verify (`unable to
 *   verify certificate request signature`), a usage is unknown (`unrecognized usage values:
 *   ["x"]`), or the CA has expired (`the signer has expired: NotAfter=...`, `refusing to sign a
 *   certificate that expired in the past: NotAfter=...`).
 */
export async function signCertificate(options: SignCertificateOptions): Promise<string> {
  const { now } = options;
  let request: CertificateRequest;
  try {
    request = parseCertificateRequest(options.request);
  } catch (error) {
    throw new SigningError(`unable to parse certificate request: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (!(await verifyCertificateRequest(request).catch(() => false))) throw new SigningError("unable to verify certificate request signature");
  const { flags, oids } = usagesOf(options.usages);

  let ca: x509.X509Certificate;
  let signingKey: CryptoKey;
  let algorithms: ReturnType<typeof algorithmsOf>;
  try {
    ca = new x509.X509Certificate(options.ca.certPem);
    algorithms = algorithmsOf(ca);
    signingKey = await crypto.subtle.importKey("pkcs8", x509.PemConverter.decodeFirst(options.ca.keyPem), algorithms.key, false, ["sign"]);
  } catch (error) {
    if (error instanceof SigningError) throw error;
    throw new SigningError(`unable to load the CA: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }

  const lifetime = certificateLifetimeMs(options.expirationSeconds, options.maxDurationMs);
  const caNotAfter = ca.notAfter.getTime();
  const notBefore = now - signingBackdateMs;
  let notAfter = lifetime < shortLivedMs ? now + lifetime : notBefore + lifetime;
  if (notAfter >= caNotAfter) notAfter = caNotAfter;
  if (notBefore >= caNotAfter) throw new SigningError(`the signer has expired: NotAfter=${goTime(caNotAfter)}`);
  if (now >= caNotAfter) throw new SigningError(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(caNotAfter)}`);

  const extensions: x509.Extension[] = [];
  if (flags !== 0) extensions.push(new x509.KeyUsagesExtension(flags, true));
  if (oids.length) extensions.push(new x509.ExtendedKeyUsageExtension(oids));
  extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
  const caKeyId = ca.extensions.find((e): e is x509.SubjectKeyIdentifierExtension => e instanceof x509.SubjectKeyIdentifierExtension)?.keyId;
  if (caKeyId) extensions.push(new x509.AuthorityKeyIdentifierExtension(caKeyId));
  const names = subjectAltNames(request, options.signerName, options.domain ?? "orch.io");
  // An empty subject makes the names the only identity: RFC 5280 then wants them critical, as Go does.
  if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names, request.request.subjectName.toArrayBuffer().byteLength <= 2));

  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: request.request.subjectName,
    issuer: ca.subjectName,
    notBefore: new Date(notBefore),
    notAfter: new Date(notAfter),
    publicKey: request.request.publicKey,
    signingKey,
    signingAlgorithm: algorithms.sign,
    extensions,
  });
  return `${certificate.toString("pem").replace(/\r\n/g, "\n").trimEnd()}\n`;
}
