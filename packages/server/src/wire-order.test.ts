import { describe, expect, it } from "vitest";
import { APIServer } from "./api-server.js";
import { inWireOrder, withResourceVersion } from "./wire-order.js";

async function raw(server: APIServer, method: string, url: string, body?: string, contentType = "application/json"): Promise<{ status: number; text: string }> {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": contentType }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(body) }),
  });
  return { status: res.status, text: typeof res.body === "string" ? res.body : "" };
}

const cm = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"x":"y"},"name":"a"},"data":{"k":"v"}}';
const head = '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"';

describe("the order of members in answers", () => {
  it("puts kind before apiVersion, and metadata's members in the reference's order, in every answer made of an object", async () => {
    const server = new APIServer();
    const created = await raw(server, "POST", "/api/v1/namespaces/default/configmaps", cm);
    expect(created.status).toBe(201);
    expect(created.text.startsWith(head)).toBe(true);
    expect(Object.keys(JSON.parse(created.text).metadata)).toEqual([
      "name",
      "namespace",
      "uid",
      "resourceVersion",
      "generation",
      "creationTimestamp",
      "labels",
      "managedFields",
    ]);
    expect((await raw(server, "GET", "/api/v1/namespaces/default/configmaps/a")).text.startsWith(head)).toBe(true);
    const list = await raw(server, "GET", "/api/v1/namespaces/default/configmaps");
    expect(list.text).toContain(`"items":[${head}`);
    const patched = await raw(server, "PATCH", "/api/v1/namespaces/default/configmaps/a?dryRun=All", '{"data":{"k":"w"}}', "application/merge-patch+json");
    expect(patched.text.startsWith(head)).toBe(true);
    const watch = await server.fetch(new Request("http://x/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0"));
    const reader = watch.body!.getReader();
    const { value } = await reader.read();
    await reader.cancel();
    expect(new TextDecoder().decode(value).startsWith(`{"type":"ADDED","object":${head}`)).toBe(true);
  });

  it("writes a Status with its members in the reference's order and a final newline", async () => {
    const server = new APIServer();
    const missing = await raw(server, "GET", "/api/v1/namespaces/default/configmaps/nope");
    expect(missing.status).toBe(404);
    expect(missing.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"nope\\" not found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404}\n',
    );
    await raw(server, "POST", "/api/v1/namespaces/default/configmaps", cm);
    const deleted = await raw(server, "DELETE", "/api/v1/namespaces/default/configmaps/a");
    expect(deleted.status).toBe(200);
    expect(deleted.text).toMatch(
      /^\{"kind":"Status","apiVersion":"v1","metadata":\{\},"status":"Success","details":\{"name":"a","kind":"configmaps","uid":"[^"]+"\},"code":200\}\n$/,
    );
  });

  it("orders an object shallowly and keeps its values", () => {
    const object = { spec: { a: 1 }, metadata: { labels: { x: "y" }, name: "n", uid: "u" }, apiVersion: "v1", kind: "K" };
    const ordered = inWireOrder(object);
    expect(JSON.stringify(ordered)).toBe('{"kind":"K","apiVersion":"v1","metadata":{"name":"n","uid":"u","labels":{"x":"y"}},"spec":{"a":1}}');
    expect(ordered.spec).toBe(object.spec);
  });

  it("leaves resourceVersion out of the ordered copy when asked, and members that are undefined or inherited names always", () => {
    const object = { spec: { a: 1 }, metadata: { resourceVersion: "3", name: "n", uid: undefined, extra: "e" }, kind: "K", status: undefined };
    const stored = inWireOrder(object as never, true);
    expect(JSON.stringify(stored)).toBe('{"kind":"K","metadata":{"name":"n","extra":"e"},"spec":{"a":1}}');
    expect(Object.keys(stored)).toEqual(["kind", "metadata", "spec"]);
    expect(Object.keys(inWireOrder(object as never).metadata)).toEqual(["name", "resourceVersion", "extra"]);
    expect(Object.keys(inWireOrder(JSON.parse('{"toString":1,"kind":"K","metadata":{}}') as never))).toEqual(["kind", "metadata"]);
  });

  it("answers a write with the same text later reads and watch events of that object give", async () => {
    const server = new APIServer();
    const created = await raw(server, "POST", "/api/v1/namespaces/default/configmaps", cm);
    const got = await raw(server, "GET", "/api/v1/namespaces/default/configmaps/a");
    expect(got.text).toBe(created.text);
    const updated = await raw(server, "PUT", "/api/v1/namespaces/default/configmaps/a", cm.replace('"v"', '"w"'));
    expect(updated.status).toBe(200);
    expect((await raw(server, "GET", "/api/v1/namespaces/default/configmaps/a")).text).toBe(updated.text);
    // An unchanged update answers the stored object as it is.
    const same = await raw(server, "PUT", "/api/v1/namespaces/default/configmaps/a", cm.replace('"v"', '"w"'));
    expect(same.text).toBe(updated.text);
    const patched = await raw(server, "PATCH", "/api/v1/namespaces/default/configmaps/a", '{"data":{"k":"x"}}', "application/merge-patch+json");
    const watch = await server.fetch(new Request("http://x/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0"));
    const reader = watch.body!.getReader();
    const { value } = await reader.read();
    await reader.cancel();
    expect(new TextDecoder().decode(value)).toBe(`{"type":"ADDED","object":${patched.text}}\n`);
    // pretty and YAML answers are made from the same object.
    const pretty = await raw(server, "PATCH", "/api/v1/namespaces/default/configmaps/a?pretty=true", '{"data":{"k":"y"}}', "application/merge-patch+json");
    expect(pretty.text).toBe(`${JSON.stringify(JSON.parse(pretty.text), null, 2)}\n`);
  });

  it("places resourceVersion after uid, and last in metadata with nothing that follows it", () => {
    expect(Object.keys(withResourceVersion({ name: "n", uid: "u", generation: 1, labels: {} }, "7"))).toEqual([
      "name",
      "uid",
      "resourceVersion",
      "generation",
      "labels",
    ]);
    expect(withResourceVersion({ name: "n", resourceVersion: "1" }, "7")).toEqual({ name: "n", resourceVersion: "7" });
  });
});
