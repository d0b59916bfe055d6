import { describe, expect, it } from "vitest";
import { testCA, testNow, testRequest, x509 } from "./internal/test-pki.js";
import { certificateLifetimeMs, signCertificate, SigningError } from "./sign-certificate.js";

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

function extension<T extends x509.Extension>(certificate: x509.X509Certificate, type: abstract new (...args: never[]) => T): T | undefined {
  return certificate.extensions.find((e): e is T => e instanceof type);
}

describe("certificateLifetimeMs", () => {
  it("is the cluster signing duration, or the requested one when shorter, never below 10 minutes", () => {
    expect(certificateLifetimeMs(undefined)).toBe(365 * day);
    expect(certificateLifetimeMs(3600)).toBe(hour);
    expect(certificateLifetimeMs(3600, 30 * minute)).toBe(30 * minute);
    expect(certificateLifetimeMs(60)).toBe(10 * minute);
  });
});

describe("signCertificate", () => {
  it("issues a certificate of the request's subject and key, CA false, with the usages asked for, backdated 5 minutes", async () => {
    const ca = await testCA();
    const request = await testRequest("CN=system:node:n1, O=system:nodes");
    const pem = await signCertificate({
      request,
      usages: ["digital signature", "key encipherment", "client auth"],
      signerName: "orch.io/orch-apiserver-client-nodeagent",
      ca,
      now: testNow,
    });
    const certificate = new x509.X509Certificate(pem);
    const issuer = new x509.X509Certificate(ca.certPem);
    expect(certificate.subject).toBe("CN=system:node:n1, O=system:nodes");
    expect(certificate.issuer).toBe(issuer.subject);
    expect(await certificate.verify({ publicKey: issuer.publicKey, signatureOnly: true })).toBe(true);
    expect(extension(certificate, x509.BasicConstraintsExtension)?.ca).toBe(false);
    expect(extension(certificate, x509.KeyUsagesExtension)?.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    expect(extension(certificate, x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.clientAuth]);
    expect(certificate.notBefore.getTime()).toBe(testNow - 5 * minute);
    expect(certificate.notAfter.getTime()).toBe(testNow - 5 * minute + 365 * day);
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]*\n-----END CERTIFICATE-----\n$/);
  });

  it("keeps only the subjectAltNames the signer allows", async () => {
    const ca = await testCA();
    const names: x509.JsonGeneralName[] = [
      { type: "dns", value: "n1.example" },
      { type: "ip", value: "10.0.0.1" },
      { type: "email", value: "a@example.com" },
    ];
    const request = await testRequest("CN=system:node:n1, O=system:nodes", names);
    const serving = new x509.X509Certificate(
      await signCertificate({ request, usages: ["server auth"], signerName: "orch.io/nodeagent-serving", ca, now: testNow }),
    );
    expect(extension(serving, x509.SubjectAlternativeNameExtension)?.names.toJSON()).toEqual([
      { type: "dns", value: "n1.example" },
      { type: "ip", value: "10.0.0.1" },
    ]);
    const client = new x509.X509Certificate(
      await signCertificate({ request, usages: ["client auth"], signerName: "orch.io/orch-apiserver-client", ca, now: testNow }),
    );
    expect(extension(client, x509.SubjectAlternativeNameExtension)?.names.toJSON()).toEqual([
      { type: "dns", value: "n1.example" },
      { type: "email", value: "a@example.com" },
      { type: "ip", value: "10.0.0.1" },
    ]);
    const nodeClient = new x509.X509Certificate(
      await signCertificate({ request, usages: ["client auth"], signerName: "orch.io/orch-apiserver-client-nodeagent", ca, now: testNow }),
    );
    expect(extension(nodeClient, x509.SubjectAlternativeNameExtension)).toBeUndefined();
  });

  it("never issues a CA certificate, even when the request asks for one", async () => {
    const ca = await testCA();
    const request = await testRequest("CN=x", [], [new x509.BasicConstraintsExtension(true)]);
    const certificate = new x509.X509Certificate(
      await signCertificate({ request, usages: ["cert sign"], signerName: "orch.io/legacy-unknown", ca, now: testNow }),
    );
    expect(extension(certificate, x509.BasicConstraintsExtension)?.ca).toBe(false);
  });

  it("gives the shorter requested lifetime, from now when under 8 hours and from the backdated start otherwise", async () => {
    const ca = await testCA();
    const request = await testRequest("CN=x");
    const sign = (expirationSeconds: number, maxDurationMs?: number) =>
      signCertificate({
        request,
        usages: ["client auth"],
        signerName: "example.com/custom",
        ca,
        now: testNow,
        expirationSeconds,
        ...(maxDurationMs ? { maxDurationMs } : {}),
      }).then((p) => new x509.X509Certificate(p));
    expect((await sign(3600)).notAfter.getTime()).toBe(testNow + hour);
    expect((await sign(10 * 3600)).notAfter.getTime()).toBe(testNow - 5 * minute + 10 * hour);
    expect((await sign(30 * 24 * 3600, day)).notAfter.getTime()).toBe(testNow - 5 * minute + day);
  });

  it("ends the certificate with the CA, and refuses once the CA has expired", async () => {
    const ca = await testCA(new Date(testNow + day));
    const request = await testRequest("CN=x");
    const certificate = new x509.X509Certificate(
      await signCertificate({ request, usages: ["client auth"], signerName: "example.com/custom", ca, now: testNow }),
    );
    expect(certificate.notAfter.getTime()).toBe(testNow + day);
    const late = signCertificate({ request, usages: ["client auth"], signerName: "example.com/custom", ca, now: testNow + day + 6 * minute });
    await expect(late).rejects.toBeInstanceOf(SigningError);
    await expect(late).rejects.toThrow("the signer has expired: NotAfter=2026-01-02 00:00:00 +0000 UTC");
    await expect(signCertificate({ request, usages: ["client auth"], signerName: "example.com/custom", ca, now: testNow + day + minute })).rejects.toThrow(
      "refusing to sign a certificate that expired in the past: NotAfter=2026-01-02 00:00:00 +0000 UTC",
    );
  });

  it("refuses unknown usages and requests it cannot read, with the reference's messages", async () => {
    const ca = await testCA();
    const request = await testRequest("CN=x");
    await expect(signCertificate({ request, usages: ["client auth", "flying", "x"], signerName: "example.com/custom", ca, now: testNow })).rejects.toThrow(
      'unrecognized usage values: ["flying" "x"]',
    );
    await expect(signCertificate({ request: "garbage", usages: [], signerName: "example.com/custom", ca, now: testNow })).rejects.toThrow(
      "unable to parse certificate request: PEM block type must be CERTIFICATE REQUEST",
    );
  });
});
