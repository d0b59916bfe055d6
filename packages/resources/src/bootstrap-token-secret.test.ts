import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  bootstrapSecretValue,
  bootstrapTokenExpiration,
  bootstrapTokenNamespace,
  bootstrapTokenPattern,
  bootstrapTokenSecretName,
  bootstrapTokenSecretType,
  isBootstrapTokenExpired,
  validateBootstrapTokenData,
  validateBootstrapTokenSecret,
} from "./bootstrap-token-secret.js";
import { encodeBase64Text } from "./internal/base64.js";

/**
 * The Secret of token `abcdef.0123456789abcdef` in `domain`, its `data` the base64 of a valid
 * set of values changed by `changes` (`undefined` removes a key).
 */
function tokenSecret(changes: Record<string, string | undefined> = {}, domain = "orch.io"): APIObject {
  const values: Record<string, string | undefined> = {
    "token-id": "abcdef",
    "token-secret": "0123456789abcdef",
    "usage-bootstrap-authentication": "true",
    "usage-bootstrap-signing": "true",
    expiration: "2026-01-02T00:00:00Z",
    ...changes,
  };
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) data[key] = encodeBase64Text(value);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: bootstrapTokenSecretName("abcdef"), namespace: bootstrapTokenNamespace(domain) },
    type: bootstrapTokenSecretType(domain),
    data,
  };
}

describe("the bootstrap token Secret's names", () => {
  it("puts the domain in the type and namespace, kubernetes.io and kube-system under k8s.io", () => {
    expect([bootstrapTokenSecretType("orch.io"), bootstrapTokenNamespace("orch.io")]).toEqual(["bootstrap.orch.io/token", "orch-system"]);
    expect([bootstrapTokenSecretType("k8s.io"), bootstrapTokenNamespace("k8s.io")]).toEqual(["bootstrap.kubernetes.io/token", "kube-system"]);
    expect(bootstrapTokenSecretName("abcdef")).toBe("bootstrap-token-abcdef");
  });

  it("matches a token of a 6-character id and a 16-character secret only", () => {
    expect(bootstrapTokenPattern.test("abcdef.0123456789abcdef")).toBe(true);
    for (const bad of ["ABCDEF.0123456789abcdef", "abcde.0123456789abcdef", "abcdef.0123456789abcdef0", "abcdef0123456789abcdef"]) {
      expect(bootstrapTokenPattern.test(bad)).toBe(false);
    }
  });
});

describe("reading a token Secret's data", () => {
  it("reads a data value as text, an absent key as the empty string, and a value that is not base64 as undefined", () => {
    const secret: APIObject = { ...tokenSecret(), data: { "token-id": encodeBase64Text("abcdef"), expiration: "not base64!" } };
    expect(bootstrapSecretValue(secret, "token-id")).toBe("abcdef");
    expect(bootstrapSecretValue(secret, "description")).toBe("");
    expect(bootstrapSecretValue(secret, "expiration")).toBeUndefined();
  });

  it("reads the expiration as never, an instant, or malformed", () => {
    expect(bootstrapTokenExpiration(tokenSecret({ expiration: undefined }))).toEqual({ kind: "never" });
    expect(bootstrapTokenExpiration(tokenSecret({ expiration: "2026-01-01T01:00:00.5+01:00" }))).toEqual({
      kind: "at",
      at: Date.UTC(2026, 0, 1, 0, 0, 0, 500),
      value: "2026-01-01T01:00:00.5+01:00",
    });
    expect(bootstrapTokenExpiration(tokenSecret({ expiration: "2026-02-30T00:00:00Z" }))).toEqual({ kind: "malformed", value: "2026-02-30T00:00:00Z" });
  });

  it("counts a token as expired from its expiration on, and a malformed expiration as expired", () => {
    const now = Date.UTC(2026, 0, 1);
    expect(isBootstrapTokenExpired(tokenSecret({ expiration: "2026-01-01T00:00:01Z" }), now)).toBe(false);
    expect(isBootstrapTokenExpired(tokenSecret({ expiration: "2026-01-01T00:00:00Z" }), now)).toBe(true);
    expect(isBootstrapTokenExpired(tokenSecret({ expiration: "soon" }), now)).toBe(true);
    expect(isBootstrapTokenExpired(tokenSecret({ expiration: undefined }), now)).toBe(false);
  });
});

describe("validateBootstrapTokenSecret", () => {
  it("accepts a valid Secret, an expired one included, in either domain", () => {
    expect(validateBootstrapTokenSecret(tokenSecret())).toEqual([]);
    expect(
      validateBootstrapTokenSecret(tokenSecret({ expiration: "2020-01-01T00:00:00Z", "auth-extra-groups": "system:bootstrappers:a,system:bootstrappers:b:c" })),
    ).toEqual([]);
    expect(validateBootstrapTokenSecret(tokenSecret({}, "k8s.io"), "k8s.io")).toEqual([]);
  });

  it.each([
    ["a bad id", { "token-id": "abc" }, ['data[token-id]: Invalid value: "abc": must match [a-z0-9]{6}']],
    [
      "an id that does not match the name",
      { "token-id": "zzzzzz" },
      ['metadata.name: Invalid value: "bootstrap-token-abcdef": must be bootstrap-token-zzzzzz for token-id zzzzzz'],
    ],
    ["no id", { "token-id": undefined }, ["data[token-id]: Required value"]],
    ["no secret", { "token-secret": undefined }, ["data[token-secret]: Required value"]],
    ["a secret of the wrong length", { "token-secret": "0123456789abcde" }, ['data[token-secret]: Invalid value: "<secret data>": must match [a-z0-9]{16}']],
    ["a bad expiration", { expiration: "tomorrow" }, ['data[expiration]: Invalid value: "tomorrow": must be an RFC 3339 time such as 2006-01-02T15:04:05Z']],
    ["a usage other than true", { "usage-bootstrap-signing": "yes" }, ['data[usage-bootstrap-signing]: Invalid value: "yes": must be "true" when present']],
    [
      "an unknown usage",
      { "usage-bootstrap-flying": "true" },
      ['data[usage-bootstrap-flying]: Unsupported value: "flying": supported values: "authentication", "signing"'],
    ],
    [
      "extra groups outside system:bootstrappers:",
      { "auth-extra-groups": "system:bootstrappers:ok,system:masters" },
      ['data[auth-extra-groups]: Invalid value: "system:masters": must match ^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$'],
    ],
  ])("reports %s", (_what, changes, expected) => {
    expect(validateBootstrapTokenSecret(tokenSecret(changes)).map(formatFieldError)).toEqual(expected);
  });

  it("reports a value that is not base64 without echoing it", () => {
    const secret = tokenSecret();
    secret["data"] = { ...(secret["data"] as Record<string, string>), "token-secret": "%%%" };
    expect(validateBootstrapTokenSecret(secret).map(formatFieldError)).toEqual(['data[token-secret]: Invalid value: "<secret data>": must be base64']);
  });

  it("holds the data to the same rules as validateBootstrapTokenData, which ignores the type, namespace and name", () => {
    const elsewhere: APIObject = {
      ...tokenSecret({ "token-id": "zzzzzz", "token-secret": "short" }),
      type: "Opaque",
      metadata: { name: "x", namespace: "default" },
    };
    expect(validateBootstrapTokenData(elsewhere).map(formatFieldError)).toEqual([
      'data[token-secret]: Invalid value: "<secret data>": must match [a-z0-9]{16}',
    ]);
    expect(validateBootstrapTokenSecret(elsewhere).map((e) => e.field)).toEqual(["type", "metadata.namespace", "data[token-secret]", "metadata.name"]);
  });

  it("reports the wrong type and namespace, and the domain's own under k8s.io", () => {
    const errors = validateBootstrapTokenSecret({ ...tokenSecret(), type: "Opaque", metadata: { name: "bootstrap-token-abcdef", namespace: "default" } });
    expect(errors.map((e) => [e.field, e.type])).toEqual([
      ["type", "FieldValueNotSupported"],
      ["metadata.namespace", "FieldValueNotSupported"],
    ]);
    expect(validateBootstrapTokenSecret(tokenSecret(), "k8s.io").map(formatFieldError)).toEqual([
      'type: Unsupported value: "bootstrap.orch.io/token": supported values: "bootstrap.kubernetes.io/token"',
      'metadata.namespace: Unsupported value: "orch-system": supported values: "kube-system"',
    ]);
  });
});
