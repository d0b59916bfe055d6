import type { APIObject } from "@orch/meta";
import { bootstrapTokenPattern } from "@orch/resources";
import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import { AuthenticationError } from "./authenticator.js";
import { bootstrapTokenAuthenticator, parseBootstrapToken } from "./bootstrap-token.js";
import type { ObjectGetter } from "./object-getter.js";

const namespace = "orch-system";
const secretType = "bootstrap.orch.io/token";
const token = "abcdef.0123456789abcdef";

/** Base64 of the UTF-8 bytes of `text`, as a Secret's `data` holds it. */
function b64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

/** A valid token Secret for {@link token}, with `data` changed by `changes` (`undefined` removes a key). */
function tokenSecret(changes: Record<string, string | undefined> = {}, rest: Partial<APIObject> = {}): APIObject {
  const values: Record<string, string | undefined> = {
    "token-id": "abcdef",
    "token-secret": "0123456789abcdef",
    "usage-bootstrap-authentication": "true",
    "usage-bootstrap-signing": "true",
    expiration: "2026-01-02T00:00:00Z",
    ...changes,
  };
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) data[key] = b64(value);
  return { apiVersion: "v1", kind: "Secret", metadata: { name: "bootstrap-token-abcdef", namespace }, type: secretType, data, ...rest };
}

/** A getter holding `secret` (when given) as `orch-system/bootstrap-token-abcdef`, recording reads. */
function storeOf(secret: APIObject | undefined) {
  const reads: string[] = [];
  const getter: ObjectGetter = async (group, resource, ns, name) => {
    reads.push(`${group}/${resource}/${ns}/${name}`);
    return resource === "secrets" && ns === namespace && name === "bootstrap-token-abcdef" ? secret : undefined;
  };
  return { getter, reads };
}

function authenticatorFor(secret: APIObject | undefined, clock = new FakeClock()) {
  const { getter, reads } = storeOf(secret);
  const logs: string[] = [];
  const authenticator = bootstrapTokenAuthenticator({ getter, namespace, secretType, clock, log: (m) => logs.push(m) });
  return { authenticator, reads, logs, clock };
}

describe("parseBootstrapToken", () => {
  it("splits a token into its 6-character id and 16-character secret", () => {
    expect(parseBootstrapToken(token)).toEqual({ id: "abcdef", secret: "0123456789abcdef" });
    expect(bootstrapTokenPattern.test(token)).toBe(true);
  });

  it.each([
    ["upper case", "ABCDEF.0123456789abcdef"],
    ["a short id", "abcde.0123456789abcdef"],
    ["a long secret", "abcdef.0123456789abcdef0"],
    ["no dot", "abcdef0123456789abcdef"],
    ["a trailing newline", `${token}\n`],
    ["a JWT", "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"],
  ])("refuses %s", (_what, candidate) => {
    expect(parseBootstrapToken(candidate)).toBeUndefined();
  });
});

describe("bootstrapTokenAuthenticator", () => {
  it("names the token's user, in system:bootstrappers and its extra groups (deduplicated, sorted)", async () => {
    const secret = tokenSecret({ "auth-extra-groups": "system:bootstrappers:worker,system:bootstrappers:orch:default-node-token,system:bootstrappers:worker" });
    const { authenticator, reads, logs } = authenticatorFor(secret);
    expect(await authenticator.authenticateToken(token, [])).toEqual({
      user: {
        name: "system:bootstrap:abcdef",
        groups: ["system:bootstrappers", "system:bootstrappers:orch:default-node-token", "system:bootstrappers:worker"],
      },
    });
    expect(reads).toEqual(["/secrets/orch-system/bootstrap-token-abcdef"]);
    expect(logs).toEqual([]);
  });

  it("accepts a token without expiration or extra groups, in system:bootstrappers alone", async () => {
    const { authenticator } = authenticatorFor(tokenSecret({ expiration: undefined }));
    expect(await authenticator.authenticateToken(token, [])).toEqual({ user: { name: "system:bootstrap:abcdef", groups: ["system:bootstrappers"] } });
  });

  it("has no opinion on a token of another format, without reading the store", async () => {
    const { authenticator, reads } = authenticatorFor(tokenSecret());
    expect(await authenticator.authenticateToken("not-a-bootstrap-token", [])).toBeUndefined();
    expect(reads).toEqual([]);
  });

  it.each([
    ["a missing secret", undefined, "No secret of name orch-system/bootstrap-token-abcdef to match bootstrap bearer token"],
    [
      "a secret being deleted",
      tokenSecret({}, { metadata: { name: "bootstrap-token-abcdef", namespace, deletionTimestamp: "2026-01-01T00:00:00Z" } }),
      "is deleted and awaiting removal",
    ],
    ["a secret of another type", tokenSecret({}, { type: "Opaque" }), "has invalid type, expected bootstrap.orch.io/token."],
    ["a secret without data", tokenSecret({}, { data: undefined }), "has invalid type, expected bootstrap.orch.io/token."],
    ["another token secret", tokenSecret({ "token-secret": "0123456789abcdeg" }), "has invalid value for key token-secret."],
    ["a shorter token secret", tokenSecret({ "token-secret": "0123456789abcde" }), "has invalid value for key token-secret."],
    ["no token secret", tokenSecret({ "token-secret": undefined }), "has invalid value for key token-secret."],
    ["another token id", tokenSecret({ "token-id": "abcdeg" }), "has invalid value for key token-id."],
    ["no usage-bootstrap-authentication", tokenSecret({ "usage-bootstrap-authentication": undefined }), "not marked usage-bootstrap-authentication=true."],
    [
      "usage-bootstrap-authentication other than true",
      tokenSecret({ "usage-bootstrap-authentication": "yes" }),
      "not marked usage-bootstrap-authentication=true.",
    ],
    ["an expiration in the past", tokenSecret({ expiration: "2025-12-31T23:59:59Z" }), "has expired (2025-12-31T23:59:59Z)."],
    ["an expiration exactly now", tokenSecret({ expiration: "2026-01-01T00:00:00Z" }), "has expired"],
    ["an expiration now given with an offset", tokenSecret({ expiration: "2026-01-01T01:00:00+01:00" }), "has expired"],
    ["a malformed expiration", tokenSecret({ expiration: "tomorrow" }), "has an unparseable expiration time (tomorrow): treating as expired."],
    ["an expiration on a day that does not exist", tokenSecret({ expiration: "2026-02-30T00:00:00Z" }), "has an unparseable expiration time"],
    [
      "an extra group outside system:bootstrappers:",
      tokenSecret({ "auth-extra-groups": "system:bootstrappers:ok,system:masters" }),
      'bootstrap group "system:masters" is invalid',
    ],
    [
      "an extra group with upper case",
      tokenSecret({ "auth-extra-groups": "system:bootstrappers:Workers" }),
      'bootstrap group "system:bootstrappers:Workers" is invalid',
    ],
    ["an extra group ending in a colon", tokenSecret({ "auth-extra-groups": "system:bootstrappers:" }), 'bootstrap group "system:bootstrappers:" is invalid'],
    [
      "an extra group list with an empty entry",
      tokenSecret({ "auth-extra-groups": "system:bootstrappers:a,,system:bootstrappers:b" }),
      'bootstrap group "" is invalid',
    ],
  ])("has no opinion on a token with %s, and logs why", async (_what, secret, message) => {
    const { authenticator, logs } = authenticatorFor(secret);
    expect(await authenticator.authenticateToken(token, [])).toBeUndefined();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain(message);
    expect(logs[0]).not.toContain("0123456789abcdef");
  });

  it("accepts a token until its expiration on the clock, and no more from then on", async () => {
    const clock = new FakeClock();
    const { authenticator } = authenticatorFor(tokenSecret({ expiration: "2026-01-01T00:10:00.500Z" }), clock);
    clock.advance(10 * 60_000);
    expect(await authenticator.authenticateToken(token, [])).toBeDefined();
    clock.advance(499);
    expect(await authenticator.authenticateToken(token, [])).toBeDefined();
    clock.advance(1);
    expect(await authenticator.authenticateToken(token, [])).toBeUndefined();
  });

  it("refuses with an AuthenticationError when the store cannot answer", async () => {
    const authenticator = bootstrapTokenAuthenticator({ getter: () => Promise.reject(new Error("etcd unavailable")), namespace, secretType });
    const refusal = authenticator.authenticateToken(token, []);
    await expect(refusal).rejects.toBeInstanceOf(AuthenticationError);
    await expect(refusal).rejects.toThrow("bootstrap token abcdef: reading secret orch-system/bootstrap-token-abcdef: etcd unavailable");
  });
});
