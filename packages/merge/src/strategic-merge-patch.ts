/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), as the reference's
 * `k8s.io/apimachinery/pkg/util/strategicpatch` applies it on the server: maps merge key by key
 * and `null` deletes; a list whose schema says `patchStrategy: merge` merges by its
 * `patchMergeKey` (lists of scalars merge as sets); every other list is replaced; the directives
 * `$patch` (`replace`, `delete`), `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
 * `$setElementOrder/<field>` steer the merge. Merge keys and strategies come from the merge
 * markers of the zod schema (`patchStrategy`, `patchMergeKey`); `listType`/`listMapKeys` play
 * no part, as in the reference.
 *
 * Every malformed patch is a 400 `BadRequest` carrying the reference's message.
 * @module
 */
import { badRequest, mergeMarkersOf, unsupportedMediaType, type StatusError } from "@orch/meta";

/** The zod schema type the merge markers are read from (`z.ZodType` and every zod schema). */
export type PatchSchema = Parameters<typeof mergeMarkersOf>[0];

type JSONMap = Record<string, unknown>;

const directiveMarker = "$patch";
const deleteDirective = "delete";
const replaceDirective = "replace";
const mergeDirective = "merge";
const retainKeysDirective = "$retainKeys";
const deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList";
const setElementOrderPrefix = "$setElementOrder";

const goMapType = "map[string]interface {}";
const goSliceType = "[]interface {}";

// The reference's fixed error messages (k8s.io/apimachinery/pkg/util/mergepatch).
const errNoListOfLists = "lists of lists are not supported";
const errBadPatchFormatForPrimitiveList = "invalid patch format of primitive list";
const errBadPatchFormatForRetainKeys = "invalid patch format of retainKeys";
const errBadPatchFormatForSetElementOrderList = "invalid patch format of setElementOrder list";

// ---------------------------------------------------------------------------------------------
// Values as the reference sees them (Go's `interface{}` from encoding/json)

function isMap(v: unknown): v is JSONMap {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Go's dynamic type name of a decoded JSON value (`reflect.TypeOf(v).String()`). */
function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return "%!s(<nil>)";
  if (Array.isArray(v)) return goSliceType;
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(v) ? "int64" : "float64";
    case "object":
      return goMapType;
    default:
      return typeof v;
  }
}

/** The kind `reflect.TypeOf` compares on: maps, slices, and each scalar type apart. */
function kindOf(v: unknown): string {
  return v === null || v === undefined ? "nil" : goTypeName(v);
}

/** `fmt.Sprintf("%v", v)` of a decoded JSON value. */
function goFormat(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goFormat).join(" ")}]`;
  if (isMap(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(" ")}]`;
  }
  return String(v);
}

/** `fmt.Sprintf("%s", v)`: strings as they are, anything else flagged as Go does. */
function goString(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "%!s(<nil>)";
  if (Array.isArray(v) || isMap(v)) return goFormat(v);
  return `%!s(${goTypeName(v)}=${String(v)})`;
}

function errBadArgType(expected: string, actual: unknown): StatusError {
  return badRequest(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

function errNoMergeKey(m: unknown, key: string): StatusError {
  return badRequest(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);
}

function errBadPatchType(t: unknown, m: JSONMap): StatusError {
  return badRequest(`unknown patch type: ${goString(t)} in map: ${goFormat(m)}`);
}

/** Sets `m[k]`, as an own property even for `__proto__` (a key JSON may carry). */
function setKey(m: JSONMap, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(m, k, { value: v, enumerable: true, writable: true, configurable: true });
  else m[k] = v;
}

function cloneJSON<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneJSON) as T;
  if (isMap(v)) {
    const out: JSONMap = {};
    for (const [k, x] of Object.entries(v)) setKey(out, k, cloneJSON(x));
    return out as T;
  }
  return v;
}

/** Go's `==` on two `interface{}` values holding JSON scalars (maps and slices never match). */
function goEqual(a: unknown, b: unknown): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  return a === b && typeof a !== "object";
}

// ---------------------------------------------------------------------------------------------
// The schema: field and element lookup through zod wrappers

interface PatchMeta {
  /** The schema of the field (for a list: of its elements). */
  schema: PatchSchema | undefined;
  /** The strategy without `retainKeys`: `merge`, `replace` or empty. */
  strategy: string;
  mergeKey: string;
}

const wrapperTypes = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional", "success"]);

function defOf(schema: PatchSchema): Record<string, unknown> & { type: string } {
  return schema._zod.def as unknown as Record<string, unknown> & { type: string };
}

/** The schema under wrappers, pipes and lazy schemas. */
function unwrap(schema: PatchSchema | undefined): PatchSchema | undefined {
  let current = schema;
  for (let depth = 0; current && depth < 32; depth++) {
    const def = defOf(current);
    if (wrapperTypes.has(def.type)) current = def["innerType"] as PatchSchema;
    else if (def.type === "pipe") current = def["in"] as PatchSchema;
    else if (def.type === "lazy") current = (def["getter"] as () => PatchSchema)();
    else return current;
  }
  return current;
}

/** The schema of field `key` of the struct or map `schema`; `undefined` when unknown. */
function fieldSchema(schema: PatchSchema | undefined, key: string): PatchSchema | undefined {
  const s = unwrap(schema);
  if (!s) return undefined;
  const def = defOf(s);
  switch (def.type) {
    case "object": {
      const shape = def["shape"] as Record<string, PatchSchema>;
      if (Object.hasOwn(shape, key)) return shape[key];
      const catchall = def["catchall"] as PatchSchema | undefined;
      return catchall && defOf(catchall).type !== "never" ? catchall : undefined;
    }
    case "record":
      return def["valueType"] as PatchSchema;
    case "intersection":
      return fieldSchema(def["left"] as PatchSchema, key) ?? fieldSchema(def["right"] as PatchSchema, key);
    case "union":
      for (const option of def["options"] as PatchSchema[]) {
        const found = fieldSchema(option, key);
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** The element schema of the array `schema`; `undefined` when unknown. */
function elementSchema(schema: PatchSchema | undefined): PatchSchema | undefined {
  const s = unwrap(schema);
  if (!s) return undefined;
  const def = defOf(s);
  if (def.type === "array") return def["element"] as PatchSchema;
  if (def.type === "union") {
    for (const option of def["options"] as PatchSchema[]) {
      const found = elementSchema(option);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The reference's `LookupPatchMetadataForStruct`/`ForSlice` and
 * `extractRetainKeysPatchStrategy`: a field the schema does not know merges without a strategy.
 */
function lookupPatchMeta(schema: PatchSchema | undefined, key: string, forSlice: boolean): PatchMeta {
  const field = fieldSchema(schema, key);
  const markers = field ? mergeMarkersOf(field) : undefined;
  const strategies = (markers?.patchStrategy ?? "").split(",").filter((s) => s !== "" && s !== "retainKeys");
  return {
    schema: forSlice ? elementSchema(field) : field,
    strategy: strategies[0] ?? "",
    mergeKey: markers?.patchMergeKey ?? "",
  };
}

// ---------------------------------------------------------------------------------------------
// Go's sort.SliceStable (insertion sort of blocks, then SymMerge), so that orders come out as the
// reference's even where its comparison is not a strict order.

function stableSort<T>(data: T[], less: (a: T, b: T) => boolean): void {
  const lessAt = (i: number, j: number) => less(data[i] as T, data[j] as T);
  const swap = (i: number, j: number) => {
    const t = data[i] as T;
    data[i] = data[j] as T;
    data[j] = t;
  };
  const insertionSort = (a: number, b: number) => {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && lessAt(j, j - 1); j--) swap(j, j - 1);
  };
  const swapRange = (a: number, b: number, n: number) => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number) => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lessAt(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lessAt(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lessAt(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };
  const n = data.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}

// ---------------------------------------------------------------------------------------------
// Lists

/** Whether the elements of `slices` are maps; throws unless all share one type that is not a list. */
function sliceElementsAreMaps(...slices: unknown[][]): boolean {
  let prev: string | undefined;
  for (const s of slices) {
    for (const v of s) {
      const current = kindOf(v);
      if (prev === undefined) {
        prev = current;
        if (current === goSliceType) throw badRequest(errNoListOfLists);
        if (current === "nil") throw badRequest(`list element types are not identical: ${goFormat(slices)}`);
      } else if (prev !== current) {
        throw badRequest(`list element types are not identical: ${goFormat(slices)}`);
      }
    }
  }
  if (prev === undefined) throw badRequest("no elements in any of the given slices");
  return prev === goMapType;
}

/** The index of the element matching `value` (by merge key for maps), or -1. */
function indexIn(list: readonly unknown[], value: unknown, mergeKey: string, maps: boolean): number {
  const get = maps ? (item: unknown) => (isMap(item) ? item[mergeKey] : undefined) : (item: unknown) => item;
  const wanted = get(value);
  return list.findIndex((v) => goEqual(wanted, get(v)));
}

function findMapByKeyValue(list: readonly unknown[], key: string, value: unknown): { map: JSONMap; index: number } | undefined {
  for (let k = 0; k < list.length; k++) {
    const v = list[k];
    if (!isMap(v)) throw badRequest(`value for key ${k} is not a map.`);
    if (Object.hasOwn(v, key) && goEqual(v[key], value)) return { map: v, index: k };
  }
  return undefined;
}

function validateMergeKeyInLists(mergeKey: string, ...lists: readonly unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isMap(item)) throw errBadArgType(goMapType, item);
      if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

/** Splits maps into those without `$patch: delete` and those with it. */
function extractToDeleteItems(list: readonly unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const v of list) {
    if (!isMap(v)) throw errBadArgType(goMapType, v);
    if (Object.hasOwn(v, directiveMarker) && v[directiveMarker] === deleteDirective) toDelete.push(v);
    else keep.push(v);
  }
  return [keep, toDelete];
}

/** Sorts `toSort` by the positions of its items in `order` (deletions last). */
function normalizeSliceOrder(toSort: unknown[], order: readonly unknown[], mergeKey: string, maps: boolean): unknown[] {
  let items = toSort;
  let toDelete: unknown[] = [];
  if (maps) {
    validateMergeKeyInLists(mergeKey, toSort, order as unknown[]);
    [items, toDelete] = extractToDeleteItems(toSort);
  }
  stableSort(items, (a, b) => {
    const ia = indexIn(order, a, mergeKey, maps);
    if (ia >= 0) {
      const ib = indexIn(order, b, mergeKey, maps);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...items, ...toDelete];
}

/**
 * Interleaves the server-only items (`left`) into the patch items (`right`), keeping the
 * relative order of each and placing a server-only item before a patch item it preceded live.
 */
function mergeSortedSlice(left: readonly unknown[], right: readonly unknown[], serverOrder: readonly unknown[], mergeKey: string, maps: boolean): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  const size = left.length + right.length;
  for (let k = 0; k < size; k++) {
    if (i >= left.length && j < right.length) out.push(right[j++]);
    else if (j >= right.length && i < left.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, maps);
      const ri = indexIn(serverOrder, right[j], mergeKey, maps);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function normalizeElementOrder(
  patch: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  maps: boolean,
): unknown[] {
  const sortedPatch = normalizeSliceOrder(patch, patchOrder, mergeKey, maps);
  const sortedServer = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, maps);
  return mergeSortedSlice(sortedServer, sortedPatch, serverOrder, mergeKey, maps);
}

function partitionPrimitives(list: readonly unknown[], by: readonly unknown[]): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) (by.some((b) => goEqual(b, v)) ? inPatch : serverOnly).push(v);
  return [inPatch, serverOnly];
}

function partitionMaps(list: readonly unknown[], by: readonly unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isMap(v)) throw errBadArgType(goMapType, v);
    if (!Object.hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapByKeyValue(by, mergeKey, v[mergeKey]) ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

/** Go's in-place deduplication of scalars (it moves the last element into each duplicate's place). */
function deduplicateScalars(list: unknown[]): unknown[] {
  const s = [...list];
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (goEqual(s[i], s[j])) {
        s[j] = s[length];
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

function deleteFromSlice(current: readonly unknown[], toDelete: readonly unknown[]): unknown[] {
  return current.filter((v) => !toDelete.some((d) => goEqual(d, v)));
}

/** Applies `$patch` elements: deletions by merge key, or `replace` of the whole list. */
function mergeSliceWithSpecialElements(original: unknown[], patch: readonly unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let replace = false;
  let current = original;
  for (const v of patch) {
    const typed = v as JSONMap;
    if (!Object.hasOwn(typed, directiveMarker)) {
      plain.push(v);
      continue;
    }
    const directive = typed[directiveMarker];
    if (directive === deleteDirective) {
      if (!Object.hasOwn(typed, mergeKey)) throw errNoMergeKey(typed, mergeKey);
      const value = typed[mergeKey];
      current = current.filter((item) => {
        if (!isMap(item)) throw badRequest(`value for key ${current.indexOf(item)} is not a map.`);
        return !(Object.hasOwn(item, mergeKey) && goEqual(item[mergeKey], value));
      });
    } else if (directive === replaceDirective) {
      replace = true;
    } else if (directive === mergeDirective) {
      throw badRequest("merging lists cannot yet be specified in the patch");
    } else {
      throw errBadPatchType(directive, typed);
    }
  }
  return replace ? [plain, []] : [current, plain];
}

function mergeSliceWithoutSpecialElements(original: unknown[], patch: readonly unknown[], mergeKey: string, schema: PatchSchema | undefined): unknown[] {
  const merged = [...original];
  for (const v of patch) {
    const typed = v as JSONMap;
    if (!Object.hasOwn(typed, mergeKey)) throw errNoMergeKey(typed, mergeKey);
    const found = findMapByKeyValue(merged, mergeKey, typed[mergeKey]);
    if (found) merged[found.index] = mergeMap(found.map, typed, schema);
    else merged.push(v);
  }
  return merged;
}

function mergeSlice(original: unknown[], patch: unknown[], schema: PatchSchema | undefined, field: string, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const maps = sliceElementsAreMaps(original, patch);
  let merged: unknown[];
  let base = original;
  let patchItems = patch;
  if (!maps) {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (mergeKey === "") throw badRequest(`cannot merge lists without merge key for ${field}`);
    [base, patchItems] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    merged = mergeSliceWithoutSpecialElements(base, patchItems, mergeKey, schema);
  }
  const [inPatch, serverOnly] = mergeKey === "" ? partitionPrimitives(merged, patchItems) : partitionMaps(merged, patchItems, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, patchItems, base, mergeKey, maps);
}

function mergeSliceHandler(original: unknown, patch: unknown, meta: PatchMeta, field: string, isDeleteList: boolean): unknown[] {
  if (!Array.isArray(original)) throw errBadArgType(goSliceType, original);
  if (!Array.isArray(patch)) throw errBadArgType(goSliceType, patch);
  if (meta.strategy === mergeDirective || isDeleteList) return mergeSlice(original, patch, meta.schema, field, meta.mergeKey, isDeleteList);
  return patch;
}

// ---------------------------------------------------------------------------------------------
// Maps

/** Drops maps carrying `$patch` from a value taken whole; `keep` is false when `v` is one. */
function removeDirectives(v: unknown): { value: unknown; keep: boolean } {
  if (isMap(v)) {
    if (Object.hasOwn(v, directiveMarker)) return { value: undefined, keep: false };
    for (const [k, x] of Object.entries(v)) {
      const r = removeDirectives(x);
      if (r.keep) v[k] = r.value;
      else delete v[k];
    }
    return { value: v, keep: true };
  }
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) {
      const r = removeDirectives(x);
      if (r.keep) out.push(r.value);
    }
    return { value: out, keep: true };
  }
  return { value: v, keep: true };
}

function discardNullValues(v: unknown): void {
  if (isMap(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (x === null) delete v[k];
      else discardNullValues(x);
    }
  } else if (Array.isArray(v)) {
    for (const x of v) discardNullValues(x);
  }
}

function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw badRequest(prefix === deleteFromPrimitiveListPrefix ? errBadPatchFormatForPrimitiveList : errBadPatchFormatForSetElementOrderList);
  }
  return key.slice(slash + 1);
}

function handleDirectiveInMergeMap(directive: unknown, patch: JSONMap): JSONMap {
  if (directive === replaceDirective) {
    delete patch[directiveMarker];
    return patch;
  }
  if (directive === deleteDirective) return {};
  throw errBadPatchType(directive, patch);
}

function applyRetainKeysDirective(original: JSONMap, patch: JSONMap): void {
  if (!Object.hasOwn(patch, retainKeysDirective)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw badRequest(errBadPatchFormatForRetainKeys);
  const keys = new Set(retain.filter((k): k is string => typeof k === "string"));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(deleteFromPrimitiveListPrefix) || k.startsWith(setElementOrderPrefix)) continue;
    if (!keys.has(k)) throw badRequest(errBadPatchFormatForRetainKeys);
  }
  for (const k of Object.keys(original)) if (!keys.has(k)) delete original[k];
}

/** Checks that the patch list's items appear in `$setElementOrder` in the same relative order. */
function validatePatchWithSetOrderList(patchList: readonly unknown[], setOrderList: readonly unknown[], mergeKey: string): void {
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey !== "" ? extractToDeleteItems(patchList)[0] : patchList;
  const keyEqual = (left: unknown, right: unknown): boolean => {
    if (mergeKey === "") return goEqual(left, right);
    if (!isMap(left)) throw errBadArgType(goMapType, left);
    if (!isMap(right)) throw errBadArgType(goMapType, right);
    if (!Object.hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
    if (!Object.hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
    return goEqual(left[mergeKey], right[mergeKey]);
  };
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < setOrderList.length) {
    const item = nonDelete[p];
    if (isMap(item) && Object.hasOwn(item, directiveMarker)) {
      p++;
      continue;
    }
    if (keyEqual(item, setOrderList[s])) p++;
    s++;
  }
  if (p < nonDelete.length && s >= setOrderList.length) {
    throw badRequest(`the order in patch list:\n${goFormat(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goFormat(setOrderList)}`);
  }
}

/** Processes every `$setElementOrder/<field>` with its list, removing both from the patch. */
function mergePatchIntoOriginal(original: JSONMap, patch: JSONMap, schema: PatchSchema | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType(goSliceType, order);
    const field = extractKey(key, setElementOrderPrefix);
    const foundOriginal = Object.hasOwn(original, field);
    const foundPatch = Object.hasOwn(patch, field);
    let originalList: unknown[] = [];
    let patchList: unknown[] = [];
    if (foundOriginal) {
      const v = original[field];
      if (!Array.isArray(v)) throw errBadArgType(goSliceType, v);
      originalList = v;
    }
    if (foundPatch) {
      const v = patch[field];
      if (!Array.isArray(v)) throw errBadArgType(goSliceType, v);
      patchList = v;
    }
    const meta = lookupPatchMeta(schema, field, true);
    validatePatchWithSetOrderList(patchList, order, meta.mergeKey);
    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchList).value as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, meta, field, false);
    else continue;
    const [inOrder, serverOnly] = meta.mergeKey === "" ? partitionPrimitives(merged, order) : partitionMaps(merged, order, meta.mergeKey);
    const maps = sliceElementsAreMaps(originalList, patchList);
    setKey(original, field, normalizeElementOrder(inOrder, serverOnly, order, originalList, meta.mergeKey, maps));
    delete patch[field];
  }
}

function mergeMap(original: JSONMap, patch: JSONMap, schema: PatchSchema | undefined): JSONMap {
  if (Object.hasOwn(patch, directiveMarker)) return handleDirectiveInMergeMap(patch[directiveMarker], patch);
  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, schema);
  for (const [rawKey, patchV] of Object.entries(patch)) {
    let key = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(deleteFromPrimitiveListPrefix)) {
      key = extractKey(rawKey, deleteFromPrimitiveListPrefix);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[key];
      continue;
    }
    if (!Object.hasOwn(original, key) || kindOf(original[key]) !== kindOf(patchV)) {
      if (!isDeleteList) {
        discardNullValues(patchV);
        const r = removeDirectives(patchV);
        if (r.keep) setKey(original, key, r.value);
        else delete original[key];
      }
      continue;
    }
    const current = original[key];
    if (isMap(current) && isMap(patchV)) {
      const meta = lookupPatchMeta(schema, key, false);
      setKey(original, key, meta.strategy === replaceDirective ? patchV : mergeMap(current, patchV, meta.schema));
    } else if (Array.isArray(current)) {
      setKey(original, key, mergeSliceHandler(current, patchV, lookupPatchMeta(schema, key, true), key, isDeleteList));
    } else {
      setKey(original, key, patchV);
    }
  }
  return original;
}

// ---------------------------------------------------------------------------------------------
// Public surface

/**
 * Whether strategic merge patch is offered for objects of `schema`: only for kinds with a
 * built-in schema. Custom resources (no schema) are not; the server answers 415 for them, as
 * the reference does.
 */
export function strategicMergePatchSupported(schema: PatchSchema | undefined): schema is PatchSchema {
  return schema !== undefined;
}

/** The media types a PATCH of a kind without strategic merge patch accepts (the reference's list). */
const mediaTypesWithoutStrategic = ["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"];

/**
 * Applies the strategic merge patch `patch` to `original` with the merge keys and strategies of
 * `schema` (the served version's schema of the whole object), as the reference server does. A
 * pure function: neither argument is changed.
 *
 * - Maps merge key by key; `null` deletes a key.
 * - Lists whose schema says `patchStrategy: merge` merge: lists of maps by `patchMergeKey`
 *   (matching elements merge recursively, new ones are added, order follows the patch, then the
 *   live list), lists of scalars as sets. Other lists, and maps with `patchStrategy: replace`,
 *   are replaced.
 * - `$patch: replace` on a map replaces it whole; in a merge list, replaces the list by the
 *   other elements. `$patch: delete` on a map deletes it; in a merge list, deletes the elements
 *   with its merge key. `$patch: merge` is refused as the reference refuses it.
 * - `$retainKeys: [...]` drops the keys of the live map not listed;
 *   `$deleteFromPrimitiveList/<f>: [...]` removes values from the scalar list `f`;
 *   `$setElementOrder/<f>: [...]` orders the merged list `f`.
 *
 * @param original the live object (any JSON value; a non-object is merged as `{}`).
 * @param patch the decoded body; must be a JSON object (or `null`, which changes nothing).
 * @returns the patched object.
 * @throws StatusError 415 when `schema` is undefined (see {@link strategicMergePatchSupported});
 * 400 `BadRequest` with the reference's message for any malformed patch: an unknown `$patch`
 * value, a merge-list element without its merge key, a directive of the wrong type, mixed list
 * element types, lists of lists, a `$setElementOrder` list out of step with the patch.
 * @example
 * strategicMergePatch(pod, { spec: { containers: [{ name: "app", image: "nginx:1.27" }] } }, podSchema)
 */
export function strategicMergePatch(original: unknown, patch: unknown, schema: PatchSchema | undefined): unknown {
  if (!strategicMergePatchSupported(schema)) {
    throw unsupportedMediaType("application/strategic-merge-patch+json", mediaTypesWithoutStrategic);
  }
  if (patch === null || patch === undefined) return cloneJSON(original);
  if (!isMap(patch)) {
    const what = Array.isArray(patch) ? "array" : typeof patch === "boolean" ? "bool" : typeof patch === "number" ? "number" : "string";
    throw badRequest(`json: cannot unmarshal ${what} into Go value of type ${goMapType}`);
  }
  if (depthExceeds(patch, maxDepth)) throw badRequest("exceeded max depth");
  const base = isMap(original) ? cloneJSON(original) : {};
  try {
    return mergeMap(base, cloneJSON(patch), schema);
  } catch (error) {
    // A nesting deep enough to exhaust the stack is bad input, not a server fault.
    if (error instanceof RangeError) throw badRequest("exceeded max depth");
    throw error;
  }
}

/** The nesting limit of the reference's JSON decoder. */
const maxDepth = 10000;

function depthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [v, depth] = top;
    if (depth > limit) return true;
    if (Array.isArray(v)) for (const x of v) stack.push([x, depth + 1]);
    else if (isMap(v)) for (const x of Object.values(v)) stack.push([x, depth + 1]);
  }
  return false;
}
