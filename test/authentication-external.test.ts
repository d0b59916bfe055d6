/**
 * Authentication end to end through what lives outside the server: an OpenID provider over HTTPS
 * (`--oidc-*`, discovery and key set, key rotation), a token review webhook over HTTPS
 * (`--authentication-token-webhook-*`, v1beta1) and an authenticating proxy
 * (`--requestheader-*`), against `orch-apiserver --domain k8s.io` (see `support/authentication.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientCertificate } from "../packages/node/src/internal/test-pki.js";
import {
  logAfter,
  proxyName,
  staticTokens,
  startAuthenticationFixture,
  unauthorizedStatus,
  userInfoOf,
  webhookToken,
  webhookUser,
  type AuthenticationFixture,
} from "./support/authentication.js";

let fx: AuthenticationFixture;

beforeAll(async () => {
  fx = await startAuthenticationFixture();
});

afterAll(async () => {
  expect(await fx?.stop()).toBe(0);
});

/** Expects `res` to be the bare 401 Status, without its cause. */
function expectUnauthorized(res: { status: number; json: unknown; text: string }): void {
  expect(res.status).toBe(401);
  expect(res.json).toEqual(unauthorizedStatus);
  expect(res.text).not.toMatch(/expired|signature|webhook|oidc|certificate/i);
}

describe("OpenID Connect (--oidc-issuer-url, --oidc-username-claim email, --oidc-groups-prefix oidc:)", () => {
  it("an id_token of the provider is the email's user in the oidc:-prefixed groups", async () => {
    const [first] = fx.issuer.published;
    const token = await fx.issuer.sign(first!, { email: "carol@example.com", email_verified: true, groups: ["admins", "dev"] });
    const res = await fx.whoami({ token });
    expect(res.status).toBe(201);
    expect(userInfoOf(res)).toEqual({ username: "carol@example.com", groups: ["oidc:admins", "oidc:dev", "system:authenticated"] });
    // The provider was asked for its key set once, at the first token.
    expect(fx.issuer.jwksFetches).toHaveLength(1);
  });

  it("an expired id_token is 401, the cause only in the server's log", async () => {
    const [first] = fx.issuer.published;
    const now = Math.floor(Date.now() / 1000);
    const token = await fx.issuer.sign(first!, { email: "carol@example.com", groups: ["dev"], iat: now - 7200, exp: now - 3600 });
    const from = fx.server.stderr().length;
    expectUnauthorized(await fx.whoami({ token }));
    expect(await logAfter(fx.server, from, "token is expired")).toContain("token is expired");
  });

  it("an id_token for another client id is 401", async () => {
    const [first] = fx.issuer.published;
    expectUnauthorized(await fx.whoami({ token: await fx.issuer.sign(first!, { email: "carol@example.com", aud: "someone-else" }) }));
  });
});

describe("token webhook (--authentication-token-webhook-config-file, v1beta1)", () => {
  it("a token the webhook accepts is the webhook's user; the webhook got an authentication.k8s.io/v1beta1 TokenReview", async () => {
    const before = fx.webhook.reviews.length;
    const res = await fx.whoami({ token: webhookToken });
    expect(res.status).toBe(201);
    expect(userInfoOf(res)).toEqual({ ...webhookUser, groups: [...webhookUser.groups, "system:authenticated"] });
    const reviews = fx.webhook.reviews.slice(before);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toMatchObject({ apiVersion: "authentication.k8s.io/v1beta1", kind: "TokenReview", spec: { token: webhookToken } });
  });

  it("a token the webhook refuses is 401", async () => {
    const before = fx.webhook.reviews.length;
    const from = fx.server.stderr().length;
    expectUnauthorized(await fx.whoami({ token: "webhook-refused-token" }));
    expect(fx.webhook.reviews.slice(before).map((r) => [r.apiVersion, r.spec.token])).toEqual([["authentication.k8s.io/v1beta1", "webhook-refused-token"]]);
    expect(await logAfter(fx.server, from, "webhook does not know this token")).toContain("webhook does not know this token");
  });

  it("a static token is answered before the webhook is asked", async () => {
    const before = fx.webhook.reviews.length;
    const res = await fx.whoami({ token: staticTokens.alice.token });
    expect(res.status).toBe(201);
    expect((userInfoOf(res) as { username: string }).username).toBe("alice");
    expect(fx.webhook.reviews.length).toBe(before);
  });
});

describe("authenticating proxy (--requestheader-client-ca-file, --requestheader-allowed-names)", () => {
  const proxied = { "X-Remote-User": "proxied-user", "X-Remote-Group": ["proxied-group-1", "proxied-group-2"] };

  it("the proxy's certificate and X-Remote-User/X-Remote-Group name the user", async () => {
    const res = await fx.whoami({ cert: fx.proxyCert, headers: proxied });
    expect(res.status).toBe(201);
    expect(userInfoOf(res)).toEqual({ username: "proxied-user", groups: ["proxied-group-1", "proxied-group-2", "system:authenticated"] });
  });

  it("the same headers without the proxy's certificate are ignored: anonymous, or the token's user", async () => {
    const anonymous = await fx.whoami({ headers: proxied });
    expect(anonymous.status).toBe(201);
    expect(userInfoOf(anonymous)).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    const withToken = await fx.whoami({ headers: proxied, token: staticTokens.alice.token });
    expect(withToken.status).toBe(201);
    expect(userInfoOf(withToken)).toEqual({ username: "alice", uid: "uid-alice", groups: ["dev", "ops", "system:authenticated"] });
    const withAdminCert = await fx.whoami({ headers: proxied, cert: fx.admin });
    expect(withAdminCert.status).toBe(201);
    expect(userInfoOf(withAdminCert)).toEqual({ username: "admin", groups: ["system:masters", "system:authenticated"] });
  });

  it("a certificate of the proxy's CA whose CN is not allowed is 401", async () => {
    const stranger = await clientCertificate(fx.proxyCA, "CN=not-the-proxy");
    const from = fx.server.stderr().length;
    expectUnauthorized(await fx.whoami({ cert: stranger, headers: proxied }));
    expect(await logAfter(fx.server, from, "not allowed")).toContain(`CN "not-the-proxy" is not allowed`);
    expect(proxyName).not.toBe("not-the-proxy");
  });
});

describe("OpenID Connect key rotation", () => {
  it("after the provider rotates its key, a token of the new key works and one of the dropped key is 401", async () => {
    const [first] = fx.issuer.published;
    const second = await fx.issuer.newKey("second");
    fx.issuer.published = [second];
    // The server fetches the key set again for an unknown kid, at most once per 10 s.
    const last = fx.issuer.jwksFetches.at(-1) ?? 0;
    const wait = last + 10_500 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const fetches = fx.issuer.jwksFetches.length;
    const res = await fx.whoami({ token: await fx.issuer.sign(second, { email: "dave@example.com", groups: ["ops"] }) });
    expect(res.status).toBe(201);
    expect(userInfoOf(res)).toEqual({ username: "dave@example.com", groups: ["oidc:ops", "system:authenticated"] });
    expect(fx.issuer.jwksFetches).toHaveLength(fetches + 1);
    expectUnauthorized(await fx.whoami({ token: await fx.issuer.sign(first!, { email: "carol@example.com" }) }));
  }, 25_000);
});
