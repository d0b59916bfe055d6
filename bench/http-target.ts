/**
 * The server side of the HTTP benchmarks, run in its own process so the load generator does not
 * share its event loop: `orch` serves an `APIServer` through `@orch/node`, `baseline` is a bare
 * `node:http` server that answers the same JSON the minimal way. Prints `port=<n>` when listening.
 * @module
 */
import { serve } from "@orch/node";
import { APIServer } from "@orch/server";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const mode = process.argv[2];
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
  data: { key: "value".repeat(20) },
};

if (mode === "orch") {
  const api = new APIServer();
  await api.ready();
  await api.handle({
    method: "POST",
    url: "/api/v1/namespaces/default/configmaps",
    headers: new Headers({ "content-type": "application/json" }),
    body: new TextEncoder().encode(JSON.stringify({ metadata: { name: "bench" }, data: object.data })),
  });
  const served = await serve(api, { port: 0 });
  console.log(`port=${served.port}`);
} else {
  // The minimum that does the same job: a Map of objects, JSON in and out, one watch fan-out.
  const objects = new Map<string, object>([["bench", object]]);
  const watchers = new Set<ServerResponse>();
  let rev = 1;
  const server = createServer((req, res) => {
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
  });
  server.listen(0, "127.0.0.1", () => console.log(`port=${(server.address() as AddressInfo).port}`));
}
