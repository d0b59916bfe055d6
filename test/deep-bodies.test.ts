/**
 * Bodies nested far deeper than the reference's decoders allow (10000 levels), through every
 * content type and verb that reads a body: JSON, YAML, protobuf (an envelope holding JSON),
 * server-side apply, merge patch, strategic merge patch and JSON patch (a deep value and a deep
 * path). Each answers a 400 Status, never a 5xx, and leaves the stored object as it was.
 */
import { APIServer } from "@orch/server";
import { expect, it } from "vitest";

const depth = 20000;
const deepJSON = "[".repeat(depth) + "]".repeat(depth);
const deepObjectJSON = '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
const deepFlowYAML = "[".repeat(depth) + "]".repeat(depth);
const deepFlowMapYAML = "{a: ".repeat(depth) + "1" + "}".repeat(depth);
const path = "/api/v1/namespaces/default/configmaps/cfg";
const collection = "/api/v1/namespaces/default/configmaps";
const cm = (data: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":${data}}`;

interface Case {
  name: string;
  method: string;
  url: string;
  contentType: string;
  body: Uint8Array;
}

const text = (s: string) => new TextEncoder().encode(s);

/** One length-delimited protobuf field. */
function field(number: number, bytes: Uint8Array): number[] {
  const out = [(number << 3) | 2];
  let n = bytes.length;
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return [...out, ...bytes];
}

/** A protobuf body: the `k8s\0` prefix, then an `Unknown` whose `raw` is `raw` of `contentType`. */
function encodeEnvelope(o: { apiVersion: string; kind: string; raw: Uint8Array; contentType: string }): Uint8Array {
  const typeMeta = [...field(1, text(o.apiVersion)), ...field(2, text(o.kind))];
  return new Uint8Array([0x6b, 0x38, 0x73, 0, ...field(1, new Uint8Array(typeMeta)), ...field(2, o.raw), ...field(4, text(o.contentType))]);
}

const cases: Case[] = [
  { name: "create, JSON array", method: "POST", url: collection, contentType: "application/json", body: text(cm(deepJSON)) },
  { name: "create, JSON object", method: "POST", url: collection, contentType: "application/json", body: text(cm(deepObjectJSON)) },
  { name: "update, JSON", method: "PUT", url: path, contentType: "application/json", body: text(cm(deepObjectJSON)) },
  {
    name: "create, YAML flow",
    method: "POST",
    url: collection,
    contentType: "application/yaml",
    body: text(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\nx: ${deepFlowYAML}\n`),
  },
  {
    name: "update, YAML flow mapping",
    method: "PUT",
    url: path,
    contentType: "application/yaml",
    body: text(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata: ${deepFlowMapYAML}\n`),
  },
  {
    name: "update, protobuf envelope of JSON",
    method: "PUT",
    url: path,
    contentType: "application/vnd.kubernetes.protobuf",
    body: encodeEnvelope({
      apiVersion: "v1",
      kind: "ConfigMap",
      raw: text(`{"metadata":{"name":"cfg"},"data":${deepObjectJSON}}`),
      contentType: "application/json",
    }),
  },
  { name: "merge patch", method: "PATCH", url: path, contentType: "application/merge-patch+json", body: text(`{"data":${deepObjectJSON}}`) },
  {
    name: "strategic merge patch",
    method: "PATCH",
    url: path,
    contentType: "application/strategic-merge-patch+json",
    body: text(`{"data":${deepObjectJSON}}`),
  },
  {
    name: "JSON patch value",
    method: "PATCH",
    url: path,
    contentType: "application/json-patch+json",
    body: text(`[{"op":"add","path":"/data/x","value":${deepJSON}}]`),
  },
  {
    name: "JSON patch path",
    method: "PATCH",
    url: path,
    contentType: "application/json-patch+json",
    body: text(`[{"op":"add","path":"${"/a".repeat(depth)}","value":1}]`),
  },
  {
    name: "apply, YAML flow",
    method: "PATCH",
    url: `${path}?fieldManager=m`,
    contentType: "application/apply-patch+yaml",
    body: text(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata: ${deepFlowYAML}\n`),
  },
  { name: "apply, JSON", method: "PATCH", url: `${path}?fieldManager=m`, contentType: "application/apply-patch+yaml", body: text(cm(deepObjectJSON)) },
];

it("answers bodies nested 20000 levels deep with a 4xx Status for every content type and verb, and stores nothing", async () => {
  const server = new APIServer();
  await server.ready();
  const send = (method: string, url: string, contentType: string, body: Uint8Array) =>
    server.handle({ method, url, headers: new Headers({ "content-type": contentType }), body });
  const created = await send("POST", collection, "application/json", text(cm('{"a":"1"}')));
  expect(created.status).toBe(201);
  const before = await send("GET", path, "application/json", new Uint8Array());
  const answers: string[] = [];
  for (const c of cases) {
    const res = await send(c.method, c.url, c.contentType, c.body);
    const status = JSON.parse(String(res.body)) as { kind: string; code: number };
    answers.push(`${c.name}: ${res.status} ${status.kind}`);
    expect(status.code).toBe(res.status);
  }
  expect(answers.filter((a) => !a.endsWith(": 400 Status"))).toEqual([]);
  const after = await send("GET", path, "application/json", new Uint8Array());
  expect(after.body).toBe(before.body);
});

it("still takes a body nested well within the limit", async () => {
  const server = new APIServer();
  await server.ready();
  const nested = '{"a":'.repeat(100) + "1" + "}".repeat(100);
  const res = await server.handle({
    method: "POST",
    url: collection,
    headers: new Headers({ "content-type": "application/json" }),
    body: text(cm(`{"k":${JSON.stringify(nested)}}`)),
  });
  expect(res.status).toBe(201);
});
