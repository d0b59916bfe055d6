/**
 * The server side of the HTTP benchmarks, run in its own process so the load generator does not
 * share its event loop: `orch` serves an `APIServer` through `@orch/node`, `baseline` is a bare
 * `node:http` (or `node:https`) server that answers the same JSON the minimal way, and `adapter`
 * does the baseline's work behind `@orch/node`'s `serve()` (what the adapter alone costs). All serve
 * HTTPS when `ORCH_BENCH_TLS_CERT` and `ORCH_BENCH_TLS_KEY` hold a PEM certificate and key.
 * Prints `port=<n>` when listening, and `cpu=<µs>` (the process's user and system CPU time so
 * far) for each `cpu` line read on standard input, so the benchmark can tell the server's CPU
 * time per request apart from the load generator's. An `exit` line ends it normally (so that a
 * `--cpu-prof` profile is written).
 * @module
 */
import { serve, type RequestHandler } from "@orch/node";
import { APIServer } from "@orch/server";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";

const mode = process.argv[2];
// How many objects (u0, u1, ...) the update and patch cases spread their writes over, so that the
// 16 clients do not retry conflicts on one object; http.bench.ts writes to the same names.
const updateTargets = 256;
const data = { key: "value".repeat(20) };
const object = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: "bench",
    namespace: "default",
    uid: "00000000-0000-0000-0000-000000000000",
    resourceVersion: "1",
    creationTimestamp: "2026-11-21T00:00:00Z",
  },
  data,
};
const cert = process.env.ORCH_BENCH_TLS_CERT;
const key = process.env.ORCH_BENCH_TLS_KEY;
const tls = cert && key ? { cert, key } : undefined;

createInterface({ input: process.stdin }).on("line", (line) => {
  // `exit` ends the process normally, so that `node --cpu-prof` writes its profile.
  if (line.trim() === "exit") process.exit(0);
  if (line.trim() !== "cpu") return;
  const used = process.cpuUsage();
  console.log(`cpu=${used.user + used.system}`);
});

if (mode === "orch") {
  const api = new APIServer();
  await api.ready();
  const create = (name: string) =>
    api.handle({
      method: "POST",
      url: "/api/v1/namespaces/default/configmaps",
      headers: new Headers({ "content-type": "application/json" }),
      body: new TextEncoder().encode(JSON.stringify({ metadata: { name }, data })),
    });
  await create("bench");
  for (let i = 0; i < updateTargets; i++) await create(`u${i}`);
  const served = await serve(api, { port: 0, ...(tls ? { tls } : {}) });
  console.log(`port=${served.port}`);
} else if (mode === "adapter") {
  // The baseline's GET and POST (a Map of objects, JSON in and out) as a request handler behind
  // serve(): the difference from the baseline is what the adapter costs.
  const objects = new Map<string, object>([["bench", object]]);
  let rev = 1;
  const headers = () => new Headers({ "content-type": "application/json" });
  const handler: RequestHandler = {
    maxRequestBodyBytes: 3 * 1024 * 1024,
    shutdown: async () => {},
    handle: async (request) => {
      if (request.method === "GET") {
        const found = objects.get(request.url.split("/").pop() ?? "");
        return { status: found ? 200 : 404, headers: headers(), body: JSON.stringify(found ?? {}) };
      }
      const body = JSON.parse(new TextDecoder().decode(request.body)) as { metadata: { name?: string; generateName?: string } };
      const name = body.metadata.name ?? `${body.metadata.generateName ?? ""}${(++rev).toString(36)}`;
      const stored = { ...body, metadata: { ...body.metadata, name, resourceVersion: String(rev) } };
      objects.set(name, stored);
      return { status: 201, headers: headers(), body: JSON.stringify(stored) };
    },
  };
  const served = await serve(handler, { port: 0, ...(tls ? { tls } : {}) });
  console.log(`port=${served.port}`);
} else {
  // The minimum that does the same job: a Map of objects, JSON in and out, one watch fan-out.
  const objects = new Map<string, object>([["bench", object]]);
  const watchers = new Set<ServerResponse>();
  let rev = 1;
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "GET" && req.url?.includes("watch=")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
      watchers.add(res);
      res.on("close", () => watchers.delete(res));
      return;
    }
    if (req.method === "GET") {
      const found = objects.get(req.url?.split("/").pop() ?? "");
      res.writeHead(found ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(found ?? {}));
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { metadata: { name?: string; generateName?: string } };
      const name = body.metadata.name ?? `${body.metadata.generateName ?? ""}${(++rev).toString(36)}`;
      const stored = { ...body, metadata: { ...body.metadata, name, resourceVersion: String(rev) } };
      objects.set(name, stored);
      const line = `${JSON.stringify({ type: "ADDED", object: stored })}\n`;
      for (const w of watchers) w.write(line);
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify(stored));
    });
  };
  const server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  server.listen(0, "127.0.0.1", () => console.log(`port=${(server.address() as AddressInfo).port}`));
}
