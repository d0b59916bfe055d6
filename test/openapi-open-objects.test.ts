/**
 * Every object schema the server publishes is closed: it lists its properties, or it is a typed
 * map (`additionalProperties` with a schema of its own). An object that accepts anything
 * (`additionalProperties: {}` or no properties at all) is allowed only where the reference itself
 * is open: raw embedded objects and managed-field sets. A field found open here is a field whose
 * unknown members strict field validation cannot refuse.
 */
import { APIServer } from "@orch/server";
import { describe, expect, it } from "vitest";

type Node = Record<string, unknown>;

/** Where the reference is open too: `<component suffix><path inside it>`. */
const openInReference = new Set([
  // metav1.FieldsV1: the managed-field set, a trie of arbitrary keys.
  "apimachinery.pkg.apis.meta.v1.FieldsV1",
  // runtime.RawExtension: an embedded object of any kind (ControllerRevision.data, AdmissionReview objects).
  "apimachinery.pkg.runtime.RawExtension",
  // The object of a watch event, of whatever kind the watch is over.
  "apimachinery.pkg.apis.meta.v1.WatchEvent.object",
]);

async function getJSON(server: APIServer, url: string): Promise<Node> {
  const res = await server.handle({ method: "GET", url, headers: new Headers({ accept: "application/json" }) });
  expect(res.status, url).toBe(200);
  return JSON.parse(typeof res.body === "string" ? res.body : "") as Node;
}

function isOpen(node: Node): boolean {
  if (node["$ref"] !== undefined || node["allOf"] !== undefined || node["anyOf"] !== undefined || node["oneOf"] !== undefined) return false;
  if (node["x-kubernetes-int-or-string"] === true || node["format"] === "int-or-string") return false;
  const extra = node["additionalProperties"];
  const emptyExtra = extra === true || (typeof extra === "object" && extra !== null && Object.keys(extra).length === 0);
  if (node["type"] === "object") return node["properties"] === undefined && (extra === undefined || emptyExtra);
  // A schema with no type at all accepts any JSON value.
  return node["type"] === undefined && node["properties"] === undefined;
}

function walk(node: unknown, path: string, out: string[]): void {
  if (typeof node !== "object" || node === null) return;
  const n = node as Node;
  if (isOpen(n)) out.push(path);
  for (const [k, v] of Object.entries((n["properties"] as Node | undefined) ?? {})) walk(v, `${path}.${k}`, out);
  if (n["items"] !== undefined) walk(n["items"], `${path}[]`, out);
  const extra = n["additionalProperties"];
  if (typeof extra === "object" && extra !== null && Object.keys(extra).length > 0) walk(extra, `${path}{}`, out);
  for (const k of ["allOf", "anyOf", "oneOf"]) for (const part of (n[k] as unknown[] | undefined) ?? []) walk(part, path, out);
}

function allowed(path: string): boolean {
  for (const entry of openInReference) if (path.endsWith(entry) || path.includes(`${entry}.`) || path.includes(`.${entry}`)) return true;
  return false;
}

describe("served OpenAPI", () => {
  it("has no open object schema outside the places the reference leaves open", async () => {
    const server = new APIServer({ admission: [] });
    const index = await getJSON(server, "/openapi/v3");
    const open: string[] = [];
    for (const entry of Object.values(index["paths"] as Record<string, { serverRelativeURL: string }>)) {
      const doc = await getJSON(server, entry.serverRelativeURL);
      const schemas = (doc["components"] as { schemas: Record<string, Node> }).schemas;
      for (const [name, schema] of Object.entries(schemas)) {
        const found: string[] = [];
        walk(schema, name, found);
        for (const p of found) if (!allowed(p.replace(/^io\.(orch|k8s)\./, ""))) open.push(p);
      }
    }
    expect([...new Set(open)].sort()).toEqual([]);
  });

  it("detects an open object (the walk itself)", () => {
    const found: string[] = [];
    walk(
      { type: "object", properties: { a: { type: "object", additionalProperties: {} }, b: { type: "object", additionalProperties: { type: "string" } } } },
      "X",
      found,
    );
    expect(found).toEqual(["X.a"]);
  });
});
