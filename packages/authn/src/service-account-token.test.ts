import { base64url, SignJWT, type JWTPayload } from "jose";
import type { APIObject } from "@orch/meta";
import { FakeClock } from "@orch/store";
import { beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError } from "./authenticator.js";
import type { ObjectGetter } from "./object-getter.js";
import { publicKeysFromPEM } from "./service-account-keys.js";
import { serviceAccountTokenAuthenticator, type ServiceAccountTokenAuthenticatorOptions } from "./service-account-token.js";

const issuer = "https://orch.default.svc.cluster.local";
const claimKey = "orch.io";
const prefix = "authentication.orch.io/";

interface Ref {
  name: string;
  uid: string;
}

const account: Ref = { name: "builder", uid: "sa-uid" };
const pod: Ref = { name: "web-0", uid: "pod-uid" };
const node: Ref = { name: "node-1", uid: "node-uid" };
const secret: Ref = { name: "builder-token", uid: "secret-uid" };

/** What a test token claims; defaults are those of a token the server issues now for `builder` in `default`. */
interface TokenInput {
  now: number;
  iss?: string;
  aud?: string[];
  expirationSeconds?: number;
  namespace?: string;
  serviceAccount?: Ref;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
  jti?: string;
  /** Claims put over the built ones (`undefined` removes one). */
  override?: Record<string, unknown>;
}

/** The claims the server's issuer makes (`serviceAccountTokenClaims` of `@orch/resources` plus `iss`), built by hand. */
function claimsOf(input: TokenInput): JWTPayload {
  const now = Math.floor(input.now / 1000);
  const namespace = input.namespace ?? "default";
  const serviceAccount = input.serviceAccount ?? account;
  const claim: Record<string, unknown> = { namespace };
  if (input.node) claim["node"] = input.node;
  if (input.pod) claim["pod"] = input.pod;
  if (input.secret) claim["secret"] = input.secret;
  claim["serviceaccount"] = serviceAccount;
  const claims: Record<string, unknown> = {
    aud: input.aud ?? [issuer],
    exp: now + (input.expirationSeconds ?? 3600),
    iat: now,
    iss: input.iss ?? issuer,
    jti: input.jti ?? "token-id-1",
    [claimKey]: claim,
    nbf: now,
    sub: `system:serviceaccount:${namespace}:${serviceAccount.name}`,
    ...input.override,
  };
  for (const [key, value] of Object.entries(claims)) if (value === undefined) delete claims[key];
  return claims as JWTPayload;
}

function sign(input: TokenInput, key: CryptoKey | Uint8Array, alg = "ES256"): Promise<string> {
  return new SignJWT(claimsOf(input)).setProtectedHeader({ alg, kid: "test" }).sign(key);
}

/** An unsigned token (`alg: none`). */
function unsigned(input: TokenInput): string {
  const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
  return `${encode({ alg: "none" })}.${encode(claimsOf(input))}.`;
}

const at = (ms: number) => new Date(ms).toISOString();

/** An object of the store. */
function object(name: string, uid: string, namespace = "default", deletionTimestamp?: string): APIObject {
  return { metadata: { name, uid, ...(namespace ? { namespace } : {}), ...(deletionTimestamp ? { deletionTimestamp } : {}) } };
}

/** A getter over `objects` (keyed `resource/namespace/name`) that records what it reads. */
function storeOf(objects: Record<string, APIObject>) {
  const reads: string[] = [];
  const getter: ObjectGetter = async (group, resource, namespace, name) => {
    const key = `${resource}/${namespace}/${name}`;
    reads.push(group === "" ? key : `${group}:${key}`);
    return objects[key];
  };
  return { objects, reads, getter };
}

/** The account, its pod, node and secret, all alive. */
function cluster() {
  return storeOf({
    "serviceaccounts/default/builder": object(account.name, account.uid),
    "pods/default/web-0": object(pod.name, pod.uid),
    "nodes//node-1": object(node.name, node.uid, ""),
    "secrets/default/builder-token": object(secret.name, secret.uid),
  });
}

let es256: CryptoKeyPair;
let other: CryptoKeyPair;

beforeAll(async () => {
  es256 = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  other = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
});

function authenticator(overrides: Partial<ServiceAccountTokenAuthenticatorOptions> & { getter: ObjectGetter; clock: FakeClock }) {
  return serviceAccountTokenAuthenticator({ issuers: [issuer], keys: [es256.publicKey], audiences: [], claimKey, ...overrides });
}

describe("serviceAccountTokenAuthenticator", () => {
  it("names the service account, with its uid, its groups and the token's credential id", async () => {
    const clock = new FakeClock();
    const { getter, reads } = cluster();
    const token = await sign({ now: clock.now() }, es256.privateKey);
    const result = await authenticator({ getter, clock }).authenticateToken(token, []);
    expect(result).toEqual({
      user: {
        name: "system:serviceaccount:default:builder",
        uid: "sa-uid",
        groups: ["system:serviceaccounts", "system:serviceaccounts:default"],
        extra: { [`${prefix}credential-id`]: ["JTI=token-id-1"] },
      },
      audiences: [issuer],
    });
    expect(reads).toEqual(["serviceaccounts/default/builder"]);
  });

  it("answers the token's audiences that the caller accepts, in the token's order", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now(), aud: ["vault", "api", "extra"] }, es256.privateKey);
    const result = await authenticator({ getter: cluster().getter, clock }).authenticateToken(token, ["api", "other", "vault"]);
    expect(result?.audiences).toEqual(["vault", "api"]);
  });

  it("checks the server's audiences when the caller passes none, and the issuers when the server has none", async () => {
    const clock = new FakeClock();
    const { getter } = cluster();
    const apiToken = await sign({ now: clock.now(), aud: ["api"] }, es256.privateKey);
    const issuerToken = await sign({ now: clock.now(), aud: [issuer] }, es256.privateKey);
    const withAudiences = authenticator({ getter, clock, audiences: ["api"] });
    expect((await withAudiences.authenticateToken(apiToken, []))?.audiences).toEqual(["api"]);
    await expect(withAudiences.authenticateToken(issuerToken, [])).rejects.toThrow(
      /audiences \["https:\/\/orch.default.svc.cluster.local"\] are invalid for the target audiences \["api"\]/,
    );
    const withoutAudiences = authenticator({ getter, clock, audiences: [] });
    expect((await withoutAudiences.authenticateToken(issuerToken, []))?.audiences).toEqual([issuer]);
    await expect(withoutAudiences.authenticateToken(apiToken, [])).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("refuses a token none of whose audiences the caller accepts, even one the server accepts", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now(), aud: ["api"] }, es256.privateKey);
    await expect(authenticator({ getter: cluster().getter, clock, audiences: ["api"] }).authenticateToken(token, ["vault"])).rejects.toThrow(
      'service account token audiences ["api"] are invalid for the target audiences ["vault"]',
    );
  });

  it.each([
    ["an opaque token", "abcdef.0123456789abcdef"],
    ["three parts that are not JSON", "a.b.c"],
    ["a JWE-shaped token", "a.b.c.d.e"],
  ])("has no opinion on %s", async (_what, token) => {
    const clock = new FakeClock();
    const { getter, reads } = cluster();
    expect(await authenticator({ getter, clock }).authenticateToken(token, [])).toBeUndefined();
    expect(reads).toEqual([]);
  });

  it("has no opinion on a token of another issuer, even one signed with its key", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now(), iss: "https://accounts.example.com" }, es256.privateKey);
    expect(await authenticator({ getter: cluster().getter, clock }).authenticateToken(token, [])).toBeUndefined();
  });

  it("accepts every configured issuer", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now(), iss: "https://old.example.com", aud: ["api"] }, es256.privateKey);
    const result = await authenticator({ getter: cluster().getter, clock, issuers: [issuer, "https://old.example.com"] }).authenticateToken(token, ["api"]);
    expect(result?.user.name).toBe("system:serviceaccount:default:builder");
  });

  it("refuses an unsigned token (alg none)", async () => {
    const clock = new FakeClock();
    await expect(authenticator({ getter: cluster().getter, clock }).authenticateToken(unsigned({ now: clock.now() }), [])).rejects.toThrow(
      'service account token is signed with algorithm "none"',
    );
  });

  it("refuses a token signed with HS256 keyed by the public key's bytes", async () => {
    const clock = new FakeClock();
    const publicBytes = new Uint8Array(await crypto.subtle.exportKey("spki", es256.publicKey));
    const token = await sign({ now: clock.now() }, publicBytes, "HS256");
    await expect(authenticator({ getter: cluster().getter, clock }).authenticateToken(token, [])).rejects.toThrow(
      'service account token is signed with algorithm "HS256"',
    );
  });

  it("refuses a token signed with a key it does not have", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now() }, other.privateKey);
    await expect(authenticator({ getter: cluster().getter, clock }).authenticateToken(token, [])).rejects.toThrow("service account token signature is invalid");
  });

  it("refuses a token whose payload was changed after signing", async () => {
    const clock = new FakeClock();
    const [header, , signature] = (await sign({ now: clock.now() }, es256.privateKey)).split(".");
    const forged = base64url.encode(JSON.stringify(claimsOf({ now: clock.now(), serviceAccount: { name: "admin", uid: "sa-uid" } })));
    await expect(authenticator({ getter: cluster().getter, clock }).authenticateToken(`${header}.${forged}.${signature}`, [])).rejects.toThrow(
      "service account token signature is invalid",
    );
  });

  it("refuses a token signed with an algorithm none of its keys can verify", async () => {
    const clock = new FakeClock();
    const p384 = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-384" }, true, ["sign", "verify"]);
    const token = await sign({ now: clock.now() }, p384.privateKey, "ES384");
    await expect(authenticator({ getter: cluster().getter, clock }).authenticateToken(token, [])).rejects.toThrow(
      "service account token is signed with ES384: no verification key for it",
    );
  });

  it("accepts a token that the second of several keys verifies, and keys from a function", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now() }, es256.privateKey);
    const { getter } = cluster();
    expect(await authenticator({ getter, clock, keys: [other.publicKey, es256.publicKey] }).authenticateToken(token, [])).toBeDefined();
    expect(await authenticator({ getter, clock, keys: async () => [other.publicKey, es256.publicKey] }).authenticateToken(token, [])).toBeDefined();
  });

  it("refuses the token when the key function rejects", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now() }, es256.privateKey);
    const keys = () => Promise.reject(new Error("key file unreadable"));
    await expect(authenticator({ getter: cluster().getter, clock, keys }).authenticateToken(token, [])).rejects.toThrow(
      "service account token could not be verified: the verification keys could not be loaded: key file unreadable",
    );
  });

  it("verifies RS256, RS512 and PS384 tokens with one extractable RSA key, such as publicKeysFromPEM gives", async () => {
    const clock = new FakeClock();
    const { getter } = cluster();
    const pair = await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", modulusLength: 2048, publicExponent: Uint8Array.of(1, 0, 1) },
      true,
      ["sign", "verify"],
    );
    const spki = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey))));
    const keys = await publicKeysFromPEM(`-----BEGIN PUBLIC KEY-----\n${spki}\n-----END PUBLIC KEY-----\n`);
    const pkcs8 = await crypto.subtle.exportKey("pkcs8", pair.privateKey);
    const signer = (name: string, hash: string) => crypto.subtle.importKey("pkcs8", pkcs8, { name, hash }, false, ["sign"]);
    const rsa = authenticator({ getter, clock, keys });
    for (const [alg, key] of [
      ["RS256", pair.privateKey],
      ["RS512", await signer("RSASSA-PKCS1-v1_5", "SHA-512")],
      ["PS384", await signer("RSA-PSS", "SHA-384")],
    ] as const) {
      const token = await sign({ now: clock.now(), jti: alg }, key, alg);
      expect((await rsa.authenticateToken(token, []))?.user.extra).toEqual({ [`${prefix}credential-id`]: [`JTI=${alg}`] });
    }
  });

  it("accepts a token up to one minute past its exp, and refuses it after", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now(), expirationSeconds: 600 }, es256.privateKey);
    const sa = authenticator({ getter: cluster().getter, clock });
    clock.advance(600_000 + 60_000);
    expect(await sa.authenticateToken(token, [])).toBeDefined();
    clock.advance(1);
    await expect(sa.authenticateToken(token, [])).rejects.toThrow("service account token has expired");
  });

  it("refuses a token whose nbf is more than one minute ahead, and accepts it from a minute before", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now(), override: { nbf: clock.now() / 1000 + 120, iat: undefined } }, es256.privateKey);
    const sa = authenticator({ getter: cluster().getter, clock });
    await expect(sa.authenticateToken(token, [])).rejects.toThrow("service account token is not valid yet");
    clock.advance(60_000);
    expect(await sa.authenticateToken(token, [])).toBeDefined();
  });

  it("refuses a token issued more than one minute in the future", async () => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now() + 120_000 }, es256.privateKey);
    await expect(authenticator({ getter: cluster().getter, clock }).authenticateToken(token, [])).rejects.toThrow(/not valid yet|issued in the future/);
    const issuedAhead = await sign({ now: clock.now(), override: { iat: clock.now() / 1000 + 120 } }, es256.privateKey);
    await expect(authenticator({ getter: cluster().getter, clock }).authenticateToken(issuedAhead, [])).rejects.toThrow(
      "service account token is issued in the future",
    );
  });

  it.each([
    ["no exp", { exp: undefined }, 'service account token has no "exp" claim'],
    ["no aud", { aud: undefined }, 'service account token has no valid "aud" claim'],
    ["no private claim", { [claimKey]: undefined }, 'service account token has no "orch.io" private claim'],
    ["no namespace", { [claimKey]: { serviceaccount: account } }, "service account token has no namespace in its private claim"],
    [
      "no account uid",
      { [claimKey]: { namespace: "default", serviceaccount: { name: "builder" } } },
      'service account token has no valid "serviceaccount" in its private claim',
    ],
    [
      "a pod without a name",
      { [claimKey]: { namespace: "default", serviceaccount: account, pod: { uid: "x" } } },
      'service account token has no valid "pod" in its private claim',
    ],
    [
      "a subject of another account",
      { sub: "system:serviceaccount:default:admin" },
      'service account token subject "system:serviceaccount:default:admin" does not match its private claim',
    ],
  ])("refuses a signed token with %s", async (_what, override, message) => {
    const clock = new FakeClock();
    const token = await sign({ now: clock.now(), override }, es256.privateKey);
    await expect(authenticator({ getter: cluster().getter, clock }).authenticateToken(token, [])).rejects.toThrow(message);
  });

  it("reads a pod-bound token's pod, and reports the pod and its node without reading the node", async () => {
    const clock = new FakeClock();
    const { getter, reads } = cluster();
    const token = await sign({ now: clock.now(), pod, node }, es256.privateKey);
    const result = await authenticator({ getter, clock }).authenticateToken(token, []);
    expect(result?.user.extra).toEqual({
      [`${prefix}pod-name`]: ["web-0"],
      [`${prefix}pod-uid`]: ["pod-uid"],
      [`${prefix}credential-id`]: ["JTI=token-id-1"],
      [`${prefix}node-name`]: ["node-1"],
      [`${prefix}node-uid`]: ["node-uid"],
    });
    expect(reads).toEqual(["serviceaccounts/default/builder", "pods/default/web-0"]);
  });

  it("reads a node-bound token's node (cluster-scoped) and a secret-bound token's secret", async () => {
    const clock = new FakeClock();
    const { getter, reads } = cluster();
    const sa = authenticator({ getter, clock, lookup: false });
    const nodeResult = await sa.authenticateToken(await sign({ now: clock.now(), node }, es256.privateKey), []);
    expect(nodeResult?.user.extra).toMatchObject({ [`${prefix}node-name`]: ["node-1"], [`${prefix}node-uid`]: ["node-uid"] });
    const secretResult = await sa.authenticateToken(await sign({ now: clock.now(), secret }, es256.privateKey), []);
    expect(secretResult?.user.extra).toEqual({ [`${prefix}credential-id`]: ["JTI=token-id-1"] });
    expect(reads).toEqual(["nodes//node-1", "secrets/default/builder-token"]);
  });

  it.each([
    ["a missing pod", { pod }, "pods/default/web-0", undefined, 'service account token has been invalidated: pod "default/web-0" not found'],
    ["a recreated pod", { pod }, "pods/default/web-0", object("web-0", "new-uid"), 'pod "default/web-0" has uid "new-uid", the token names "pod-uid"'],
    [
      "a pod deleted two minutes ago",
      { pod },
      "pods/default/web-0",
      object("web-0", "pod-uid", "default", at(Date.UTC(2026, 0, 1) - 120_000)),
      'pod "default/web-0" has been deleted',
    ],
    ["a missing secret", { secret }, "secrets/default/builder-token", undefined, 'secret "default/builder-token" not found'],
    ["a recreated secret", { secret }, "secrets/default/builder-token", object("builder-token", "x"), 'secret "default/builder-token" has uid "x"'],
    ["a missing node", { node }, "nodes//node-1", undefined, 'node "node-1" not found'],
    [
      "a node deleted two minutes ago",
      { node },
      "nodes//node-1",
      object("node-1", "node-uid", "", at(Date.UTC(2026, 0, 1) - 120_000)),
      'node "node-1" has been deleted',
    ],
  ])("refuses a token bound to %s", async (_what, binding, key, replacement, message) => {
    const clock = new FakeClock();
    const { getter, objects } = cluster();
    if (replacement) objects[key] = replacement;
    else delete objects[key];
    const token = await sign({ now: clock.now(), ...binding }, es256.privateKey);
    await expect(authenticator({ getter, clock }).authenticateToken(token, [])).rejects.toThrow(message);
  });

  it("accepts a token bound to a pod deleted less than a minute ago (the reference's grace)", async () => {
    const clock = new FakeClock();
    const { getter, objects } = cluster();
    objects["pods/default/web-0"] = object("web-0", "pod-uid", "default", at(clock.now() - 30_000));
    const token = await sign({ now: clock.now(), pod }, es256.privateKey);
    expect(await authenticator({ getter, clock }).authenticateToken(token, [])).toBeDefined();
  });

  it.each([
    ["missing", undefined, 'service account "default/builder" not found'],
    ["recreated", object("builder", "other-uid"), 'service account "default/builder" has uid "other-uid", the token names "sa-uid"'],
    ["deleted", object("builder", "sa-uid", "default", at(Date.UTC(2026, 0, 1) - 120_000)), 'service account "default/builder" has been deleted'],
  ])("refuses the token of a %s service account, unless lookup is off", async (_what, replacement, message) => {
    const clock = new FakeClock();
    const { getter, objects, reads } = cluster();
    if (replacement) objects["serviceaccounts/default/builder"] = replacement;
    else delete objects["serviceaccounts/default/builder"];
    const token = await sign({ now: clock.now() }, es256.privateKey);
    await expect(authenticator({ getter, clock }).authenticateToken(token, [])).rejects.toThrow(message);
    reads.length = 0;
    expect((await authenticator({ getter, clock, lookup: false }).authenticateToken(token, []))?.user.uid).toBe("sa-uid");
    expect(reads).toEqual([]);
  });

  it("refuses the token with an AuthenticationError when the store cannot answer", async () => {
    const clock = new FakeClock();
    const getter: ObjectGetter = () => Promise.reject(new Error("etcd unavailable"));
    const token = await sign({ now: clock.now() }, es256.privateKey);
    const refusal = authenticator({ getter, clock }).authenticateToken(token, []);
    await expect(refusal).rejects.toBeInstanceOf(AuthenticationError);
    await expect(refusal).rejects.toThrow('service account token could not be checked: reading serviceaccounts "default/builder": etcd unavailable');
  });

  it("names extra keys after the claim key: authentication.kubernetes.io/ for the reference's domain", async () => {
    const clock = new FakeClock();
    const token = await new SignJWT({
      ...claimsOf({ now: clock.now(), override: { [claimKey]: undefined } }),
      "kubernetes.io": { namespace: "default", serviceaccount: account },
    })
      .setProtectedHeader({ alg: "ES256" })
      .sign(es256.privateKey);
    const result = await authenticator({ getter: cluster().getter, clock, claimKey: "kubernetes.io" }).authenticateToken(token, []);
    expect(result?.user.extra).toEqual({ "authentication.kubernetes.io/credential-id": ["JTI=token-id-1"] });
    const custom = await authenticator({ getter: cluster().getter, clock, claimKey: "kubernetes.io", extraPrefix: "x.example/" }).authenticateToken(token, []);
    expect(Object.keys(custom?.user.extra ?? {})).toEqual(["x.example/credential-id"]);
  });

  it("verifies a token once and checks its objects once per cache period, then again after it", async () => {
    const clock = new FakeClock();
    const { getter, objects, reads } = cluster();
    let keyLoads = 0;
    const keys = async () => {
      keyLoads++;
      return [es256.publicKey];
    };
    const sa = authenticator({ getter, clock, keys });
    const token = await sign({ now: clock.now(), pod }, es256.privateKey);
    await Promise.all([sa.authenticateToken(token, []), sa.authenticateToken(token, [])]);
    await sa.authenticateToken(token, []);
    expect(keyLoads).toBe(1);
    expect(reads).toEqual(["serviceaccounts/default/builder", "pods/default/web-0"]);

    // A deleted pod still passes while the check is remembered (up to 10 s), then no more.
    delete objects["pods/default/web-0"];
    clock.advance(9_999);
    expect(await sa.authenticateToken(token, [])).toBeDefined();
    clock.advance(1);
    await expect(sa.authenticateToken(token, [])).rejects.toThrow('pod "default/web-0" not found');
    expect(keyLoads).toBe(2);
  });

  it("does not remember a refusal: a token refused for a missing object passes once the object exists", async () => {
    const clock = new FakeClock();
    const { getter, objects } = cluster();
    const saved = objects["pods/default/web-0"] as APIObject;
    delete objects["pods/default/web-0"];
    const sa = authenticator({ getter, clock });
    const token = await sign({ now: clock.now(), pod }, es256.privateKey);
    await expect(sa.authenticateToken(token, [])).rejects.toBeInstanceOf(AuthenticationError);
    objects["pods/default/web-0"] = saved;
    expect(await sa.authenticateToken(token, [])).toBeDefined();
  });

  it("checks every call when caching is off, and keeps at most maxCacheEntries tokens", async () => {
    const clock = new FakeClock();
    const { getter, reads } = cluster();
    const token = await sign({ now: clock.now() }, es256.privateKey);
    const uncached = authenticator({ getter, clock, cacheTTLMs: 0 });
    await uncached.authenticateToken(token, []);
    await uncached.authenticateToken(token, []);
    expect(reads).toHaveLength(2);

    let keyLoads = 0;
    const keys = async () => {
      keyLoads++;
      return [es256.publicKey];
    };
    const small = authenticator({ getter, clock, keys, maxCacheEntries: 2 });
    const tokens = await Promise.all(["a", "b", "c"].map((jti) => sign({ now: clock.now(), jti }, es256.privateKey)));
    for (const t of tokens) await small.authenticateToken(t, []);
    expect(keyLoads).toBe(3);
    await small.authenticateToken(tokens[2] as string, []);
    await small.authenticateToken(tokens[1] as string, []);
    expect(keyLoads).toBe(3);
    await small.authenticateToken(tokens[0] as string, []);
    expect(keyLoads).toBe(4);
  });

  it("gives each caller its own copy of a remembered user", async () => {
    const clock = new FakeClock();
    const sa = authenticator({ getter: cluster().getter, clock });
    const token = await sign({ now: clock.now() }, es256.privateKey);
    const first = await sa.authenticateToken(token, []);
    first?.user.groups.push("system:masters");
    first?.user.extra?.[`${prefix}credential-id`]?.push("forged");
    const second = await sa.authenticateToken(token, []);
    expect(second?.user.groups).toEqual(["system:serviceaccounts", "system:serviceaccounts:default"]);
    expect(second?.user.extra).toEqual({ [`${prefix}credential-id`]: ["JTI=token-id-1"] });
  });
});
