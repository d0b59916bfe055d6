import { describe, expect, it } from "vitest";
import type { ExecConfig } from "./credentials.js";
import {
  execClusterExtensionName,
  execCredentialAPIVersions,
  execCredentialInput,
  execInteractive,
  execInteractiveMode,
  parseExecCredential,
  sameCredentials,
} from "./exec-credential.js";

const v1 = "client.authentication.orch.io/v1";
const v1beta1 = "client.authentication.orch.io/v1beta1";
const exec = (over: Partial<ExecConfig> = {}): ExecConfig => ({
  command: "plugin",
  args: [],
  env: [],
  apiVersion: v1,
  provideClusterInfo: false,
  interactiveMode: "Never",
  ...over,
});
const printed = (status: unknown, apiVersion = v1, kind = "ExecCredential") => JSON.stringify({ apiVersion, kind, status });

describe("ExecCredential versions", () => {
  it("accepts v1 and v1beta1 of client.authentication.<domain>", () => {
    expect(execCredentialAPIVersions()).toEqual([v1, v1beta1]);
    expect(execCredentialAPIVersions("k8s.io")).toEqual(["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"]);
    expect(execClusterExtensionName("k8s.io")).toBe("client.authentication.k8s.io/exec");
  });

  it("refuses another group or version, naming the accepted ones", () => {
    expect(() => execInteractiveMode(exec({ apiVersion: "client.authentication.k8s.io/v1" }))).toThrow(
      /not supported \(use client\.authentication\.orch\.io\/v1 or/,
    );
    expect(() => execInteractiveMode(exec({ apiVersion: "client.authentication.orch.io/v1alpha1" }))).toThrow(/not supported/);
  });

  it("refuses an empty command", () => {
    expect(() => execInteractiveMode(exec({ command: "" }))).toThrow(/command is required/);
  });
});

describe("interactiveMode", () => {
  it("is required in v1", () => {
    const { interactiveMode: _, ...noMode } = exec();
    expect(() => execInteractiveMode(noMode)).toThrow(/interactiveMode must be set in client\.authentication\.orch\.io\/v1/);
  });

  it("defaults to IfAvailable in v1beta1", () => {
    const { interactiveMode: _, ...noMode } = exec({ apiVersion: v1beta1 });
    expect(execInteractiveMode(noMode)).toBe("IfAvailable");
  });

  it("refuses an unknown mode", () => {
    expect(() => execInteractiveMode(exec({ interactiveMode: "Sometimes" as "Never" }))).toThrow(/invalid interactiveMode "Sometimes"/);
  });

  it("gives stdin never in Never, when available in IfAvailable, and requires it in Always", () => {
    expect(execInteractive("Never", true)).toBe(false);
    expect(execInteractive("IfAvailable", true)).toBe(true);
    expect(execInteractive("IfAvailable", false)).toBe(false);
    expect(execInteractive("Always", true)).toBe(true);
    expect(() => execInteractive("Always", false)).toThrow(/standard input is not available .*not run/);
  });
});

describe("the input ExecCredential", () => {
  const cluster = { server: "https://127.0.0.1:6443", certificateAuthorityData: "Q0E=", config: { audience: "x" } };

  it("carries interactive and no cluster unless provideClusterInfo", () => {
    expect(execCredentialInput(exec(), false, cluster)).toEqual({ apiVersion: v1, kind: "ExecCredential", spec: { interactive: false } });
  });

  it("carries the cluster's server, CA data and extension with provideClusterInfo", () => {
    expect(execCredentialInput(exec({ provideClusterInfo: true }), true, cluster)).toEqual({
      apiVersion: v1,
      kind: "ExecCredential",
      spec: { interactive: true, cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": "Q0E=", config: { audience: "x" } } },
    });
  });
});

describe("parseExecCredential", () => {
  it("reads a token", () => {
    expect(parseExecCredential(printed({ token: "t" }), v1)).toEqual({ credentials: { token: "t" } });
  });

  it("reads a certificate and key, and the expiry", () => {
    const result = parseExecCredential(printed({ clientCertificateData: "CERT", clientKeyData: "KEY", expirationTimestamp: "2030-01-02T03:04:05Z" }), v1);
    expect(result).toEqual({ credentials: { clientCertificate: { certificate: "CERT", key: "KEY" } }, expiresAt: Date.UTC(2030, 0, 2, 3, 4, 5) });
  });

  it("refuses a certificate without its key, and a key without its certificate", () => {
    expect(() => parseExecCredential(printed({ clientCertificateData: "CERT" }), v1)).toThrow(/returned only clientCertificateData, not both/);
    expect(() => parseExecCredential(printed({ clientKeyData: "KEY" }), v1)).toThrow(/returned only clientKeyData/);
  });

  it("refuses another version, naming both", () => {
    expect(() => parseExecCredential(printed({ token: "t" }, v1beta1), v1)).toThrow(
      'exec plugin: is configured to use API version client.authentication.orch.io/v1, plugin returned version "client.authentication.orch.io/v1beta1"',
    );
  });

  it("refuses another kind, no JSON, no status, and no token or certificate", () => {
    expect(() => parseExecCredential(printed({ token: "t" }, v1, "Status"), v1)).toThrow(/kind "Status", want ExecCredential/);
    expect(() => parseExecCredential("token: t", v1)).toThrow(/not JSON/);
    expect(() => parseExecCredential(JSON.stringify({ apiVersion: v1, kind: "ExecCredential" }), v1)).toThrow(/didn't return a status field/);
    expect(() => parseExecCredential(printed({}), v1)).toThrow(/didn't return a token or cert\/key pair/);
    expect(() => parseExecCredential(printed({ token: 7 }), v1)).toThrow(/status\.token is not a string/);
  });

  it("refuses an expirationTimestamp that is not RFC 3339", () => {
    expect(() => parseExecCredential(printed({ token: "t", expirationTimestamp: "tomorrow" }), v1)).toThrow(/"tomorrow" is not an RFC 3339 time/);
  });
});

describe("sameCredentials", () => {
  it("compares token, basic login and certificate", () => {
    expect(sameCredentials({ token: "a" }, { token: "a" })).toBe(true);
    expect(sameCredentials({ token: "a" }, { token: "b" })).toBe(false);
    expect(sameCredentials({ clientCertificate: { certificate: "c", key: "k" } }, { clientCertificate: { certificate: "c", key: "k2" } })).toBe(false);
  });
});
