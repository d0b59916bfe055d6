import { X509Certificate, createPrivateKey } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureCertificates } from "./certificates.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-certs-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("ensureCertificates", () => {
  it("generates a CA, a serving certificate and an admin certificate whose chains verify", async () => {
    const set = await ensureCertificates(dir, { bindAddress: "10.1.2.3" });
    expect(set.generated.sort()).toEqual(["admin.crt", "admin.key", "apiserver.crt", "apiserver.key", "ca.crt", "ca.key"]);
    const ca = new X509Certificate(set.caCert);
    const server = new X509Certificate(set.serverCert);
    const admin = new X509Certificate(set.adminCert);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(admin.checkIssued(ca)).toBe(true);
    expect(admin.verify(ca.publicKey)).toBe(true);
    expect(server.keyUsage).toContain("1.3.6.1.5.5.7.3.1");
    expect(admin.keyUsage).toContain("1.3.6.1.5.5.7.3.2");
    expect(createPrivateKey(set.serverKey).asymmetricKeyType).toBe("ec");
  });

  it("names localhost, 127.0.0.1, ::1 and the bind address in the serving certificate", async () => {
    const set = await ensureCertificates(dir, { bindAddress: "10.1.2.3" });
    const server = new X509Certificate(set.serverCert);
    expect(server.checkHost("localhost", { subject: "never" })).toBe("localhost");
    for (const ip of ["127.0.0.1", "::1", "10.1.2.3"]) expect(server.checkIP(ip)).toBe(ip);
    expect(server.checkIP("10.9.9.9")).toBeUndefined();
    expect(server.subjectAltName).toBe("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.1.2.3");
  });

  it("issues the admin certificate to CN admin in O system:masters", async () => {
    const set = await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    expect(new X509Certificate(set.adminCert).subject.split("\n")).toEqual(["CN=admin", "O=system:masters"]);
  });

  it("writes PEM files, keys with mode 0600", async () => {
    const set = await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    expect(await readFile(join(dir, "ca.crt"), "utf8")).toBe(set.caCert);
    expect(await readFile(join(dir, "admin.key"), "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    for (const key of ["ca.key", "apiserver.key", "admin.key"]) expect((await stat(join(dir, key))).mode & 0o777).toBe(0o600);
  });

  it("reuses valid files on restart", async () => {
    const first = await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    const second = await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    expect(second.generated).toEqual([]);
    expect(second).toEqual({ ...first, generated: [] });
  });

  it("re-issues the serving certificate under the same CA when the bind address changes", async () => {
    const first = await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    const second = await ensureCertificates(dir, { bindAddress: "10.0.0.7" });
    expect(second.generated.sort()).toEqual(["apiserver.crt", "apiserver.key"]);
    expect(second.caCert).toBe(first.caCert);
    expect(second.adminCert).toBe(first.adminCert);
    expect(new X509Certificate(second.serverCert).checkIP("10.0.0.7")).toBe("10.0.0.7");
  });

  it("regenerates everything when the CA is damaged, and a serving key that does not match its certificate", async () => {
    const first = await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    await writeFile(join(dir, "apiserver.key"), first.adminKey);
    const second = await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    expect(second.generated.sort()).toEqual(["apiserver.crt", "apiserver.key"]);
    await writeFile(join(dir, "ca.crt"), "garbage");
    const third = await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    expect(third.generated).toHaveLength(6);
    expect(third.caCert).not.toBe(first.caCert);
  });

  it("renews certificates that are about to expire", async () => {
    await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    const later = Date.now() + 350 * 24 * 3600 * 1000;
    const renewed = await ensureCertificates(dir, { bindAddress: "127.0.0.1", now: later });
    expect(renewed.generated.sort()).toEqual(["admin.crt", "admin.key", "apiserver.crt", "apiserver.key"]);
  });
});
