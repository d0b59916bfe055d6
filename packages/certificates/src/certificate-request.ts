/**
 * PKCS#10 certificate requests, as the signers see them: the subject, the subject alternative
 * names and the extensions a PEM `CERTIFICATE REQUEST` carries, and whether its signature holds.
 * @module
 */
import { x509 } from "./internal/x509.js";

/** What a signer reads from a PKCS#10 request; from {@link parseCertificateRequest}. */
export interface CertificateRequest {
  /** The parsed request, for its public key and signature. */
  readonly request: x509.Pkcs10CertificateRequest;
  /** The subject's common name (the last `CN`, as Go reads it; `""` when none). */
  readonly commonName: string;
  /** The subject's organizations (`O`), in order. */
  readonly organizations: readonly string[];
  /** DNS subject alternative names. */
  readonly dnsNames: readonly string[];
  /** IP subject alternative names, as text. */
  readonly ipAddresses: readonly string[];
  /** Email subject alternative names. */
  readonly emailAddresses: readonly string[];
  /** URI subject alternative names. */
  readonly uris: readonly string[];
  /** Whether the request asks for a CA certificate (a basicConstraints extension with `cA` true). */
  readonly requestsCA: boolean;
  /** The OIDs of the extensions the request asks for. */
  readonly extensionOIDs: readonly string[];
}

/** The PEM label of a PKCS#10 request. */
const requestLabel = "CERTIFICATE REQUEST";

/**
 * Parses the first PEM `CERTIFICATE REQUEST` block of `pem`. Does not check the signature:
 * see {@link verifyCertificateRequest}.
 * @throws Error when there is no such block or it is not a PKCS#10 request.
 */
export function parseCertificateRequest(pem: string): CertificateRequest {
  const block = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (!block || block[1] !== requestLabel) throw new Error("PEM block type must be CERTIFICATE REQUEST");
  const request = new x509.Pkcs10CertificateRequest(x509.PemConverter.decodeFirst(block[0]));
  const san = request.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
  const names = san?.names.items ?? [];
  const of = (type: x509.JsonGeneralName["type"]) => names.filter((n) => n.type === type).map((n) => n.value);
  const commonNames = request.subjectName.getField("CN");
  return {
    request,
    commonName: commonNames[commonNames.length - 1] ?? "",
    organizations: request.subjectName.getField("O"),
    dnsNames: of("dns"),
    ipAddresses: of("ip"),
    emailAddresses: of("email"),
    uris: of("url"),
    requestsCA: request.extensions.some((e) => e instanceof x509.BasicConstraintsExtension && e.ca),
    extensionOIDs: request.extensions.map((e) => e.type),
  };
}

/** Whether the request's signature verifies with its own public key (proof of possession of the key). */
export function verifyCertificateRequest(request: CertificateRequest): Promise<boolean> {
  return request.request.verify();
}
