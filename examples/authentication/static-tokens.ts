/**
 * Static bearer tokens from a token file (`orch-apiserver --token-auth-file tokens.csv`): one
 * CSV record per token, `token,user,uid,"group1,group2"`.
 * @module
 */
import { parseTokenFile } from "@orch/authn";
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { whoAmI, type ReviewedUser } from "./whoami.js";

const tokenFile = `
31ada4fd-adec-460c-809a-9e56ceb75269,alice,1001,"dev,ops"
8fa3e07c-7e4b-4b1c-9d3f-0a2e44c51b2e,bob,1002
`;

/** Authenticates alice by her token, and shows an unknown token refused. */
export async function staticTokens(log: (line: string) => void = console.log): Promise<ReviewedUser> {
  const server = new APIServer({ authenticators: [parseTokenFile(tokenFile)] });
  const as = (token: string) => new Client({ transport: inProcessTransport(server, { headers: { Authorization: `Bearer ${token}` } }) });

  const alice = await whoAmI(as("31ada4fd-adec-460c-809a-9e56ceb75269"));
  log(`token of ${alice.username}: uid ${alice.uid}, groups ${alice.groups?.join(", ")}`);

  // A token the file does not hold is refused: 401, never anonymous.
  await whoAmI(as("not-a-known-token")).catch((error: { code: number; reason: string }) => log(`unknown token: ${error.code} ${error.reason}`));
  await server.shutdown();
  return alice;
}
