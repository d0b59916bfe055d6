/**
 * Bad input over real HTTPS, as the admin user of a running `orch-apiserver`: each request gets
 * the reference's Failure Status (`kind: Status`, `apiVersion: v1`, `status: Failure`, the
 * code and reason of the table in docs/conventions.md) or, for a watch whose client leaves, a
 * clean end; afterwards the server still serves and an object stored before is unchanged.
 */
import { connect as tlsConnect } from "node:tls";
import { request as httpsRequest } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStore } from "@orch/store";
import {
  adminRequest,
  adminTLS,
  startAPIServer,
  startInProcessAPIServer,
  type RawRequest,
  type RawResponse,
  type RunningAPIServer,
} from "./support/apiserver.js";

interface StatusBody {
  kind: string;
  apiVersion: string;
  metadata: { continue?: string; resourceVersion?: string };
  status: string;
  message: string;
  reason: string;
  code: number;
  details?: { name?: string; kind?: string; causes?: { reason: string; message: string; field?: string }[]; retryAfterSeconds?: number };
}

/** Asserts `res` is a Failure Status with `code` and `reason`, and returns it. */
function expectStatus(res: RawResponse, code: number, reason: string): StatusBody {
  expect(res.status, res.text).toBe(code);
  expect(res.headers["content-type"]).toBe("application/json");
  expect(res.json).toMatchObject({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code, reason });
  const status = res.json as StatusBody;
  expect(status.message.length).toBeGreaterThan(0);
  return status;
}

const json = (body: unknown): Pick<RawRequest, "headers" | "body"> => ({
  headers: { "Content-Type": "application/json" },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

const base = "/api/v1/namespaces/bad-input/configmaps";

describe("bad input over HTTPS to orch-apiserver", () => {
  let server: RunningAPIServer;
  let call: (request: RawRequest) => Promise<RawResponse>;
  /** The stored ConfigMap `keep`, as read right after its creation. */
  let kept: unknown;

  beforeAll(async () => {
    server = await startAPIServer();
    call = (request) => adminRequest(server, request);
    expect((await call({ method: "POST", path: "/api/v1/namespaces", ...json({ metadata: { name: "bad-input" } }) })).status).toBe(201);
    const created = await call({ method: "POST", path: base, ...json({ metadata: { name: "keep", labels: { a: "b" } }, data: { k: "v" } }) });
    expect(created.status).toBe(201);
    kept = (await call({ path: `${base}/keep` })).json;
  });

  afterAll(async () => {
    // Nothing any test sent was worth a line on stderr, let alone a crash.
    expect(server?.stderr()).toBe("");
    expect(await server?.stop()).toBe(0);
  });

  /** The server still answers, and `keep` is exactly as it was stored. */
  async function expectStillServing(): Promise<void> {
    const res = await call({ path: `${base}/keep` });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(kept);
    expect((await call({ path: "/api/v1/namespaces/default" })).status).toBe(200);
  }

  it("malformed JSON: 400 BadRequest on create, update and merge patch", async () => {
    const create = expectStatus(await call({ method: "POST", path: base, ...json('{"metadata":{"name":"x"}') }), 400, "BadRequest");
    expect(create.message).toMatch(/^couldn't get version\/kind; json parse error: /);
    expectStatus(await call({ method: "PUT", path: `${base}/keep`, ...json("{not json") }), 400, "BadRequest");
    expectStatus(
      await call({ method: "PATCH", path: `${base}/keep`, headers: { "Content-Type": "application/merge-patch+json" }, body: '{"data":' }),
      400,
      "BadRequest",
    );
    expectStatus(await call({ method: "POST", path: base, ...json("") }), 400, "BadRequest");
    await expectStillServing();
  });

  it("wrong JSON types: 400 BadRequest naming the field, for create, update and patch", async () => {
    const data = expectStatus(await call({ method: "POST", path: base, ...json({ metadata: { name: "typed" }, data: { a: 1 } }) }), 400, "BadRequest");
    expect(data.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number 1 into Go struct field ConfigMap.data of type string',
    );
    const name = expectStatus(await call({ method: "POST", path: base, ...json({ metadata: { name: 5 } }) }), 400, "BadRequest");
    expect(name.message).toContain("ConfigMap.metadata.name of type string");
    expectStatus(await call({ method: "POST", path: base, ...json([1, 2]) }), 400, "BadRequest");
    expectStatus(await call({ method: "PUT", path: `${base}/keep`, ...json({ metadata: { name: "keep" }, data: { k: true } }) }), 400, "BadRequest");
    expectStatus(
      await call({ method: "PATCH", path: `${base}/keep`, headers: { "Content-Type": "application/merge-patch+json" }, body: '{"data":{"k":["v"]}}' }),
      400,
      "BadRequest",
    );
    expectStatus(
      await call({ method: "PATCH", path: `${base}/keep`, headers: { "Content-Type": "application/json-patch+json" }, body: '{"op":"add"}' }),
      400,
      "BadRequest",
    );
    expect((await call({ path: `${base}/typed` })).status).toBe(404);
    await expectStillServing();
  });

  it("a body over 3 MiB: 413 RequestEntityTooLarge, and the connection's client still reads it", async () => {
    const big = JSON.stringify({ metadata: { name: "big" }, data: { blob: "x".repeat(3 * 1024 * 1024) } });
    const res = await call({ method: "POST", path: base, ...json(big), timeoutMs: 20_000 });
    const status = expectStatus(res, 413, "RequestEntityTooLarge");
    expect(status.message).toContain(String(3 * 1024 * 1024));
    // Under the limit but over the 1 MiB of ConfigMap data: stored nowhere, 422.
    const large = await call({ method: "POST", path: base, ...json({ metadata: { name: "large" }, data: { blob: "x".repeat(1024 * 1024 + 1) } }) });
    const invalid = expectStatus(large, 422, "Invalid");
    // On the whole object, as the reference reports it (an empty field path).
    expect(invalid.details?.causes).toEqual([
      { reason: "FieldValueTooLong", field: "", message: expect.stringContaining(`must have at most ${1024 * 1024} bytes`) },
    ]);
    expect((await call({ path: `${base}/big` })).status).toBe(404);
    expect((await call({ path: `${base}/large` })).status).toBe(404);
    await expectStillServing();
  });

  it("an unknown verb or path: 405 MethodNotAllowed and 404 NotFound", async () => {
    expectStatus(await call({ method: "PROPFIND", path: base }), 405, "MethodNotAllowed");
    expectStatus(await call({ method: "PROPFIND", path: `${base}/keep` }), 405, "MethodNotAllowed");
    for (const path of [
      "/api/v1/nothings",
      "/api/v1/namespaces/bad-input/nothings/x",
      "/apis/nope.example.com/v1/things",
      "/not/an/api",
      `${base}/keep/nosuchsub`,
    ]) {
      const status = expectStatus(await call({ path }), 404, "NotFound");
      expect(status.message).toBe("the server could not find the requested resource");
    }
    expectStatus(await call({ method: "DELETE", path: "/api/v1/nothings/x" }), 404, "NotFound");
    await expectStillServing();
  });

  it("a request the HTTP parser refuses: 400 BadRequest, then the connection closes", async () => {
    const tls = await adminTLS(server.dataDir);
    const port = Number(new URL(server.url).port);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = tlsConnect({ host: "127.0.0.1", port, ...tls, servername: "localhost" }, () => socket.end("NOT AN HTTP REQUEST\r\n\r\n"));
      let out = "";
      socket.setEncoding("utf8").on("data", (c: string) => (out += c));
      socket.on("end", () => resolve(out));
      socket.on("error", reject);
      socket.setTimeout(10_000, () => socket.destroy(new Error("no answer")));
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as StatusBody;
    expect(body).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code: 400, reason: "BadRequest" });
    await expectStillServing();
  });

  it("an unsupported body type is 415, a truncated protobuf body 400", async () => {
    expectStatus(await call({ method: "POST", path: base, headers: { "Content-Type": "text/csv" }, body: "a,b" }), 415, "UnsupportedMediaType");
    expectStatus(
      await call({ method: "POST", path: base, headers: { "Content-Type": "application/vnd.kubernetes.protobuf" }, body: "k8s\u0000\n\u000f" }),
      400,
      "BadRequest",
    );
    expectStatus(await call({ path: `${base}/keep`, headers: { Accept: "text/html" } }), 406, "NotAcceptable");
    await expectStillServing();
  });

  it("an invalid name: 422 Invalid with a metadata.name cause", async () => {
    const status = expectStatus(await call({ method: "POST", path: base, ...json({ metadata: { name: "Not Valid" } }) }), 422, "Invalid");
    expect(status.message).toMatch(/^ConfigMap "Not Valid" is invalid: metadata\.name: Invalid value: "Not Valid": a lowercase RFC 1123 subdomain/);
    expect(status.details).toMatchObject({ name: "Not Valid", kind: "ConfigMap", causes: [{ reason: "FieldValueInvalid", field: "metadata.name" }] });
    const ns = expectStatus(await call({ method: "POST", path: "/api/v1/namespaces", ...json({ metadata: { name: "a.b" } }) }), 422, "Invalid");
    expect(ns.message).toBe('Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
    const long = "x".repeat(254);
    expectStatus(await call({ method: "POST", path: base, ...json({ metadata: { name: long } }) }), 422, "Invalid");
    // A name in the URL that no object could have is simply not found.
    expectStatus(await call({ path: `${base}/Not%20Valid` }), 404, "NotFound");
    await expectStillServing();
  });

  it("a namespace in a cluster-scoped path: 404 NotFound, and nothing is created", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/v1/namespaces/default/namespaces/x", undefined],
      ["GET", "/api/v1/namespaces/default/namespaces", undefined],
      ["POST", "/api/v1/namespaces/default/namespaces", { metadata: { name: "x" } }],
      ["PUT", "/api/v1/namespaces/default/namespaces/x", { metadata: { name: "x" } }],
      ["DELETE", "/api/v1/namespaces/default/namespaces/x", undefined],
      ["GET", "/apis/coordination.orch.io/v1/namespaces/default/namespaces", undefined],
    ] as const) {
      const res = await call({ method, path, ...(body ? json(body) : {}) });
      const status = expectStatus(res, 404, "NotFound");
      expect(status.message).toBe("the server could not find the requested resource");
    }
    expectStatus(await call({ path: "/api/v1/namespaces/x" }), 404, "NotFound");
    await expectStillServing();
  });

  it("a bad label or field selector: 400 BadRequest naming the problem", async () => {
    const open = expectStatus(await call({ path: `${base}?labelSelector=${encodeURIComponent("a in (b")}` }), 400, "BadRequest");
    expect(open.message).toBe("unable to parse requirement: found '', expected: ',' or ')'");
    expectStatus(await call({ path: `${base}?labelSelector=${encodeURIComponent("!!a")}` }), 400, "BadRequest");
    expectStatus(await call({ path: `/api/v1/configmaps?labelSelector=${encodeURIComponent("a=" + "v".repeat(64))}` }), 400, "BadRequest");
    expectStatus(await call({ path: `${base}?watch=1&labelSelector=${encodeURIComponent("x notin")}` }), 400, "BadRequest");
    const field = expectStatus(await call({ path: `${base}?fieldSelector=data.k%3Dv` }), 400, "BadRequest");
    expect(field.message).toBe("field label not supported: data.k");
    expectStatus(await call({ path: `${base}?fieldSelector=metadata.name` }), 400, "BadRequest");
    expectStatus(await call({ method: "DELETE", path: `${base}?labelSelector=${encodeURIComponent("a in (b")}` }), 400, "BadRequest");
    await expectStillServing();
  });

  it("a malformed continue token: 400 BadRequest", async () => {
    const garbage = expectStatus(await call({ path: `${base}?limit=1&continue=not-a-token` }), 400, "BadRequest");
    expect(garbage.message).toMatch(/^invalid continue token: continue key is not valid/);
    const token = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    expectStatus(await call({ path: `${base}?limit=1&continue=${token({ v: "meta.orch.io/v1", rv: 2, start: "../../secrets/" })}` }), 400, "BadRequest");
    expectStatus(await call({ path: `${base}?limit=1&continue=${token({ v: "meta.k8s.io/v1", rv: 2, start: "keep" })}` }), 400, "BadRequest");
    const zero = expectStatus(await call({ path: `${base}?limit=1&continue=${token({ v: "meta.orch.io/v1", rv: 0, start: "keep" })}` }), 400, "BadRequest");
    expect(zero.message).toContain("incorrect encoded start resourceVersion");
    // A token and a resourceVersion together are refused too.
    const page = await call({ path: "/api/v1/namespaces?limit=1" });
    const next = (page.json as { metadata: { continue: string } }).metadata.continue;
    expect(next).toBeTruthy();
    expectStatus(await call({ path: `/api/v1/namespaces?limit=1&continue=${next}&resourceVersion=1` }), 400, "BadRequest");
    await expectStillServing();
  });

  it("a non-numeric resourceVersion: 400 BadRequest on get, list and watch", async () => {
    for (const path of [
      `${base}/keep?resourceVersion=abc`,
      `${base}?resourceVersion=1.5`,
      `${base}?watch=1&resourceVersion=-3`,
      `${base}?resourceVersion=1&resourceVersionMatch=Sometimes`,
    ]) {
      expectStatus(await call({ path }), 400, "BadRequest");
    }
    await expectStillServing();
  });

  it("a future resourceVersion: 504 Timeout with Retry-After, after the bounded 3 s wait", async () => {
    const started = performance.now();
    const res = await call({ path: `${base}?resourceVersion=999999&resourceVersionMatch=NotOlderThan`, timeoutMs: 15_000 });
    const elapsed = performance.now() - started;
    const status = expectStatus(res, 504, "Timeout");
    expect(status.message).toMatch(/^Timeout: Too large resource version: 999999, current: \d+$/);
    expect(status.details?.causes).toEqual([{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }]);
    expect(res.headers["retry-after"]).toBe(String(status.details?.retryAfterSeconds));
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    expect(elapsed).toBeLessThan(10_000);
    await expectStillServing();
  });

  it("clients that disconnect mid-watch: the server drops their watches and keeps serving, and new watches see changes", async () => {
    const tls = await adminTLS(server.dataDir);
    // Twenty watches, each torn down after its first event (the synthetic ADDED of keep).
    await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          new Promise<void>((resolve, reject) => {
            const req = httpsRequest(`${server.url}${base}?watch=1${i % 2 ? "&labelSelector=a%3Db" : ""}`, { ...tls, agent: false, timeout: 10_000 }, (res) => {
              expect(res.statusCode).toBe(200);
              res.setEncoding("utf8").once("data", (chunk: string) => {
                expect(JSON.parse(chunk.split("\n")[0]!)).toMatchObject({ type: "ADDED", object: { metadata: { name: "keep" } } });
                req.destroy();
                resolve();
              });
            });
            req.on("timeout", () => req.destroy(new Error("watch did not start")));
            req.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? undefined : reject(e)));
            req.end();
          }),
      ),
    );
    // A watch abandoned while still waiting for its first event.
    await new Promise<void>((resolve) => {
      const req = httpsRequest(`${server.url}${base}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dnobody`, { ...tls, agent: false }, () => {
        req.destroy();
        resolve();
      });
      req.on("error", () => resolve());
      req.end();
    });
    // Writes go on, and a fresh watch sees them.
    const list = await call({ path: base });
    const rv = (list.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const events = new Promise<string[]>((resolve, reject) => {
      const req = httpsRequest(`${server.url}${base}?watch=1&resourceVersion=${rv}&timeoutSeconds=5`, { ...tls, agent: false }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => {
          text += c;
          const lines = text.split("\n").filter(Boolean);
          if (lines.length >= 2) {
            req.destroy();
            resolve(
              lines.map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } }).map((e) => `${e.type} ${e.object.metadata.name}`),
            );
          }
        });
        res.on("end", () => reject(new Error(`watch ended with only: ${text}`)));
      });
      req.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? undefined : reject(e)));
      req.end();
    });
    expect((await call({ method: "POST", path: base, ...json({ metadata: { name: "after-watch" } }) })).status).toBe(201);
    expect((await call({ method: "DELETE", path: `${base}/after-watch` })).status).toBe(200);
    expect(await events).toEqual(["ADDED after-watch", "DELETED after-watch"]);
    await expectStillServing();
  });
});

describe("bad input: an expired continue token (orch-apiserver in this process, over a store the test compacts)", () => {
  const store = new MemoryStore({ historyWindowMs: Infinity });
  let server: RunningAPIServer;

  beforeAll(async () => {
    server = await startInProcessAPIServer(store);
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    store.close();
  });

  it("answers a token older than the compacted revision with 410 Expired and a fresh continue token for the rest", async () => {
    const call = (request: RawRequest) => adminRequest(server, request);
    for (const name of ["a", "b", "c"]) {
      expect((await call({ method: "POST", path: "/api/v1/namespaces/default/configmaps", ...json({ metadata: { name } }) })).status).toBe(201);
    }
    const first = await call({ path: "/api/v1/namespaces/default/configmaps?limit=1" });
    const page = first.json as { metadata: { continue: string; resourceVersion: string }; items: { metadata: { name: string } }[] };
    expect(page.items.map((i) => i.metadata.name)).toEqual(["a"]);
    // The store moves on and forgets the revision the token was taken at.
    expect((await call({ method: "DELETE", path: "/api/v1/namespaces/default/configmaps/b" })).status).toBe(200);
    await store.compact(await store.revision());

    const expired = await call({ path: `/api/v1/namespaces/default/configmaps?limit=1&continue=${page.metadata.continue}` });
    const status = expectStatus(expired, 410, "Expired");
    expect(status.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
    expect(status.metadata.continue).toBeTruthy();
    // The fresh token lists the remainder at the newest revision: b is gone, c is there.
    const rest = await call({ path: `/api/v1/namespaces/default/configmaps?limit=10&continue=${status.metadata.continue}` });
    expect(rest.status).toBe(200);
    expect((rest.json as typeof page).items.map((i) => i.metadata.name)).toEqual(["c"]);
    // A get or list at the compacted exact revision is 410 Gone/Expired too.
    const exact = await call({ path: `/api/v1/namespaces/default/configmaps?resourceVersion=${page.metadata.resourceVersion}&resourceVersionMatch=Exact` });
    expect(exact.status).toBe(410);
    expect(exact.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code: 410 });
    expect((await call({ path: "/api/v1/namespaces/default/configmaps/a" })).status).toBe(200);
  });
});
