/**
 * Test-only PKI: a CA and certificates it signs, generated with `@peculiar/x509` (a dev
 * dependency). Imported by tests only, never by the package's entry.
 * @module
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";

const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** A certificate with its key, as PEM and as objects. */
export interface Issued {
  cert: string;
  key: string;
  keys: CryptoKeyPair;
  certificate: x509.X509Certificate;
}

async function keyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey("pkcs8", key), "PRIVATE KEY");
}

/** A self-signed CA named `name` (`CN=test-ca`). */
export async function selfSignedCA(name: string): Promise<Issued> {
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name,
    keys,
    signingAlgorithm: alg,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return { cert: certificate.toString("pem"), key: await keyPem(keys.privateKey), keys, certificate };
}

/** A serving certificate for 127.0.0.1 signed by `ca`. */
export function servingCertificate(ca: Issued): Promise<Issued> {
  return issue(ca, "CN=127.0.0.1", [
    new x509.SubjectAlternativeNameExtension([{ type: "ip", value: "127.0.0.1" }]),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
  ]);
}

/** A client certificate for `subject` (`CN=alice, O=dev`) signed by `ca`. */
export function clientCertificate(ca: Issued, subject: string): Promise<Issued> {
  return issue(ca, subject, [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])]);
}

async function issue(ca: Issued, subject: string, extensions: x509.Extension[]): Promise<Issued> {
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const certificate = await x509.X509CertificateGenerator.create({
    subject,
    issuer: ca.certificate.subject,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: alg,
    extensions,
  });
  return { cert: certificate.toString("pem"), key: await keyPem(keys.privateKey), keys, certificate };
}
