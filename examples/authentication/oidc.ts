/**
 * OpenID Connect ID tokens (`orch-apiserver --oidc-issuer-url ... --oidc-client-id ...`): JWTs
 * an identity provider signs, verified against the keys it publishes. The provider here is a
 * local HTTPS server with a discovery document and a key set; real ones are Dex, Keycloak, ...
 * @module
 */
import { oidcAuthenticator } from "@orch/authn";
import { Client, inProcessTransport } from "@orch/client";
import { httpsClient } from "@orch/node";
import { APIServer } from "@orch/server";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { listenHTTPS } from "./local-https.js";
import { newCA, servingCertificate } from "./pki.js";
import { whoAmI, type ReviewedUser } from "./whoami.js";

/** Starts a provider, authenticates alice's ID token, and refuses an expired one. */
export async function oidc(log: (line: string) => void = console.log): Promise<ReviewedUser> {
  const ca = await newCA();
  const keys = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "key-1", alg: "RS256", use: "sig" };
  let issuer = "";
  const provider = await listenHTTPS(await servingCertificate(ca), (path) =>
    path === "/.well-known/openid-configuration" ? [200, { issuer, jwks_uri: `${issuer}/keys` }] : path === "/keys" ? [200, { keys: [jwk] }] : undefined,
  );
  issuer = provider.url;

  const server = new APIServer({
    authenticators: [
      oidcAuthenticator({
        issuerURL: issuer,
        clientID: "orch",
        usernameClaim: "email", // no prefix for email; other claims get "<issuer>#"
        groupsClaim: "groups",
        groupsPrefix: "oidc:",
        http: httpsClient({ ca: ca.certPem }), // trusts the provider's CA
      }),
    ],
  });
  const idToken = (expiresAt: string | number) =>
    new SignJWT({ email: "alice@example.com", groups: ["dev"] })
      .setProtectedHeader({ alg: "RS256", kid: "key-1" })
      .setIssuer(issuer)
      .setAudience("orch")
      .setSubject("alice")
      .setIssuedAt()
      .setExpirationTime(expiresAt)
      .sign(keys.privateKey);
  const as = (token: string) => new Client({ transport: inProcessTransport(server, { headers: { Authorization: `Bearer ${token}` } }) });

  try {
    const alice = await whoAmI(as(await idToken("10m")));
    log(`ID token of ${alice.username}: groups ${alice.groups?.join(", ")}`);
    const expired = await idToken(Math.floor(Date.now() / 1000) - 60);
    await whoAmI(as(expired)).catch((error: { code: number; reason: string }) => log(`expired ID token: ${error.code} ${error.reason}`));
    return alice;
  } finally {
    await server.shutdown();
    await provider.close();
  }
}
