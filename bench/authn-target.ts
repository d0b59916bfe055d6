/**
 * The server side of the authentication benchmark, in its own process: one `APIServer` over
 * HTTPS (a generated CA) with the client-certificate and static-token authenticators, its own
 * service-account tokens, and anonymous requests on, holding ConfigMap `default/bench` and
 * ServiceAccount `default/bench`. Prints one line, `ready <json>`, with the port and the
 * credentials the load generator presents; then answers each line read on stdin with
 * `cpu <µs>`, the CPU time (user and system) the process has used so far.
 * @module
 */
import { parseTokenFile, x509Authenticator } from "@orch/authn";
import { createCertificateAuthority } from "@orch/cli";
import { serve } from "@orch/node";
import { APIServer } from "@orch/server";

/** What the target prints after `ready `. */
export interface AuthnTarget {
  port: number;
  /** The CA of the serving and the client certificate. */
  ca: string;
  /** The client certificate of `bench-user` and its key. */
  cert: string;
  key: string;
  /** A static token of `bench-user`. */
  token: string;
}

const ca = await createCertificateAuthority();
const serving = await ca.issue({ subject: "CN=127.0.0.1", ips: ["127.0.0.1"], usage: "server" });
const client = await ca.issue({ subject: "CN=bench-user, O=bench", usage: "client" });
const token = "5d1e0c7a-4b59-4f0e-9a43-bench0000001";

const api = new APIServer({
  authenticators: [x509Authenticator({ clientCA: ca.certPem }), parseTokenFile(`${token},bench-user,1000,bench\n`)],
});
await api.ready();
const json = (body: object) => ({ headers: new Headers({ "content-type": "application/json" }), body: new TextEncoder().encode(JSON.stringify(body)) });
const admin = { name: "admin", groups: ["system:masters"] };
await api.handle({
  method: "POST",
  url: "/api/v1/namespaces/default/configmaps",
  user: admin,
  ...json({ metadata: { name: "bench" }, data: { key: "value".repeat(20) } }),
});
await api.handle({ method: "POST", url: "/api/v1/namespaces/default/serviceaccounts", user: admin, ...json({ metadata: { name: "bench" } }) });
const served = await serve(api, { port: 0, tls: { key: serving.keyPem, cert: serving.certPem, ca: ca.certPem } });
const ready: AuthnTarget = { port: served.port, ca: ca.certPem, cert: client.certPem, key: client.keyPem, token };
console.log(`ready ${JSON.stringify(ready)}`);
process.stdin.setEncoding("utf8").on("data", (lines: string) => {
  for (let i = 0; i < lines.split("\n").length - 1; i++) {
    const { user, system } = process.cpuUsage();
    console.log(`cpu ${user + system}`);
  }
});
