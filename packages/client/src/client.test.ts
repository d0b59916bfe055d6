import { isConflict, isNotFound, StatusError, type APIObject, type ObjectMeta, type WatchEvent } from "@orch/meta";
import { describe, expect, expectTypeOf, it } from "vitest";
import { Client } from "./client.js";
import { inProcessTransport } from "./in-process-transport.js";
import { FakeServer, WatchFeed, failure, json } from "./internal/fake-server.js";
import { leasesRef } from "./builtin-refs.js";

const cm = (name: string, rv = "1", namespace = "default"): APIObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, resourceVersion: rv },
  data: { a: "b" },
});

function setup(handler: ConstructorParameters<typeof FakeServer>[0], options: { domain?: string; onWarning?: (w: string) => void } = {}) {
  const server = new FakeServer(handler);
  const client = new Client({ transport: inProcessTransport(server), ...options });
  return { server, client };
}

describe("paths and encoding", () => {
  it("builds core-group paths with the namespace and name percent-encoded", async () => {
    const { server, client } = setup(() => json(200, cm("x")));
    await client.configMaps.get("a/b c", { namespace: "n s" });
    expect(server.last.method).toBe("GET");
    expect(server.last.path).toBe("/api/v1/namespaces/n%20s/configmaps/a%2Fb%20c");
    expect(server.last.headers.get("accept")).toBe("application/json");
    expect(server.last.headers.get("user-agent")).toBe("orch-client");
  });

  it("resolves {domain} in a group with the client's domain", async () => {
    const { server, client } = setup(() => json(200, { metadata: {}, items: [] }));
    await client.leases.list({ namespace: "kube" });
    expect(server.last.path).toBe("/apis/coordination.orch.io/v1/namespaces/kube/leases");
    const other = setup(() => json(200, { metadata: {}, items: [] }), { domain: "k8s.io" });
    await other.client.resource(leasesRef).list();
    expect(other.server.last.path).toBe("/apis/coordination.k8s.io/v1/leases");
  });

  it("puts cluster-scoped objects under no namespace, and lists across namespaces without one", async () => {
    const { server, client } = setup(() => json(200, { metadata: {}, items: [] }));
    await client.namespaces.list({ namespace: "ignored" });
    expect(server.last.path).toBe("/api/v1/namespaces");
    await client.configMaps.list();
    expect(server.last.path).toBe("/api/v1/configmaps");
  });

  it("refuses a namespaced single-object call without a namespace", async () => {
    const { server, client } = setup(() => json(200, cm("x")));
    expect(() => client.configMaps.get("x")).toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
  });

  it("sends list options as query parameters", async () => {
    const { server, client } = setup(() => json(200, { metadata: {}, items: [] }));
    await client.configMaps.list({
      namespace: "default",
      labelSelector: "app in (a,b),!x",
      fieldSelector: "metadata.name=a",
      limit: 5,
      resourceVersion: "0",
      resourceVersionMatch: "NotOlderThan",
    });
    const q = server.last.query;
    expect(q.get("labelSelector")).toBe("app in (a,b),!x");
    expect(q.get("fieldSelector")).toBe("metadata.name=a");
    expect(q.get("limit")).toBe("5");
    expect(q.get("resourceVersion")).toBe("0");
    expect(q.get("resourceVersionMatch")).toBe("NotOlderThan");
  });
});

describe("typed accessors", () => {
  it("type objects from the catalog's schemas", async () => {
    const { client } = setup(() => json(200, cm("a")));
    const got = await client.configMaps.get("a", { namespace: "default" });
    expectTypeOf(got.data).toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf(got.metadata).toEqualTypeOf<ObjectMeta>();
    expect(got.data).toEqual({ a: "b" });
    // A plain object literal of the kind's fields is accepted by create.
    await client.leases.create({ metadata: { name: "l" }, spec: { holderIdentity: "me" } }, { namespace: "default" });
    expectTypeOf<Parameters<typeof client.leases.create>[0]["spec"]>().not.toBeUnknown();
  });
});

describe("verbs", () => {
  it("creates with apiVersion and kind filled in, the namespace from the object, and write options", async () => {
    const { server, client } = setup((req) => json(201, req.body));
    const created = await client.leases.create(
      { metadata: { name: "l", namespace: "ns" }, spec: {} },
      { dryRun: true, fieldManager: "me", fieldValidation: "Strict" },
    );
    expect(server.last.method).toBe("POST");
    expect(server.last.path).toBe("/apis/coordination.orch.io/v1/namespaces/ns/leases");
    expect(server.last.headers.get("content-type")).toBe("application/json");
    expect(server.last.query.get("dryRun")).toBe("All");
    expect(server.last.query.get("fieldManager")).toBe("me");
    expect(server.last.query.get("fieldValidation")).toBe("Strict");
    expect(created).toMatchObject({ apiVersion: "coordination.orch.io/v1", kind: "Lease" });
  });

  it("updates with PUT on the object's name, and the status through /status", async () => {
    const { server, client } = setup((req) => json(200, req.body));
    await client.configMaps.update(cm("a", "7"));
    expect(server.last.method).toBe("PUT");
    expect(server.last.path).toBe("/api/v1/namespaces/default/configmaps/a");
    expect((server.last.body as APIObject).metadata.resourceVersion).toBe("7");
    await client.namespaces.updateStatus({ metadata: { name: "team" }, status: { phase: "Active" } });
    expect(server.last.path).toBe("/api/v1/namespaces/team/status");
  });

  it("sends each patch type with its media type; apply gets a field manager, force and a typed body", async () => {
    const { server, client } = setup(() => json(200, cm("a")));
    const types = {
      merge: "application/merge-patch+json",
      json: "application/json-patch+json",
      strategic: "application/strategic-merge-patch+json",
      apply: "application/apply-patch+yaml",
    } as const;
    for (const [type, media] of Object.entries(types) as [keyof typeof types, string][]) {
      await client.configMaps.patch("a", type === "json" ? [{ op: "add", path: "/data/x", value: "1" }] : { data: { x: "1" } }, type, { namespace: "default" });
      expect(server.last.method).toBe("PATCH");
      expect(server.last.headers.get("content-type")).toBe(media);
    }
    expect(server.last.query.get("fieldManager")).toBe("orch-client");
    expect(server.last.body).toEqual({ apiVersion: "v1", kind: "ConfigMap", data: { x: "1" } });
    await client.configMaps.patch("a", { data: {} }, "apply", { namespace: "default", force: true, fieldManager: "ctl" });
    expect(server.last.query.get("force")).toBe("true");
    expect(server.last.query.get("fieldManager")).toBe("ctl");
  });

  it("deletes with a DeleteOptions body and returns the Status the server answered", async () => {
    const success = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: "a", kind: "configmaps" } };
    const { server, client } = setup(() => json(200, success));
    const res = await client.configMaps.delete("a", {
      namespace: "default",
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
      preconditions: { resourceVersion: "3" },
      dryRun: true,
    });
    expect(res).toEqual(success);
    expect(server.last.method).toBe("DELETE");
    expect(server.last.body).toEqual({
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
      preconditions: { resourceVersion: "3" },
      dryRun: ["All"],
    });
  });

  it("deletes a collection with selectors", async () => {
    const { server, client } = setup(() => json(200, { kind: "ConfigMapList", metadata: {}, items: [] }));
    await client.configMaps.deleteCollection({ namespace: "default", labelSelector: "app=x" });
    expect(server.last.method).toBe("DELETE");
    expect(server.last.path).toBe("/api/v1/namespaces/default/configmaps");
    expect(server.last.query.get("labelSelector")).toBe("app=x");
  });

  it("listAll follows continue tokens without resending the resourceVersion", async () => {
    const pages: Record<string, { items: APIObject[]; next?: string }> = {
      "": { items: [cm("a"), cm("b")], next: "t1" },
      t1: { items: [cm("c"), cm("d")], next: "t2" },
      t2: { items: [cm("e")] },
    };
    const { server, client } = setup((req) => {
      const page = pages[req.query.get("continue") ?? ""];
      if (!page) return failure(400, "BadRequest", "bad token");
      return json(200, {
        kind: "ConfigMapList",
        apiVersion: "v1",
        metadata: { resourceVersion: "9", ...(page.next ? { continue: page.next, remainingItemCount: 1 } : {}) },
        items: page.items,
      });
    });
    const all = await client.configMaps.listAll({ namespace: "default", limit: 2, resourceVersion: "0", labelSelector: "x" });
    expect(all.items.map((i) => i.metadata.name)).toEqual(["a", "b", "c", "d", "e"]);
    expect(all.metadata).toEqual({ resourceVersion: "9" });
    expect(server.requests).toHaveLength(3);
    expect(server.requests[1]?.query.has("resourceVersion")).toBe(false);
    expect(server.requests[1]?.query.get("limit")).toBe("2");
    expect(server.requests[2]?.query.get("labelSelector")).toBe("x");
  });
});

describe("errors", () => {
  it("throws the server's Status as a StatusError", async () => {
    const { client } = setup(() => failure(404, "NotFound", 'configmaps "a" not found'));
    const error = await client.configMaps.get("a", { namespace: "default" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StatusError);
    expect(isNotFound(error)).toBe(true);
    expect((error as StatusError).message).toBe('configmaps "a" not found');
  });

  it("makes a StatusError from the HTTP code when the body is not a Status", async () => {
    const { client } = setup(() => ({ status: 409, headers: new Headers(), body: "busy" }));
    const error = await client.configMaps.get("a", { namespace: "default" }).catch((e: unknown) => e);
    expect(isConflict(error)).toBe(true);
    const other = setup(() => ({ status: 502, headers: new Headers(), body: "<html>bad gateway</html>" }));
    const e2 = (await other.client.configMaps.list().catch((e: unknown) => e)) as StatusError;
    expect(e2).toBeInstanceOf(StatusError);
    expect(e2.code).toBe(502);
    expect(e2.reason).toBe("InternalError");
    expect(e2.message).toContain("bad gateway");
  });

  it("reports Warning headers", async () => {
    const warnings: string[] = [];
    const { client } = setup(() => json(200, cm("a"), { Warning: '299 - "unknown field \\"x\\"", 299 - "deprecated"' }), {
      onWarning: (w) => warnings.push(w),
    });
    await client.configMaps.get("a", { namespace: "default" });
    expect(warnings).toEqual(['unknown field "x"', "deprecated"]);
  });
});

async function collect<T>(iterable: AsyncIterable<T>, n = Infinity): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) {
    out.push(x);
    if (out.length >= n) break;
  }
  return out;
}

describe("watch", () => {
  it("sends the watch parameters and yields events, ERROR included, until the stream ends", async () => {
    const feed = new WatchFeed();
    const { server, client } = setup((req) => feed.response(req.signal));
    feed.push("ADDED", cm("a", "2"));
    feed.raw(`${JSON.stringify({ type: "MODIFIED", object: cm("a", "3") })}\n{"type":"BOOKMARK",`);
    feed.raw(`"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"4"}}}\n\n`);
    feed.push("ERROR", { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "Expired", code: 410, message: "too old" });
    feed.end();
    const events = await collect(
      client.configMaps.watch({ namespace: "default", resourceVersion: "1", allowWatchBookmarks: true, timeoutSeconds: 5, labelSelector: "a=b" }),
    );
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "BOOKMARK", "ERROR"]);
    expect((events[3] as WatchEvent).object).toMatchObject({ code: 410, reason: "Expired" });
    const q = server.last.query;
    expect(server.last.path).toBe("/api/v1/namespaces/default/configmaps");
    expect(q.get("watch")).toBe("true");
    expect(q.get("resourceVersion")).toBe("1");
    expect(q.get("allowWatchBookmarks")).toBe("true");
    expect(q.get("timeoutSeconds")).toBe("5");
    expect(q.get("labelSelector")).toBe("a=b");
  });

  it("ends cleanly when the signal aborts while waiting for an event", async () => {
    const feed = new WatchFeed();
    const { client } = setup((req) => feed.response(req.signal));
    const controller = new AbortController();
    feed.push("ADDED", cm("a"));
    const seen: string[] = [];
    for await (const event of client.configMaps.watch({ signal: controller.signal })) {
      seen.push(event.type);
      controller.abort();
    }
    expect(seen).toEqual(["ADDED"]);
    await Promise.resolve();
    expect(feed.closed).toBe(true);
  });

  it("closes the stream when the consumer breaks out", async () => {
    const feed = new WatchFeed();
    const { server, client } = setup((req) => feed.response(req.signal));
    feed.push("ADDED", cm("a"));
    feed.push("ADDED", cm("b"));
    const events = await collect(client.configMaps.watch(), 1);
    expect(events).toHaveLength(1);
    expect(server.last.signal?.aborted).toBe(true);
  });

  it("throws the StatusError of a watch that is refused", async () => {
    const { client } = setup(() => failure(400, "BadRequest", "unable to parse requirement"));
    await expect(collect(client.configMaps.watch({ labelSelector: "!!" }))).rejects.toSatisfy((e: unknown) => e instanceof StatusError && e.code === 400);
  });

  it("returns at once for an already aborted signal, without a request", async () => {
    const { server, client } = setup(() => json(200, {}));
    expect(await collect(client.configMaps.watch({ signal: AbortSignal.abort() }))).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});
