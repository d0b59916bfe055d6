import { WatchCache } from "@orch/list";
import { serviceUnavailable } from "@orch/meta";
import { FakeClock, MemoryStore, type Store } from "@orch/store";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { APIResponse } from "./api-request.js";
import { createDefaultServiceAccount } from "./internal/testing.js";
import { APIServer } from "./api-server.js";

const servers: APIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

function newServer(options: ConstructorParameters<typeof APIServer>[0] = {}): APIServer {
  const server = new APIServer(options);
  servers.push(server);
  return server;
}

interface Call {
  status: number;
  headers: Headers;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

async function call(server: APIServer, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Call> {
  const bytes =
    body === undefined
      ? undefined
      : typeof body === "string"
        ? new TextEncoder().encode(body)
        : body instanceof Uint8Array
          ? body
          : new TextEncoder().encode(JSON.stringify(body));
  const res: APIResponse = await server.handle({ method, url, headers: new Headers(headers), ...(bytes ? { body: bytes } : {}) });
  const text = typeof res.body === "string" ? res.body : res.body ? new TextDecoder().decode(res.body) : "";
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

const cm = (name: string, data: Record<string, string> = { a: "1" }, labels?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

describe("APIServer: REST verbs", () => {
  it("creates, gets, updates and deletes a ConfigMap with server-set metadata", async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 20, 49, 14));
    const server = newServer({ clock });
    const created = await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("one"));
    expect(created.status).toBe(201);
    expect(created.json.metadata).toMatchObject({ name: "one", namespace: "default", generation: 1, creationTimestamp: "2026-11-21T20:49:14Z" });
    expect(created.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    const rv = created.json.metadata.resourceVersion;
    expect(rv).toMatch(/^[0-9]+$/);

    const got = await call(server, "GET", "/api/v1/namespaces/default/configmaps/one");
    expect(got.json).toEqual(created.json);

    const updated = await call(server, "PUT", "/api/v1/namespaces/default/configmaps/one", { ...created.json, data: { a: "2" } });
    expect(updated.status).toBe(200);
    expect(updated.json.data).toEqual({ a: "2" });
    expect(Number(updated.json.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    expect(updated.json.metadata.generation).toBe(2);

    const stale = await call(server, "PUT", "/api/v1/namespaces/default/configmaps/one", { ...created.json, data: { a: "3" } });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({
      kind: "Status",
      reason: "Conflict",
      message: 'Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again',
    });

    const unconditional = await call(server, "PUT", "/api/v1/namespaces/default/configmaps/one", cm("one", { a: "4" }));
    expect(unconditional.status).toBe(200);
    expect(unconditional.json.data).toEqual({ a: "4" });

    const deleted = await call(server, "DELETE", "/api/v1/namespaces/default/configmaps/one");
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ kind: "Status", status: "Success", details: { name: "one", kind: "configmaps" } });
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/one")).json).toMatchObject({
      code: 404,
      reason: "NotFound",
      message: 'configmaps "one" not found',
    });
  });

  it("refuses a duplicate name with 409 AlreadyExists", async () => {
    const server = newServer();
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("dup"));
    const again = await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("dup"));
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ reason: "AlreadyExists", message: 'configmaps "dup" already exists', details: { name: "dup", kind: "configmaps" } });
  });

  it("generates names from generateName with 5 characters of the reference alphabet", async () => {
    const server = newServer();
    const res = await call(server, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { generateName: "gen-" }, data: {} });
    expect(res.status).toBe(201);
    expect(res.json.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("cuts a long generateName to 58 characters, and tries fresh names when a generated one is taken", async () => {
    const server = newServer();
    const long = await call(server, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { generateName: "x".repeat(70) }, data: {} });
    expect(long.json.metadata.name).toMatch(new RegExp(`^${"x".repeat(58)}[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    expect((await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("gen-bbbbb"))).status).toBe(201);
    // Math.random 0 picks "b" five times (taken), then the next name is "gen-ccccc".
    const random = vi.spyOn(Math, "random");
    try {
      random.mockReturnValueOnce(0).mockReturnValueOnce(0).mockReturnValueOnce(0).mockReturnValueOnce(0).mockReturnValueOnce(0);
      random.mockReturnValue(1 / 27);
      const res = await call(server, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { generateName: "gen-" }, data: {} });
      expect(res.status).toBe(201);
      expect(res.json.metadata.name).toBe("gen-ccccc");
      // Every attempt taken: the 409 names the last one tried.
      random.mockReturnValue(0);
      const clash = await call(server, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { generateName: "gen-" }, data: {} });
      expect(clash.status).toBe(409);
      expect(clash.json).toMatchObject({ reason: "AlreadyExists", details: { name: "gen-bbbbb", kind: "configmaps" } });
    } finally {
      random.mockRestore();
    }
  });

  it("answers each sub-resource's own verbs only: finalize is PUT, an action is POST, status is GET/PUT/PATCH", async () => {
    const server = newServer();
    await createDefaultServiceAccount(server);
    await call(server, "POST", "/api/v1/namespaces/default/pods", { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i" }] } });
    const merge = { "content-type": "application/merge-patch+json" };
    for (const [method, url] of [
      ["GET", "/api/v1/namespaces/default/finalize"],
      ["PATCH", "/api/v1/namespaces/default/finalize"],
      ["DELETE", "/api/v1/namespaces/default/finalize"],
      ["GET", "/api/v1/namespaces/default/pods/p/eviction"],
      ["PUT", "/api/v1/namespaces/default/pods/p/binding"],
      ["PATCH", "/api/v1/namespaces/default/pods/p/eviction"],
      ["DELETE", "/api/v1/namespaces/default/status"],
      ["POST", "/api/v1/namespaces/default/pods/p/status"],
    ] as const) {
      const res = await call(server, method, url, {}, merge);
      expect(res.status, `${method} ${url}`).toBe(405);
      expect(res.json).toMatchObject({ kind: "Status", reason: "MethodNotAllowed" });
    }
    expect((await call(server, "GET", "/api/v1/namespaces/default/pods/p/status")).status).toBe(200);
    expect((await call(server, "GET", "/api/v1/namespaces/default/pods/p")).json.metadata.name).toBe("p");
  });

  it("runs the whole pipeline under dryRun=All and persists nothing", async () => {
    const server = newServer();
    const res = await call(server, "POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm("dry"));
    expect(res.status).toBe(201);
    expect(res.json.metadata.name).toBe("dry");
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/dry")).status).toBe(404);
    const bad = await call(server, "POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm("Bad_Name"));
    expect(bad.status).toBe(422);
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("real"));
    const del = await call(server, "DELETE", "/api/v1/namespaces/default/configmaps/real?dryRun=All");
    expect(del.status).toBe(200);
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/real")).status).toBe(200);
  });

  it("patches with JSON merge patch and JSON patch; a failed test is 422 and changes nothing", async () => {
    const server = newServer();
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("p", { a: "1", b: "2" }));
    const merged = await call(
      server,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/p",
      { data: { a: null, c: "3" } },
      { "content-type": "application/merge-patch+json" },
    );
    expect(merged.status).toBe(200);
    expect(merged.json.data).toEqual({ b: "2", c: "3" });
    const patched = await call(server, "PATCH", "/api/v1/namespaces/default/configmaps/p", [{ op: "replace", path: "/data/b", value: "x" }], {
      "content-type": "application/json-patch+json",
    });
    expect(patched.json.data).toEqual({ b: "x", c: "3" });
    const failed = await call(server, "PATCH", "/api/v1/namespaces/default/configmaps/p", [{ op: "test", path: "/data/b", value: "nope" }], {
      "content-type": "application/json-patch+json",
    });
    expect(failed.status).toBe(422);
    const badOp = await call(server, "PATCH", "/api/v1/namespaces/default/configmaps/p", [{ op: "frobnicate", path: "/data" }], {
      "content-type": "application/json-patch+json",
    });
    expect(badOp.status).toBe(400);
    const removeName = await call(server, "PATCH", "/api/v1/namespaces/default/configmaps/p", [{ op: "remove", path: "/metadata/name" }], {
      "content-type": "application/json-patch+json",
    });
    expect(removeName.status).toBeGreaterThanOrEqual(400);
    expect(removeName.status).toBeLessThan(500);
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/p")).json.data).toEqual({ b: "x", c: "3" });
    const unsupported = await call(server, "PATCH", "/api/v1/namespaces/default/configmaps/p", "{}", { "content-type": "text/plain" });
    expect(unsupported.status).toBe(415);
  });

  it("keeps an object with finalizers until the last finalizer is removed", async () => {
    const server = newServer();
    const created = await call(server, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "f", finalizers: ["example.com/hold"] } });
    const first = await call(server, "DELETE", "/api/v1/namespaces/default/configmaps/f");
    expect(first.status).toBe(200);
    expect(first.json.metadata.deletionTimestamp).toBeDefined();
    const live = await call(server, "GET", "/api/v1/namespaces/default/configmaps/f");
    expect(live.json.metadata.deletionTimestamp).toBeDefined();
    const released = await call(
      server,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/f",
      { metadata: { finalizers: null } },
      {
        "content-type": "application/merge-patch+json",
      },
    );
    expect(released.status).toBe(200);
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/f")).status).toBe(404);
    expect(created.status).toBe(201);
  });

  it("checks delete preconditions", async () => {
    const server = newServer();
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("pre"));
    const res = await call(server, "DELETE", "/api/v1/namespaces/default/configmaps/pre", {
      kind: "DeleteOptions",
      apiVersion: "v1",
      preconditions: { uid: "nope" },
    });
    expect(res.status).toBe(409);
    expect(res.json.message).toContain("Precondition failed: UID in precondition: nope");
  });

  it("deletes a collection by label selector", async () => {
    const server = newServer();
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("x1", {}, { app: "x" }));
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("x2", {}, { app: "x" }));
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("y1", {}, { app: "y" }));
    const res = await call(server, "DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dx");
    expect(res.json).toMatchObject({ kind: "Status", status: "Success" });
    const left = await call(server, "GET", "/api/v1/namespaces/default/configmaps");
    expect(left.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["y1"]);
  });
});

describe("APIServer: lists and watches", () => {
  it("pages a list over one snapshot with remainingItemCount and an empty last continue", async () => {
    const server = newServer();
    for (let i = 0; i < 5; i++) await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm(`c${i}`));
    const first = await call(server, "GET", "/api/v1/namespaces/default/configmaps?limit=2");
    expect(first.json.kind).toBe("ConfigMapList");
    expect(first.json.items).toHaveLength(2);
    expect(first.json.metadata.remainingItemCount).toBe(3);
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("c9"));
    let token = first.json.metadata.continue;
    const names: string[] = first.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    while (token) {
      const page = await call(server, "GET", `/api/v1/namespaces/default/configmaps?limit=2&continue=${encodeURIComponent(token)}`);
      expect(page.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
      names.push(...page.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
      token = page.json.metadata.continue;
    }
    expect(names).toEqual(["c0", "c1", "c2", "c3", "c4"]);
  });

  it("lists across namespaces and filters by label and field selectors", async () => {
    const server = newServer();
    await call(server, "POST", "/api/v1/namespaces", { metadata: { name: "other" } });
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("a", {}, { tier: "web" }));
    await call(server, "POST", "/api/v1/namespaces/other/configmaps", cm("b", {}, { tier: "db" }));
    const all = await call(server, "GET", "/api/v1/configmaps");
    expect(all.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort()).toEqual(["a", "b"]);
    const web = await call(server, "GET", "/api/v1/configmaps?labelSelector=tier%20in%20(web)");
    expect(web.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["a"]);
    const other = await call(server, "GET", "/api/v1/configmaps?fieldSelector=metadata.namespace%3Dother");
    expect(other.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["b"]);
    const unsupported = await call(server, "GET", "/api/v1/configmaps?fieldSelector=spec.nope%3Dx");
    expect(unsupported.status).toBe(400);
    expect(unsupported.json.message).toContain("field label not supported: spec.nope");
  });

  it("streams a watch: synthetic ADDED, then changes, then ends at timeoutSeconds", async () => {
    const clock = new FakeClock();
    const server = newServer({ clock, store: new MemoryStore({ clock }) });
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("w1"));
    const res = await server.handle({ method: "GET", url: "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=5", headers: new Headers() });
    expect(res.status).toBe(200);
    const iterator = res.stream![Symbol.asyncIterator]();
    const first = JSON.parse((await iterator.next()).value as string);
    expect(first).toMatchObject({ type: "ADDED", object: { metadata: { name: "w1" } } });
    await call(server, "PUT", "/api/v1/namespaces/default/configmaps/w1", cm("w1", { a: "2" }));
    expect(JSON.parse((await iterator.next()).value as string)).toMatchObject({ type: "MODIFIED", object: { data: { a: "2" } } });
    await call(server, "DELETE", "/api/v1/namespaces/default/configmaps/w1");
    expect(JSON.parse((await iterator.next()).value as string)).toMatchObject({ type: "DELETED" });
    const end = iterator.next();
    clock.advance(5000);
    expect((await end).done).toBe(true);
  });

  it("renders Tables with Name and the kind's columns", async () => {
    const server = newServer();
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("t", { a: "1", b: "2" }));
    const res = await call(server, "GET", "/api/v1/namespaces/default/configmaps", undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.orch.io,application/json",
    });
    expect(res.headers.get("content-type")).toContain("as=Table");
    expect(res.json.kind).toBe("Table");
    expect(res.json.columnDefinitions[0].name).toBe("Name");
    expect(res.json.rows[0].cells[0]).toBe("t");
    expect(res.json.rows[0].object).toMatchObject({ kind: "PartialObjectMetadata", metadata: { name: "t" } });
    const notAcceptable = await call(server, "GET", "/api/v1/namespaces/default/configmaps", undefined, { accept: "application/vnd.orch.protobuf" });
    expect(notAcceptable.status).toBe(406);
  });

  it("answers a meta.k8s.io Table to the reference's clients, and a meta.orch.io one to ours", async () => {
    const server = newServer();
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("t", { a: "1" }));
    for (const group of ["meta.k8s.io", "meta.orch.io"]) {
      const res = await call(server, "GET", "/api/v1/namespaces/default/configmaps?includeObject=Metadata", undefined, {
        accept: `application/json;as=Table;v=v1;g=${group},application/json`,
      });
      expect(res.headers.get("content-type")).toBe(`application/json;as=Table;v=v1;g=${group}`);
      expect(res.json).toMatchObject({ kind: "Table", apiVersion: `${group}/v1` });
      expect(res.json.rows[0].object).toMatchObject({ kind: "PartialObjectMetadata", apiVersion: `${group}/v1` });
    }
    const other = await call(server, "GET", "/api/v1/namespaces/default/configmaps", undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.example.com",
    });
    expect(other.status).toBe(406);
  });
});

describe("APIServer: namespaces", () => {
  it("starts with default, orch-system and orch-public, which cannot be deleted", async () => {
    const server = newServer();
    const list = await call(server, "GET", "/api/v1/namespaces");
    expect(list.json.items.map((n: { metadata: { name: string } }) => n.metadata.name).sort()).toEqual(["default", "orch-public", "orch-system"]);
    expect(list.json.items[0].status.phase).toBe("Active");
    const res = await call(server, "DELETE", "/api/v1/namespaces/default");
    expect(res.status).toBe(403);
  });

  it("refuses writes into a missing namespace with 404", async () => {
    const server = newServer();
    const res = await call(server, "POST", "/api/v1/namespaces/missing/configmaps", cm("x"));
    expect(res.status).toBe(404);
    expect(res.json.message).toBe('namespaces "missing" not found');
  });

  it("takes a deleted namespace to Terminating and keeps it, with its content, until finalize removes the last finalizer", async () => {
    const server = newServer();
    await call(server, "POST", "/api/v1/namespaces", { metadata: { name: "gone" } });
    await call(server, "POST", "/api/v1/namespaces/gone/configmaps", cm("kept"));
    const del = await call(server, "DELETE", "/api/v1/namespaces/gone");
    expect(del.status).toBe(200);
    const terminating = await call(server, "GET", "/api/v1/namespaces/gone");
    expect(terminating.json.status.phase).toBe("Terminating");
    expect(terminating.json.spec.finalizers).toEqual(["orch"]);
    const refused = await call(server, "POST", "/api/v1/namespaces/gone/configmaps", cm("late"));
    expect(refused.status).toBe(403);
    expect(refused.json.message).toContain("because it is being terminated");
    // Emptying it is the namespace controller's work (in @orch/controllers), not the server's.
    expect((await call(server, "GET", "/api/v1/namespaces/gone/configmaps/kept")).status).toBe(200);
    const finalized = await call(server, "PUT", "/api/v1/namespaces/gone/finalize", { ...terminating.json, spec: { finalizers: [] } });
    expect(finalized.status).toBe(200);
    expect((await call(server, "GET", "/api/v1/namespaces/gone")).status).toBe(404);
  });
});

describe("APIServer: protocol surface", () => {
  it("serves discovery in the plain and the aggregated form", async () => {
    const server = newServer();
    const api = await call(server, "GET", "/api");
    expect(api.json).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const v1 = await call(server, "GET", "/api/v1");
    const names = v1.json.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual(expect.arrayContaining(["configmaps", "secrets", "namespaces", "namespaces/status", "namespaces/finalize", "events"]));
    const apis = await call(server, "GET", "/apis");
    expect(apis.json.groups.map((g: { name: string }) => g.name)).toContain("coordination.orch.io");
    const aggregated = await call(server, "GET", "/apis", undefined, {
      accept: "application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList,application/json",
    });
    expect(aggregated.headers.get("content-type")).toBe("application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList");
    expect(aggregated.json.kind).toBe("APIGroupDiscoveryList");
    const version = await call(server, "GET", "/version");
    expect(version.json.major).toBe("1");
  });

  it("answers health checks with verbose and exclude", async () => {
    const server = newServer();
    await server.ready();
    expect((await call(server, "GET", "/livez")).text).toBe("ok");
    const verbose = await call(server, "GET", "/readyz?verbose&exclude=etcd");
    expect(verbose.text).toContain("[+]ping ok");
    expect(verbose.text).toContain("[+]etcd excluded: ok");
    expect(verbose.text.trim().endsWith("readyz check passed")).toBe(true);
    expect((await call(server, "GET", "/livez/ping")).text).toBe("ok");
  });

  it("fails readiness during the shutdown delay", async () => {
    const clock = new FakeClock();
    const server = new APIServer({ clock, shutdownDelayMs: 5000 });
    await server.ready();
    const done = server.shutdown();
    const res = await call(server, "GET", "/readyz?verbose");
    expect(res.status).toBe(500);
    expect(res.text).toContain("[-]shutdown failed: reason withheld");
    clock.advance(5000);
    await done;
  });

  it("serves before its store answers (live, not ready, 503 for resources) and starts once it does, cache included", async () => {
    const memory = new MemoryStore();
    let down = true;
    const gate = <T>(op: () => Promise<T>): Promise<T> => (down ? Promise.reject(serviceUnavailable("the store is down")) : op());
    const store: Store = {
      get: (key, opts) => gate(() => memory.get(key, opts)),
      list: (prefix, opts) => gate(() => memory.list(prefix, opts)),
      create: (key, value) => gate(() => memory.create(key, value)),
      update: (key, value, rev) => gate(() => memory.update(key, value, rev)),
      delete: (key, rev) => gate(() => memory.delete(key, rev)),
      watch: (prefix, from, signal) => memory.watch(prefix, from, signal),
      revision: () => gate(() => memory.revision()),
      compact: (rev) => gate(() => memory.compact(rev)),
    };
    const server = newServer({ store, watchCache: true });
    const cache = server.store as WatchCache;
    expect(cache).toBeInstanceOf(WatchCache);
    await expect(server.ready()).rejects.toThrow("the store is down");
    expect(cache.ready).toBe(false);
    const live = await call(server, "GET", "/livez?verbose");
    expect(live.status).toBe(500);
    expect(live.text).toContain("[-]etcd failed");
    expect(live.text).toContain("[+]poststarthook/start-namespace-lifecycle ok");
    expect((await call(server, "GET", "/livez?exclude=etcd")).status).toBe(200);
    const notReady = await call(server, "GET", "/readyz?verbose");
    expect(notReady.status).toBe(500);
    expect(notReady.text).toContain("[-]etcd failed");
    expect(notReady.text).toContain("[-]poststarthook/start-namespace-lifecycle failed");
    expect((await call(server, "GET", "/api/v1")).status).toBe(200);
    const list = await call(server, "GET", "/api/v1/namespaces/default/configmaps");
    expect(list.status).toBe(503);
    expect(list.json).toMatchObject({ kind: "Status", reason: "ServiceUnavailable", message: "the store is down" });

    down = false;
    await server.ready();
    expect((await call(server, "GET", "/readyz")).status).toBe(200);
    expect((await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("later"))).status).toBe(201);
    expect(cache.ready).toBe(true);
  });

  it("fails liveness past the grace period for a start-up that is not done while the store answers", async () => {
    const clock = new FakeClock();
    const server = newServer({ clock, livezGracePeriodMs: 1000 });
    expect((await call(server, "GET", "/livez")).status).toBe(200);
    clock.advance(1000);
    const res = await call(server, "GET", "/livez?verbose");
    expect(res.status).toBe(500);
    expect(res.text).toContain("[-]poststarthook/start-namespace-lifecycle failed");
    expect(res.text).toContain("[+]etcd ok");
    await server.ready();
    expect((await call(server, "GET", "/livez")).status).toBe(200);
  });

  it("serves OpenAPI v3 with the fieldValidation and dryRun parameters", async () => {
    const server = newServer();
    const index = await call(server, "GET", "/openapi/v3");
    expect(Object.keys(index.json.paths)).toContain("api/v1");
    const doc = await call(server, "GET", "/openapi/v3/api/v1");
    expect(doc.json.openapi).toMatch(/^3\./);
    expect(JSON.stringify(doc.json)).toContain('"fieldValidation"');
    expect(JSON.stringify(doc.json)).toContain('"dryRun"');
  });
});

describe("APIServer: bad input", () => {
  const cases: [string, string, string, unknown, Record<string, string>, number][] = [
    ["malformed JSON", "POST", "/api/v1/namespaces/default/configmaps", "{not json", {}, 400],
    ["wrong JSON types", "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "x" }, data: { a: 1 } }, {}, 400],
    ["a body that is not an object", "POST", "/api/v1/namespaces/default/configmaps", "[1,2]", {}, 400],
    ["an invalid name", "POST", "/api/v1/namespaces/default/configmaps", cm("Not Valid"), {}, 422],
    ["an unknown resource", "GET", "/api/v1/namespaces/default/nothings", undefined, {}, 404],
    ["an unknown group", "GET", "/apis/nope.example.com/v1/things", undefined, {}, 404],
    ["a namespace in a cluster-scoped path", "GET", "/apis/coordination.orch.io/v1/namespaces/default/namespaces", undefined, {}, 404],
    ["a bad label selector", "GET", "/api/v1/configmaps?labelSelector=a%20in%20(", undefined, {}, 400],
    ["a bad continue token", "GET", "/api/v1/configmaps?limit=1&continue=%2E%2E%2F", undefined, {}, 400],
    ["a non-numeric resourceVersion", "GET", "/api/v1/configmaps?resourceVersion=abc", undefined, {}, 400],
    ["a hostile path", "GET", "/api/v1/namespaces/%2E%2E/configmaps", undefined, {}, 400],
    ["bad percent-encoding", "GET", "/api/v1/namespaces/%zz/configmaps", undefined, {}, 400],
    ["an unsupported content type", "POST", "/api/v1/namespaces/default/configmaps", "x", { "content-type": "text/csv" }, 415],
    ["a strict unknown field", "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", { metadata: { name: "s" }, bogus: 1 }, {}, 400],
    ["a bad limit", "GET", "/api/v1/configmaps?limit=-1", undefined, {}, 400],
    ["a bad dryRun", "POST", "/api/v1/namespaces/default/configmaps?dryRun=Some", cm("d"), {}, 400],
  ];
  it.each(cases)("answers %s with a 4xx Status and keeps serving", async (_name, method, url, body, headers, code) => {
    const server = newServer();
    const res = await call(server, method, url, body, headers);
    expect(res.status).toBe(code);
    expect(res.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code });
    expect(typeof res.json.message).toBe("string");
    expect((await call(server, "GET", "/api/v1/namespaces/default")).status).toBe(200);
  });

  it("answers a body over 3 MiB with 413", async () => {
    const server = newServer();
    const res = await call(server, "POST", "/api/v1/namespaces/default/configmaps", new Uint8Array(3 * 1024 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(res.json.reason).toBe("RequestEntityTooLarge");
  });

  it("answers a future resourceVersion with 504 Too large resource version after a bounded wait", async () => {
    const clock = new FakeClock();
    const server = newServer({ clock, store: new MemoryStore({ clock }) });
    await server.ready();
    const pending = call(server, "GET", "/api/v1/configmaps?resourceVersion=999999&resourceVersionMatch=NotOlderThan");
    await new Promise((r) => setTimeout(r, 10));
    clock.advance(3000);
    const res = await pending;
    expect(res.status).toBe(504);
    expect(res.json.message).toContain("Too large resource version");
    expect(res.headers.get("retry-after")).toBe("1");
  });

  it("reports unknown fields as warnings by default and drops them", async () => {
    const server = newServer();
    const res = await call(server, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "warn" }, bogus: 1 });
    expect(res.status).toBe(201);
    expect(res.headers.get("warning")).toBe('299 - "unknown field \\"bogus\\""');
    expect(res.json.bogus).toBeUndefined();
  });
});
