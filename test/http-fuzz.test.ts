/**
 * A property-based fuzz of the HTTP surface: random requests (paths over the served catalog,
 * its sub-resources and the server's other endpoints, with hostile names, `..`, encoded slashes
 * and very long segments; methods; content types and accept headers, protobuf and tables
 * included; query strings of the list, watch and write options with random values; bodies
 * generated from the served OpenAPI schemas or taken from `test/catalog`, then mutated: wrong
 * types, extra fields, truncation, deep nesting, invalid UTF-8) against an `APIServer` over a
 * `MemoryStore` the test holds, first in-process, then over HTTP through `serve`. For every
 * request: no 5xx (save the 504 a too-new resourceVersion or a too-short `?timeout=` asks for),
 * a Failure Status on every 4xx, and the store untouched by every rejected request, every dry
 * run and every read. Requests that once broke the server are replayed first.
 *
 * Bounded to about a minute: 10 000 requests within 40 s in-process, 1 500 within 15 s over HTTP;
 * `ORCH_FUZZ_RUNS` and `ORCH_FUZZ_MS` set both. `ORCH_FUZZ_SEED` replays the seed fast-check
 * prints on a failure, with `ORCH_FUZZ_PATH` for the shrunk case it prints.
 */
import { readdirSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { serve } from "@orch/node";
import { APIServer, type APIResponse } from "@orch/server";
import { MemoryStore } from "@orch/store";

/** One generated request, as the fuzzer shrinks and prints it. */
interface FuzzRequest {
  method: string;
  path: string;
  query: [string, string][];
  headers: [string, string][];
  body: Uint8Array | undefined;
}

interface ServedResource {
  base: string;
  resource: string;
  subresources: string[];
  namespaced: boolean;
  kind: string;
  group: string;
  version: string;
}

interface KindFile {
  apiVersion: string;
  resource: string;
  namespaced: boolean;
  valid?: Record<string, unknown> & { metadata: { name: string } };
  setup?: { path: string; object: Record<string, unknown> }[];
}

type Schema = Record<string, unknown>;

const store = new MemoryStore();
const server = new APIServer({ store });
const resources: ServedResource[] = [];
/** The OpenAPI schema of each served kind, by `group/version/kind`, and every named schema. */
const kindSchemas = new Map<string, Schema>();
const namedSchemas = new Map<string, Schema>();
/** Names of objects the catalog examples created, by resource, so that named paths hit them. */
const existing = new Map<string, string>();
/** The valid example object of each resource from `test/catalog`. */
const examples = new Map<string, Record<string, unknown>>();

const decoder = new TextDecoder();
const encoder = new TextEncoder();

async function getJSON(url: string): Promise<Record<string, unknown>> {
  const res = await server.handle({ method: "GET", url, headers: new Headers({ accept: "application/json" }) });
  expect(res.status, url).toBe(200);
  return JSON.parse(String(res.body)) as Record<string, unknown>;
}

beforeAll(async () => {
  await server.ready();
  const dir = join(import.meta.dirname, "catalog");
  const send = (url: string, object: unknown) =>
    server.handle({ method: "POST", url, headers: new Headers({ "content-type": "application/json" }), body: encoder.encode(JSON.stringify(object)) });
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
    const kind = JSON.parse(readFileSync(join(dir, file), "utf8").replaceAll("{domain}", "orch.io")) as KindFile;
    if (!kind.valid) continue;
    examples.set(kind.resource, kind.valid);
    for (const s of kind.setup ?? []) await send(s.path, s.object);
    const prefix = kind.apiVersion.includes("/") ? `/apis/${kind.apiVersion}` : `/api/${kind.apiVersion}`;
    const res = await send(`${prefix}${kind.namespaced ? "/namespaces/default" : ""}/${kind.resource}`, kind.valid);
    if (res.status === 201) existing.set(kind.resource, kind.valid.metadata.name);
  }
  const bases = ["/api/v1"];
  for (const g of (await getJSON("/apis")).groups as { versions: { groupVersion: string }[] }[]) {
    for (const v of g.versions) bases.push(`/apis/${v.groupVersion}`);
  }
  for (const base of bases) {
    const list = (await getJSON(base)).resources as { name: string; namespaced: boolean; kind: string }[];
    const [group, version] = base === "/api/v1" ? ["", "v1"] : (base.slice("/apis/".length).split("/") as [string, string]);
    for (const r of list.filter((r) => !r.name.includes("/"))) {
      const subresources = list.filter((s) => s.name.startsWith(`${r.name}/`)).map((s) => s.name.slice(r.name.length + 1));
      resources.push({ base, resource: r.name, subresources, namespaced: r.namespaced, kind: r.kind, group, version });
    }
    const doc = await getJSON(`/openapi/v3${base}`);
    const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
    for (const [name, schema] of Object.entries(schemas)) {
      namedSchemas.set(name, schema);
      for (const gvk of (schema["x-kubernetes-group-version-kind"] as { group: string; version: string; kind: string }[] | undefined) ?? []) {
        kindSchemas.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, schema);
      }
    }
  }
  expect(resources.length).toBeGreaterThan(40);
  expect(kindSchemas.size).toBeGreaterThan(40);
}, 60_000);

// ---------------------------------------------------------------------------------------------
// Values

const dnsName = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
/** Names a client could put in a path segment: valid, hostile, encoded, empty, very long. */
const hostileSegment = fc.oneof(
  { weight: 4, arbitrary: dnsName },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }).map(encodeURIComponent) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 12 }).map(encodeURIComponent) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "..",
      ".",
      "%2e%2e",
      "%2E",
      "a%2Fb",
      "a%2fb",
      "%2F",
      "%00",
      "a%00b",
      "%",
      "%zz",
      "%C0%AF",
      "%FF",
      "%ED%A0%80",
      "~",
      "a b",
      "a+b",
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom("UPPER", "-lead", "trail-", "a.b", "a..b", "a_b", "name:colon", "x'y", 'x"y', "<x>", "{x}", "x|y", "x\\y") },
  { weight: 1, arbitrary: fc.integer({ min: 250, max: 70_000 }).map((n) => "a".repeat(n)) },
);
const namespace = fc.oneof({ weight: 6, arbitrary: fc.constantFrom("default", "kube-system", "absent") }, { weight: 1, arbitrary: hostileSegment });

/** `value` once in `odds` times, else null. */
function rarely<T>(value: fc.Arbitrary<T>, odds: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 1, arbitrary: value }, { weight: odds - 1, arbitrary: fc.constant(null) });
}

/** A path under `r`: its collection (or, for a namespaced kind, across namespaces), an object, a sub-resource, and more. */
function pathUnder(r: ServedResource): fc.Arbitrary<string> {
  return fc
    .record({
      // A collection across namespaces when null (namespaced kinds), the wrong scope otherwise.
      ns: fc.option(namespace, { freq: 4 }),
      name: fc.option(hostileSegment, { freq: 3 }),
      sub: rarely(fc.oneof(fc.constantFrom("status", "scale", "log"), hostileSegment), 4),
      extra: rarely(hostileSegment, 12),
      knownName: fc.boolean(),
      knownSub: fc.nat(),
    })
    .map(({ ns, name, sub, extra, knownName, knownSub }) => {
      const known = knownName ? existing.get(r.resource) : undefined;
      let path = r.base;
      if (known !== undefined) path += r.namespaced ? "/namespaces/default" : "";
      else if (ns !== null && (r.namespaced || knownSub % 8 === 0)) path += `/namespaces/${ns}`;
      path += `/${r.resource}`;
      const objectName = known ?? name;
      if (objectName !== null) {
        path += `/${objectName}`;
        const subresource = knownSub % 2 === 0 && r.subresources.length > 0 ? r.subresources[knownSub % r.subresources.length] : sub;
        if (subresource !== null && subresource !== undefined) path += `/${subresource}`;
      }
      if (extra !== null) path += `/${extra}`;
      return path;
    });
}

const paths = (): fc.Arbitrary<string> => {
  const resourcePath = fc.constantFrom(...resources).chain(pathUnder);
  const bogusGroup = fc
    .tuple(fc.constantFrom("/apis", "/api"), fc.array(hostileSegment, { minLength: 0, maxLength: 5 }))
    .map(([root, segments]) => [root, ...segments].join("/"));
  const endpoint = fc.constantFrom(
    "/",
    "",
    "/api",
    "/apis",
    "/version",
    "/healthz",
    "/livez",
    "/readyz",
    "/readyz/ping",
    "/livez/nope",
    "/metrics",
    "/openapi/v2",
    "/openapi/v3",
    "/openapi/v3/api/v1",
    "/openapi/v3/apis/nope/v9",
    "//api/v1",
    "/api/v1/",
    "/api//v1",
    "/api/v1/namespaces/default/../../../etc/passwd",
    "/api/v1/namespaces/%2e%2e/configmaps",
    "/api/v1/namespaces/default/configmaps/..%2f..%2fsecrets",
    "/apis/apps/v1/namespaces/default/deployments/x/scale/extra",
    "/.well-known/openid-configuration",
    "/openid/v1/jwks",
    "/logs",
    "/debug/pprof",
  );
  return fc.oneof({ weight: 12, arbitrary: resourcePath }, { weight: 2, arbitrary: bogusGroup }, { weight: 2, arbitrary: endpoint });
};

const methods = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE") },
  { weight: 1, arbitrary: fc.constantFrom("HEAD", "OPTIONS", "TRACE", "CONNECT", "get", "FOO", "PROPFIND", "") },
);

const contentTypes = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
  "application/apply-patch+cbor",
  "application/cbor",
  "text/plain",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "",
  ";;;",
  "application/",
  "*/*",
  "application/json; =x",
);
const accepts = fc.constantFrom(
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "application/vnd.kubernetes.protobuf, application/json",
  "application/json;as=Table;v=v1;g=meta.k8s.io",
  "application/json;as=Table;v=v1;g=meta.orch.io, application/json",
  "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
  "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io",
  "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
  "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
  "application/json;as=Nope;v=v1;g=meta.k8s.io",
  "application/json;stream=watch",
  "application/cbor",
  "text/html",
  "*/*",
  "*/json",
  "application/*",
  "",
  ",,,",
  "application/json;q=abc",
);
const bogusHeaders = fc.constantFrom<[string, string]>(
  ["content-encoding", "gzip"],
  ["content-encoding", "br"],
  ["impersonate-user", "someone"],
  ["impersonate-group", "system:masters"],
  ["authorization", "Bearer nope"],
  ["authorization", "Basic !!!"],
  ["x-remote-user", "root"],
  ["expect", "100-continue"],
  ["if-match", "*"],
  ["accept-encoding", "gzip"],
  ["user-agent", "\u00ff\u00fe"],
  ["x-forwarded-for", "1.2.3.4, garbage"],
  ["content-length", "-1"],
  ["transfer-encoding", "chunked"],
);
const headers = fc
  .record({
    contentType: fc.option(contentTypes, { freq: 6 }),
    accept: fc.option(accepts, { freq: 3 }),
    extra: fc.array(bogusHeaders, { maxLength: 2 }),
  })
  .map(({ contentType, accept, extra }) => {
    const out: [string, string][] = [];
    if (contentType !== null) out.push(["content-type", contentType]);
    if (accept !== null) out.push(["accept", accept]);
    return [...out, ...extra];
  });

const selector = fc.oneof(
  fc.constantFrom(
    "a=b",
    "a!=b",
    "a in (x,y)",
    "!a",
    "a",
    "a notin (x)",
    "a in (",
    "!!",
    "a==b==c",
    "metadata.name=x",
    "metadata.namespace!=y",
    "spec.nodeName=",
    "=",
    ",",
    "a=b,",
  ),
  fc.string({ maxLength: 20 }),
);
const queryValue: Record<string, fc.Arbitrary<string>> = {
  labelSelector: selector,
  fieldSelector: selector,
  limit: fc.oneof(fc.constantFrom("0", "1", "-5", "abc", "1e3", "500", "9999999999999999999999", ""), fc.integer().map(String)),
  continue: fc.oneof(
    fc.constantFrom("garbage", "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0", ""),
    fc.base64String({ maxLength: 40 }),
  ),
  // Numbers past the current revision are a 3 s wait and a 504 each: only one of them here.
  resourceVersion: fc.constantFrom("", "0", "1", "2", "abc", "-1", "1e3", " 1", "0x1", "99999999999999999999999", "1.5"),
  resourceVersionMatch: fc.constantFrom("NotOlderThan", "Exact", "Nope", ""),
  watch: fc.constantFrom("true", "1", "false", "0", "maybe", ""),
  allowWatchBookmarks: fc.constantFrom("true", "false", "maybe"),
  sendInitialEvents: fc.constantFrom("true", "false", "maybe"),
  timeoutSeconds: fc.constantFrom("0", "1", "-1", "abc", "99999999999"),
  dryRun: fc.constantFrom("All", "All", "all", "None", "", "x"),
  fieldManager: fc.oneof(fc.constantFrom("fuzz", "", "kubectl-client-side-apply", "x".repeat(200)), fc.string({ maxLength: 10 })),
  fieldValidation: fc.constantFrom("Strict", "Warn", "Ignore", "strict", "Nope", ""),
  timeout: fc.constantFrom("1s", "30s", "0", "-1s", "abc", "1h", "5m", "10"),
  force: fc.constantFrom("true", "false", "x"),
  gracePeriodSeconds: fc.constantFrom("0", "30", "-1", "x"),
  propagationPolicy: fc.constantFrom("Orphan", "Background", "Foreground", "Nope"),
  orphanDependents: fc.constantFrom("true", "false", "x"),
  pretty: fc.constantFrom("true", "x"),
  [encodeURIComponent("bogus\u0000key")]: fc.string({ maxLength: 5 }),
};
const queryParam = fc.constantFrom(...Object.keys(queryValue)).chain((key) => queryValue[key]!.map((value): [string, string] => [key, value]));
const query = fc.array(queryParam, { maxLength: 5 });

/** Values of an OpenAPI schema, `depth` levels deep at most (then `{}` or a scalar). */
function fromSchema(schema: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
  if (schema === undefined) return fc.jsonValue({ maxDepth: 2 });
  const ref = (schema.$ref as string | undefined) ?? ((schema.allOf as Schema[] | undefined)?.[0]?.$ref as string | undefined);
  if (ref !== undefined) return fromSchema(namedSchemas.get(ref.slice("#/components/schemas/".length)), depth);
  if (schema["x-kubernetes-int-or-string"] === true) return fc.oneof(fc.integer({ min: -10, max: 100_000 }), fc.constantFrom("80", "50%", "http", "x"));
  switch (schema.type) {
    case "object": {
      if (depth <= 0) return fc.constant({});
      const properties = schema.properties as Record<string, Schema> | undefined;
      if (properties) {
        const keys = Object.keys(properties);
        return fc
          .subarray(keys, { maxLength: Math.min(6, keys.length) })
          .chain((picked) => fc.record(Object.fromEntries(picked.map((k) => [k, fromSchema(properties[k], depth - 1)]))));
      }
      const values = schema.additionalProperties as Schema | undefined;
      return fc.dictionary(fc.oneof(dnsName, fc.string({ maxLength: 8 })), fromSchema(values, depth - 1), { maxKeys: 3 });
    }
    case "array":
      return depth <= 0 ? fc.constant([]) : fc.array(fromSchema(schema.items as Schema | undefined, depth - 1), { maxLength: 3 });
    case "integer":
      return fc.oneof(fc.integer({ min: -5, max: 70_000 }), fc.constantFrom(0, 2 ** 31, -(2 ** 53), Number.MAX_SAFE_INTEGER));
    case "number":
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());
    case "boolean":
      return fc.boolean();
    case "string":
      if (schema.format === "byte") return fc.oneof(fc.base64String({ maxLength: 12 }), fc.constant("!!not base64"));
      if (schema.format === "date-time") return fc.oneof(fc.constant("2026-11-24T20:00:00Z"), fc.string({ maxLength: 8 }));
      if (Array.isArray(schema.enum)) return fc.oneof(fc.constantFrom(...(schema.enum as string[])), fc.string({ maxLength: 6 }));
      return fc.oneof({ weight: 2, arbitrary: dnsName }, { weight: 1, arbitrary: fc.string({ maxLength: 16 }) });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A value of another JSON type than `value`'s. */
const wrongType = (value: unknown): fc.Arbitrary<unknown> => {
  const all: fc.Arbitrary<unknown>[] = [
    fc.constant(null),
    fc.integer(),
    fc.string({ maxLength: 5 }),
    fc.boolean(),
    fc.constant([1, "x"]),
    fc.constant({ x: 1 }),
  ];
  const kind =
    value === null ? 0 : typeof value === "number" ? 1 : typeof value === "string" ? 2 : typeof value === "boolean" ? 3 : Array.isArray(value) ? 4 : 5;
  return fc.oneof(...all.filter((_, i) => i !== kind));
};

/** Every path to a value inside `value`. */
function pathsIn(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => pathsIn(v, [...prefix, i], out));
  else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) pathsIn(v, [...prefix, k], out);
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const container = root !== null && typeof root === "object" ? (root as Record<string | number, unknown>) : {};
  const copy = (Array.isArray(container) ? [...(container as unknown[])] : { ...container }) as Record<string | number, unknown>;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  copy[head] = setAt(container[head], rest, value);
  return copy;
}

function getAt(root: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], root);
}

/** An object of `r`'s kind from its schema, named, with the right apiVersion and kind most of the time. */
function objectOf(r: ServedResource): fc.Arbitrary<unknown> {
  const schema = kindSchemas.get(`${r.group}/${r.version}/${r.kind}`);
  const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
  return fc
    .record({
      generated: fromSchema(schema, 4),
      name: fc.oneof(
        { weight: 4, arbitrary: fc.constant(existing.get(r.resource) ?? "fuzzed") },
        { weight: 2, arbitrary: dnsName },
        { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
      ),
      typed: fc.boolean(),
    })
    .map(({ generated, name, typed }) => {
      const object = generated !== null && typeof generated === "object" && !Array.isArray(generated) ? { ...(generated as Record<string, unknown>) } : {};
      const metadata = (object.metadata !== null && typeof object.metadata === "object" ? { ...(object.metadata as Record<string, unknown>) } : {}) as Record<
        string,
        unknown
      >;
      metadata.name = name;
      delete metadata.resourceVersion;
      return { ...object, ...(typed ? { apiVersion, kind: r.kind } : {}), metadata };
    });
}

/** The catalog's valid example of `r`, under its own name or a fresh one. */
function exampleOf(r: ServedResource): fc.Arbitrary<unknown> {
  const example = examples.get(r.resource) ?? {};
  return fc.option(dnsName, { freq: 3 }).map((name) => {
    const metadata = { ...(example.metadata as Record<string, unknown>) };
    if (name !== null) metadata.name = name;
    return { ...example, metadata };
  });
}

/** A JSON patch, valid in shape most of the time. */
const jsonPatch = fc.array(
  fc.record({
    op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "nope"),
    path: fc.constantFrom("/metadata/labels/x", "/metadata/name", "/spec", "/data/k", "/metadata/labels/a~1b", "", "/", "/-", "/metadata/finalizers/-", "nope"),
    value: fc.jsonValue({ maxDepth: 2 }),
    from: fc.constantFrom("/metadata/labels", "/nope"),
  }),
  { maxLength: 3 },
);

/** How a generated body is broken before it is sent. */
const mutation = fc.oneof(
  { weight: 9, arbitrary: fc.constant("none") },
  { weight: 1, arbitrary: fc.constantFrom("wrongType", "extraField", "truncate", "deepNesting", "invalidUTF8", "duplicateKey", "notJSON", "yaml", "protobuf") },
);

function bodies(r?: ServedResource): fc.Arbitrary<Uint8Array | undefined> {
  const value = fc.oneof(
    { weight: r ? 12 : 0, arbitrary: r ? objectOf(r) : fc.constant({}) },
    { weight: r && examples.has(r.resource) ? 6 : 0, arbitrary: r ? exampleOf(r) : fc.constant({}) },
    { weight: 6, arbitrary: fc.constantFrom(...resources).chain(objectOf) },
    { weight: 1, arbitrary: jsonPatch },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  );
  const mutated = fc
    .tuple(value, mutation, fc.nat(), fc.jsonValue({ maxDepth: 1 }), fc.integer({ min: 200, max: 20_000 }))
    .chain(([v, how, pick, extra, depth]) => {
      const targets = pathsIn(v);
      const at = targets[pick % targets.length]!;
      switch (how) {
        case "wrongType":
          return wrongType(getAt(v, at)).map((w) => JSON.stringify(setAt(v, at, w)));
        case "extraField": {
          const objects = targets.filter((p) => {
            const x = getAt(v, p);
            return x !== null && typeof x === "object" && !Array.isArray(x);
          });
          const where = objects[pick % Math.max(1, objects.length)] ?? [];
          return fc.constant(JSON.stringify(setAt(v, [...where, `unknownField${pick % 7}`], extra)));
        }
        case "truncate": {
          const text = JSON.stringify(v) ?? "";
          return fc.constant(text.slice(0, pick % (text.length + 1)));
        }
        case "deepNesting": {
          const open = pick % 2 === 0 ? "[" : '{"a":';
          const close = pick % 2 === 0 ? "]" : "}";
          return fc.constant(JSON.stringify(setAt(v, at, null)).replace("null", open.repeat(depth) + "1" + close.repeat(depth)));
        }
        case "duplicateKey":
          return fc.constant((JSON.stringify(v) ?? "").replace(/^\{/, '{"metadata":{"name":"dup"},'));
        case "notJSON":
          return fc.constantFrom("", "{", "[]", "null", "42", '"x"', "{}", "<xml/>", "a: b\n  c", "---\n---\n", '{"a":1}{"b":2}', "\uFEFF{}");
        case "yaml":
          return fc.constant(`# yaml\n${JSON.stringify(v, null, 1)}\n`);
        default:
          return fc.constant(JSON.stringify(v) ?? "");
      }
    });
  const encoded = fc.tuple(mutated, mutation, fc.nat(), fc.uint8Array({ maxLength: 40 })).map(([text, how, pick, noise]) => {
    const bytes = encoder.encode(text);
    if (how === "invalidUTF8") {
      const at = pick % (bytes.length + 1);
      const bad = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]][pick % 5]!;
      return Uint8Array.from([...bytes.subarray(0, at), ...bad, ...bytes.subarray(at)]);
    }
    // Bytes that start like a protobuf envelope and go on with noise.
    if (how === "protobuf") return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...noise]);
    return bytes;
  });
  return fc.option(encoded, { freq: 5 }).map((b) => b ?? undefined);
}

/** Requests on one served resource, with bodies of its kind and mostly plausible headers. */
function catalogRequests(): fc.Arbitrary<FuzzRequest> {
  const plausibleHeaders = fc
    .record({
      contentType: fc.oneof(
        { weight: 6, arbitrary: fc.constant("application/json") },
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
            "application/apply-patch+yaml",
            "application/json-patch+json",
          ),
        },
        { weight: 2, arbitrary: contentTypes },
      ),
      accept: fc.option(accepts, { freq: 2 }),
      extra: fc.array(bogusHeaders, { maxLength: 1 }),
      withExtra: fc.nat(9),
    })
    .map(({ contentType, accept, extra, withExtra }) => {
      const out: [string, string][] = [["content-type", contentType]];
      if (accept !== null) out.push(["accept", accept]);
      return withExtra === 0 ? [...out, ...extra] : out;
    });
  return fc.constantFrom(...resources).chain((r) =>
    fc.record({
      method: methods,
      path: pathUnder(r),
      query: fc.array(queryParam, { maxLength: 3 }),
      headers: plausibleHeaders,
      body: bodies(r),
    }),
  );
}

function fuzzRequests(): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 3, arbitrary: catalogRequests() },
    { weight: 1, arbitrary: fc.record({ method: methods, path: paths(), query, headers, body: bodies() }) },
  );
}

// ---------------------------------------------------------------------------------------------
// Checks

function urlOf(request: FuzzRequest): string {
  if (request.query.length === 0) return request.path;
  return `${request.path}?${request.query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`;
}

function describeRequest(request: FuzzRequest): string {
  const body = request.body ? decoder.decode(request.body.subarray(0, 300)) : "";
  return `${request.method} ${urlOf(request).slice(0, 400)} ${JSON.stringify(request.headers)} ${JSON.stringify(body)}`;
}

/** What the store holds: every key with its modification revision. */
async function storeContents(): Promise<string> {
  const { entries, revision } = await store.list("");
  return `${revision} ${entries.map((e) => `${e.key}@${e.modRevision}`).join(",")}`;
}

/** What the checks need of an answer. */
interface Answer {
  status: number;
  contentType: string | null;
  /** The body of a 4xx or 5xx answer (others are not read). */
  text: string;
}

/** How a request reaches the server. */
type Transport = (request: FuzzRequest) => Promise<Answer>;

/** Rejects after 20 s: a request that is never answered fails the property. */
function bounded<T>(request: FuzzRequest, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not answered in 20 s: ${describeRequest(request)}`)), 20_000);
  });
  return Promise.race([run(abort.signal), timeout]).finally(() => {
    clearTimeout(timer);
    abort.abort();
  });
}

/** `APIServer.handle` in this process: the server's own decoding and routing. */
const inProcess: Transport = (request) =>
  bounded(request, async (signal) => {
    const headers = new Headers();
    for (const [name, value] of request.headers) headers.append(name, value);
    const response: APIResponse = await server.handle({
      method: request.method,
      url: urlOf(request),
      headers,
      signal,
      ...(request.body ? { body: request.body } : {}),
    });
    if (response.stream) await response.stream[Symbol.asyncIterator]().return?.();
    const text = response.body === undefined ? "" : typeof response.body === "string" ? response.body : decoder.decode(response.body);
    return { status: response.status, contentType: response.headers.get("content-type"), text };
  });

/**
 * Over HTTP to `serve` on the same server: Node's parser and orch's request listener in front.
 * A method Node's client will not send is sent as GET; the body goes with its Content-Length.
 */
function overHTTP(base: string): Transport {
  return (request) =>
    bounded(
      request,
      (signal) =>
        new Promise<Answer>((resolve, reject) => {
          const method = request.method === "" || request.method === "CONNECT" ? "GET" : request.method;
          const headers = request.headers.filter(([name]) => name !== "content-length" && name !== "transfer-encoding");
          const path = (urlOf(request) || "/").replaceAll(" ", "%20");
          const req = httpRequest(
            `${base}${path.startsWith("/") ? "" : "/"}${path}`,
            {
              method,
              headers: [["host", new URL(base).host], ["content-length", String(request.body?.byteLength ?? 0)], ...headers].flat(),
              agent: false,
              signal,
            },
            (res) => {
              const status = res.statusCode ?? 0;
              const contentType = res.headers["content-type"] ?? null;
              if (status < 400 || method === "HEAD") {
                res.destroy();
                resolve({ status, contentType, text: "" });
                return;
              }
              let text = "";
              res.setEncoding("utf8");
              res.on("data", (chunk: string) => (text += chunk));
              res.on("end", () => resolve({ status, contentType, text }));
              res.on("error", reject);
            },
          );
          req.on("error", reject);
          req.end(request.body);
        }),
    );
}

/** A 504 the request asked for: a resourceVersion newer than the store's, or a `?timeout=` it could not meet. */
function deliberate504(request: FuzzRequest, body: Record<string, unknown> | undefined): boolean {
  return body?.reason === "Timeout" && request.query.some(([k]) => k === "resourceVersion" || k === "timeout");
}

let checked = 0;
const statuses = new Map<number, number>();

async function check(request: FuzzRequest, send: Transport): Promise<void> {
  const before = await storeContents();
  const answer = await send(request);
  checked++;
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  const what = `${answer.status} for ${describeRequest(request)}`;
  const text = answer.text;
  let status: Record<string, unknown> | undefined;
  if (answer.status >= 400 && request.method !== "HEAD") {
    expect(answer.contentType, what).toBe("application/json");
    status = JSON.parse(text) as Record<string, unknown>;
    expect(status, `${what}: ${text}`).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code: answer.status });
    expect(typeof status.message, `${what}: ${text}`).toBe("string");
    expect(typeof status.reason, `${what}: ${text}`).toBe("string");
  }
  if (answer.status >= 500 && !(answer.status === 504 && deliberate504(request, status))) expect.fail(`${what}: ${text.slice(0, 1000)}`);
  const dryRun = request.query.some(([k, v]) => k === "dryRun" && v === "All");
  const read = ["GET", "HEAD", "OPTIONS"].includes(request.method);
  if (answer.status >= 300 || dryRun || read) expect(await storeContents(), `the store changed on ${what}: ${text.slice(0, 500)}`).toBe(before);
}

/** Requests that once broke the server, replayed first on every run. */
const regressions: FuzzRequest[] = [
  // An unknown health check was a plain-text 404 instead of the NotFound Status.
  { method: "GET", path: "/livez/nope", query: [], headers: [], body: undefined },
  // Bodies nested a few thousand levels deep (under the reference's limit of 10000) exhausted the
  // stack of JavaScript's recursive walks: a 500. The limit is now 1000 levels, a 400 past it.
  {
    method: "PUT",
    path: "/apis/flowcontrol.apiserver.orch.io/v1beta2/flowschemas",
    query: [],
    headers: [["content-type", "application/json"]],
    body: encoder.encode(`{"apiVersion":"flowcontrol.apiserver.orch.io/v1beta2","kind":${"[".repeat(5000)}1${"]".repeat(5000)}}`),
  },
  {
    method: "POST",
    path: "/apis/apps/v1/namespaces/default/controllerrevisions",
    query: [],
    headers: [["content-type", "application/json"]],
    body: encoder.encode(
      `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"deep"},"revision":1,"data":${'{"a":'.repeat(2000)}1${"}".repeat(2000)}}`,
    ),
  },
];

/** The fast-check parameters: a run count and a time budget, a seed and path to replay. */
function runParameters(runs: number, ms: number): fc.Parameters<[FuzzRequest]> {
  const seed = process.env.ORCH_FUZZ_SEED;
  const path = process.env.ORCH_FUZZ_PATH;
  return {
    numRuns: Number(process.env.ORCH_FUZZ_RUNS ?? runs),
    interruptAfterTimeLimit: Number(process.env.ORCH_FUZZ_MS ?? ms),
    markInterruptAsFailure: false,
    ...(seed !== undefined ? { seed: Number(seed) } : {}),
    ...(path !== undefined ? { path } : {}),
  };
}

function resetCounts(): void {
  checked = 0;
  statuses.clear();
}

function report(what: string, started: number): void {
  console.log(`http fuzz (${what}): ${checked} requests in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
}

it("answers every request without a 5xx, with a Status on every 4xx, and changes nothing it rejects", async () => {
  resetCounts();
  const started = Date.now();
  for (const request of regressions) await check(request, inProcess);
  await fc.assert(
    fc.asyncProperty(fuzzRequests(), (request) => check(request, inProcess)),
    runParameters(10_000, 40_000),
  );
  report("in process", started);
  // The generators reach the server's interesting paths, not only its errors.
  for (const code of [200, 400, 404]) expect(statuses.get(code) ?? 0, `answers ${code}`).toBeGreaterThan(0);
}, 120_000);

it("does the same over HTTP, through Node's parser and the request listener", async () => {
  resetCounts();
  const served = await serve(server, { drainTimeoutMs: 1_000 });
  try {
    const started = Date.now();
    const send = overHTTP(served.url);
    for (const request of regressions) await check(request, send);
    await fc.assert(
      fc.asyncProperty(fuzzRequests(), (request) => check(request, send)),
      runParameters(1_500, 15_000),
    );
    report("over HTTP", started);
    for (const code of [200, 400, 404]) expect(statuses.get(code) ?? 0, `answers ${code}`).toBeGreaterThan(0);
  } finally {
    await served.close();
  }
}, 60_000);
