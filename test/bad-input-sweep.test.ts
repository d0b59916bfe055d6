/**
 * "Never broken by input", across the whole catalog: for every served resource and sub-resource
 * (from discovery), each verb with bodies that are not the object expected (malformed JSON,
 * wrong JSON types, duplicate keys, foreign kinds) and each patch type, on an object that exists
 * (created from `test/catalog/<resource>.json`) and on one that does not. Every answer is a
 * success or a Status below 500; nothing answers 5xx. In-process, so thousands of requests take
 * seconds (test/bad-input.test.ts covers the HTTP framing).
 */
import { APIServer } from "@orch/server";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

interface KindFile {
  apiVersion: string;
  resource: string;
  namespaced: boolean;
  valid?: Record<string, unknown> & { metadata: { name: string } };
  setup?: { path: string; object: Record<string, unknown> }[];
}

const dir = join(import.meta.dirname, "catalog");
const kinds = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8").replaceAll("{domain}", "orch.io")) as KindFile);

const bodies = [
  "",
  "{",
  "[]",
  "null",
  "42",
  '"x"',
  "{}",
  '{"metadata":5}',
  '{"metadata":{"name":7}}',
  '{"metadata":{"name":"a","name":"b"}}',
  '{"spec":[]}',
  '{"data":{"k":1}}',
  '{"kind":"Nope","apiVersion":"x/y"}',
  '{"status":{"phase":["x"]}}',
  '[{"op":"replace","path":"/metadata/name","value":5}]',
  '[{"op":"nope"}]',
];
const patchTypes = [
  "application/json",
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
  "text/plain",
];

it("answers malformed bodies and wrong verbs on every resource with a 4xx Status, never a 5xx", async () => {
  const server = new APIServer();
  await server.ready();
  const send = (method: string, url: string, body: string, contentType?: string) =>
    server.handle({ method, url, headers: new Headers(contentType ? { "content-type": contentType } : {}), body: new TextEncoder().encode(body) });
  const names = new Map<string, string>();
  for (const k of kinds) {
    if (!k.valid) continue;
    const prefix = k.apiVersion.includes("/") ? `/apis/${k.apiVersion}` : `/api/${k.apiVersion}`;
    for (const s of k.setup ?? []) await send("POST", s.path, JSON.stringify(s.object), "application/json");
    await send("POST", `${prefix}${k.namespaced ? "/namespaces/default" : ""}/${k.resource}`, JSON.stringify(k.valid), "application/json");
    names.set(k.resource, k.valid.metadata.name);
  }
  const discover = async (url: string) => JSON.parse(String((await send("GET", url, "")).body)) as Record<string, unknown>;
  const bases = ["/api/v1"];
  for (const g of (await discover("/apis")).groups as { preferredVersion: { groupVersion: string } }[]) bases.push(`/apis/${g.preferredVersion.groupVersion}`);
  let requests = 0;
  for (const base of bases) {
    for (const r of (await discover(base)).resources as { name: string; namespaced: boolean }[]) {
      const [resource, sub] = r.name.split("/") as [string, string | undefined];
      const collection = `${base}${r.namespaced ? "/namespaces/default" : ""}/${resource}`;
      const named = [names.get(resource), "absent"].filter((n): n is string => n !== undefined).map((n) => `${collection}/${n}${sub ? `/${sub}` : ""}`);
      for (const path of sub ? named : [collection, ...named]) {
        for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
          for (const body of method === "GET" || method === "DELETE" ? ["", "{"] : bodies) {
            for (const contentType of method === "PATCH" ? patchTypes : ["application/json"]) {
              const res = await send(method, `${path}?fieldManager=sweep&dryRun=All`, body, contentType);
              requests++;
              if (res.status >= 500) expect.fail(`${method} ${path} (${contentType}) ${body}: ${res.status} ${String(res.body)}`);
              if (res.status >= 400) expect(JSON.parse(String(res.body))).toMatchObject({ kind: "Status", status: "Failure", code: res.status });
            }
          }
        }
      }
    }
  }
  expect(requests).toBeGreaterThan(5000);
}, 120_000);

it("answers bad query parameters on every list and watch with a 4xx Status, never a 5xx", async () => {
  const server = new APIServer();
  await server.ready();
  const get = async (url: string) => server.handle({ method: "GET", url, headers: new Headers() });
  const discover = async (url: string) => JSON.parse(String((await get(url)).body)) as Record<string, unknown>;
  const bases = ["/api/v1"];
  for (const g of (await discover("/apis")).groups as { preferredVersion: { groupVersion: string } }[]) bases.push(`/apis/${g.preferredVersion.groupVersion}`);
  const queries = [
    "resourceVersion=abc",
    "resourceVersion=-1",
    "resourceVersion=99999999999999999999",
    "resourceVersion=0&resourceVersionMatch=Nope",
    "resourceVersionMatch=Exact",
    "limit=-5",
    "limit=abc",
    "limit=1e3",
    "continue=garbage",
    "continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ",
    "labelSelector=a%20in%20(",
    "labelSelector=%21%21",
    "fieldSelector=nope%3D1",
    "fieldSelector=metadata.name%3D%3D%3Dx",
    "watch=1&timeoutSeconds=abc",
    "watch=1&resourceVersion=abc",
    "watch=1&allowWatchBookmarks=maybe&timeoutSeconds=0",
    "watch=1&sendInitialEvents=true",
    "pretty=yes&limit=x",
  ];
  let requests = 0;
  for (const base of bases) {
    for (const r of (await discover(base)).resources as { name: string; namespaced: boolean; verbs: string[] }[]) {
      if (r.name.includes("/") || !r.verbs.includes("list")) continue;
      for (const prefix of r.namespaced ? [`${base}/namespaces/default`, base] : [base]) {
        for (const query of queries) {
          const res = await get(`${prefix}/${r.name}?${query}`);
          requests++;
          if (res.stream) await res.stream[Symbol.asyncIterator]().return?.();
          if (res.status >= 500) expect.fail(`GET ${prefix}/${r.name}?${query}: ${res.status} ${String(res.body)}`);
          if (res.status >= 400) expect(JSON.parse(String(res.body))).toMatchObject({ kind: "Status", status: "Failure", code: res.status });
        }
      }
    }
  }
  expect(requests).toBeGreaterThan(500);
}, 60_000);
