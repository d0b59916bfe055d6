/**
 * Type information for server-side apply, read from a zod schema and its merge markers: for
 * every position, whether it is a scalar, a struct (declared fields), a map (`z.record`), or a
 * list (`atomic`, `set`, or `map` with key fields), and whether a struct or map is `atomic` or
 * `granular`. Where the schema says nothing (`z.unknown()`, custom resources without a schema)
 * the position is *unstructured*: objects are granular structs whose every key is a field,
 * lists are atomic.
 *
 * Nodes are built lazily and cached per schema object, so recursive (`z.lazy`) schemas and
 * repeated calls cost one walk.
 * @module
 */
import { effectiveListType, mergeMarkersOf, type ListType } from "@orch/meta";

/** A zod schema, as `@orch/meta` takes it (typed without importing zod here). */
export type ZodSchema = Parameters<typeof mergeMarkersOf>[0];

/** What a position of an object is, for merging and ownership. */
export type TypeKind = "scalar" | "struct" | "map" | "list" | "unstructured";

/** The type of one position of an object. */
export interface TypeNode {
  /** `unstructured` positions are resolved from the value (see {@link resolveType}). */
  readonly kind: TypeKind;
  /** Structs, maps and lists: replaced whole with one owner. Always true for scalars. */
  readonly atomic: boolean;
  /** Lists: `atomic`, `set` or `map`. */
  readonly listType: ListType;
  /** Map lists: the key fields, in schema order. */
  readonly keys: readonly string[];
  /** Map lists: defaults of key fields, used when an entry omits one. */
  readonly keyDefaults: ReadonlyMap<string, unknown>;
  /** Structs: the type of field `name` (unstructured when undeclared); maps: the value type. */
  field(name: string): TypeNode;
  /** Structs: whether `name` is a declared field (map keys and undeclared keys are not). */
  declares(name: string): boolean;
  /** Lists: the element type. */
  readonly items: TypeNode;
  /** Whether the position comes from a schema (false for unstructured positions). */
  readonly typed: boolean;
}

const noKeys: readonly string[] = [];
const noDefaults: ReadonlyMap<string, unknown> = new Map();

class Node implements TypeNode {
  kind: TypeKind = "scalar";
  atomic = true;
  listType: ListType = "atomic";
  keys: readonly string[] = noKeys;
  keyDefaults: ReadonlyMap<string, unknown> = noDefaults;
  typed = true;
  /** Struct fields, resolved lazily. */
  shape: Record<string, ZodSchema> | undefined = undefined;
  fields: Map<string, TypeNode> | undefined = undefined;
  valueSchema: ZodSchema | undefined = undefined;
  valueNode: TypeNode | undefined = undefined;
  itemSchema: ZodSchema | undefined = undefined;
  itemNode: TypeNode | undefined = undefined;

  field(name: string): TypeNode {
    if (this.kind === "map") return (this.valueNode ??= this.valueSchema ? typeInfoOf(this.valueSchema) : unstructured);
    if (this.kind === "unstructured") return unstructured;
    if (this.kind !== "struct") return unstructured;
    const cached = this.fields?.get(name);
    if (cached) return cached;
    const schema = this.shape && Object.hasOwn(this.shape, name) ? this.shape[name] : undefined;
    const node = schema ? typeInfoOf(schema) : this.valueSchema ? typeInfoOf(this.valueSchema) : unstructured;
    (this.fields ??= new Map()).set(name, node);
    return node;
  }

  declares(name: string): boolean {
    if (this.kind === "unstructured") return true;
    return this.kind === "struct" && this.shape !== undefined && Object.hasOwn(this.shape, name);
  }

  get items(): TypeNode {
    if (this.kind === "unstructured") return unstructured;
    return (this.itemNode ??= this.itemSchema ? typeInfoOf(this.itemSchema) : unstructured);
  }
}

function make(kind: TypeKind, atomic: boolean): Node {
  const n = new Node();
  n.kind = kind;
  n.atomic = atomic;
  return n;
}

/** The unstructured type: resolved from the value (granular structs, atomic lists). */
export const unstructured: TypeNode = (() => {
  const n = make("unstructured", false);
  n.typed = false;
  return n;
})();
/** A scalar (or any leaf). */
const scalar: TypeNode = make("scalar", true);
/** An unstructured object: a granular struct whose every key is a field. */
const unstructuredStruct: TypeNode = (() => {
  const n = make("struct", false);
  n.typed = false;
  n.declares = () => true;
  n.field = () => unstructured;
  return n;
})();
/** An unstructured list: atomic. */
const unstructuredList: TypeNode = (() => {
  const n = make("list", true);
  n.typed = false;
  n.itemNode = unstructured;
  return n;
})();

type Def = Record<string, unknown> & { type: string };
const defOf = (s: ZodSchema): Def => s._zod.def as unknown as Def;
const wrappers = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional", "success"]);

/** Strips wrappers, pipes and lazies down to the schema that says what the value is. */
function unwrap(schema: ZodSchema): ZodSchema {
  let s = schema;
  for (let i = 0; i < 64; i++) {
    const def = defOf(s);
    if (wrappers.has(def.type)) s = def["innerType"] as ZodSchema;
    else if (def.type === "pipe") {
      const inner = def["in"] as ZodSchema;
      s = defOf(inner).type === "transform" ? (def["out"] as ZodSchema) : inner;
    } else if (def.type === "lazy") s = (def["getter"] as () => ZodSchema)();
    else return s;
  }
  return s;
}

/** The default value of a (wrapped) schema, if it has one. */
function defaultOf(schema: ZodSchema): unknown {
  let s = schema;
  for (let i = 0; i < 64; i++) {
    const def = defOf(s);
    if (def.type === "default" || def.type === "prefault") {
      const v = def["defaultValue"];
      return typeof v === "function" ? (v as () => unknown)() : v;
    }
    if (wrappers.has(def.type)) s = def["innerType"] as ZodSchema;
    else return undefined;
  }
  return undefined;
}

function shapeOf(def: Def): Record<string, ZodSchema> {
  const shape = def["shape"];
  return (typeof shape === "function" ? (shape as () => unknown)() : shape) as Record<string, ZodSchema>;
}

const cache = new WeakMap<object, TypeNode>();

function build(schema: ZodSchema): TypeNode {
  const markers = mergeMarkersOf(schema);
  const inner = unwrap(schema);
  const def = defOf(inner);
  switch (def.type) {
    case "object": {
      const n = make("struct", markers?.structType === "atomic");
      n.shape = shapeOf(def);
      const catchall = def["catchall"] as ZodSchema | undefined;
      if (catchall && defOf(catchall).type !== "never") n.valueSchema = catchall;
      return n;
    }
    case "record": {
      const valueSchema = def["valueType"] as ZodSchema;
      const valueType = defOf(unwrap(valueSchema)).type;
      // A record of unknowns stands in for an untyped struct: every key a field.
      if ((valueType === "unknown" || valueType === "any") && markers?.mapType !== "atomic") return unstructuredStruct;
      const n = make("map", markers?.mapType === "atomic" || markers?.structType === "atomic");
      n.valueSchema = valueSchema;
      return n;
    }
    case "array": {
      const { listType, keys } = effectiveListType(markers);
      const n = make("list", listType === "atomic");
      n.listType = listType;
      n.keys = keys;
      n.itemSchema = def["element"] as ZodSchema;
      if (listType === "map") {
        const element = unwrap(n.itemSchema);
        const edef = defOf(element);
        if (edef.type === "object") {
          const shape = shapeOf(edef);
          const defaults = new Map<string, unknown>();
          for (const k of keys) {
            const ks = shape[k];
            const d = ks ? defaultOf(ks) : undefined;
            if (d !== undefined) defaults.set(k, d);
          }
          if (defaults.size) n.keyDefaults = defaults;
        }
      }
      return n;
    }
    case "intersection": {
      const left = typeInfoOf(def["left"] as ZodSchema) as Node;
      const right = typeInfoOf(def["right"] as ZodSchema) as Node;
      if (left.kind === "struct" && right.kind === "struct" && left.shape && right.shape) {
        const n = make("struct", left.atomic || right.atomic);
        n.shape = { ...left.shape, ...right.shape };
        return n;
      }
      return unstructured;
    }
    case "union": {
      // Resolve from the value unless every option agrees on a struct.
      const options = (def["options"] as ZodSchema[]).map((o) => typeInfoOf(o) as Node);
      const structs = options.filter((o) => o.kind === "struct" && o.shape);
      if (structs.length === options.length && structs.length > 0) {
        const n = make(
          "struct",
          structs.some((o) => o.atomic),
        );
        n.shape = Object.assign({}, ...structs.map((o) => o.shape)) as Record<string, ZodSchema>;
        return n;
      }
      return unstructured;
    }
    case "unknown":
    case "any":
      return unstructured;
    default:
      return scalar;
  }
}

/**
 * The type information of `schema` (cached per schema object).
 * @example
 * const t = typeInfoOf(podV1Schema);
 * t.field("spec").field("containers").listType // "map"
 */
export function typeInfoOf(schema: ZodSchema): TypeNode {
  let node = cache.get(schema);
  if (!node) {
    node = build(schema);
    cache.set(schema, node);
  }
  return node;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * The type of a position given its value: an unstructured position becomes a granular struct
 * for an object, an atomic list for an array, a scalar otherwise; a typed position whose value
 * is not of its kind (a string where a struct is declared) is a leaf.
 */
export function resolveType(type: TypeNode, value: unknown): TypeNode {
  switch (type.kind) {
    case "unstructured":
      if (Array.isArray(value)) return unstructuredList;
      if (isPlainObject(value)) return unstructuredStruct;
      return scalar;
    case "struct":
    case "map":
      return value === undefined || isPlainObject(value) ? type : scalar;
    case "list":
      return value === undefined || Array.isArray(value) ? type : scalar;
    default:
      return type;
  }
}

/**
 * The type at `path` (field names, as plain strings; numbers step into list elements), for
 * callers asking what a position is without a value.
 */
export function typeAt(type: TypeNode, path: readonly (string | number)[]): TypeNode {
  let t = type;
  for (const p of path) t = typeof p === "number" ? t.items : t.field(p);
  return t;
}
