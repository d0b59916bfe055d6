/**
 * Mounting orch in a Hono app under a path prefix: the app keeps its own routes, and everything
 * under `/k8s` goes to an `APIServer` through `server.fetch` with `basePath: "/k8s"`, so
 * `/k8s/api/v1/namespaces` is served as `/api/v1/namespaces`. `@hono/node-server` serves the app
 * over HTTPS on 127.0.0.1 with a certificate from a throwaway CA, and callers present a static
 * bearer token: kubectl connects with `server: https://127.0.0.1:<port>/k8s` in its kubeconfig.
 * Run it with `npx tsx --conditions=@orch/source examples/hono/main.ts`.
 * @module
 */
import { parseTokenFile } from "@orch/authn";
import { createCertificateAuthority } from "@orch/cli";
import { APIServer } from "@orch/server";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { randomBytes } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { stringify } from "yaml";

/** A running {@link startApp}. */
export interface HonoApp {
  /** `https://127.0.0.1:<port>`: the app's own routes. */
  url: string;
  /** `https://127.0.0.1:<port>/k8s`: what a kubeconfig's `server` names. */
  apiURL: string;
  /** The CA that signed the serving certificate, PEM. */
  caPem: string;
  /** The bearer token of `admin` (in `system:masters`). */
  token: string;
  /** The embedded server. */
  api: APIServer;
  close(): Promise<void>;
}

/** Starts a Hono app with orch mounted under `/k8s`, beside the app's own `/hello` route. */
export async function startApp(port = 0): Promise<HonoApp> {
  const ca = await createCertificateAuthority();
  const serving = await ca.issue({ subject: "CN=127.0.0.1", ips: ["127.0.0.1"], usage: "server" });
  const token = randomBytes(24).toString("base64url");
  const api = new APIServer({
    authenticators: [parseTokenFile(`${token},admin,admin-uid,"system:masters"\n`)],
    anonymousAuth: false,
  });
  await api.ready();

  const app = new Hono();
  app.get("/hello", (c) => c.json({ hello: "from hono" }));
  // The raw Request, unread: orch reads the body itself (up to its limit) and streams watches.
  app.all("/k8s/*", (c) => api.fetch(c.req.raw, { basePath: "/k8s" }));

  const server = serve({
    fetch: app.fetch,
    port,
    hostname: "127.0.0.1",
    createServer,
    serverOptions: { key: serving.keyPem, cert: serving.certPem },
  });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) resolve();
    server.once("listening", () => resolve());
    server.once("error", reject);
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiURL: `${url}/k8s`,
    caPem: ca.certPem,
    token,
    api,
    close: async () => {
      await api.shutdown(); // ends open watches' server side
      if ("closeAllConnections" in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A kubeconfig (YAML) for kubectl through the app: the prefixed server URL, the CA and the token. */
export function kubeconfigFor(app: HonoApp): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "hono", cluster: { server: app.apiURL, "certificate-authority-data": Buffer.from(app.caPem).toString("base64") } }],
    users: [{ name: "admin", user: { token: app.token } }],
    contexts: [{ name: "hono", context: { cluster: "hono", user: "admin" } }],
    "current-context": "hono",
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const app = await startApp(8443);
  const path = join(await mkdtemp(join(tmpdir(), "orch-hono-")), "kubeconfig");
  await writeFile(path, kubeconfigFor(app), { mode: 0o600 });
  console.log(`hono with orch on ${app.apiURL}: try kubectl --kubeconfig ${path} get namespaces`);
}
