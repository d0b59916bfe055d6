import { afterEach, describe, expect, it } from "vitest";
import type { APIRequest, APIResponse } from "./api-request.js";
import { APIServer } from "./api-server.js";
import { normalizeBasePath, stripBasePath } from "./base-path.js";
import { serveFetch, type FetchTarget } from "./serve-fetch.js";

const servers: APIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

function newServer(): APIServer {
  const server = new APIServer();
  servers.push(server);
  return server;
}

/** A fake server: answers with `respond`, and records what it was handed. */
function fake(respond: (req: APIRequest) => APIResponse = () => ({ status: 200, headers: new Headers(), body: "ok" }), maxRequestBodyBytes = 1024) {
  const seen: APIRequest[] = [];
  const target: FetchTarget = {
    maxRequestBodyBytes,
    handle: async (req) => {
      seen.push(req);
      return respond(req);
    },
  };
  return { target, seen };
}

const json = (value: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(value) });

describe("APIServer.fetch", () => {
  it("creates, patches and reads back a ConfigMap through web-standard Requests", async () => {
    const server = newServer();
    const created = await server.fetch(new Request("http://x/api/v1/namespaces/default/configmaps", json({ metadata: { name: "c" }, data: { a: "1" } })));
    expect(created.status).toBe(201);
    const patched = await server.fetch(
      new Request("http://x/api/v1/namespaces/default/configmaps/c", {
        method: "PATCH",
        headers: { "content-type": "application/merge-patch+json" },
        body: '{"data":{"b":"2"}}',
      }),
    );
    expect(patched.status).toBe(200);
    const got = await server.fetch(new Request("http://x/api/v1/namespaces/default/configmaps/c"));
    expect(await got.json()).toMatchObject({ kind: "ConfigMap", data: { a: "1", b: "2" } });
  });

  it("serves under basePath: the prefixed path reaches the API, and a path outside it is a 404 Status", async () => {
    const server = newServer();
    const list = await server.fetch(new Request("http://x/k8s/api/v1/namespaces?limit=1"), { basePath: "/k8s" });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ kind: "NamespaceList", metadata: { continue: expect.any(String) } });
    const discovery = await server.fetch(new Request("http://x/k8s/api"), { basePath: "/k8s" });
    expect(await discovery.json()).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    for (const url of ["http://x/api/v1/namespaces", "http://x/k8sx/api", "http://x/"]) {
      const outside = await server.fetch(new Request(url), { basePath: "/k8s" });
      expect(outside.status).toBe(404);
      expect(await outside.json()).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server could not find the requested resource",
        reason: "NotFound",
        details: {},
        code: 404,
      });
    }
  });

  it("keeps the OpenAPI index's links rooted at /openapi/v3, which clients resolve under their own prefix", async () => {
    const server = newServer();
    const index = (await (await server.fetch(new Request("http://x/k8s/openapi/v3"), { basePath: "/k8s" })).json()) as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    const link = index.paths["api/v1"]!.serverRelativeURL;
    expect(link).toMatch(/^\/openapi\/v3\/api\/v1\?hash=/);
    const doc = await server.fetch(new Request(`http://x/k8s${link}`), { basePath: "/k8s" });
    expect(doc.status).toBe(200);
  });

  it("streams a watch event by event, and cancelling the body aborts the request's signal", async () => {
    const server = newServer();
    const watch = await server.fetch(new Request("http://x/k8s/api/v1/namespaces/default/configmaps?watch=1"), { basePath: "/k8s" });
    expect(watch.status).toBe(200);
    expect(watch.headers.get("content-length")).toBeNull();
    const reader = watch.body!.getReader();
    await server.fetch(new Request("http://x/api/v1/namespaces/default/configmaps", json({ metadata: { name: "w" } })));
    const { value } = await reader.read();
    expect(JSON.parse(new TextDecoder().decode(value))).toMatchObject({ type: "ADDED", object: { metadata: { name: "w" } } });
    await reader.cancel();
  });

  it("ends a watch when the request's signal aborts", async () => {
    const { target, seen } = fake(() => ({ status: 200, headers: new Headers(), stream: (async function* () {})() }));
    const abort = new AbortController();
    await serveFetch(target, new Request("http://x/watch", { signal: abort.signal }));
    expect(seen[0]?.signal?.aborted).toBe(false);
    abort.abort();
    expect(seen[0]?.signal?.aborted).toBe(true);
  });

  it("answers 413 for a body over the limit, declared or streamed, without handing it on", async () => {
    const { target, seen } = fake();
    const declared = await serveFetch(target, new Request("http://x/a", { method: "POST", body: "a".repeat(1025) }));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ reason: "RequestEntityTooLarge", message: "Request entity too large: limit is 1024" });
    const chunks = [new Uint8Array(600), new Uint8Array(600)];
    const stream = new ReadableStream<Uint8Array>({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) });
    const streamed = await serveFetch(target, new Request("http://x/a", { method: "POST", body: stream, duplex: "half" } as RequestInit));
    expect(streamed.status).toBe(413);
    expect(seen).toHaveLength(0);
  });

  it("answers 500 InternalError, not a TypeError, when a middleware already read the body", async () => {
    const { target, seen } = fake();
    const request = new Request("http://x/api/v1/namespaces", json({ metadata: { name: "n" } }));
    await request.json();
    const res = await serveFetch(target, request);
    expect(res.status).toBe(500);
    const status = (await res.json()) as { reason: string; message: string };
    expect(status.reason).toBe("InternalError");
    expect(status.message).toContain("consumed by an earlier middleware");
    expect(seen).toHaveLength(0);
  });

  it("answers HEAD with no body, and hands on an empty body as none", async () => {
    const { target, seen } = fake();
    const head = await serveFetch(target, new Request("http://x/", { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    await serveFetch(target, new Request("http://x/", { method: "POST", body: "" }));
    expect(seen[1]?.body).toBeUndefined();
  });

  it("rejects a basePath that is not a path", async () => {
    await expect(newServer().fetch(new Request("http://x/"), { basePath: "k8s" })).rejects.toThrow(TypeError);
  });
});

describe("base paths", () => {
  it("normalizes: none for undefined, empty or /, no trailing slash", () => {
    expect([undefined, "", "/", "//"].map(normalizeBasePath)).toEqual(["", "", "", ""]);
    expect(normalizeBasePath("/k8s/")).toBe("/k8s");
    expect(normalizeBasePath("/a/b")).toBe("/a/b");
    for (const bad of ["k8s", "/a?b", "/a#b", "/a//b"]) expect(() => normalizeBasePath(bad)).toThrow(TypeError);
  });

  it("strips the prefix at a segment boundary only", () => {
    expect(stripBasePath("/k8s/api?x=1", "/k8s")).toBe("/api?x=1");
    expect(stripBasePath("/k8s", "/k8s")).toBe("/");
    expect(stripBasePath("/k8s?x", "/k8s")).toBe("/?x");
    expect(stripBasePath("/k8sx/api", "/k8s")).toBeUndefined();
    expect(stripBasePath("/api", "/k8s")).toBeUndefined();
    expect(stripBasePath("/api", "")).toBe("/api");
  });
});
