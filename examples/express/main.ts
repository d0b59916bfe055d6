/**
 * Mounting orch inside an Express app: the app keeps its own routes and its body parser
 * (`express.json()`, registered for every route), and the API paths (`/api`, `/apis`,
 * `/openapi`, `/version`, health) go to an in-memory `APIServer` through the `@orch/node`
 * request listener, which takes the body the parser left in `req.body`. Run it with
 * `npx tsx --conditions=@orch/source examples/express/main.ts`.
 * @module
 */
import { createRequestListener } from "@orch/node";
import { APIServer } from "@orch/server";
import express from "express";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";

const apiPaths = /^\/(api|apis|openapi|version|livez|readyz|healthz)(\/|\?|$)/;

/** Starts an Express app with orch mounted beside the app's own `/hello` and `/echo` routes. */
export async function startApp(port = 0): Promise<{ url: string; api: APIServer; close(): Promise<void> }> {
  const api = new APIServer();
  await api.ready();
  const orch = createRequestListener(api);
  const app = express();
  // The app's parser runs before orch: what it parses (application/json) orch takes from
  // req.body; what it skips (merge patches, YAML) orch reads from the stream. Its 100 kB default
  // limit applies to the JSON it parses, so raise it to orch's 3 MiB.
  app.use(express.json({ limit: api.maxRequestBodyBytes }));
  app.get("/hello", (_req, res) => {
    res.json({ hello: "from express" });
  });
  app.post("/echo", (req, res) => {
    res.json(req.body);
  });
  app.use((req, res, next) => (apiPaths.test(req.url) ? orch(req, res) : next()));
  const server = app.listen(port, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    api,
    close: async () => {
      await api.shutdown();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const app = await startApp(8080);
  console.log(`express with orch on ${app.url}: try ${app.url}/api/v1/namespaces`);
}
