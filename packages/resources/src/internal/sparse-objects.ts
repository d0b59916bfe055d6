/**
 * A cheaper parse for the object schemas of the catalog. zod parses an object by running the
 * schema of every field of its shape, present in the input or not, each run allocating a result
 * and an issue list; the reference's kinds have wide shapes (a container has 24 fields, a pod
 * spec 40, a volume source 30) of which a body sets a few. {@link sparseObjectParse} gives each
 * object schema under a root a parse that runs only the fields its input has, with zod's own
 * result: the fields in shape order, unknown ones stripped, the same issues with the same paths.
 * Inputs that fill more than half of a shape, lack a required field (zod words that issue), or
 * meet a shape the sparse parse does not model (a catchall, a defaulted field) keep zod's parse.
 * @module
 */
import type { z } from "zod";

interface Issue {
  path?: PropertyKey[];
}
interface Payload {
  value: unknown;
  issues: Issue[];
}
type Parse = (payload: Payload, ctx: unknown) => Payload | Promise<Payload>;

/** The parts of a zod schema this module reads and replaces (zod 4's own internals). */
interface Internals {
  _zod: {
    def: Record<string, unknown> & { type: string };
    optin?: "optional" | "defaulted";
    parse: Parse;
    run: Parse;
  };
}

/** The fields of one object shape, by name and in order. */
interface Shape {
  index: Map<string, number>;
  keys: string[];
  schemas: Internals[];
  required: string[];
}

const patched = new WeakSet<object>();

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

function shapeOf(def: Internals["_zod"]["def"]): Shape | undefined {
  if (def["catchall"] !== undefined) return undefined;
  const shape = def["shape"] as Record<string, Internals>;
  const index = new Map<string, number>();
  const keys: string[] = [];
  const schemas: Internals[] = [];
  const required: string[] = [];
  for (const [key, schema] of Object.entries(shape)) {
    const optin = schema._zod.optin;
    if (optin === "defaulted") return undefined;
    if (optin === undefined) required.push(key);
    index.set(key, keys.length);
    keys.push(key);
    schemas.push(schema);
  }
  return { index, keys, schemas, required };
}

function patchObject(schema: Internals): void {
  const dense = schema._zod.parse;
  let shape: Shape | null | undefined;
  schema._zod.parse = (payload, ctx) => {
    const input = payload.value;
    if (shape === undefined) shape = shapeOf(schema._zod.def) ?? null;
    if (shape === null || !isPlainObject(input)) return dense(payload, ctx);
    const present: number[] = [];
    for (const key in input) {
      const i = shape.index.get(key);
      if (i !== undefined) present.push(i);
    }
    if (present.length * 2 > shape.keys.length) return dense(payload, ctx);
    for (const key of shape.required) if (!Object.hasOwn(input, key)) return dense(payload, ctx);
    present.sort((a, b) => a - b);
    const out: Record<string, unknown> = {};
    for (const i of present) {
      const key = shape.keys[i] as string;
      const result = (shape.schemas[i] as Internals)._zod.run({ value: input[key], issues: [] }, ctx);
      if (result instanceof Promise) return dense(payload, ctx);
      for (const issue of result.issues) {
        issue.path = issue.path ? [key, ...issue.path] : [key];
        payload.issues.push(issue);
      }
      out[key] = result.value;
    }
    payload.value = out;
    return payload;
  };
}

/**
 * Gives every object schema reachable from `root` (through fields, list items, map values,
 * optional wrappers, pipes and unions) the sparse parse of this module. Each schema is patched
 * once, however many roots share it; what parsing returns is unchanged, only cheaper to make.
 */
export function sparseObjectParse(root: z.ZodType): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const schema = pending.pop() as Internals | undefined;
    if (schema === undefined || typeof schema !== "object" || patched.has(schema)) continue;
    patched.add(schema);
    const def = schema._zod.def;
    if (def.type === "object") {
      patchObject(schema);
      pending.push(...Object.values(def["shape"] as object), def["catchall"]);
      continue;
    }
    for (const key of ["element", "keyType", "valueType", "innerType", "in", "out", "left", "right"]) pending.push(def[key]);
    const options = def["options"];
    if (Array.isArray(options)) pending.push(...(options as unknown[]));
  }
}
