/**
 * The JSON schema (OpenAPI 3.0 flavour, everything inlined) of a zod schema, cached per schema,
 * and a walker over it. The unknown-field checks and decode error messages read it.
 * @module
 */
import { z } from "zod";

/** A node of a generated JSON schema. */
export type JSONNode = Record<string, unknown>;

const cache = new WeakMap<object, JSONNode>();

/** The JSON schema of `schema` (input side: what a client may send), computed once. */
export function jsonSchemaOf(schema: z.ZodType): JSONNode {
  let node = cache.get(schema);
  if (node === undefined) {
    node = z.toJSONSchema(schema, {
      target: "openapi-3.0",
      io: "input",
      unrepresentable: "any",
      reused: "inline",
      cycles: "ref",
    }) as JSONNode;
    cache.set(schema, node);
  }
  return node;
}

function isObject(value: unknown): value is JSONNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Resolved nodes by node, then by root: generated schemas are cached and never changed, so a
// node resolves the same way every time (a write walks the same nodes once per request).
const resolvedCache = new WeakMap<JSONNode, WeakMap<JSONNode, JSONNode>>();

/** Follows `$ref`s (to the root's definitions) and merges `allOf`; `anyOf`/`oneOf` are merged as alternatives. */
export function resolveNode(node: JSONNode, root: JSONNode, depth = 0): JSONNode {
  // Most nodes have nothing to resolve: answered without allocating.
  if (node["$ref"] === undefined && node["allOf"] === undefined && node["anyOf"] === undefined && node["oneOf"] === undefined) return node;
  if (depth > 0) return resolveParts(node, root, depth);
  let byRoot = resolvedCache.get(node);
  let resolved = byRoot?.get(root);
  if (resolved === undefined) {
    resolved = resolveParts(node, root, 0);
    if (!byRoot) resolvedCache.set(node, (byRoot = new WeakMap()));
    byRoot.set(root, resolved);
  }
  return resolved;
}

function resolveParts(node: JSONNode, root: JSONNode, depth: number): JSONNode {
  if (depth > 16) return node;
  const ref = node["$ref"];
  if (typeof ref === "string") {
    const name = ref.split("/").pop() ?? "";
    const defs = (root["$defs"] ?? root["definitions"] ?? {}) as Record<string, unknown>;
    const target = defs[name];
    if (isObject(target)) return resolveNode({ ...node, ...target, $ref: undefined }, root, depth + 1);
  }
  const parts = [node["allOf"], node["anyOf"], node["oneOf"]].filter(Array.isArray).flat() as unknown[];
  if (parts.length === 0) return node;
  const merged: JSONNode = { ...node, allOf: undefined, anyOf: undefined, oneOf: undefined };
  for (const part of parts) {
    if (!isObject(part)) continue;
    const resolved = resolveNode(part, root, depth + 1);
    if (isObject(resolved["properties"])) {
      merged["properties"] = { ...((merged["properties"] as JSONNode | undefined) ?? {}), ...resolved["properties"] };
    }
    for (const key of ["type", "format", "items", "additionalProperties"]) {
      if (merged[key] === undefined && resolved[key] !== undefined) merged[key] = resolved[key];
    }
  }
  return merged;
}

/** The `properties` of a node, if it describes a struct. */
export function propertiesOf(node: JSONNode): Record<string, JSONNode> | undefined {
  const props = node["properties"];
  return isObject(props) ? (props as Record<string, JSONNode>) : undefined;
}

/** The value schema of a map node (`additionalProperties`), if it describes a map. */
export function mapValuesOf(node: JSONNode): JSONNode | undefined {
  const extra = node["additionalProperties"];
  if (extra === true) return {};
  return isObject(extra) ? extra : undefined;
}

/** The item schema of an array node. */
export function itemsOf(node: JSONNode): JSONNode | undefined {
  const items = node["items"];
  return isObject(items) ? items : undefined;
}

/** True for a node that accepts anything (`{}`, or no type and no structure). */
export function isFreeForm(node: JSONNode): boolean {
  return node["type"] === undefined && propertiesOf(node) === undefined && mapValuesOf(node) === undefined && itemsOf(node) === undefined;
}
