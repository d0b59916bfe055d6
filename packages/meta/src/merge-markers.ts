/**
 * Schema merge markers for zod: how server-side apply, strategic merge patch and the OpenAPI
 * document treat a list, map or struct (`listType`, `listMapKeys`, `mapType`, `structType`,
 * `patchStrategy`, `patchMergeKey`), kept in a zod registry beside the schema so the schema
 * stays the single source of truth.
 *
 * @example
 * const finalizers = listType(z.array(z.string()), "set");
 * const owners = listType(z.array(ownerReference), "map", ["uid"]);
 * mergeMarkersOf(owners.optional()) // { listType: "map", listMapKeys: ["uid"] }
 * @module
 */
import { z } from "zod";

/** How a list merges: replaced whole (`atomic`), scalar set (`set`) or keyed entries (`map`). */
export type ListType = "atomic" | "set" | "map";

/** How a map or struct merges: replaced whole (`atomic`) or field by field (`granular`). */
export type ElementType = "atomic" | "granular";

/** The strategic-merge-patch strategy of a field (`+patchStrategy`). */
export type PatchStrategy = "merge" | "replace" | "retainKeys" | "merge,retainKeys";

/** The markers one schema can carry; every member is optional. */
export interface MergeMarkers {
  /** For arrays. */
  listType?: ListType;
  /** For arrays of `listType: "map"`: the fields whose values identify an entry. */
  listMapKeys?: readonly string[];
  /** For maps (`z.record`). */
  mapType?: ElementType;
  /** For structs (`z.object`). */
  structType?: ElementType;
  /** For strategic merge patch. */
  patchStrategy?: PatchStrategy;
  /** For strategic merge patch of lists of objects: the key field. */
  patchMergeKey?: string;
}

/**
 * The registry the markers live in. Entries are inherited by clones (`.describe()`, `.meta()`),
 * not by wrappers (`.optional()`); {@link mergeMarkersOf} looks through wrappers.
 */
export const mergeMarkersRegistry: z.core.$ZodRegistry<MergeMarkers> = z.registry<MergeMarkers>();

/**
 * Returns a copy of `schema` carrying `markers` (merged over any it already carries). The
 * original is left untouched, so shared schemas can be marked differently at each use.
 */
export function withMergeMarkers<T extends z.ZodType>(schema: T, markers: MergeMarkers): T {
  const copy = schema.clone() as T;
  const merged: MergeMarkers = { ...(mergeMarkersRegistry.get(schema) ?? {}), ...markers };
  mergeMarkersRegistry.add(copy, merged);
  return copy;
}

/**
 * Marks an array schema with its list type (and, for `map`, its key fields).
 * @throws TypeError when `type` is `map` and no key is given.
 */
export function listType<T extends z.ZodType>(schema: T, type: ListType, keys?: readonly string[]): T {
  if (type === "map" && (!keys || keys.length === 0)) throw new TypeError("listType map needs listMapKeys");
  return withMergeMarkers(schema, type === "map" && keys ? { listType: type, listMapKeys: [...keys] } : { listType: type });
}

/** Marks a record schema as merged whole (`atomic`) or per key (`granular`, the default). */
export function mapType<T extends z.ZodType>(schema: T, type: ElementType): T {
  return withMergeMarkers(schema, { mapType: type });
}

/** Marks an object schema as merged whole (`atomic`) or per field (`granular`, the default). */
export function structType<T extends z.ZodType>(schema: T, type: ElementType): T {
  return withMergeMarkers(schema, { structType: type });
}

/** Marks a field with its strategic-merge-patch strategy and, for lists of objects, merge key. */
export function patchStrategy<T extends z.ZodType>(schema: T, strategy: PatchStrategy, mergeKey?: string): T {
  return withMergeMarkers(schema, mergeKey === undefined ? { patchStrategy: strategy } : { patchStrategy: strategy, patchMergeKey: mergeKey });
}

const wrapperTypes = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional", "success"]);

/**
 * The markers of `schema`, looking through wrappers (`optional`, `nullable`, `default`,
 * `readonly`, `catch`, pipes and lazy schemas) until a marked schema is found; `undefined`
 * when none is marked.
 */
export function mergeMarkersOf(schema: z.core.$ZodType): MergeMarkers | undefined {
  let current: z.core.$ZodType | undefined = schema;
  for (let depth = 0; current && depth < 32; depth++) {
    const markers = mergeMarkersRegistry.get(current);
    if (markers) return markers;
    const def = current._zod.def as unknown as Record<string, unknown> & { type: string };
    if (wrapperTypes.has(def.type)) current = def["innerType"] as z.core.$ZodType;
    else if (def.type === "pipe") current = def["in"] as z.core.$ZodType;
    else if (def.type === "lazy") current = (def["getter"] as () => z.core.$ZodType)();
    else current = undefined;
  }
  return undefined;
}

/**
 * The list type server-side apply uses: the marked `listType`, else `map` keyed by the
 * `patchMergeKey` when the strategy is `merge` with a key, else `atomic` (the spec's rule).
 */
export function effectiveListType(markers: MergeMarkers | undefined): { listType: ListType; keys: readonly string[] } {
  if (markers?.listType) return { listType: markers.listType, keys: markers.listMapKeys ?? [] };
  if (markers?.patchStrategy?.split(",").includes("merge") && markers.patchMergeKey) {
    return { listType: "map", keys: [markers.patchMergeKey] };
  }
  return { listType: "atomic", keys: [] };
}

/**
 * The OpenAPI vendor-extension prefix for a product domain: `kubernetes` for `k8s.io` (so the
 * reference's clients find `x-kubernetes-*`), `orch` otherwise.
 */
export function extensionPrefix(domain: string): string {
  return domain === "k8s.io" ? "kubernetes" : "orch";
}

/**
 * The OpenAPI extensions of `markers` with `prefix` (see {@link extensionPrefix}):
 * `x-<prefix>-list-type`, `-list-map-keys`, `-map-type` (for maps and structs alike, as the
 * reference writes it), `-patch-strategy`, `-patch-merge-key`.
 */
export function mergeMarkerExtensions(markers: MergeMarkers, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (markers.listType) out[`x-${prefix}-list-type`] = markers.listType;
  if (markers.listMapKeys) out[`x-${prefix}-list-map-keys`] = [...markers.listMapKeys];
  const elementType = markers.mapType ?? markers.structType;
  if (elementType) out[`x-${prefix}-map-type`] = elementType;
  if (markers.patchStrategy) out[`x-${prefix}-patch-strategy`] = markers.patchStrategy;
  if (markers.patchMergeKey) out[`x-${prefix}-patch-merge-key`] = markers.patchMergeKey;
  return out;
}

/**
 * Reads markers back from a JSON schema node carrying `x-<prefix>-*` extensions (custom
 * resources, downloaded OpenAPI). `x-<prefix>-map-type` reads as `mapType` on a node with
 * `additionalProperties` and as `structType` otherwise. `undefined` when there are none.
 */
export function mergeMarkersFromJSONSchema(node: Readonly<Record<string, unknown>>, prefix: string): MergeMarkers | undefined {
  const markers: MergeMarkers = {};
  const lt = node[`x-${prefix}-list-type`];
  if (lt === "atomic" || lt === "set" || lt === "map") markers.listType = lt;
  const keys = node[`x-${prefix}-list-map-keys`];
  if (Array.isArray(keys) && keys.every((k) => typeof k === "string")) markers.listMapKeys = keys as string[];
  const mt = node[`x-${prefix}-map-type`];
  if (mt === "atomic" || mt === "granular") {
    if (node["additionalProperties"] !== undefined && node["properties"] === undefined) markers.mapType = mt;
    else markers.structType = mt;
  }
  const ps = node[`x-${prefix}-patch-strategy`];
  if (ps === "merge" || ps === "replace" || ps === "retainKeys" || ps === "merge,retainKeys") markers.patchStrategy = ps;
  const pk = node[`x-${prefix}-patch-merge-key`];
  if (typeof pk === "string") markers.patchMergeKey = pk;
  return Object.keys(markers).length ? markers : undefined;
}
