/**
 * A small checker of objects against the OpenAPI v3 schemas the server publishes: types,
 * required fields, and no field the schema does not name (objects the server returns are pruned,
 * so anything unnamed is a schema gap). Enough to prove the document describes what is served.
 * @module
 */

/** An OpenAPI schema node (the subset the server emits). */
export interface SchemaNode {
  $ref?: string;
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  type?: string;
  format?: string;
  nullable?: boolean;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  required?: string[];
  enum?: unknown[];
  [extension: string]: unknown;
}

/** Problems of `value` against `node`, as `path: problem` lines (empty when it fits). */
export function checkAgainstSchema(value: unknown, node: SchemaNode, schemas: Record<string, SchemaNode>, path = ""): string[] {
  if (node.$ref) {
    const name = node.$ref.replace("#/components/schemas/", "");
    const target = schemas[name];
    return target ? checkAgainstSchema(value, target, schemas, path) : [`${path}: unresolved ${node.$ref}`];
  }
  if (node.allOf) return node.allOf.flatMap((n) => checkAgainstSchema(value, n, schemas, path));
  const alternatives = node.anyOf ?? node.oneOf;
  if (alternatives) {
    return alternatives.some((n) => checkAgainstSchema(value, n, schemas, path).length === 0) ? [] : [`${path}: matches no alternative`];
  }
  if (value === null) return node.nullable ? [] : [`${path}: null`];
  const intOrString = Object.keys(node).some((k) => k.endsWith("-int-or-string"));
  if (intOrString) return typeof value === "string" || Number.isInteger(value) ? [] : [`${path}: not int-or-string`];
  const preserve = Object.keys(node).some((k) => k.endsWith("-preserve-unknown-fields"));
  switch (node.type) {
    case "string":
      return typeof value === "string" ? [] : [`${path}: not a string`];
    case "integer":
      return Number.isInteger(value) ? [] : [`${path}: not an integer`];
    case "number":
      return typeof value === "number" ? [] : [`${path}: not a number`];
    case "boolean":
      return typeof value === "boolean" ? [] : [`${path}: not a boolean`];
    case "array":
      if (!Array.isArray(value)) return [`${path}: not an array`];
      return node.items ? value.flatMap((v, i) => checkAgainstSchema(v, node.items as SchemaNode, schemas, `${path}[${i}]`)) : [];
    case "object":
    case undefined: {
      if (node.type === undefined && !node.properties && !node.additionalProperties) return [];
      if (typeof value !== "object" || Array.isArray(value)) return [`${path}: not an object`];
      const problems: string[] = [];
      const record = value as Record<string, unknown>;
      for (const key of node.required ?? []) if (!(key in record)) problems.push(`${path}.${key}: required`);
      for (const [key, v] of Object.entries(record)) {
        const child = node.properties?.[key];
        if (child) problems.push(...checkAgainstSchema(v, child, schemas, path ? `${path}.${key}` : key));
        else if (typeof node.additionalProperties === "object") problems.push(...checkAgainstSchema(v, node.additionalProperties, schemas, `${path}[${key}]`));
        else if (node.additionalProperties !== true && !preserve && node.properties) problems.push(`${path ? `${path}.` : ""}${key}: not in the schema`);
      }
      return problems;
    }
    default:
      return [];
  }
}

/** The component schema of a kind, found by its group-version-kind extension. */
export function schemaOfKind(schemas: Record<string, SchemaNode>, group: string, version: string, kind: string): SchemaNode | undefined {
  return Object.values(schemas).find((s) =>
    Object.entries(s).some(
      ([k, v]) =>
        k.endsWith("-group-version-kind") &&
        Array.isArray(v) &&
        v.some((g: { group: string; version: string; kind: string }) => g.group === group && g.version === version && g.kind === kind),
    ),
  );
}
