/**
 * The server the HTTPS examples connect to: an `APIServer` with static bearer tokens
 * (`orch-apiserver --token-auth-file`), served over HTTPS on 127.0.0.1 on a free port with a
 * serving certificate from a throwaway CA (made by `createCertificateAuthority` of `@orch/cli`,
 * the generator `orch-apiserver` uses).
 * @module
 */
import { parseTokenFile } from "@orch/authn";
import { createCertificateAuthority } from "@orch/cli";
import { serve } from "@orch/node";
import { APIServer } from "@orch/server";

/** A running {@link serveWithTokens} server. */
export interface LocalServer {
  /** The server, for in-process clients. */
  server: APIServer;
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The CA that signed the serving certificate, PEM: what a kubeconfig's `certificate-authority` names. */
  caPem: string;
  /** Shuts the server down and stops serving. */
  close(): Promise<void>;
}

/** Serves an `APIServer` that knows the tokens of `tokenFile` (`token,user,uid,"group1,group2"` records). */
export async function serveWithTokens(tokenFile: string): Promise<LocalServer> {
  const ca = await createCertificateAuthority();
  const serving = await ca.issue({ subject: "CN=127.0.0.1", ips: ["127.0.0.1"], usage: "server" });
  const server = new APIServer({ authenticators: [parseTokenFile(tokenFile)] });
  const served = await serve(server, { port: 0, tls: { cert: serving.certPem, key: serving.keyPem } });
  return {
    server,
    url: served.url,
    caPem: ca.certPem,
    close: () => served.close(), // runs server.shutdown() first
  };
}
