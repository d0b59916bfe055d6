import { get, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { APIRequest, APIResponse } from "@orch/server";
import type { RequestHandler } from "./request-listener.js";
import { serve, type ServedServer } from "./serve.js";

let served: ServedServer | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

function getText(url: string): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
    }).on("error", reject);
  });
}

/** A stream that never ends on its own, and records when its consumer returns it. */
function endless(state: { returned: boolean }): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator]: () => {
      let first = true;
      let wake: (() => void) | undefined;
      return {
        next: async (): Promise<IteratorResult<string>> => {
          if (first) {
            first = false;
            return { done: false, value: "hello\n" };
          }
          if (!state.returned) await new Promise<void>((r) => (wake = r));
          return { done: true, value: undefined };
        },
        return: async (): Promise<IteratorResult<string>> => {
          state.returned = true;
          wake?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

describe("serve", () => {
  it("listens on 127.0.0.1 with a picked port and reports its url", async () => {
    const server: RequestHandler = {
      maxRequestBodyBytes: 1024,
      handle: async () => ({ status: 200, headers: new Headers(), body: "hi" }),
      shutdown: async () => {},
    };
    served = await serve(server);
    expect(served.port).toBeGreaterThan(0);
    expect(served.url).toBe(`http://127.0.0.1:${served.port}`);
    expect(await getText(served.url)).toMatchObject({ status: 200, body: "hi" });
  });

  it("rejects when the port is taken", async () => {
    const server: RequestHandler = { maxRequestBodyBytes: 1, handle: async () => ({ status: 200, headers: new Headers() }), shutdown: async () => {} };
    served = await serve(server);
    await expect(serve(server, { port: served.port })).rejects.toThrow(/EADDRINUSE/);
  });
});

describe("graceful close", () => {
  it("calls shutdown first and serves requests through the shutdown delay", async () => {
    const events: string[] = [];
    let releaseShutdown!: () => void;
    const server: RequestHandler = {
      maxRequestBodyBytes: 1024,
      handle: async () => ({ status: 200, headers: new Headers(), body: "during" }),
      shutdown: () => {
        events.push("shutdown");
        return new Promise<void>((r) => (releaseShutdown = r));
      },
    };
    served = await serve(server);
    const closing = served.close();
    expect(events).toEqual(["shutdown"]);
    expect((await getText(served.url)).body).toBe("during");
    releaseShutdown();
    await closing;
    await expect(getText(served.url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("ends open streams cleanly and returns their iterators", async () => {
    const state = { returned: false };
    const seen: APIRequest[] = [];
    const server: RequestHandler = {
      maxRequestBodyBytes: 1024,
      handle: async (req) => {
        seen.push(req);
        return { status: 200, headers: new Headers(), stream: endless(state) };
      },
      shutdown: async () => {},
    };
    served = await serve(server, { drainTimeoutMs: 5000 });
    const started = Date.now();
    const result = new Promise<{ body: string; complete: boolean }>((resolve, reject) => {
      get(served!.url + "/watch", { agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ body, complete: res.complete }));
        res.on("error", reject);
      }).on("error", reject);
    });
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    await served.close();
    const { body, complete } = await result;
    expect(body).toBe("hello\n");
    expect(complete).toBe(true);
    expect(state.returned).toBe(true);
    expect(seen[0]?.signal?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("ends at once a stream that starts while the server drains (a watch re-opened on a kept-alive connection)", async () => {
    const state = { returned: false };
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    let asked = false;
    const server: RequestHandler = {
      maxRequestBodyBytes: 1024,
      handle: async () => {
        asked = true;
        await answered;
        return { status: 200, headers: new Headers(), stream: endless(state) };
      },
      shutdown: async () => {},
    };
    served = await serve(server, { drainTimeoutMs: 5000 });
    const result = new Promise<{ body: string; complete: boolean; connection: string | undefined }>((resolve, reject) => {
      get(served!.url + "/watch", { agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ body, complete: res.complete, connection: res.headers.connection }));
        res.on("error", reject);
      }).on("error", reject);
    });
    while (!asked) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    const closed = served.close();
    await new Promise((r) => setTimeout(r, 50));
    answer();
    await closed;
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await result).toEqual({ body: "", complete: true, connection: "close" });
    expect(state.returned).toBe(true);
  });

  it("lets an in-flight request finish, and destroys one that outlives the drain timeout", async () => {
    const releases: Array<() => void> = [];
    const server: RequestHandler = {
      maxRequestBodyBytes: 1024,
      handle: (req) =>
        new Promise<APIResponse>((resolve) => {
          if (req.url === "/slow") releases.push(() => resolve({ status: 200, headers: new Headers(), body: "done" }));
          // "/stuck" never answers.
        }),
      shutdown: async () => {},
    };
    served = await serve(server, { drainTimeoutMs: 300 });
    const slow = getText(served.url + "/slow");
    const stuck = new Promise<string>((resolve) => {
      const req = httpRequest(served!.url + "/stuck", { agent: false }, () => resolve("answered"));
      req.on("error", (e) => resolve((e as NodeJS.ErrnoException).code ?? "error"));
      req.end();
    });
    while (releases.length === 0) await new Promise((r) => setTimeout(r, 5));
    const closed = served.close();
    await new Promise((r) => setTimeout(r, 50));
    releases[0]!();
    expect(await slow).toMatchObject({ status: 200, body: "done", connection: "close" });
    await closed;
    expect(await stuck).toBe("ECONNRESET");
  });
});

describe("malformed requests", () => {
  it("answers a request Node cannot parse with a 400 Status, and keeps serving", async () => {
    const server: RequestHandler = {
      maxRequestBodyBytes: 1024,
      handle: async () => ({ status: 200, headers: new Headers(), body: "fine" }),
      shutdown: async () => {},
    };
    served = await serve(server);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(served!.port, "127.0.0.1", () => socket.write("NOT HTTP AT ALL\r\n\r\n"));
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (c: string) => (text += c));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4));
    expect(body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "BadRequest", code: 400 });
    expect((await getText(served.url)).body).toBe("fine");
  });
});
