import { base64url, exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "@orch/store";
import { AuthenticationError, type TokenAuthenticator } from "./authenticator.js";
import type { HTTPClient, HTTPResponse } from "./http-client.js";
import { oidcAuthenticator, type OIDCAuthenticatorOptions } from "./oidc-authenticator.js";

const issuer = "https://issuer.example";
const clientID = "orch";
const jwksURI = "https://issuer.example/keys";

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  return { kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

let keyA: SigningKey;
let keyB: SigningKey;
let keyC: SigningKey;
beforeAll(async () => {
  [keyA, keyB, keyC] = await Promise.all([signingKey("a"), signingKey("b"), signingKey("c")]);
});

function response(status: number, body: string, contentType = "application/json"): HTTPResponse {
  return { status, headers: new Headers({ "content-type": contentType }), body: new TextEncoder().encode(body) };
}

/** An OIDC provider served from memory: what it serves can be changed, and it counts requests. */
class FakeProvider {
  discovery: Record<string, unknown>;
  discoveryResponse: HTTPResponse | undefined;
  keysResponse: HTTPResponse | undefined;
  keys: JWK[] = [];
  readonly calls = { discovery: 0, keys: 0 };
  readonly urls: string[] = [];
  readonly discoveryURL: string;

  constructor(issuerURL = issuer) {
    this.discovery = { issuer: issuerURL, jwks_uri: jwksURI, id_token_signing_alg_values_supported: ["RS256"] };
    this.discoveryURL = `${issuerURL.replace(/\/$/, "")}/.well-known/openid-configuration`;
  }

  readonly http: HTTPClient = async (url) => {
    this.urls.push(url);
    if (url === this.discoveryURL) {
      this.calls.discovery++;
      return this.discoveryResponse ?? response(200, JSON.stringify(this.discovery));
    }
    if (url === jwksURI) {
      this.calls.keys++;
      return this.keysResponse ?? response(200, JSON.stringify({ keys: this.keys }));
    }
    return response(404, "not found", "text/plain");
  };
}

interface SignOptions {
  key?: SigningKey;
  kid?: string | null;
  alg?: string;
}

/** A token from `issuer` for `clientID`, subject alice, valid for 10 minutes from `clock`; `claims` override (undefined removes). */
function sign(clock: FakeClock, claims: Record<string, unknown> = {}, options: SignOptions = {}): Promise<string> {
  const key = options.key ?? keyA;
  const now = Math.floor(clock.now() / 1000);
  const header: { alg: string; kid?: string } = { alg: options.alg ?? "RS256" };
  const kid = options.kid === undefined ? key.kid : options.kid;
  if (kid !== null) header.kid = kid;
  return new SignJWT({ iss: issuer, aud: clientID, sub: "alice", iat: now, exp: now + 600, ...claims }).setProtectedHeader(header).sign(key.privateKey);
}

interface Setup {
  provider: FakeProvider;
  clock: FakeClock;
  authn: TokenAuthenticator;
  logs: string[];
}

function setup(options: Partial<OIDCAuthenticatorOptions> = {}, provider = new FakeProvider()): Setup {
  if (provider.keys.length === 0) provider.keys = [keyA.jwk];
  const clock = new FakeClock();
  const logs: string[] = [];
  const authn = oidcAuthenticator({ issuerURL: issuer, clientID, http: provider.http, clock, log: (m) => logs.push(m), ...options });
  return { provider, clock, authn, logs };
}

describe("oidcAuthenticator: a valid token", () => {
  it("names the user by sub prefixed with the issuer and '#', with no groups and no audiences", async () => {
    const { authn, clock, provider } = setup();
    const result = await authn.authenticateToken(await sign(clock), ["https://kubernetes.default.svc"]);
    expect(result).toEqual({ user: { name: "https://issuer.example#alice", groups: [] } });
    expect(result).not.toHaveProperty("audiences");
    expect(provider.urls).toEqual(["https://issuer.example/.well-known/openid-configuration", jwksURI]);
  });

  it("accepts an aud array that contains the client ID", async () => {
    const { authn, clock } = setup();
    const result = await authn.authenticateToken(await sign(clock, { aud: ["other", clientID] }), []);
    expect(result?.user.name).toBe("https://issuer.example#alice");
  });

  it("fetches discovery and keys once for concurrent first tokens, and not again for later ones", async () => {
    const { authn, clock, provider } = setup();
    const token = await sign(clock);
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => authn.authenticateToken(token, [])));
    expect(results.map((r) => r?.user.name)).toEqual(Array(5).fill("https://issuer.example#alice"));
    await authn.authenticateToken(token, []);
    expect(provider.calls).toEqual({ discovery: 1, keys: 1 });
  });

  it("trims the issuer's trailing slash for discovery but matches iss exactly", async () => {
    const withSlash = "https://issuer.example/";
    const provider = new FakeProvider(withSlash);
    const { authn, clock } = setup({ issuerURL: withSlash }, provider);
    expect(await authn.authenticateToken(await sign(clock), [])).toBeUndefined();
    const result = await authn.authenticateToken(await sign(clock, { iss: withSlash }), []);
    expect(result?.user.name).toBe("https://issuer.example/#alice");
    expect(provider.urls[0]).toBe("https://issuer.example/.well-known/openid-configuration");
  });

  it("tries each key of the set for a token without kid", async () => {
    const provider = new FakeProvider();
    provider.keys = [keyA.jwk, keyB.jwk];
    const { authn, clock } = setup({}, provider);
    const result = await authn.authenticateToken(await sign(clock, {}, { key: keyB, kid: null }), []);
    expect(result?.user.name).toBe("https://issuer.example#alice");
    expect(provider.calls.keys).toBe(1);
  });
});

describe("oidcAuthenticator: user name", () => {
  it("uses no prefix for '-'", async () => {
    const { authn, clock } = setup({ usernamePrefix: "-" });
    expect((await authn.authenticateToken(await sign(clock), []))?.user.name).toBe("alice");
  });

  it("uses a custom prefix and claim", async () => {
    const { authn, clock } = setup({ usernamePrefix: "oidc:", usernameClaim: "preferred_username" });
    const result = await authn.authenticateToken(await sign(clock, { preferred_username: "Alice A." }), []);
    expect(result?.user.name).toBe("oidc:Alice A.");
  });

  it("uses no prefix by default for the email claim, and accepts email_verified true", async () => {
    const { authn, clock } = setup({ usernameClaim: "email" });
    expect((await authn.authenticateToken(await sign(clock, { email: "alice@example.com" }), []))?.user.name).toBe("alice@example.com");
    expect((await authn.authenticateToken(await sign(clock, { email: "alice@example.com", email_verified: true }), []))?.user.name).toBe("alice@example.com");
  });

  it("uses a prefix given explicitly for the email claim", async () => {
    const { authn, clock } = setup({ usernameClaim: "email", usernamePrefix: "oidc:" });
    expect((await authn.authenticateToken(await sign(clock, { email: "alice@example.com" }), []))?.user.name).toBe("oidc:alice@example.com");
  });

  it("refuses an email whose email_verified is false or not a boolean", async () => {
    const { authn, clock } = setup({ usernameClaim: "email" });
    await expect(authn.authenticateToken(await sign(clock, { email: "alice@example.com", email_verified: false }), [])).rejects.toThrow(
      /^oidc: email not verified$/,
    );
    await expect(authn.authenticateToken(await sign(clock, { email: "alice@example.com", email_verified: "true" }), [])).rejects.toThrow(/email not verified/);
  });

  it("ignores email_verified when the user name is another claim", async () => {
    const { authn, clock } = setup();
    expect((await authn.authenticateToken(await sign(clock, { email_verified: false }), []))?.user.name).toBe("https://issuer.example#alice");
  });

  it("refuses a token whose user name claim is missing, empty or not a string", async () => {
    const { authn, clock } = setup({ usernameClaim: "name" });
    await expect(authn.authenticateToken(await sign(clock), [])).rejects.toThrow(new AuthenticationError('oidc: username claim "name" is not present'));
    await expect(authn.authenticateToken(await sign(clock, { name: "" }), [])).rejects.toThrow(/"name" is empty/);
    await expect(authn.authenticateToken(await sign(clock, { name: 42 }), [])).rejects.toThrow(/"name" is not a string/);
  });
});

describe("oidcAuthenticator: groups", () => {
  it("takes an array of groups, prefixed", async () => {
    const { authn, clock } = setup({ groupsClaim: "groups", groupsPrefix: "oidc:" });
    const result = await authn.authenticateToken(await sign(clock, { groups: ["dev", "ops"] }), []);
    expect(result?.user.groups).toEqual(["oidc:dev", "oidc:ops"]);
  });

  it("takes a single string as one group", async () => {
    const { authn, clock } = setup({ groupsClaim: "role" });
    expect((await authn.authenticateToken(await sign(clock, { role: "admin" }), []))?.user.groups).toEqual(["admin"]);
  });

  it("gives no groups when the claim is absent", async () => {
    const { authn, clock } = setup({ groupsClaim: "groups" });
    expect((await authn.authenticateToken(await sign(clock), []))?.user.groups).toEqual([]);
  });

  it("refuses a groups claim that is neither a string nor an array of strings", async () => {
    const { authn, clock } = setup({ groupsClaim: "groups" });
    await expect(authn.authenticateToken(await sign(clock, { groups: 7 }), [])).rejects.toThrow(/groups claim "groups" is not a string or an array of strings/);
    await expect(authn.authenticateToken(await sign(clock, { groups: ["dev", 7] }), [])).rejects.toThrow(/groups claim "groups"/);
    await expect(authn.authenticateToken(await sign(clock, { groups: { dev: true } }), [])).rejects.toThrow(AuthenticationError);
  });
});

describe("oidcAuthenticator: required claims", () => {
  const requiredClaims = { hd: "example.com", tier: "gold" };

  it("accepts a token carrying every required claim with its value", async () => {
    const { authn, clock } = setup({ requiredClaims });
    expect((await authn.authenticateToken(await sign(clock, { hd: "example.com", tier: "gold" }), []))?.user.name).toBe("https://issuer.example#alice");
  });

  it("refuses a token missing one, or with another value, or a non-string", async () => {
    const { authn, clock } = setup({ requiredClaims });
    await expect(authn.authenticateToken(await sign(clock, { hd: "example.com" }), [])).rejects.toThrow(/required claim "tier" not present/);
    await expect(authn.authenticateToken(await sign(clock, { hd: "evil.com", tier: "gold" }), [])).rejects.toThrow(
      /required claim "hd" value does not match: got "evil.com", want "example.com"/,
    );
    await expect(authn.authenticateToken(await sign(clock, { hd: ["example.com"], tier: "gold" }), [])).rejects.toThrow(/required claim "hd" is not a string/);
  });
});

describe("oidcAuthenticator: tokens it has no opinion on", () => {
  it("returns undefined for a token of another issuer, without fetching anything", async () => {
    const { authn, clock, provider } = setup();
    expect(await authn.authenticateToken(await sign(clock, { iss: "https://other.example" }), [])).toBeUndefined();
    expect(await authn.authenticateToken(await sign(clock, { iss: undefined }), [])).toBeUndefined();
    expect(provider.urls).toEqual([]);
  });

  it("returns undefined for tokens that are not JWTs", async () => {
    const { authn, provider } = setup();
    for (const token of ["abc", "a.b.c", "0123456789abcdef", `${base64url.encode('{"alg":"RS256"}')}.${base64url.encode("[1]")}.sig`]) {
      expect(await authn.authenticateToken(token, [])).toBeUndefined();
    }
    expect(provider.urls).toEqual([]);
  });
});

describe("oidcAuthenticator: refused tokens", () => {
  it("refuses a token for another audience", async () => {
    const { authn, clock } = setup();
    await expect(authn.authenticateToken(await sign(clock, { aud: "someone-else" }), [])).rejects.toThrow(/oidc: verify token: unexpected "aud" claim value/);
    await expect(authn.authenticateToken(await sign(clock, { aud: undefined }), [])).rejects.toThrow(/"aud"/);
  });

  it("refuses an expired token from its exp on, and one without exp", async () => {
    const { authn, clock } = setup();
    const token = await sign(clock);
    clock.advance(599_000);
    expect(await authn.authenticateToken(token, [])).toBeDefined();
    clock.advance(1_000);
    await expect(authn.authenticateToken(token, [])).rejects.toThrow(new AuthenticationError("oidc: verify token: token is expired"));
    await expect(authn.authenticateToken(await sign(clock, { exp: undefined }), [])).rejects.toThrow(/missing required "exp" claim/);
  });

  it("refuses a token whose nbf is more than 5 minutes ahead, and accepts one within that skew", async () => {
    const { authn, clock } = setup();
    const now = Math.floor(clock.now() / 1000);
    await expect(authn.authenticateToken(await sign(clock, { nbf: now + 301, exp: now + 900 }), [])).rejects.toThrow(/"nbf" claim timestamp check failed/);
    expect(await authn.authenticateToken(await sign(clock, { nbf: now + 60 }), [])).toBeDefined();
    const later = await sign(clock, { nbf: now + 3600, exp: now + 7200 });
    await expect(authn.authenticateToken(later, [])).rejects.toThrow(/nbf/);
    clock.advance(3600_000);
    expect((await authn.authenticateToken(later, []))?.user.name).toBe("https://issuer.example#alice");
  });

  it("refuses an unsigned token (alg none)", async () => {
    const { authn, clock } = setup();
    const now = Math.floor(clock.now() / 1000);
    const header = base64url.encode(JSON.stringify({ alg: "none", kid: "a" }));
    const payload = base64url.encode(JSON.stringify({ iss: issuer, aud: clientID, sub: "mallory", exp: now + 600 }));
    await expect(authn.authenticateToken(`${header}.${payload}.`, [])).rejects.toThrow(/token signed with algorithm "none", expected one of RS256/);
  });

  it("refuses a token HMAC-signed with the issuer's public key", async () => {
    const { authn, clock } = setup();
    const now = Math.floor(clock.now() / 1000);
    const secret = new TextEncoder().encode(await exportSPKI(keyA.publicKey));
    const token = await new SignJWT({ iss: issuer, aud: clientID, sub: "mallory", exp: now + 600 }).setProtectedHeader({ alg: "HS256", kid: "a" }).sign(secret);
    await expect(authn.authenticateToken(token, [])).rejects.toThrow(/token signed with algorithm "HS256"/);
  });

  it("refuses a token signed with an algorithm not configured", async () => {
    const { authn, clock } = setup({ signingAlgorithms: ["ES256"] });
    await expect(authn.authenticateToken(await sign(clock), [])).rejects.toThrow(/algorithm "RS256", expected one of ES256/);
  });

  it("refuses a bad signature without fetching the keys again", async () => {
    const { authn, clock, provider } = setup();
    clock.advance(60_000);
    // Signed by key b but naming key a.
    await expect(authn.authenticateToken(await sign(clock, {}, { key: keyB, kid: "a" }), [])).rejects.toThrow(
      new AuthenticationError("oidc: verify token: signature verification failed"),
    );
    const token = await sign(clock);
    const tampered = token.replace(/\.[^.]+\./, `.${base64url.encode(JSON.stringify({ iss: issuer, aud: clientID, sub: "root", exp: 2e9 }))}.`);
    await expect(authn.authenticateToken(tampered, [])).rejects.toThrow(/signature verification failed/);
    expect(provider.calls.keys).toBe(1);
  });

  it("stops waiting when the caller's signal aborts", async () => {
    const provider = new FakeProvider();
    provider.keys = [keyA.jwk];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: HTTPClient = async (url, request) => {
      await gate;
      return provider.http(url, request);
    };
    const { authn, clock } = setup({ http: slow }, provider);
    const token = await sign(clock);
    const aborted = new AbortController();
    aborted.abort(new Error("client went away"));
    await expect(authn.authenticateToken(token, [], aborted.signal)).rejects.toThrow("client went away");
    const controller = new AbortController();
    const waiting = authn.authenticateToken(token, [], controller.signal);
    const other = authn.authenticateToken(token, []);
    controller.abort(new Error("deadline"));
    await expect(waiting).rejects.toThrow("deadline");
    release();
    // The shared discovery carried on for the caller that did not abort.
    expect((await other)?.user.name).toBe("https://issuer.example#alice");
    expect(provider.calls.discovery).toBe(1);
  });
});

describe("oidcAuthenticator: key rotation", () => {
  it("fetches the keys again for an unknown kid, at most once per 10 s", async () => {
    const { authn, clock, provider, logs } = setup();
    expect(await authn.authenticateToken(await sign(clock), [])).toBeDefined();
    expect(provider.calls.keys).toBe(1);

    // The provider rotates to key b; a token of b arrives after the interval.
    clock.advance(10_000);
    provider.keys = [keyA.jwk, keyB.jwk];
    expect((await authn.authenticateToken(await sign(clock, {}, { key: keyB }), []))?.user.name).toBe("https://issuer.example#alice");
    expect(provider.calls.keys).toBe(2);
    expect(logs).toContain(`oidc: fetched 2 keys of issuer ${issuer} from ${jwksURI}`);

    // Key c is published, but a token of it within 10 s of the last fetch does not fetch again.
    provider.keys = [keyA.jwk, keyB.jwk, keyC.jwk];
    clock.advance(9_999);
    await expect(authn.authenticateToken(await sign(clock, {}, { key: keyC }), [])).rejects.toThrow(
      /^oidc: verify token: no key of the issuer has kid "c"; keys not fetched again: they were fetched 10 s ago, less than 10 s$/,
    );
    expect(provider.calls.keys).toBe(2);

    clock.advance(1);
    expect(await authn.authenticateToken(await sign(clock, {}, { key: keyC }), [])).toBeDefined();
    expect(provider.calls.keys).toBe(3);
    // Keys a and b still verify without another fetch.
    expect(await authn.authenticateToken(await sign(clock), [])).toBeDefined();
    expect(await authn.authenticateToken(await sign(clock, {}, { key: keyB }), [])).toBeDefined();
    expect(provider.calls.keys).toBe(3);
  });

  it("does not fetch again within 10 s of the first fetch", async () => {
    const { authn, clock, provider } = setup();
    expect(await authn.authenticateToken(await sign(clock), [])).toBeDefined();
    provider.keys = [keyB.jwk];
    await expect(authn.authenticateToken(await sign(clock, {}, { key: keyB }), [])).rejects.toThrow(/no key of the issuer has kid "b"/);
    expect(provider.calls.keys).toBe(1);
  });

  it("shares one fetch among concurrent tokens of a new key", async () => {
    const { authn, clock, provider } = setup();
    expect(await authn.authenticateToken(await sign(clock), [])).toBeDefined();
    clock.advance(10_000);
    provider.keys = [keyB.jwk];
    const token = await sign(clock, {}, { key: keyB });
    const results = await Promise.all([1, 2, 3].map(() => authn.authenticateToken(token, [])));
    expect(results.every((r) => r?.user.name === "https://issuer.example#alice")).toBe(true);
    expect(provider.calls.keys).toBe(2);
  });

  it("fetches again for a token without kid that no key verifies", async () => {
    const { authn, clock, provider } = setup();
    expect(await authn.authenticateToken(await sign(clock), [])).toBeDefined();
    clock.advance(10_000);
    provider.keys = [keyB.jwk];
    expect(await authn.authenticateToken(await sign(clock, {}, { key: keyB, kid: null }), [])).toBeDefined();
    expect(provider.calls.keys).toBe(2);
  });

  it("keeps the old keys when fetching new ones fails", async () => {
    const { authn, clock, provider } = setup();
    expect(await authn.authenticateToken(await sign(clock), [])).toBeDefined();
    clock.advance(10_000);
    provider.keysResponse = response(503, "down for maintenance", "text/plain");
    await expect(authn.authenticateToken(await sign(clock, {}, { key: keyB }), [])).rejects.toThrow(
      `oidc: verify token: no key of the issuer has kid "b"; keys not fetched again: fetching the key set ${jwksURI} failed: status 503: down for maintenance`,
    );
    expect(await authn.authenticateToken(await sign(clock), [])).toBeDefined();
    expect(provider.calls.keys).toBe(2);
  });
});

describe("oidcAuthenticator: discovery", () => {
  it("refuses tokens while discovery fails, retries 10 s later, and recovers", async () => {
    const { authn, clock, provider, logs } = setup();
    provider.discoveryResponse = response(500, "internal error", "text/plain");
    const token = await sign(clock);
    const notInitialized = `oidc: authenticator for issuer "${issuer}" is not initialized: fetching the discovery document ${provider.discoveryURL} failed: status 500: internal error`;
    await expect(authn.authenticateToken(token, [])).rejects.toThrow(new AuthenticationError(notInitialized));
    expect(logs).toContain(
      `oidc: initializing issuer ${issuer} failed: fetching the discovery document ${provider.discoveryURL} failed: status 500: internal error`,
    );

    provider.discoveryResponse = undefined;
    clock.advance(9_999);
    await expect(authn.authenticateToken(token, [])).rejects.toThrow(notInitialized);
    expect(provider.calls.discovery).toBe(1);

    clock.advance(1);
    expect((await authn.authenticateToken(token, []))?.user.name).toBe("https://issuer.example#alice");
    expect(provider.calls).toEqual({ discovery: 2, keys: 1 });
  });

  it("refuses tokens when the discovery document names another issuer", async () => {
    const { authn, clock, provider } = setup();
    provider.discovery["issuer"] = "https://issuer.example/";
    await expect(authn.authenticateToken(await sign(clock), [])).rejects.toThrow(
      `is not initialized: issuer did not match the issuer returned by provider, expected "https://issuer.example" got "https://issuer.example/"`,
    );
    expect(provider.calls.keys).toBe(0);
  });

  it("reports a discovery document that is not JSON, with its content type", async () => {
    const { authn, clock, provider } = setup();
    provider.discoveryResponse = response(200, "<html>login</html>", "text/html");
    await expect(authn.authenticateToken(await sign(clock), [])).rejects.toThrow(
      `the discovery document ${provider.discoveryURL} is not JSON (content-type "text/html")`,
    );
  });

  it("reports a jwks_uri that is missing or not https", async () => {
    const { authn, clock, provider } = setup();
    provider.discovery["jwks_uri"] = "http://issuer.example/keys";
    await expect(authn.authenticateToken(await sign(clock), [])).rejects.toThrow(/jwks_uri "http:\/\/issuer.example\/keys" is not an https URL/);
    clock.advance(10_000);
    delete provider.discovery["jwks_uri"];
    await expect(authn.authenticateToken(await sign(clock), [])).rejects.toThrow(/jwks_uri undefined is not an https URL/);
    expect(provider.calls.keys).toBe(0);
  });

  it("reports a key set that cannot be fetched or is not a key set", async () => {
    const { authn, clock, provider } = setup();
    provider.keysResponse = response(404, "", "text/plain");
    await expect(authn.authenticateToken(await sign(clock), [])).rejects.toThrow(`is not initialized: fetching the key set ${jwksURI} failed: status 404`);
    clock.advance(10_000);
    provider.keysResponse = response(200, JSON.stringify({ keys: "none" }));
    await expect(authn.authenticateToken(await sign(clock), [])).rejects.toThrow(`is not initialized: key set ${jwksURI}: JSON Web Key Set malformed`);
  });

  it("reports a provider that cannot be reached", async () => {
    const unreachable: HTTPClient = () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:443"));
    const { authn, clock } = setup({ http: unreachable });
    await expect(authn.authenticateToken(await sign(clock), [])).rejects.toThrow(
      /not initialized: fetching the discovery document .* failed: connect ECONNREFUSED/,
    );
  });
});

describe("oidcAuthenticator: options", () => {
  const base = { issuerURL: issuer, clientID, http: new FakeProvider().http };

  it("refuses an issuer that is not an https URL without query, fragment or user", () => {
    expect(() => oidcAuthenticator({ ...base, issuerURL: "http://issuer.example" })).toThrow(
      new TypeError('oidc: issuerURL "http://issuer.example" must use https, not http'),
    );
    expect(() => oidcAuthenticator({ ...base, issuerURL: "issuer.example" })).toThrow(/is not a URL/);
    expect(() => oidcAuthenticator({ ...base, issuerURL: "https://issuer.example/?tenant=1" })).toThrow(/query or a fragment/);
    expect(() => oidcAuthenticator({ ...base, issuerURL: "https://user:pw@issuer.example" })).toThrow(/user information/);
  });

  it("requires a client ID", () => {
    expect(() => oidcAuthenticator({ ...base, clientID: "" })).toThrow(/clientID is required/);
  });

  it("refuses none, HMAC, unknown and empty signing algorithms", () => {
    for (const alg of ["none", "HS256", "HS512"]) {
      expect(() => oidcAuthenticator({ ...base, signingAlgorithms: ["RS256", alg] })).toThrow(new RegExp(`"${alg}" is not allowed`));
    }
    expect(() => oidcAuthenticator({ ...base, signingAlgorithms: ["XY256"] })).toThrow(/"XY256" is not supported/);
    expect(() => oidcAuthenticator({ ...base, signingAlgorithms: [] })).toThrow(/must not be empty/);
  });

  it("accepts the reference's algorithms", () => {
    expect(() =>
      oidcAuthenticator({ ...base, signingAlgorithms: ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"] }),
    ).not.toThrow();
  });
});
