import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError } from "./authenticator.js";
import { bundle, certificateAuthority, clientCertificate, issue, testNow, type Issued } from "./internal/test-pki.js";
import { commonNameOf, describeCertificate, organizationsOf, parseCertificateBundle, verifyClientChain } from "./x509-verify.js";

let root: Issued;
let intermediate: Issued;
let leaf: Issued;
let roots: ReturnType<typeof parseCertificateBundle>;

beforeAll(async () => {
  root = await certificateAuthority("CN=root-ca");
  intermediate = await certificateAuthority("CN=intermediate-ca", root);
  leaf = await clientCertificate(root, "CN=alice, O=dev");
  roots = parseCertificateBundle(bundle(root));
});

async function refusal(promise: Promise<unknown>): Promise<AuthenticationError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthenticationError);
  return error as AuthenticationError;
}

describe("parseCertificateBundle", () => {
  it("parses every CERTIFICATE block in order and skips other blocks", async () => {
    const other = await certificateAuthority("CN=other-ca");
    const key = x509.PemConverter.encode(new Uint8Array([1, 2, 3]), "PRIVATE KEY");
    const parsed = parseCertificateBundle(`${root.pem}\n${key}\n${other.pem}\n`);
    expect(parsed.map((c) => c.subject)).toEqual(["CN=root-ca", "CN=other-ca"]);
  });

  it("throws for a bundle with no certificate", () => {
    expect(() => parseCertificateBundle("")).toThrow(/no PEM CERTIFICATE block/);
    expect(() => parseCertificateBundle("not a pem at all")).toThrow(/no PEM CERTIFICATE block/);
    expect(() => parseCertificateBundle(x509.PemConverter.encode(new Uint8Array([1]), "PRIVATE KEY"))).toThrow(/no PEM CERTIFICATE block/);
  });

  it("throws for a certificate block that does not parse, naming it", () => {
    const junk = x509.PemConverter.encode(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01]), "CERTIFICATE");
    expect(() => parseCertificateBundle(`${root.pem}\n${junk}`)).toThrow(/certificate 2 is malformed/);
  });
});

describe("verifyClientChain", () => {
  it("verifies a leaf signed by a root of the bundle and returns the path leaf first", async () => {
    const path = await verifyClientChain([leaf.der], roots, testNow);
    expect(path.map((c) => c.subject)).toEqual(["CN=alice, O=dev", "CN=root-ca"]);
  });

  it("verifies a leaf through a presented intermediate", async () => {
    const viaIntermediate = await clientCertificate(intermediate, "CN=bob");
    const path = await verifyClientChain([viaIntermediate.der, intermediate.der], roots, testNow);
    expect(path.map((c) => c.subject)).toEqual(["CN=bob", "CN=intermediate-ca", "CN=root-ca"]);
  });

  it("ignores unrelated presented certificates and the order of intermediates", async () => {
    const second = await certificateAuthority("CN=second-ca", intermediate);
    const deep = await clientCertificate(second, "CN=carol");
    const unrelated = await certificateAuthority("CN=unrelated");
    const path = await verifyClientChain([deep.der, unrelated.der, intermediate.der, second.der], roots, testNow);
    expect(path.map((c) => c.subject)).toEqual(["CN=carol", "CN=second-ca", "CN=intermediate-ca", "CN=root-ca"]);
  });

  it("refuses a leaf whose intermediate was not presented", async () => {
    const viaIntermediate = await clientCertificate(intermediate, "CN=bob");
    const error = await refusal(verifyClientChain([viaIntermediate.der], roots, testNow));
    expect(error.message).toBe("x509: certificate signed by unknown authority");
  });

  it("refuses a leaf from another CA", async () => {
    const other = await certificateAuthority("CN=other-ca");
    const stranger = await clientCertificate(other, "CN=mallory");
    const error = await refusal(verifyClientChain([stranger.der], roots, testNow));
    expect(error.message).toBe("x509: certificate signed by unknown authority");
  });

  it("refuses a leaf from another CA with the same name as the trusted root (bad signature)", async () => {
    const impostor = await certificateAuthority("CN=root-ca");
    const forged = await clientCertificate(impostor, "CN=admin, O=system:masters");
    const error = await refusal(verifyClientChain([forged.der, impostor.der], roots, testNow));
    expect(error.message).toMatch(/^x509: certificate signed by unknown authority \(possibly because of "x509: invalid signature"/);
  });

  it("refuses an expired leaf with the reference's message", async () => {
    const expired = await clientCertificate(root, "CN=alice", { notBefore: new Date(Date.UTC(2020, 0, 1)), notAfter: new Date(Date.UTC(2021, 0, 1)) });
    const error = await refusal(verifyClientChain([expired.der], roots, testNow));
    expect(error.message).toBe("x509: certificate has expired or is not yet valid: current time 2026-01-01T00:00:00Z is after 2021-01-01T00:00:00Z");
  });

  it("refuses a leaf that is not yet valid", async () => {
    const early = await clientCertificate(root, "CN=alice", { notBefore: new Date(Date.UTC(2027, 0, 1)), notAfter: new Date(Date.UTC(2028, 0, 1)) });
    const error = await refusal(verifyClientChain([early.der], roots, testNow));
    expect(error.message).toBe("x509: certificate has expired or is not yet valid: current time 2026-01-01T00:00:00Z is before 2027-01-01T00:00:00Z");
  });

  it("checks validity against the given time, not the wall clock", async () => {
    await expect(verifyClientChain([leaf.der], roots, Date.UTC(2031, 0, 1))).rejects.toThrow(/is after 2030-01-01T00:00:00Z/);
    await expect(verifyClientChain([leaf.der], roots, Date.UTC(2024, 0, 1))).rejects.toThrow(/is before 2025-01-01T00:00:00Z/);
    await expect(verifyClientChain([leaf.der], roots, Date.UTC(2025, 0, 1))).resolves.toHaveLength(2);
  });

  it("refuses a chain through an expired intermediate, naming the candidate", async () => {
    const old = await certificateAuthority("CN=old-ca", root, { notBefore: new Date(Date.UTC(2020, 0, 1)), notAfter: new Date(Date.UTC(2021, 0, 1)) });
    const viaOld = await clientCertificate(old, "CN=dave");
    const error = await refusal(verifyClientChain([viaOld.der, old.der], roots, testNow));
    expect(error.message).toMatch(
      /^x509: certificate signed by unknown authority \(possibly because of "x509: certificate has expired or is not yet valid: .*" while trying to verify candidate authority certificate "old-ca"\)$/,
    );
  });

  it("refuses a chain to an expired root", async () => {
    const oldRoot = await certificateAuthority("CN=old-root", undefined, {
      notBefore: new Date(Date.UTC(2020, 0, 1)),
      notAfter: new Date(Date.UTC(2021, 0, 1)),
    });
    const client = await clientCertificate(oldRoot, "CN=erin");
    const error = await refusal(verifyClientChain([client.der], parseCertificateBundle(oldRoot.pem), testNow));
    expect(error.message).toMatch(/unknown authority \(possibly because of "x509: certificate has expired/);
  });

  it("refuses a chain through an intermediate that is not a CA", async () => {
    const notCA = await issue("CN=not-a-ca", root, { extensions: [new x509.BasicConstraintsExtension(false, undefined, true)] });
    const client = await clientCertificate(notCA, "CN=frank");
    const error = await refusal(verifyClientChain([client.der, notCA.der], roots, testNow));
    expect(error.message).toMatch(/unknown authority \(possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate"/);
  });

  it("refuses a chain through an intermediate without basicConstraints", async () => {
    const bare = await issue("CN=bare", root, { extensions: [] });
    const client = await clientCertificate(bare, "CN=frank");
    await expect(verifyClientChain([client.der, bare.der], roots, testNow)).rejects.toThrow(/parent certificate cannot sign/);
  });

  it("refuses a chain longer than a CA's path length", async () => {
    const constrained = await certificateAuthority("CN=constrained-root", undefined, { pathLength: 0 });
    const middle = await certificateAuthority("CN=middle", constrained);
    const client = await clientCertificate(middle, "CN=gina");
    const error = await refusal(verifyClientChain([client.der, middle.der], parseCertificateBundle(constrained.pem), testNow));
    expect(error.message).toMatch(/too many intermediates for path length constraint/);
    const direct = await clientCertificate(constrained, "CN=gina");
    await expect(verifyClientChain([direct.der], parseCertificateBundle(constrained.pem), testNow)).resolves.toHaveLength(2);
  });

  it("refuses a leaf whose extended key usage is serverAuth only", async () => {
    const server = await clientCertificate(root, "CN=server", { extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth])] });
    const error = await refusal(verifyClientChain([server.der], roots, testNow));
    expect(error.message).toBe("x509: certificate specifies an incompatible key usage");
  });

  it("accepts a leaf without extended key usage, or with anyExtendedKeyUsage, or with clientAuth among others", async () => {
    const none = await clientCertificate(root, "CN=none", { extensions: [] });
    const any = await clientCertificate(root, "CN=any", { extensions: [new x509.ExtendedKeyUsageExtension(["2.5.29.37.0"])] });
    const both = await clientCertificate(root, "CN=both", {
      extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth])],
    });
    for (const cert of [none, any, both]) await expect(verifyClientChain([cert.der], roots, testNow)).resolves.toHaveLength(2);
  });

  it("refuses a chain whose intermediate's extended key usage excludes clientAuth", async () => {
    const serverOnlyCA = await certificateAuthority("CN=server-only-ca", root, {
      extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth])],
    });
    const client = await clientCertificate(serverOnlyCA, "CN=hank");
    await expect(verifyClientChain([client.der, serverOnlyCA.der], roots, testNow)).rejects.toThrow("x509: certificate specifies an incompatible key usage");
  });

  it("refuses a leaf with an unhandled critical extension", async () => {
    const odd = await clientCertificate(root, "CN=odd", { extensions: [new x509.Extension("1.2.3.4.5", true, new Uint8Array([5, 0]))] });
    await expect(verifyClientChain([odd.der], roots, testNow)).rejects.toThrow("x509: unhandled critical extension");
  });

  it("accepts a leaf that is itself in the bundle", async () => {
    const path = await verifyClientChain([root.der], roots, testNow);
    expect(path.map((c) => c.subject)).toEqual(["CN=root-ca"]);
  });

  it("refuses an empty chain and malformed DER", async () => {
    expect((await refusal(verifyClientChain([], roots, testNow))).message).toBe("x509: no client certificate");
    expect((await refusal(verifyClientChain([new Uint8Array([1, 2, 3])], roots, testNow))).message).toMatch(/^x509: malformed certificate/);
    expect((await refusal(verifyClientChain([leaf.der, new Uint8Array([0x30])], roots, testNow))).message).toMatch(/^x509: malformed certificate/);
  });
});

describe("subject helpers", () => {
  it("commonNameOf is the last CN; organizationsOf every O in order", async () => {
    const cert = await clientCertificate(root, "CN=first, CN=last, O=b, O=a");
    expect(commonNameOf(cert.certificate)).toBe("last");
    expect(organizationsOf(cert.certificate)).toEqual(["b", "a"]);
    const anonymous = await clientCertificate(root, "O=only");
    expect(commonNameOf(anonymous.certificate)).toBe("");
  });

  it("describeCertificate names a certificate by serial and key identifiers, or says it is malformed", async () => {
    expect(describeCertificate(leaf.der)).toMatch(/^SN=\d+, SKID=, AKID=$/);
    expect(describeCertificate(new Uint8Array([1]))).toBe("(malformed)");
    expect(describeCertificate(undefined)).toBe("(none)");
  });
});
