/**
 * Bad credentials end to end, as raw HTTPS requests on their own connections against
 * `orch-apiserver --domain k8s.io` with every authenticator (see `support/authentication.ts`):
 * each is answered promptly with a 4xx Status, a refused credential with the bare 401 whose cause
 * is only in the server's log. And a second server with `--anonymous-auth=false`.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientCertificate, selfSignedCA } from "../packages/node/src/internal/test-pki.js";
import { adminRequest, startAPIServer, type RawResponse, type RunningAPIServer } from "./support/apiserver.js";
import {
  httpsCall,
  logAfter,
  oidcClientID,
  startAuthenticationFixture,
  unauthorizedStatus,
  userInfoOf,
  type AuthenticationFixture,
} from "./support/authentication.js";

let fx: AuthenticationFixture;
let noAnonymous: RunningAPIServer;

beforeAll(async () => {
  // Both servers start side by side.
  [fx, noAnonymous] = await Promise.all([startAuthenticationFixture(), startAPIServer({ flags: ["--domain", "k8s.io", "--anonymous-auth=false"] })]);
});

afterAll(async () => {
  const codes = await Promise.all([fx?.stop(), noAnonymous?.stop()]);
  expect(codes).toEqual([0, 0]);
});

/** Expects `res` to be the bare 401 Status: no cause in the body. */
function expectUnauthorized(res: RawResponse): void {
  expect({ status: res.status, body: res.json }).toEqual({ status: 401, body: unauthorizedStatus });
  expect(res.text).not.toMatch(/expired|signature|algorithm|none|certificate|webhook|oidc|bearer|ASCII/i);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

describe("bad bearer tokens are 401", () => {
  it("an empty token", async () => {
    const from = fx.server.stderr().length;
    expectUnauthorized(await fx.whoami({ headers: { authorization: "Bearer " } }));
    expectUnauthorized(await fx.whoami({ headers: { authorization: "Bearer" } }));
    expect(await logAfter(fx.server, from, "invalid bearer token: empty")).toContain("invalid bearer token: empty");
  });

  it("a token with non-ASCII characters (sent as latin-1 bytes)", async () => {
    const from = fx.server.stderr().length;
    expectUnauthorized(await fx.whoami({ token: "t\u00f6k\u00e9n-\u00ff" }));
    expect(await logAfter(fx.server, from, "not printable ASCII")).toContain("invalid bearer token: not printable ASCII");
  });

  it("a 15 KiB token is 401, a token over 16 KiB a 4xx Status from the HTTP parser", async () => {
    expectUnauthorized(await fx.whoami({ token: "a".repeat(15 * 1024) }));
    const huge = await fx.whoami({ token: "a".repeat(17 * 1024) });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
    expect(huge.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code: huge.status });
  });

  it("a JWT with alg none, for the OIDC issuer and for the service-account issuer", async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases = [
      { iss: fx.issuer.url, cause: 'oidc: verify token: token signed with algorithm "none", expected one of RS256' },
      { iss: "https://kubernetes.default.svc.cluster.local", cause: 'service account token is signed with algorithm "none"' },
    ];
    for (const { iss, cause } of cases) {
      const claims = {
        iss,
        aud: [oidcClientID, "https://kubernetes.default.svc.cluster.local"],
        sub: "system:serviceaccount:default:default",
        email: "eve@example.com",
        iat: now,
        exp: now + 600,
      };
      const token = `${base64url({ alg: "none", typ: "JWT" })}.${base64url(claims)}.`;
      const from = fx.server.stderr().length;
      expectUnauthorized(await fx.whoami({ token }));
      const log = await logAfter(fx.server, from, cause);
      expect(log).toContain(`Unable to authenticate the request POST /apis/authentication.k8s.io/v1/selfsubjectreviews: `);
      expect(log).toContain(cause);
    }
  });

  it("an id_token with a bad signature (another key under the provider's kid)", async () => {
    const [first] = fx.issuer.published;
    const { privateKey } = await generateKeyPair("RS256");
    const forged = await fx.issuer.sign({ ...first!, privateKey }, { email: "eve@example.com", groups: ["admins"] });
    const from = fx.server.stderr().length;
    expectUnauthorized(await fx.whoami({ token: forged }));
    expect(await logAfter(fx.server, from, "signature verification failed")).toContain("signature verification failed");
    // The genuine key still verifies.
    const genuine = await fx.whoami({ token: await fx.issuer.sign(first!, { email: "eve@example.com" }) });
    expect(genuine.status).toBe(201);
    expect(userInfoOf(genuine)).toEqual({ username: "eve@example.com", groups: ["system:authenticated"] });
  });

  it("an expired id_token", async () => {
    const [first] = fx.issuer.published;
    const now = Math.floor(Date.now() / 1000);
    const from = fx.server.stderr().length;
    expectUnauthorized(await fx.whoami({ token: await fx.issuer.sign(first!, { email: "eve@example.com", iat: now - 7200, exp: now - 60 }) }));
    expect(await logAfter(fx.server, from, "token is expired")).toContain("token is expired");
  });
});

describe("client certificates", () => {
  it("a certificate signed by another CA is 401, even claiming system:masters", async () => {
    const other = await selfSignedCA("CN=not-the-cluster-ca");
    const mallory = await clientCertificate(other, "CN=mallory, O=system:masters");
    const from = fx.server.stderr().length;
    expectUnauthorized(await fx.whoami({ cert: mallory }));
    expectUnauthorized(await fx.request({ path: "/api/v1/namespaces", cert: mallory }));
    const log = await logAfter(fx.server, from, "Unable to authenticate the request GET /api/v1/namespaces");
    expect(log).toContain("Unable to authenticate the request POST /apis/authentication.k8s.io/v1/selfsubjectreviews: ");
    expect(log).toContain("x509: certificate signed by unknown authority");
  });
});

describe("orch-apiserver --anonymous-auth=false", () => {
  const ca = () => readFile(join(noAnonymous.dataDir, "ca.crt"), "utf8");

  it("a request with no credential is 401; the admin certificate still works", async () => {
    const anonymous = await httpsCall(noAnonymous.url, await ca(), { path: "/api/v1/namespaces" });
    expect({ status: anonymous.status, body: anonymous.json }).toEqual({ status: 401, body: unauthorizedStatus });
    const whoami = await httpsCall(noAnonymous.url, await ca(), {
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
    });
    expect(whoami.status).toBe(401);
    expect(await logAfter(noAnonymous, 0, "anonymous requests are disabled")).toContain("no credentials and anonymous requests are disabled");

    const list = await adminRequest(noAnonymous, { path: "/api/v1/namespaces" });
    expect(list.status).toBe(200);
    expect((list.json as { items: { metadata: { name: string } }[] }).items.map((n) => n.metadata.name)).toEqual(["default", "kube-public", "kube-system"]);
    const adminWhoami = await adminRequest(noAnonymous, {
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
    });
    expect(adminWhoami.status).toBe(201);
    expect(userInfoOf(adminWhoami)).toEqual({ username: "admin", groups: ["system:masters", "system:authenticated"] });
  });
});
