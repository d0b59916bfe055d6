/**
 * Every kind of the catalog over HTTP, from one data file per kind in `test/catalog/`: a valid
 * object round-trips through create, get, list, update and delete; every invalid object (or
 * invalid change) is refused with 422 and the exact causes; and the OpenAPI document validates
 * every object the server returned.
 */
import { serve, type ServedServer } from "@orch/node";
import { APIServer } from "@orch/server";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAgainstSchema, schemaOfKind, type SchemaNode } from "./support/openapi-check.js";

interface Cause {
  field: string;
  reason: string;
}
interface InvalidCase {
  rule: string;
  object?: Record<string, unknown>;
  patch?: Record<string, unknown>;
  causes: Cause[];
}
interface KindFile {
  apiVersion: string;
  kind: string;
  resource: string;
  namespaced: boolean;
  valid: Record<string, unknown> & { metadata: { name: string } };
  defaulted?: Record<string, unknown>;
  update?: Record<string, unknown>;
  invalid?: InvalidCase[];
  virtual?: boolean;
  computed?: boolean;
  /** Objects to create first (`path` relative to the server, then the object), e.g. the pod a Binding binds. */
  setup?: { path: string; object: Record<string, unknown> }[];
  expect?: Record<string, unknown>;
  /**
   * POSTs to action sub-resources of the valid object (ServiceAccount `token`): the body's kind
   * and apiVersion, what the 201 answer must hold; the answer must fit that kind's OpenAPI schema.
   */
  actions?: { subresource: string; apiVersion: string; kind: string; body: Record<string, unknown>; expect: Record<string, unknown> }[];
  /**
   * The Table of the valid object as created: every column's name (wide ones too), and the cells
   * of its row where the expected cell is not null (null stands for a cell that varies, an age).
   */
  table?: { columns: string[]; cells: unknown[] };
  /** Field selectors on a list, and whether the valid object as created is among the items. */
  fieldSelectors?: { selector: string; matches: boolean }[];
}

const domain = "orch.io";
const dir = join(import.meta.dirname, "catalog");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort();
const load = (file: string): KindFile => JSON.parse(readFileSync(join(dir, file), "utf8").replaceAll("{domain}", domain)) as KindFile;

let api: APIServer;
let served: ServedServer;
const schemasByGroupVersion = new Map<string, Record<string, SchemaNode>>();

beforeAll(async () => {
  // The kinds' own rules, without admission (whose plugins add volumes, defaults and finalizers
  // of their own: they have their tests).
  api = new APIServer({ domain, admission: [] });
  served = await serve(api, { port: 0 });
});
afterAll(async () => {
  await served.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function http(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<{ status: number; json: any }> {
  const res = await fetch(`${served.url}${path}`, {
    method,
    headers: { "content-type": contentType, accept: "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

function basePath(k: KindFile): string {
  const prefix = k.apiVersion.includes("/") ? `/apis/${k.apiVersion}` : `/api/${k.apiVersion}`;
  return k.namespaced ? `${prefix}/namespaces/default/${k.resource}` : `${prefix}/${k.resource}`;
}

async function schemas(k: KindFile): Promise<Record<string, SchemaNode>> {
  const key = k.apiVersion.includes("/") ? `apis/${k.apiVersion}` : `api/${k.apiVersion}`;
  let found = schemasByGroupVersion.get(key);
  if (!found) {
    const doc = await http("GET", `/openapi/v3/${key}`);
    expect(doc.status).toBe(200);
    found = doc.json.components.schemas as Record<string, SchemaNode>;
    schemasByGroupVersion.set(key, found);
  }
  return found;
}

async function expectSchemaValid(k: KindFile, object: unknown): Promise<void> {
  const all = await schemas(k);
  const [group, version] = k.apiVersion.includes("/") ? (k.apiVersion.split("/") as [string, string]) : ["", k.apiVersion];
  const schema = schemaOfKind(all, group, version, k.kind);
  expect(schema, `OpenAPI schema of ${k.kind}`).toBeDefined();
  expect(checkAgainstSchema(object, schema as SchemaNode, all)).toEqual([]);
}

describe.each(files)("catalog %s", (file) => {
  const k = load(file);

  if (k.virtual) {
    it("answers a create without storing anything", async () => {
      for (const s of k.setup ?? []) expect((await http("POST", s.path, s.object)).status).toBe(201);
      const res = await http("POST", basePath(k), { apiVersion: k.apiVersion, kind: k.kind, ...k.valid });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(res.json).toMatchObject(k.expect ?? {});
      if (res.json.kind !== "Status") await expectSchemaValid(k, res.json);
      expect((await http("GET", basePath(k))).status).toBeGreaterThanOrEqual(400);
    });
  } else if (k.computed) {
    it("lists the computed objects", async () => {
      const res = await http("GET", basePath(k));
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject(k.expect ?? {});
      for (const item of res.json.items) await expectSchemaValid(k, { apiVersion: k.apiVersion, kind: k.kind, ...item });
    });
  } else {
    it("round-trips a valid object through create, get, list, update and delete", async () => {
      const name = k.valid.metadata.name;
      const created = await http("POST", basePath(k), { apiVersion: k.apiVersion, kind: k.kind, ...k.valid });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      expect(created.json).toMatchObject({ apiVersion: k.apiVersion, kind: k.kind, metadata: { name } });
      if (k.defaulted) expect(created.json).toMatchObject(k.defaulted);
      await expectSchemaValid(k, created.json);
      const got = await http("GET", `${basePath(k)}/${name}`);
      expect(got.json).toEqual(created.json);
      const list = await http("GET", basePath(k));
      expect(list.json.kind).toBe(`${k.kind}List`);
      expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain(name);
      if (k.table) {
        const res = await fetch(`${served.url}${basePath(k)}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`, {
          headers: { accept: `application/json;as=Table;v=v1;g=meta.${domain},application/json` },
        });
        const table = (await res.json()) as { kind: string; columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
        expect(table.kind).toBe("Table");
        expect(table.columnDefinitions.map((c) => c.name)).toEqual(k.table.columns);
        const cells = table.rows[0]?.cells ?? [];
        k.table.cells.forEach((cell, i) => {
          if (cell !== null) expect(cells[i], `cell ${k.table?.columns[i] ?? i}`).toEqual(cell);
        });
      }
      for (const f of k.fieldSelectors ?? []) {
        const res = await http("GET", `${basePath(k)}?fieldSelector=${encodeURIComponent(f.selector)}`);
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        const names = res.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
        expect(names.includes(name), f.selector).toBe(f.matches);
      }
      if (k.update) {
        const updated = await http("PATCH", `${basePath(k)}/${name}`, k.update, "application/merge-patch+json");
        expect(updated.status, JSON.stringify(updated.json)).toBe(200);
        expect(updated.json).toMatchObject(k.update);
        await expectSchemaValid(k, updated.json);
        const put = await http("PUT", `${basePath(k)}/${name}`, updated.json);
        expect(put.status, JSON.stringify(put.json)).toBe(200);
      }
      for (const a of k.actions ?? []) {
        const res = await http("POST", `${basePath(k)}/${name}/${a.subresource}`, { apiVersion: a.apiVersion, kind: a.kind, ...a.body });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        expect(res.json).toMatchObject(a.expect);
        const [group, version] = a.apiVersion.includes("/") ? (a.apiVersion.split("/") as [string, string]) : ["", a.apiVersion];
        const all = await schemas(k);
        const schema = schemaOfKind(all, group, version, a.kind);
        expect(schema, `OpenAPI schema of ${a.kind} in ${k.apiVersion}`).toBeDefined();
        expect(checkAgainstSchema(res.json, schema as SchemaNode, all)).toEqual([]);
      }
      for (const c of k.invalid ?? []) {
        if (!c.patch) continue;
        const before = await http("GET", `${basePath(k)}/${name}`);
        const res = await http("PATCH", `${basePath(k)}/${name}`, c.patch, "application/merge-patch+json");
        expect(res.status, `${c.rule}: ${JSON.stringify(res.json)}`).toBe(422);
        expect(res.json.details.causes, c.rule).toEqual(expect.arrayContaining(c.causes.map((cause) => expect.objectContaining(cause))));
        expect((await http("GET", `${basePath(k)}/${name}`)).json, `${c.rule}: nothing stored changes`).toEqual(before.json);
      }
      const deleted = await http("DELETE", `${basePath(k)}/${name}`);
      expect([200, 202]).toContain(deleted.status);
      if (deleted.json.kind !== "Status") await expectSchemaValid(k, deleted.json);
    });

    const creates = (k.invalid ?? []).filter((c) => c.object);
    if (creates.length > 0) {
      it.each(creates.map((c) => [c.rule, c] as const))("refuses an object that breaks the rule: %s", async (_rule, c) => {
        const res = await http("POST", basePath(k), { apiVersion: k.apiVersion, kind: k.kind, ...c.object });
        expect(res.status, JSON.stringify(res.json)).toBe(422);
        expect(res.json).toMatchObject({ kind: "Status", reason: "Invalid", code: 422 });
        expect(res.json.details.causes).toEqual(expect.arrayContaining(c.causes.map((cause) => expect.objectContaining(cause))));
      });
    }
  }
});
