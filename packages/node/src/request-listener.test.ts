import { request as httpRequest, type IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { APIRequest, APIResponse } from "@orch/server";
import type { RequestHandler } from "./request-listener.js";
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
