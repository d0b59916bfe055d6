import { parseBootstrapToken } from "@orch/authn";
import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { bootstrapTokenSecret, generateBootstrapToken, signingToken, validateBootstrapTokenSecret } from "./bootstrap-token.js";
import { testNow } from "./internal/test-pki.js";

const token = "abcdef.0123456789abcdef";

/** `secret` with `data[key]` set to base64 of `value`, or removed when `undefined`. */
function withData(secret: APIObject, changes: Record<string, string | undefined>): APIObject {
  const data = { ...(secret["data"] as Record<string, string>) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete data[key];
    else data[key] = btoa(value);
  }
  return { ...secret, data };
}

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
  });

  it("refuses a token of another form", () => {
    expect(() => bootstrapTokenSecret("ABCDEF.0123456789abcdef")).toThrow("the token must match");
  });
});

describe("validateBootstrapTokenSecret", () => {
  const valid = bootstrapTokenSecret(token);

  it.each([
    ["a bad id", { "token-id": "abc" }, ['data[token-id]: Invalid value: "abc": must match [a-z0-9]{6}']],
    ["an id that does not match the name", { "token-id": "zzzzzz" }, ['metadata.name: Invalid value: "bootstrap-token-abcdef": must be bootstrap-token-zzzzzz for token-id zzzzzz']],
    ["no secret", { "token-secret": undefined }, ["data[token-secret]: Required value"]],
    ["a secret of the wrong length", { "token-secret": "0123456789abcde" }, ['data[token-secret]: Invalid value: "<secret data>": must match [a-z0-9]{16}']],
    ["a bad expiration", { expiration: "tomorrow" }, ['data[expiration]: Invalid value: "tomorrow": must be an RFC 3339 time such as 2006-01-02T15:04:05Z']],
    ["a usage other than true", { "usage-bootstrap-signing": "yes" }, ['data[usage-bootstrap-signing]: Invalid value: "yes": must be "true" when present']],
    ["an unknown usage", { "usage-bootstrap-flying": "true" }, ['data[usage-bootstrap-flying]: Unsupported value: "flying": supported values: "authentication", "signing"']],
    [
      "extra groups outside system:bootstrappers:",
      { "auth-extra-groups": "system:bootstrappers:ok,system:masters" },
      ['data[auth-extra-groups]: Invalid value: "system:masters": must match ^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$'],
    ],
  ])("reports %s", (_what, changes, expected) => {
    expect(validateBootstrapTokenSecret(withData(valid, changes)).map(formatFieldError)).toEqual(expected);
  });

  it("reports the wrong type and namespace", () => {
    const errors = validateBootstrapTokenSecret({ ...valid, type: "Opaque", metadata: { name: "bootstrap-token-abcdef", namespace: "default" } });
    expect(errors.map((e) => [e.field, e.type])).toEqual([
      ["type", "FieldValueNotSupported"],
      ["metadata.namespace", "FieldValueNotSupported"],
    ]);
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
