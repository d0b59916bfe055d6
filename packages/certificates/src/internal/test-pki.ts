/**
 * Test-only PKI: a CA and PKCS#10 requests made with `@peculiar/x509` (ECDSA P-256). Imported
 * by tests only, never by the package's entry.
 * @module
 */
import { x509 } from "./x509.js";

const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** The instant the tests sign at: 2026-01-01T00:00:00Z. */
export const testNow = Date.UTC(2026, 0, 1);

/** A self-signed CA valid from 2025-01-01 until `notAfter` (2030-01-01 by default), PEM. */
export async function testCA(notAfter = new Date(Date.UTC(2030, 0, 1))): Promise<{ certPem: string; keyPem: string }> {
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: "CN=test-ca",
    keys,
    signingAlgorithm: alg,
    notBefore: new Date(Date.UTC(2025, 0, 1)),
    notAfter,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const keyPem = x509.PemConverter.encode(await crypto.subtle.exportKey("pkcs8", keys.privateKey), "PRIVATE KEY");
  return { certPem: certificate.toString("pem"), keyPem };
}

/** A PEM request for `subject` (`CN=system:node:n1, O=system:nodes`) with subject alternative names and extra extensions. */
export async function testRequest(subject: string, names: x509.JsonGeneralName[] = [], extensions: x509.Extension[] = []): Promise<string> {
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys,
    signingAlgorithm: alg,
    extensions: [...(names.length ? [new x509.SubjectAlternativeNameExtension(names)] : []), ...extensions],
  });
  return request.toString("pem");
}

export { x509 };
