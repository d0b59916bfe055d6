/**
 * The token webhook (`orch-apiserver --authentication-token-webhook-config-file webhook.yaml`):
 * the server POSTs a TokenReview with the bearer token to a remote service and takes its answer.
 * The service here is a local HTTPS server that knows one token.
 * @module
 */
import { tokenWebhookAuthenticator } from "@orch/authn";
import { Client, inProcessTransport } from "@orch/client";
import { httpsClient } from "@orch/node";
import { APIServer } from "@orch/server";
import { listenHTTPS } from "./local-https.js";
import { newCA, servingCertificate } from "./pki.js";
import { whoAmI, type ReviewedUser } from "./whoami.js";

/** Starts a webhook, authenticates bob's token through it, and shows a token it denies refused. */
export async function tokenWebhook(log: (line: string) => void = console.log): Promise<ReviewedUser> {
  const ca = await newCA();
  const webhook = await listenHTTPS(await servingCertificate(ca), (_path, body) => {
    const review = JSON.parse(body) as { apiVersion: string; spec: { token: string } };
    const status =
      review.spec.token === "bob-secret-token"
        ? { authenticated: true, user: { username: "bob", uid: "42", groups: ["webhook-users"] } }
        : { authenticated: false, error: "unknown token" };
    return [200, { apiVersion: review.apiVersion, kind: "TokenReview", status }];
  });

  const server = new APIServer({
    authenticators: [tokenWebhookAuthenticator({ server: `${webhook.url}/authenticate`, http: httpsClient({ ca: ca.certPem }), version: "v1" })],
  });
  const as = (token: string) => new Client({ transport: inProcessTransport(server, { headers: { Authorization: `Bearer ${token}` } }) });
  try {
    const bob = await whoAmI(as("bob-secret-token"));
    log(`webhook token of ${bob.username}: uid ${bob.uid}, groups ${bob.groups?.join(", ")}`);
    await whoAmI(as("someone-else")).catch((error: { code: number; reason: string }) => log(`token the webhook denies: ${error.code} ${error.reason}`));
    return bob;
  } finally {
    await server.shutdown();
    await webhook.close();
  }
}
