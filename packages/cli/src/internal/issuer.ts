/**
 * A certificate authority over `@peculiar/x509` and Web Crypto: loaded only when a certificate
 * has to be generated, since the library and its metadata polyfill take a while to load.
 * @module
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import type { CertificateRequest, IssuedCertificate } from "../certificates.js";

const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
/** Certificates are valid from a little before now, for clocks slightly behind ours. */
const backdate = 5 * 60 * 1000;

x509.cryptoProvider.set(globalThis.crypto);

/** A positive, minimally encoded 128-bit serial number in hex (Go rejects anything else). */
function serialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey("pkcs8", key), "PRIVATE KEY");
}

/** What {@link Issuer.issue} makes: a {@link CertificateRequest} with every field given. */
export type IssueRequest = Required<CertificateRequest>;

/** A CA that signs certificates. */
export class Issuer {
  private constructor(
    private readonly certificate: x509.X509Certificate,
    private readonly keys: { privateKey: CryptoKey; publicKey: CryptoKey },
    /** The CA certificate, PEM. */
    readonly certPem: string,
    /** The CA key, PKCS#8 PEM. */
    readonly keyPem: string,
  ) {}

  /** A new self-signed CA. */
  static async create(now: number, lifetime: number): Promise<Issuer> {
    const keys = await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serialNumber(),
      name: `CN=orch-ca@${Math.floor(now / 1000)}`,
      notBefore: new Date(now - backdate),
      notAfter: new Date(now + lifetime),
      keys,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return new Issuer(certificate, keys, certificate.toString("pem"), await privateKeyPem(keys.privateKey));
  }

  /** The CA of existing PEM files. */
  static async load(certPem: string, keyPem: string): Promise<Issuer> {
    const certificate = new x509.X509Certificate(certPem);
    const privateKey = await crypto.subtle.importKey("pkcs8", x509.PemConverter.decodeFirst(keyPem), algorithm, true, ["sign"]);
    const publicKey = await certificate.publicKey.export(algorithm, ["verify"]);
    return new Issuer(certificate, { privateKey, publicKey }, certPem, keyPem);
  }

  /** Issues a certificate signed by this CA, with a fresh key. */
  async issue(request: IssueRequest): Promise<IssuedCertificate> {
    const keys = await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
    const names: x509.JsonGeneralNames = [
      ...request.dns.map((value) => ({ type: "dns" as const, value })),
      ...request.ips.map((value) => ({ type: "ip" as const, value })),
    ];
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([
        ...(request.usage === "client" ? [] : [x509.ExtendedKeyUsage.serverAuth]),
        ...(request.usage === "server" ? [] : [x509.ExtendedKeyUsage.clientAuth]),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(this.keys.publicKey),
    ];
    if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: serialNumber(),
      subject: request.subject,
      issuer: this.certificate.subject,
      notBefore: new Date(request.now - backdate),
      notAfter: new Date(request.now + request.lifetime),
      publicKey: keys.publicKey,
      signingKey: this.keys.privateKey,
      signingAlgorithm: algorithm,
      extensions,
    });
    return { certPem: certificate.toString("pem"), keyPem: await privateKeyPem(keys.privateKey) };
  }
}
