import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { APIRequest, APIResponse } from "@orch/server";
import { createRequestListener, type RequestHandler } from "./request-listener.js";
import { serve, type ServedServer } from "./serve.js";

const limit = 3 * 1024 * 1024;

/** A fake server: answers with `respond`, and records what it was handed. */
function fake(respond: (req: APIRequest) => APIResponse | Promise<APIResponse>): RequestHandler & { seen: APIRequest[] } {
  const seen: APIRequest[] = [];
  return {
    seen,
    maxRequestBodyBytes: limit,
    handle: async (req) => {
      seen.push(req);
      return respond(req);
    },
    shutdown: async () => {},
  };
}

/** An async iterable the test feeds by hand; records when the consumer stops it. */
function channel() {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const state = { returned: false };
  const iterable: AsyncIterable<string> = {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<string>> => {
        for (;;) {
          if (state.returned) return { done: true, value: undefined };
          const value = queue.shift();
          if (value !== undefined) return { done: false, value };
          if (done) return { done: true, value: undefined };
          await new Promise<void>((r) => (wake = r));
        }
      },
      return: async (): Promise<IteratorResult<string>> => {
        state.returned = true;
        wake?.();
        return { done: true, value: undefined };
      },
    }),
  };
  return {
    iterable,
    state,
    push(chunk: string) {
      queue.push(chunk);
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
  };
}

function send(url: string, options: { method?: string; path?: string; body?: Buffer; chunked?: boolean } = {}) {
  return new Promise<{ status: number; headers: IncomingMessage["headers"]; body: string }>((resolve, reject) => {
    const req = httpRequest(
      url + (options.path ?? "/"),
      { method: options.method ?? "GET", agent: false, headers: options.chunked ? { "transfer-encoding": "chunked" } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (options.body && options.chunked) {
      // Several chunks, so the limit is crossed while streaming, not from Content-Length.
      const step = 1 << 20;
      for (let i = 0; i < options.body.length; i += step) req.write(options.body.subarray(i, i + step));
      req.end();
    } else req.end(options.body);
  });
}

function until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (predicate()) resolve();
      else if (Date.now() - start > timeoutMs) reject(new Error("condition not met in time"));
      else setTimeout(tick, 5);
    };
    tick();
  });
}

let served: ServedServer | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe("request translation", () => {
  it("hands the server the method, url with query, all headers and the body", async () => {
    const server = fake(() => ({ status: 200, headers: new Headers({ "content-type": "text/plain" }), body: "ok" }));
    served = await serve(server);
    const res = await send(served.url, { method: "POST", path: "/api/v1/namespaces?limit=1", body: Buffer.from('{"a":1}') });
    expect(res.status).toBe(200);
    expect(res.body).toBe("ok");
    const seen = server.seen[0]!;
    expect(seen.method).toBe("POST");
    expect(seen.url).toBe("/api/v1/namespaces?limit=1");
    expect(seen.headers.get("content-length")).toBe("7");
    expect(new TextDecoder().decode(seen.body)).toBe('{"a":1}');
    expect(seen.user).toBeUndefined();
    expect(seen.signal?.aborted).toBe(false);
  });

  it("writes status, every header (repeated Warning and Set-Cookie too) and the body", async () => {
    const headers = new Headers({ "content-type": "application/json" });
    headers.append("warning", '299 - "one"');
    headers.append("warning", '299 - "two"');
    headers.append("set-cookie", "a=1");
    headers.append("set-cookie", "b=2");
    served = await serve(fake(() => ({ status: 201, headers, body: new TextEncoder().encode("{}") })));
    const res = await send(served.url);
    expect(res.status).toBe(201);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["warning"]).toBe('299 - "one", 299 - "two"');
    expect(res.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(res.headers["content-length"]).toBe("2");
    expect(res.body).toBe("{}");
  });

  it("turns a handler that throws into a 500 Status, and keeps serving", async () => {
    let calls = 0;
    served = await serve(
      fake(() => {
        if (calls++ === 0) throw new Error("boom");
        return { status: 200, headers: new Headers(), body: "fine" };
      }),
    );
    const res = await send(served.url);
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toMatchObject({ kind: "Status", status: "Failure", reason: "InternalError", code: 500 });
    expect((await send(served.url)).body).toBe("fine");
  });
});

describe("body limit", () => {
  const tooLarge = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "Request entity too large: limit is 3145728",
    reason: "RequestEntityTooLarge",
    code: 413,
  };

  it("answers a 3 MiB + 1 byte body (Content-Length) with 413 and keeps serving", async () => {
    const server = fake(() => ({ status: 200, headers: new Headers(), body: "ok" }));
    served = await serve(server);
    const res = await send(served.url, { method: "POST", body: Buffer.alloc(limit + 1, 97) });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual(tooLarge);
    expect(server.seen).toHaveLength(0);
    const next = await send(served.url, { method: "POST", body: Buffer.alloc(limit, 97) });
    expect(next.status).toBe(200);
    expect(server.seen[0]?.body?.byteLength).toBe(limit);
  });

  it("answers a chunked body that grows past the limit with 413 and keeps serving", async () => {
    const server = fake(() => ({ status: 200, headers: new Headers(), body: "ok" }));
    served = await serve(server);
    const res = await send(served.url, { method: "PUT", body: Buffer.alloc(limit + 1, 97), chunked: true });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual(tooLarge);
    expect(server.seen).toHaveLength(0);
    expect((await send(served.url)).status).toBe(200);
  });
});

describe("streamed responses", () => {
  it("delivers each chunk before the stream ends, chunked", async () => {
    const ch = channel();
    served = await serve(fake(() => ({ status: 200, headers: new Headers({ "content-type": "application/json" }), stream: ch.iterable })));
    const received: string[] = [];
    let headers: IncomingMessage["headers"] | undefined;
    let ended = false;
    const req = httpRequest(served.url + "/watch", { agent: false }, (res) => {
      headers = res.headers;
      res.setEncoding("utf8");
      res.on("data", (c: string) => received.push(c));
      res.on("end", () => (ended = true));
    });
    req.end();
    await until(() => headers !== undefined);
    expect(headers?.["transfer-encoding"]).toBe("chunked");
    ch.push('{"type":"ADDED"}\n');
    await until(() => received.join("") === '{"type":"ADDED"}\n');
    ch.push('{"type":"MODIFIED"}\n');
    await until(() => received.join("") === '{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
    expect(ended).toBe(false);
    ch.end();
    await until(() => ended);
  });

  it("aborts the signal and ends the iterator when the client disconnects", async () => {
    const ch = channel();
    const server = fake(() => ({ status: 200, headers: new Headers(), stream: ch.iterable }));
    served = await serve(server);
    let got = "";
    const req = httpRequest(served.url + "/watch", { agent: false }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (c: string) => (got += c));
      res.on("error", () => undefined);
    });
    req.on("error", () => undefined);
    req.end();
    ch.push("first\n");
    await until(() => got === "first\n");
    req.destroy();
    await until(() => ch.state.returned && server.seen[0]?.signal?.aborted === true);
    expect(ch.state.returned).toBe(true);
    expect(server.seen[0]?.signal?.aborted).toBe(true);
  });

  it("aborts the signal when the client disconnects before the response", async () => {
    let release!: () => void;
    const server = fake(() => new Promise<APIResponse>((r) => (release = () => r({ status: 200, headers: new Headers(), body: "late" }))));
    served = await serve(server);
    const req = httpRequest(served.url, { agent: false });
    req.on("error", () => undefined);
    req.end();
    await until(() => server.seen.length === 1);
    req.destroy();
    await until(() => server.seen[0]?.signal?.aborted === true);
    release();
    expect(server.seen[0]?.signal?.aborted).toBe(true);
  });
});

/** A node:http server running `middleware` (a stand-in for a framework's body parser) before the listener. */
async function behind(
  server: RequestHandler,
  middleware: (req: IncomingMessage & { body?: unknown; rawBody?: unknown; originalUrl?: string }) => Promise<void> | void,
  options: { basePath?: string } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const listener = createRequestListener(server, options);
  const http = createServer((req, res) => {
    void Promise.resolve(middleware(req)).then(() => listener(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: () => {
      http.closeAllConnections();
      return new Promise((resolve) => http.close(() => resolve()));
    },
  };
}

/** Reads the whole stream, as a body parser does. */
async function consume(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sendWith(url: string, method: string, path: string, headers: Record<string, string>, body?: Buffer | string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(url + path, { method, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("behind a body parser", () => {
  let app: { url: string; close(): Promise<void> } | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  const ok = () => fake(() => ({ status: 200, headers: new Headers(), body: "ok" }));
  const text = (req: APIRequest | undefined) => new TextDecoder().decode(req?.body);

  it("re-encodes as JSON a body a parser left parsed in req.body, with a matching Content-Length", async () => {
    const server = ok();
    app = await behind(server, async (req) => {
      req.body = JSON.parse((await consume(req)).toString()) as unknown;
    });
    const res = await sendWith(app.url, "POST", "/api/v1/namespaces", { "content-type": "application/json" }, ' { "metadata" : { "name": "a" } } ');
    expect(res.status).toBe(200);
    expect(text(server.seen[0])).toBe('{"metadata":{"name":"a"}}');
    expect(server.seen[0]?.headers.get("content-length")).toBe("25");
    expect(server.seen[0]?.headers.get("content-type")).toBe("application/json");
  });

  it("re-encodes a parsed body of a merge patch or YAML request as JSON, which both accept", async () => {
    const server = ok();
    app = await behind(server, async (req) => {
      await consume(req);
      req.body = { data: { a: "1" } };
    });
    await sendWith(app.url, "PATCH", "/api/v1/namespaces/default/configmaps/c", { "content-type": "application/merge-patch+json" }, "data:\n  a: '1'\n");
    expect(text(server.seen[0])).toBe('{"data":{"a":"1"}}');
    expect(server.seen[0]?.headers.get("content-type")).toBe("application/merge-patch+json");
  });

  it("hands on a Buffer or string req.body as it is, and prefers the exact bytes of req.rawBody", async () => {
    const server = ok();
    const bodies: unknown[] = [Buffer.from("raw bytes"), "some text"];
    app = await behind(server, async (req) => {
      await consume(req);
      req.body = bodies.shift() ?? { parsed: true };
      if (bodies.length === 0 && req.url === "/third") req.rawBody = Buffer.from('{"parsed": true, "parsed": true}');
    });
    await sendWith(app.url, "POST", "/first", { "content-type": "application/octet-stream" }, "raw bytes");
    await sendWith(app.url, "POST", "/second", { "content-type": "text/plain" }, "some text");
    await sendWith(app.url, "POST", "/third", { "content-type": "application/json" }, '{"parsed": true, "parsed": true}');
    expect(server.seen.map(text)).toEqual(["raw bytes", "some text", '{"parsed": true, "parsed": true}']);
  });

  it("drops Content-Encoding when the parser already inflated the body", async () => {
    const server = ok();
    app = await behind(server, async (req) => {
      await consume(req);
      req.body = { a: 1 };
    });
    await sendWith(app.url, "POST", "/x", { "content-type": "application/json", "content-encoding": "gzip" }, gzipSync('{"a":1}'));
    expect(server.seen[0]?.headers.get("content-encoding")).toBeNull();
    expect(text(server.seen[0])).toBe('{"a":1}');
  });

  it("reads the stream when the parser skipped the request, whatever it left in req.body", async () => {
    const server = ok();
    app = await behind(server, (req) => {
      req.body = {}; // Express 4's body-parser sets {} on requests it does not parse
    });
    await sendWith(app.url, "PATCH", "/x", { "content-type": "application/merge-patch+json" }, '{"data":null}');
    expect(text(server.seen[0])).toBe('{"data":null}');
  });

  it("keeps an empty body empty, though express.json() turns it into {}", async () => {
    const server = ok();
    app = await behind(server, async (req) => {
      await consume(req);
      req.body = {};
    });
    await sendWith(app.url, "POST", "/x", { "content-type": "application/json", "content-length": "0" });
    expect(server.seen[0]?.body).toBeUndefined();
  });

  it("answers 500 InternalError, not a TypeError, when the stream was consumed and nothing left in req.body", async () => {
    const server = ok();
    app = await behind(server, async (req) => {
      await consume(req);
    });
    const res = await sendWith(app.url, "POST", "/x", { "content-type": "application/json" }, "{}");
    expect(res.status).toBe(500);
    const status = JSON.parse(res.body) as { reason: string; message: string };
    expect(status).toMatchObject({ kind: "Status", status: "Failure", reason: "InternalError", code: 500 });
    expect(status.message).toContain("consumed by an earlier middleware");
    expect(server.seen).toHaveLength(0);
  });

  it("answers 500 InternalError when a parsed value cannot be encoded back as protobuf", async () => {
    const server = ok();
    app = await behind(server, async (req) => {
      await consume(req);
      req.body = { kind: "ConfigMap" };
    });
    const res = await sendWith(app.url, "POST", "/x", { "content-type": "application/vnd.kubernetes.protobuf" }, "k8s\0...");
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toMatchObject({ reason: "InternalError" });
    expect(server.seen).toHaveLength(0);
  });

  it("answers 413 when the body a parser left is over the limit", async () => {
    const server = ok();
    app = await behind(server, async (req) => {
      await consume(req);
      req.body = { data: { big: "a".repeat(limit) } };
    });
    const res = await sendWith(app.url, "POST", "/x", { "content-type": "application/json" }, "{}");
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ reason: "RequestEntityTooLarge" });
    expect(server.seen).toHaveLength(0);
  });
});

describe("basePath", () => {
  let app: { url: string; close(): Promise<void> } | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("serves the API under the prefix and answers 404 Status outside it", async () => {
    const server = fake(() => ({ status: 200, headers: new Headers(), body: "ok" }));
    app = await behind(server, () => undefined, { basePath: "/k8s/" });
    expect((await sendWith(app.url, "GET", "/k8s/api/v1/namespaces?limit=1", {})).status).toBe(200);
    expect((await sendWith(app.url, "GET", "/k8s", {})).status).toBe(200);
    expect((await sendWith(app.url, "GET", "/k8s?timeout=1s", {})).status).toBe(200);
    expect(server.seen.map((r) => r.url)).toEqual(["/api/v1/namespaces?limit=1", "/", "/?timeout=1s"]);
    for (const path of ["/api/v1/namespaces", "/k8sx/api", "/"]) {
      const res = await sendWith(app.url, "GET", path, {});
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toMatchObject({ kind: "Status", reason: "NotFound", message: "the server could not find the requested resource" });
    }
    expect(server.seen).toHaveLength(3);
  });

  it("matches the prefix against req.originalUrl when a framework took its mount path off req.url", async () => {
    const server = fake(() => ({ status: 200, headers: new Headers(), body: "ok" }));
    app = await behind(
      server,
      (req) => {
        req.originalUrl = req.url ?? "/";
        req.url = (req.url ?? "/").slice("/k8s".length);
      },
      { basePath: "/k8s" },
    );
    expect((await sendWith(app.url, "GET", "/k8s/api", {})).status).toBe(200);
    expect(server.seen[0]?.url).toBe("/api");
  });

  it("refuses a basePath that is not a path", () => {
    const server = fake(() => ({ status: 200, headers: new Headers() }));
    expect(() => createRequestListener(server, { basePath: "k8s" })).toThrow(TypeError);
    expect(() => createRequestListener(server, { basePath: "/k8s?x" })).toThrow(TypeError);
  });
});
