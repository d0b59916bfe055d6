/**
 * Anonymous requests (`orch-apiserver --anonymous-auth=false` turns them off): a request with no
 * credential is `system:anonymous` in `system:unauthenticated`, or 401 when they are off.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { whoAmI, type ReviewedUser } from "./whoami.js";

/** Asks "who am I" with no credential, of a server with anonymous requests on, then off. */
export async function anonymousRequests(log: (line: string) => void = console.log): Promise<ReviewedUser> {
  const open = new APIServer(); // anonymousAuth: true by default
  const nobody = await whoAmI(new Client({ transport: inProcessTransport(open) }));
  log(`no credential: ${nobody.username}, groups ${nobody.groups?.join(", ")}`);

  const closed = new APIServer({ anonymousAuth: false });
  await whoAmI(new Client({ transport: inProcessTransport(closed) })).catch((error: { code: number; reason: string }) =>
    log(`no credential, anonymous off: ${error.code} ${error.reason}`),
  );
  await Promise.all([open.shutdown(), closed.shutdown()]);
  return nobody;
}
