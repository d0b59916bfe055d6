import { compactVerify } from "jose";
import { describe, expect, it } from "vitest";
import { clusterInfoKubeconfig, signClusterInfo, verifyClusterInfo } from "./cluster-info.js";

const token = "abcdef.0123456789abcdef";
const kubeconfig = clusterInfoKubeconfig({ server: "https://10.0.0.1:6443", caPem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n" });

function b64url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

describe("clusterInfoKubeconfig", () => {
  it("writes one unnamed cluster with the server and the CA as certificate-authority-data", () => {
    expect(kubeconfig).toBe(
      [
        "apiVersion: v1",
        "clusters:",
        "- cluster:",
        `    certificate-authority-data: ${btoa("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")}`,
        "    server: https://10.0.0.1:6443",
        '  name: ""',
        "contexts: null",
        'current-context: ""',
        "kind: Config",
        "preferences: {}",
        "users: null",
        "",
      ].join("\n"),
    );
  });
});

describe("signClusterInfo", () => {
  it("makes a detached HS256 JWS keyed with the whole token, which verifies once the payload is put back", async () => {
    const jws = await signClusterInfo(kubeconfig, token);
    const [header, payload, signature] = jws.split(".");
    expect(payload).toBe("");
    expect(JSON.parse(atob(header ?? ""))).toEqual({ alg: "HS256", kid: "abcdef" });
    const { payload: signed } = await compactVerify(`${header}.${b64url(kubeconfig)}.${signature}`, new TextEncoder().encode(token), { algorithms: ["HS256"] });
    expect(new TextDecoder().decode(signed)).toBe(kubeconfig);
    expect(await verifyClusterInfo(kubeconfig, jws, token)).toBe(true);
  });

  it("matches HMAC-SHA256 computed without jose over the fixed header and the base64url payload", async () => {
    const header = b64url('{"alg":"HS256","kid":"abcdef"}');
    const utf8 = (text: string) => new TextEncoder().encode(text);
    const key = await crypto.subtle.importKey("raw", utf8(token), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(`${header}.${b64url(kubeconfig)}`)));
    const signature = b64url(String.fromCharCode(...mac));
    expect(await signClusterInfo(kubeconfig, token)).toBe(`${header}..${signature}`);
    expect(await verifyClusterInfo(kubeconfig, `${header}..${signature}`, token)).toBe(true);
  });

  it("does not verify with another token, another payload, an attached payload or another algorithm", async () => {
    const jws = await signClusterInfo(kubeconfig, token);
    expect(await verifyClusterInfo(kubeconfig, jws, "abcdef.0123456789abcdeg")).toBe(false);
    expect(await verifyClusterInfo(`${kubeconfig}#`, jws, token)).toBe(false);
    const [header, , signature] = jws.split(".");
    expect(await verifyClusterInfo(kubeconfig, `${header}.${b64url(kubeconfig)}.${signature}`, token)).toBe(false);
    const none = `${b64url(JSON.stringify({ alg: "none", kid: "abcdef" }))}..`;
    expect(await verifyClusterInfo(kubeconfig, none, token)).toBe(false);
    const hs512 = `${b64url(JSON.stringify({ alg: "HS512", kid: "abcdef" }))}..${signature}`;
    expect(await verifyClusterInfo(kubeconfig, hs512, token)).toBe(false);
  });
});
