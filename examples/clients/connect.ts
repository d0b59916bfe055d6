/**
 * One client, two transports: in-process (`APIServer.handle`, no socket) and HTTP (`fetch`;
 * `httpsFetch` of `@orch/node` trusts a private CA), with credentials from a
 * `CredentialSource` that the transport asks before every request and tells about a 401.
 * @module
 */
import { Client, httpTransport, inProcessTransport, type CredentialSource } from "@orch/client";
import { httpsFetch } from "@orch/node";
import { whoAmI } from "./kubeconfig.js";
import { serveWithTokens } from "./local-server.js";

/** Talks to one server in-process and over HTTPS, where the first token it tries is refused. */
export async function connect(log: (line: string) => void = console.log): Promise<string[]> {
  const { server, url, caPem, close } = await serveWithTokens("fresh-token,dana,1004,dev\n");
  const fetch = httpsFetch({ ca: caPem });
  try {
    // In-process, as a given user: authentication keeps it and authenticates nothing.
    const inProcess = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
    const local = await whoAmI(inProcess);

    // Over HTTPS. The source's first token is stale: the server answers 401, the source drops it,
    // and the transport asks again and retries the request once.
    const tokens = ["stale-token", "fresh-token"];
    const source: CredentialSource = {
      credentials: () => Promise.resolve({ token: tokens[0] ?? "" }),
      unauthorized: (used) => {
        if (used.token === tokens[0]) tokens.shift();
        return Promise.resolve(tokens.length > 0);
      },
    };
    const remote = await whoAmI(new Client({ transport: httpTransport({ baseURL: url, fetch, credentials: source }) }));
    log(`in-process: ${local}; over HTTPS: ${remote} (after one 401)`);
    return [local, remote];
  } finally {
    fetch.close();
    await close();
  }
}
