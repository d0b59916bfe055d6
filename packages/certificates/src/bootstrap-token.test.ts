import { parseBootstrapToken } from "@orch/authn";
import { validateBootstrapTokenSecret } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { bootstrapTokenSecret, generateBootstrapToken, signingToken } from "./bootstrap-token.js";
import { testNow } from "./internal/test-pki.js";

const token = "abcdef.0123456789abcdef";

describe("generateBootstrapToken", () => {
  it("makes tokens of 6 and 16 lower-case alphanumerics that differ", () => {
    const tokens = new Set(Array.from({ length: 50 }, generateBootstrapToken));
    expect(tokens.size).toBe(50);
    for (const t of tokens) expect(parseBootstrapToken(t)).toBeDefined();
  });
});

describe("bootstrapTokenSecret", () => {
  it("names the Secret after the id, in the system namespace, of the domain's type", () => {
    const secret = bootstrapTokenSecret(token, { expires: testNow, extraGroups: ["system:bootstrappers:worker"], description: "join" });
    expect(secret).toMatchObject({ metadata: { name: "bootstrap-token-abcdef", namespace: "orch-system" }, type: "bootstrap.orch.io/token" });
    const data = secret["data"] as Record<string, string>;
    expect(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, atob(v)]))).toEqual({
      description: "join",
      "token-id": "abcdef",
      "token-secret": "0123456789abcdef",
      expiration: "2026-01-01T00:00:00Z",
      "usage-bootstrap-authentication": "true",
      "usage-bootstrap-signing": "true",
      "auth-extra-groups": "system:bootstrappers:worker",
    });
    expect(bootstrapTokenSecret(token, { domain: "k8s.io" })).toMatchObject({ metadata: { namespace: "kube-system" }, type: "bootstrap.kubernetes.io/token" });
    expect(validateBootstrapTokenSecret(secret)).toEqual([]);
    expect(validateBootstrapTokenSecret(bootstrapTokenSecret(token, { domain: "k8s.io", usages: ["signing"] }), "k8s.io")).toEqual([]);
  });

  it("refuses a token of another form", () => {
    expect(() => bootstrapTokenSecret("ABCDEF.0123456789abcdef")).toThrow("the token must match");
  });
});

describe("signingToken", () => {
  it("gives the token of a Secret marked for signing until it expires", () => {
    const secret = bootstrapTokenSecret(token, { expires: testNow + 1000 });
    expect(signingToken(secret, testNow)).toEqual({ id: "abcdef", secret: "0123456789abcdef" });
    expect(signingToken(secret, testNow + 1000)).toBeUndefined();
    expect(signingToken(bootstrapTokenSecret(token, { usages: ["authentication"] }), testNow)).toBeUndefined();
    expect(signingToken({ ...secret, metadata: { name: "bootstrap-token-zzzzzz", namespace: "orch-system" } }, testNow)).toBeUndefined();
  });
});
