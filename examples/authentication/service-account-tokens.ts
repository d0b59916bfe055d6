/**
 * Service-account tokens: JWTs the server signs itself, through the `token` sub-resource of a
 * ServiceAccount (`kubectl create token builder`), and verifies with no configuration.
 * @module
 */
import { Client, inProcessTransport, type ResourceRef } from "@orch/client";
import { APIServer } from "@orch/server";
import { FakeClock } from "@orch/store";
import { whoAmI, type ReviewedUser } from "./whoami.js";

const serviceAccounts: ResourceRef = { group: "", version: "v1", resource: "serviceaccounts", kind: "ServiceAccount", namespaced: true };

/** Creates ServiceAccount `builder`, gets a token for it, authenticates with it, then deletes the account. */
export async function serviceAccountTokens(log: (line: string) => void = console.log): Promise<ReviewedUser> {
  const clock = new FakeClock(Date.now());
  const server = new APIServer({ clock }); // signs with a P-256 key generated on the first token request
  const admin = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
  await admin.resource(serviceAccounts).create({ metadata: { name: "builder" } }, { namespace: "default" });

  const request = await admin.call<{ status: { token: string; expirationTimestamp: string } }>({
    method: "POST",
    path: "/api/v1/namespaces/default/serviceaccounts/builder/token",
    body: { apiVersion: "authentication.orch.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } },
  });
  const builder = new Client({ transport: inProcessTransport(server, { headers: { Authorization: `Bearer ${request.status.token}` } }) });
  const user = await whoAmI(builder);
  log(`token of ${user.username}: groups ${user.groups?.join(", ")}`);

  // The account must still exist (checked again once the 10 s cache of a token's check expires).
  await admin.resource(serviceAccounts).delete("builder", { namespace: "default" });
  clock.advance(10_001);
  await whoAmI(builder).catch((error: { code: number; reason: string }) => log(`token of a deleted account: ${error.code} ${error.reason}`));
  await server.shutdown();
  return user;
}
