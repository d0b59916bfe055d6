import { get, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { APIRequest, APIResponse } from "@orch/server";
import { selfSignedCA, servingCertificate } from "./internal/test-pki.js";
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

  it("writes a large body to its end in slices while the server closes, to a client that reads it slowly", async () => {
    const big = "0123456789abcdef".repeat(64 * 1024); // 1 MiB: 16 slices
    const answered: Array<() => void> = [];
    const server: RequestHandler = {
      maxRequestBodyBytes: 1024,
      handle: () => new Promise<APIResponse>((resolve) => answered.push(() => resolve({ status: 200, headers: new Headers(), body: big }))),
      shutdown: async () => {},
    };
    served = await serve(server, { drainTimeoutMs: 5000 });
    const received = new Promise<{ bytes: number; text: string }>((resolve, reject) => {
      get(served!.url + "/big", { agent: false }, (res) => {
        // Paused at first: the slices go on being written (or wait for the socket) meanwhile.
        res.pause();
        setTimeout(() => res.resume(), 200);
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ bytes: text.length, text });
        });
        res.on("error", reject);
      }).on("error", reject);
    });
    while (answered.length === 0) await new Promise((r) => setTimeout(r, 5));
    answered[0]!();
    const closed = served.close();
    const { bytes, text } = await received;
    expect(bytes).toBe(big.length);
    expect(text === big).toBe(true);
    await closed;
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

describe("slow clients", () => {
  const answering: RequestHandler = {
    maxRequestBodyBytes: 1 << 20,
    handle: async (req) => ({ status: 200, headers: new Headers(), body: `${req.method} ${req.body?.byteLength ?? 0}` }),
    shutdown: async () => {},
  };

  /** Opens a raw connection, writes `head`, then one more byte every 100 ms; resolves when the server closes it. */
  function trickle(port: number, head: string, drip: string): { closed: Promise<string>; stop: () => void } {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (c: string) => (received += c));
    socket.on("error", () => undefined);
    socket.write(head);
    const timer = setInterval(() => socket.write(drip), 100);
    const closed = new Promise<string>((resolve) =>
      socket.once("close", () => {
        clearInterval(timer);
        resolve(received);
      }),
    );
    return { closed, stop: () => socket.destroy() };
  }

  it("bounds receiving a request as the reference server does by default", async () => {
    served = await serve(answering);
    expect(served.server.headersTimeout).toBe(32_000);
    expect(served.server.requestTimeout).toBe(60_000);
  });

  it("caps the header timeout at the request timeout, and refuses a negative one", async () => {
    served = await serve(answering, { headersTimeoutMs: 5_000, requestTimeoutMs: 2_000 });
    expect(served.server.headersTimeout).toBe(2_000);
    await expect(serve(answering, { headersTimeoutMs: -1 })).rejects.toThrow(RangeError);
    await expect(serve(answering, { requestTimeoutMs: 1.5 })).rejects.toThrow(RangeError);
  });

  it("disconnects a client that trickles its headers past headersTimeoutMs, and serves others meanwhile", async () => {
    served = await serve(answering, { headersTimeoutMs: 400, requestTimeoutMs: 5_000 });
    const slow = trickle(served.port, "GET / HTTP/1.1\r\nHost: x\r\n", "a");
    expect(await getText(served.url)).toMatchObject({ status: 200, body: "GET 0" });
    // Cut off without an answer, as the reference server's header timeout does.
    expect(await slow.closed).toBe("");
  });

  it("disconnects a client that trickles its body past requestTimeoutMs", async () => {
    served = await serve(answering, { headersTimeoutMs: 400, requestTimeoutMs: 600 });
    const slow = trickle(served.port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n", "{");
    expect(await getText(served.url)).toMatchObject({ status: 200, body: "GET 0" });
    expect(await slow.closed).toBe("");
  });

  it("disconnects a client that trickles its TLS handshake past headersTimeoutMs, and keeps connections past their handshake", async () => {
    const ca = await selfSignedCA("CN=slow-ca");
    const serving = await servingCertificate(ca);
    const state = { returned: false };
    const server: RequestHandler = { ...answering, handle: async () => ({ status: 200, headers: new Headers(), stream: endless(state) }) };
    served = await serve(server, { tls: { key: serving.key, cert: serving.cert }, headersTimeoutMs: 600, requestTimeoutMs: 5_000 });
    // A ClientHello record header, then its body a byte at a time: Node's own handshake timeout
    // restarts with each byte.
    const slow = trickle(served.port, "\x16\x03\x01\x02\x00", "\x01");
    let watchClosed = false;
    const watching = new Promise<string>((resolve, reject) => {
      httpsRequest(served!.url + "/watch", { agent: false, ca: ca.cert }, (res) => {
        res.setEncoding("utf8");
        res.once("data", (c: string) => resolve(c));
        res.once("close", () => (watchClosed = true));
      })
        .on("error", reject)
        .end();
    });
    expect(await watching).toBe("hello\n");
    expect(await slow.closed).toBe("");
    await new Promise((r) => setTimeout(r, 600));
    // The streaming connection finished its handshake: the bound on handshakes left it alone.
    expect(watchClosed).toBe(false);
  });

  it("lets a response stream longer than requestTimeoutMs", async () => {
    const state = { returned: false };
    const server: RequestHandler = { ...answering, handle: async () => ({ status: 200, headers: new Headers(), stream: endless(state) }) };
    served = await serve(server, { headersTimeoutMs: 100, requestTimeoutMs: 200 });
    const response = new Promise<{ body: string; closedEarly: boolean }>((resolve, reject) => {
      get(served!.url + "/watch", { agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        // Still open well past both timeouts: the test ends it.
        const timer = setTimeout(() => {
          res.destroy();
          resolve({ body, closedEarly: false });
        }, 1_500);
        res.on("close", () => {
          clearTimeout(timer);
          resolve({ body, closedEarly: !res.destroyed });
        });
      }).on("error", reject);
    });
    expect(await response).toEqual({ body: "hello\n", closedEarly: false });
  });
});

describe("bytes after a request being answered", () => {
  it("answers the request in flight, then closes, when unframed bytes follow it past Connection: close", async () => {
    let handled = 0;
    const server: RequestHandler = {
      maxRequestBodyBytes: 1024,
      handle: async (req) => {
        handled++;
        // Answer later than the parser trips over the stray bytes.
        await new Promise((r) => setTimeout(r, 50));
        return { status: 200, headers: new Headers(), body: `answered ${req.method}` };
      },
      shutdown: async () => {},
    };
    served = await serve(server);
    const raw = await new Promise<string>((resolve, reject) => {
      // A DELETE with a body but no Content-Length: the body is bytes after the request.
      const socket = connect(served!.port, "127.0.0.1", () => socket.write('DELETE /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n{"kind":"Status"}'));
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (c: string) => (text += c));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(raw.endsWith("answered DELETE")).toBe(true);
    expect(raw).not.toContain("400 Bad Request");
    expect(handled).toBe(1);
  });
});
