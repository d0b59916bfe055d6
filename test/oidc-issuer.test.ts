/**
 * The OIDC authenticator against a real OpenID provider endpoint over HTTPS: a local `node:https`
 * server with a certificate from a CA made here serves the discovery document and the key set;
 * `httpsClient` from `@orch/node` trusts that CA. Covers discovery, verification, key rotation on
 * the server, and a client that does not trust the CA.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError, oidcAuthenticator } from "@orch/authn";
import { httpsClient } from "@orch/node";
import { FakeClock } from "@orch/store";
import { selfSignedCA, servingCertificate, type Issued } from "../packages/node/src/internal/test-pki.js";

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

describe("oidcAuthenticator against an HTTPS OpenID provider", () => {
  let ca: Issued;
  let server: Server;
  let issuer: string;
  /** The keys the provider publishes now. */
  let published: JWK[] = [];
  /** The paths the provider was asked for. */
  const requests: string[] = [];
  let first: SigningKey;
  let second: SigningKey;
  const clock = new FakeClock(Date.now());

  function sign(key: SigningKey, sub: string): Promise<string> {
    const now = Math.floor(clock.now() / 1000);
    return new SignJWT({ iss: issuer, aud: "orch", sub, email: `${sub}@example.com`, groups: ["dev"], iat: now, exp: now + 600 })
      .setProtectedHeader({ alg: "RS256", kid: key.kid })
      .sign(key.privateKey);
  }

  beforeAll(async () => {
    ca = await selfSignedCA("CN=oidc-test-ca");
    const serving = await servingCertificate(ca);
    [first, second] = await Promise.all([signingKey("first"), signingKey("second")]);
    published = [first.jwk];
    server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
      requests.push(req.url ?? "");
      const json = (body: unknown): void => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.method === "GET" && req.url === "/.well-known/openid-configuration")
        json({ issuer, jwks_uri: `${issuer}/openid/v1/jwks`, id_token_signing_alg_values_supported: ["RS256"] });
      else if (req.method === "GET" && req.url === "/openid/v1/jwks") json({ keys: published });
      else {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("not found");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  });

  it("discovers the provider through the CA, verifies its tokens, and follows a key rotation", async () => {
    const logs: string[] = [];
    const authn = oidcAuthenticator({
      issuerURL: issuer,
      clientID: "orch",
      usernameClaim: "email",
      groupsClaim: "groups",
      groupsPrefix: "oidc:",
      http: httpsClient({ ca: ca.cert, timeoutMs: 5_000 }),
      clock,
      log: (m) => logs.push(m),
    });

    expect(await authn.authenticateToken(await sign(first, "alice"), [])).toEqual({ user: { name: "alice@example.com", groups: ["oidc:dev"] } });
    expect(requests).toEqual(["/.well-known/openid-configuration", "/openid/v1/jwks"]);
    expect(logs).toEqual([`oidc: initialized issuer ${issuer} with 1 keys from ${issuer}/openid/v1/jwks`]);

    // The provider rotates: the second key is published and the first one dropped.
    clock.advance(10_000);
    published = [second.jwk];
    expect(await authn.authenticateToken(await sign(second, "bob"), [])).toEqual({ user: { name: "bob@example.com", groups: ["oidc:dev"] } });
    expect(requests).toEqual(["/.well-known/openid-configuration", "/openid/v1/jwks", "/openid/v1/jwks"]);

    // Tokens of the dropped key are refused now, without asking the provider again so soon.
    const stale = authn.authenticateToken(await sign(first, "alice"), []);
    await expect(stale).rejects.toThrow(AuthenticationError);
    await expect(stale).rejects.toThrow(/no key of the issuer has kid "first"; keys not fetched again/);
    expect(requests).toHaveLength(3);
  });

  it("cannot initialize with a client that does not trust the provider's CA", async () => {
    const before = requests.length;
    const authn = oidcAuthenticator({ issuerURL: issuer, clientID: "orch", http: httpsClient({ timeoutMs: 5_000 }), clock });
    const refused = authn.authenticateToken(await sign(second, "carol"), []);
    await expect(refused).rejects.toThrow(AuthenticationError);
    await expect(refused).rejects.toThrow(
      new RegExp(
        `^oidc: authenticator for issuer "${issuer}" is not initialized: fetching the discovery document ${issuer}/\\.well-known/openid-configuration failed: .*certificate`,
      ),
    );
    // The TLS handshake failed: the provider never saw a request.
    expect(requests).toHaveLength(before);
  });
});
