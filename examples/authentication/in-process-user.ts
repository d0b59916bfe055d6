/**
 * The in-process user, for tests: an in-process client can act as any user, with no credential,
 * as if an adapter had authenticated it. Only code that holds the `APIServer` can do this.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { whoAmI, type ReviewedUser } from "./whoami.js";

/** Acts as dana in group `dev` and asks who that is. */
export async function inProcessUser(log: (line: string) => void = console.log): Promise<ReviewedUser> {
  const server = new APIServer();
  const dana = new Client({ transport: inProcessTransport(server, { user: { name: "dana", uid: "7", groups: ["dev"] } }) });
  const user = await whoAmI(dana);
  log(`in-process user: ${user.username}, groups ${user.groups?.join(", ")}`);
  await server.shutdown();
  return user;
}
