import { describe, expect, it } from "vitest";
import type { APIObject } from "@orch/meta";
import { APIServer } from "./api-server.js";
import { isNoOpWrite, sameExcept } from "./no-op-write.js";

async function call(server: APIServer, method: string, url: string, body?: string, headers: Record<string, string> = {}) {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json", ...headers }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(body) }),
  });
  const text = typeof res.body === "string" ? res.body : "";
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const cmPath = "/api/v1/namespaces/default/configmaps/cfg";
const applyYAML = { "content-type": "application/apply-patch+yaml" };
const config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels:\n    app: a\ndata:\n  a: '1'\n";

/** The events a watch from `resourceVersion` sees up to and including the one that names `marker` in its labels. */
async function eventsUntil(
  server: APIServer,
  resourceVersion: string,
  marker: string,
): Promise<{ type: string; object: { metadata: { labels?: Record<string, string>; resourceVersion: string } } }[]> {
  const res = await server.fetch(new Request(`http://x/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${resourceVersion}&timeoutSeconds=10`));
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events = [];
  let buffered = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffered += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line.trim()) continue;
        const event = JSON.parse(line);
        events.push(event);
        if (event.object?.metadata?.labels?.marker === marker) return events;
      }
    }
  } finally {
    await reader.cancel();
  }
}

describe("writes that change nothing", () => {
  it("a second identical apply keeps the resourceVersion and managedFields, and a watch sees no event for it", async () => {
    const server = new APIServer();
    const first = await call(server, "PATCH", `${cmPath}?fieldManager=alice`, config, applyYAML);
    expect(first.status).toBe(201);
    const second = await call(server, "PATCH", `${cmPath}?fieldManager=alice`, config, applyYAML);
    expect(second.status).toBe(200);
    expect(second.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
    expect(second.json.metadata.managedFields).toEqual(first.json.metadata.managedFields);
    await call(server, "PATCH", cmPath, JSON.stringify({ metadata: { labels: { marker: "m" } } }), { "content-type": "application/merge-patch+json" });
    const events = await eventsUntil(server, first.json.metadata.resourceVersion, "m");
    expect(events.map((e) => e.type)).toEqual(["MODIFIED"]);
  });

  it("an update or a patch that changes nothing keeps the resourceVersion and the managedFields timestamps", async () => {
    const server = new APIServer();
    const created = await call(
      server,
      "POST",
      "/api/v1/namespaces/default/configmaps?fieldManager=bob",
      JSON.stringify({ metadata: { name: "cfg" }, data: { a: "1" } }),
    );
    expect(created.status).toBe(201);
    const rv = created.json.metadata.resourceVersion;
    const put = await call(server, "PUT", `${cmPath}?fieldManager=bob`, JSON.stringify(created.json));
    expect(put.status).toBe(200);
    expect(put.json.metadata.resourceVersion).toBe(rv);
    expect(put.json.metadata.managedFields).toEqual(created.json.metadata.managedFields);
    const putOther = await call(server, "PUT", `${cmPath}?fieldManager=carol`, JSON.stringify({ metadata: { name: "cfg" }, data: { a: "1" } }));
    expect(putOther.json.metadata.resourceVersion).toBe(rv);
    for (const [type, body] of [
      ["application/merge-patch+json", { data: { a: "1" } }],
      ["application/strategic-merge-patch+json", { data: { a: "1" } }],
      ["application/json-patch+json", [{ op: "replace", path: "/data/a", value: "1" }]],
    ] as const) {
      const patched = await call(server, "PATCH", `${cmPath}?fieldManager=dave`, JSON.stringify(body), { "content-type": type });
      expect(patched.status).toBe(200);
      expect(patched.json.metadata.resourceVersion).toBe(rv);
      expect(patched.json.metadata.managedFields).toEqual(created.json.metadata.managedFields);
    }
  });
});

describe("resetting managedFields", () => {
  const reset = { metadata: { managedFields: [{}] } };
  for (const [name, type, body] of [
    ["a merge patch", "application/merge-patch+json", reset],
    ["a strategic merge patch", "application/strategic-merge-patch+json", reset],
    ["a JSON patch", "application/json-patch+json", [{ op: "replace", path: "/metadata/managedFields", value: [{}] }]],
  ] as const) {
    it(`${name} of [{}] clears managedFields; other changes of the same request are owned by its manager`, async () => {
      const server = new APIServer();
      await call(server, "PATCH", `${cmPath}?fieldManager=alice`, config, applyYAML);
      const cleared = await call(server, "PATCH", `${cmPath}?fieldManager=bob`, JSON.stringify(body), { "content-type": type });
      expect(cleared.status).toBe(200);
      expect(cleared.json.metadata.managedFields).toBeUndefined();
      expect(cleared.json.data).toEqual({ a: "1" });
    });
  }

  it("an update with [{}] and a change records fresh ownership of the change for its manager only", async () => {
    const server = new APIServer();
    const applied = await call(server, "PATCH", `${cmPath}?fieldManager=alice`, config, applyYAML);
    const body = { ...applied.json, metadata: { ...applied.json.metadata, managedFields: [{}] }, data: { a: "1", b: "2" } };
    const res = await call(server, "PUT", `${cmPath}?fieldManager=bob`, JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(res.json.metadata.managedFields).toEqual([expect.objectContaining({ manager: "bob", operation: "Update", fieldsV1: { "f:data": { "f:b": {} } } })]);
  });

  it("an empty list keeps the stored managedFields", async () => {
    const server = new APIServer();
    const applied = await call(server, "PATCH", `${cmPath}?fieldManager=alice`, config, applyYAML);
    const res = await call(server, "PATCH", `${cmPath}?fieldManager=bob`, JSON.stringify({ metadata: { managedFields: [] } }), {
      "content-type": "application/merge-patch+json",
    });
    expect(res.status).toBe(200);
    expect(res.json.metadata.managedFields).toEqual(applied.json.metadata.managedFields);
    expect(res.json.metadata.resourceVersion).toBe(applied.json.metadata.resourceVersion);
  });
});

const entry = (manager: string, time: string, fields: object) => ({
  manager,
  operation: "Update",
  apiVersion: "v1",
  time,
  fieldsType: "FieldsV1",
  fieldsV1: fields,
});
const object = (managedFields: object[], data: object, order: "a" | "b" = "a"): APIObject =>
  (order === "a"
    ? { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", uid: "u", managedFields }, data }
    : { kind: "ConfigMap", data, metadata: { managedFields, uid: "u", name: "x" }, apiVersion: "v1" }) as unknown as APIObject;

describe("isNoOpWrite", () => {
  it("ignores the order of members and timestamps of entries whose fields did not change", () => {
    const stored = object([entry("a", "2024-01-01T00:00:00Z", { "f:data": {} })], { k: "v" });
    expect(isNoOpWrite(object([entry("a", "2024-01-01T00:00:00Z", { "f:data": {} })], { k: "v" }, "b"), stored)).toBe(true);
    expect(isNoOpWrite(object([entry("a", "2025-06-01T00:00:00Z", { "f:data": {} })], { k: "v" }), stored)).toBe(true);
  });

  it("sees a changed value, a changed field set, or another manager", () => {
    const stored = object([entry("a", "2024-01-01T00:00:00Z", { "f:data": {} })], { k: "v" });
    expect(isNoOpWrite(object([entry("a", "2024-01-01T00:00:00Z", { "f:data": {} })], { k: "w" }), stored)).toBe(false);
    expect(isNoOpWrite(object([entry("a", "2024-01-01T00:00:00Z", { "f:data": { "f:k": {} } })], { k: "v" }), stored)).toBe(false);
    expect(isNoOpWrite(object([entry("b", "2024-01-01T00:00:00Z", { "f:data": {} })], { k: "v" }), stored)).toBe(false);
    expect(isNoOpWrite(object([], { k: "v" }), stored)).toBe(false);
  });
});

describe("sameExcept", () => {
  it("compares what is left outside the skipped members in any order", () => {
    const skip = new Set(["metadata"]);
    const a = { apiVersion: "v1", kind: "K", metadata: { name: "a" }, spec: { x: 1, y: 2 } } as unknown as APIObject;
    const b = { kind: "K", spec: { y: 2, x: 1 }, metadata: { name: "b" }, apiVersion: "v1" } as unknown as APIObject;
    expect(sameExcept(a, b, skip)).toBe(true);
    expect(sameExcept(a, { ...b, spec: { x: 1, y: 3 } } as APIObject, skip)).toBe(false);
  });
});
