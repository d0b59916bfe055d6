/// <reference types="node" />
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isNotFound } from "@orch/meta";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "./client.js";
import { httpTransport } from "./http-transport.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

let server: Server | undefined;

async function start(handler: Handler): Promise<string> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handler(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe("httpTransport", () => {
  it("sends method, path, query, headers, bearer token and JSON body over real HTTP", async () => {
    let seen: Partial<Record<"method" | "url" | "auth" | "type" | "extra" | "body", string | undefined>> = {};
    const base = await start((req, body, res) => {
      seen = {
        method: req.method,
        url: req.url,
        auth: req.headers.authorization,
        type: req.headers["content-type"],
        extra: req.headers["x-extra"] as string,
        body,
      };
      res.writeHead(201, { "Content-Type": "application/json" });
      res.end(body);
    });
    const client = new Client({ transport: httpTransport({ baseURL: `${base}/prefix/`, bearerToken: "t0k", headers: { "X-Extra": "1" } }) });
    const created = await client.configMaps.create({ metadata: { name: "a", namespace: "n s" }, data: { k: "v" } }, { dryRun: true });
    expect(seen.method).toBe("POST");
    expect(seen.url).toBe("/prefix/api/v1/namespaces/n%20s/configmaps?dryRun=All");
    expect(seen.auth).toBe("Bearer t0k");
    expect(seen.extra).toBe("1");
    expect(seen.type).toBe("application/json");
    expect(JSON.parse(seen.body ?? "")).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "n s" }, data: { k: "v" } });
    expect(created.metadata.name).toBe("a");
  });

  it("throws the Status of an error response", async () => {
    const base = await start((_req, _body, res) => {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "NotFound", code: 404, message: "nope" }));
    });
    const client = new Client({ transport: httpTransport({ baseURL: base }) });
    const error = await client.namespaces.get("x").catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
  });

  it("streams watch events as they are flushed, split across chunks, and closes on abort", async () => {
    let closed!: () => void;
    const clientGone = new Promise<void>((resolve) => (closed = resolve));
    const base = await start((req, _body, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MOD');
      setTimeout(() => res.write('IFIED","object":{"metadata":{"name":"a"}}}\n'), 20);
      req.socket.on("close", () => closed());
    });
    const client = new Client({ transport: httpTransport({ baseURL: base, fetch: (input, init) => fetch(input, init) }) });
    const controller = new AbortController();
    const types: string[] = [];
    for await (const event of client.namespaces.watch({ signal: controller.signal })) {
      types.push(event.type);
      if (types.length === 2) controller.abort();
    }
    expect(types).toEqual(["ADDED", "MODIFIED"]);
    await clientGone;
  });

  it("ends the iteration when the server ends the stream", async () => {
    const base = await start((_req, _body, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
    });
    const client = new Client({ transport: httpTransport({ baseURL: base }) });
    const events = [];
    for await (const event of client.namespaces.watch()) events.push(event);
    expect(events).toHaveLength(1);
  });
});
