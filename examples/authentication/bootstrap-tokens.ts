/**
 * Bootstrap tokens (`orch-apiserver --enable-bootstrap-token-auth`): `<id>.<secret>` tokens
 * backed by a Secret `bootstrap-token-<id>` of type `bootstrap.orch.io/token` in `orch-system`.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { whoAmI, type ReviewedUser } from "./whoami.js";

/** Stores the Secret of token `07401b.f395accd246ae52d`, authenticates with it, and refuses a wrong secret. */
export async function bootstrapTokens(log: (line: string) => void = console.log): Promise<ReviewedUser> {
  const server = new APIServer({ bootstrapTokenAuth: true });
  const admin = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
  await admin.secrets.create(
    {
      metadata: { name: "bootstrap-token-07401b" },
      type: "bootstrap.orch.io/token",
      stringData: {
        "token-id": "07401b",
        "token-secret": "f395accd246ae52d",
        "usage-bootstrap-authentication": "true",
        "auth-extra-groups": "system:bootstrappers:workers",
        expiration: new Date(Date.now() + 3600_000).toISOString(),
      },
    },
    { namespace: "orch-system" },
  );
  const as = (token: string) => new Client({ transport: inProcessTransport(server, { headers: { Authorization: `Bearer ${token}` } }) });

  const node = await whoAmI(as("07401b.f395accd246ae52d"));
  log(`bootstrap token of ${node.username}: groups ${node.groups?.join(", ")}`);
  await whoAmI(as("07401b.0000000000000000")).catch((error: { code: number; reason: string }) => log(`wrong secret: ${error.code} ${error.reason}`));
  await server.shutdown();
  return node;
}
