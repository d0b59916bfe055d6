import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { FakeClock } from "@orch/store";
import { beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError, type Authenticator } from "./authenticator.js";
import { bundle, certificateAuthority, clientCertificate, testNow, type Issued } from "./internal/test-pki.js";
import { x509Authenticator } from "./x509-authenticator.js";

let root: Issued;
let intermediate: Issued;
let clock: FakeClock;
let authenticator: Authenticator;

beforeAll(async () => {
  root = await certificateAuthority("CN=client-ca");
  intermediate = await certificateAuthority("CN=client-intermediate", root);
  clock = new FakeClock(testNow);
  authenticator = x509Authenticator({ clientCA: bundle(root), clock });
});

const request = (...peerCertificates: Uint8Array[]) => ({ headers: new Headers(), peerCertificates });

describe("x509Authenticator", () => {
  it("has no opinion on a request without a client certificate", async () => {
    expect(await authenticator.authenticate({ headers: new Headers() })).toBeUndefined();
    expect(await authenticator.authenticate(request())).toBeUndefined();
  });

  it("names the user by the common name, in the organizations as groups, without system:authenticated", async () => {
    const alice = await clientCertificate(root, "CN=alice, O=dev, O=ops");
    expect(await authenticator.authenticate(request(alice.der))).toEqual({ user: { name: "alice", groups: ["dev", "ops"] } });
  });

  it("takes the last common name when the subject has several", async () => {
    const two = await clientCertificate(root, "CN=first, O=a, CN=second");
    expect(await authenticator.authenticate(request(two.der))).toEqual({ user: { name: "second", groups: ["a"] } });
  });

  it("gives no groups to a subject without an organization", async () => {
    const bob = await clientCertificate(root, "CN=bob");
    expect(await authenticator.authenticate(request(bob.der))).toEqual({ user: { name: "bob", groups: [] } });
  });

  it("authenticates through a presented intermediate", async () => {
    const carol = await clientCertificate(intermediate, "CN=carol, O=team");
    expect(await authenticator.authenticate(request(carol.der, intermediate.der))).toEqual({ user: { name: "carol", groups: ["team"] } });
  });

  it("has no opinion on a verified certificate without a common name", async () => {
    const nameless = await clientCertificate(root, "O=system:masters");
    expect(await authenticator.authenticate(request(nameless.der))).toBeUndefined();
  });

  it("refuses a certificate from another CA, naming the certificate in the message", async () => {
    const other = await certificateAuthority("CN=other-ca");
    const mallory = await clientCertificate(other, "CN=mallory, O=system:masters");
    const result = authenticator.authenticate(request(mallory.der));
    await expect(result).rejects.toBeInstanceOf(AuthenticationError);
    await expect(result).rejects.toThrow(/^verifying certificate SN=\d+, SKID=, AKID= failed: x509: certificate signed by unknown authority$/);
  });

  it("refuses an expired certificate and one not yet valid, by the clock it was given", async () => {
    const shortLived = await clientCertificate(root, "CN=dave", { notBefore: new Date(testNow - 60_000), notAfter: new Date(testNow + 60_000) });
    const fake = new FakeClock(testNow);
    const auth = x509Authenticator({ clientCA: root.pem, clock: fake });
    expect(await auth.authenticate(request(shortLived.der))).toEqual({ user: { name: "dave", groups: [] } });
    fake.advance(2 * 60_000);
    await expect(auth.authenticate(request(shortLived.der))).rejects.toThrow(/x509: certificate has expired or is not yet valid: current time .* is after/);
    fake.set(testNow - 2 * 60_000);
    await expect(auth.authenticate(request(shortLived.der))).rejects.toThrow(/x509: certificate has expired or is not yet valid: current time .* is before/);
  });

  it("remembers a verified chain object (one per connection) and answers each request with its own copy", async () => {
    const erin = await clientCertificate(root, "CN=erin, O=dev");
    const first = await authenticator.authenticate(request(erin.der));
    first?.user.groups.push("system:masters");
    expect(await authenticator.authenticate(request(erin.der))).toEqual({ user: { name: "erin", groups: ["dev"] } });
  });

  it("refuses a certificate whose extended key usage is serverAuth only", async () => {
    const server = await clientCertificate(root, "CN=server", { extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth])] });
    await expect(authenticator.authenticate(request(server.der))).rejects.toThrow(/incompatible key usage/);
  });

  it("refuses a malformed certificate", async () => {
    await expect(authenticator.authenticate(request(new Uint8Array([0x30, 0x00])))).rejects.toThrow(
      /^verifying certificate \(malformed\) failed: x509: malformed certificate/,
    );
  });

  it("accepts clients of any CA of the bundle", async () => {
    const second = await certificateAuthority("CN=second-ca");
    const auth = x509Authenticator({ clientCA: bundle(root, second), clock });
    const erin = await clientCertificate(second, "CN=erin");
    expect(await auth.authenticate(request(erin.der))).toEqual({ user: { name: "erin", groups: [] } });
  });

  it("throws at construction for a bundle without a certificate", () => {
    expect(() => x509Authenticator({ clientCA: "" })).toThrow(/no PEM CERTIFICATE block/);
  });
});
