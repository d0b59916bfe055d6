/**
 * Test-only PKI for the certificate authenticators: CAs, intermediates and client certificates
 * generated with `@peculiar/x509`, valid from 2025 to 2030 unless a test says otherwise.
 * Imported by tests only, never by the package's entry.
 * @module
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(globalThis.crypto);

const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** The instant the tests verify at: 2026-01-01T00:00:00Z, `FakeClock`'s default. */
export const testNow = Date.UTC(2026, 0, 1);

/** A certificate with its key pair, as DER (what the TLS layer hands over) and PEM. */
export interface Issued {
  certificate: x509.X509Certificate;
  keys: CryptoKeyPair;
  der: Uint8Array;
  pem: string;
}

/** How to issue a certificate: its validity window (default 2025-01-01 to 2030-01-01) and extensions. */
export interface IssueOptions {
  notBefore?: Date;
  notAfter?: Date;
  /** Replaces the default extensions of the kind of certificate. */
  extensions?: x509.Extension[];
}

/** A CA named `subject`: self-signed when `issuer` is absent, an intermediate signed by `issuer` otherwise. */
export function certificateAuthority(subject: string, issuer?: Issued, options: IssueOptions & { pathLength?: number } = {}): Promise<Issued> {
  const extensions = options.extensions ?? [
    new x509.BasicConstraintsExtension(true, options.pathLength, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
  ];
  return issue(subject, issuer, { ...options, extensions });
}

/** A client certificate for `subject` (`CN=alice, O=dev`) signed by `issuer`, with the clientAuth extended key usage. */
export function clientCertificate(issuer: Issued, subject: string, options: IssueOptions = {}): Promise<Issued> {
  const extensions = options.extensions ?? [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
  ];
  return issue(subject, issuer, { ...options, extensions });
}

/** A certificate for `subject` signed by `issuer` (self-signed when absent) with exactly `options.extensions`. */
export async function issue(subject: string, issuer: Issued | undefined, options: IssueOptions): Promise<Issued> {
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const certificate = await x509.X509CertificateGenerator.create({
    subject,
    issuer: issuer ? issuer.certificate.subject : subject,
    publicKey: keys.publicKey,
    signingKey: issuer ? issuer.keys.privateKey : keys.privateKey,
    signingAlgorithm: alg,
    notBefore: options.notBefore ?? new Date(Date.UTC(2025, 0, 1)),
    notAfter: options.notAfter ?? new Date(Date.UTC(2030, 0, 1)),
    extensions: options.extensions ?? [],
  });
  return { certificate, keys, der: new Uint8Array(certificate.rawData), pem: certificate.toString("pem") };
}

/** The PEM bundle of `cas`, as a `--client-ca-file` holds it. */
export function bundle(...cas: Issued[]): string {
  return cas.map((ca) => ca.pem).join("\n");
}
