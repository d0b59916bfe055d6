/**
 * Resource lists (`{cpu: "500m", pods: "3"}`) as maps of exact quantities, with the arithmetic
 * quota and LimitRanger do on them (the reference's `quota` helpers: add, subtract, mask,
 * less-than-or-equal, and the sorted `name=value` form its messages print).
 * @module
 */
import { parseQuantity, type Quantity } from "@orch/meta";
import { quantityOf } from "@orch/resources";
import { record } from "../internal/json.js";

/** Quantities by resource name. */
export type ResourceList = Map<string, Quantity>;

export { quantityOf };

/** The JSON resource list `value` (an object of quantities) as a map; entries that are not quantities are left out. */
export function resourceListOf(value: unknown): ResourceList {
  const out: ResourceList = new Map();
  for (const [name, v] of Object.entries(record(value) ?? {})) {
    const q = quantityOf(v);
    if (q) out.set(name, q);
  }
  return out;
}

/** The JSON form of `list`, names sorted. */
export function resourceListJSON(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...list.keys()].sort()) out[name] = (list.get(name) as Quantity).toString();
  return out;
}

/** The union of `a` and `b`, summing the names in both. */
export function addResourceLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [name, q] of b) {
    const have = out.get(name);
    out.set(name, have ? have.add(q) : q);
  }
  return out;
}

/** `a - b` for every name of either (the reference's `Subtract`: names only in `b` come out negated). */
export function subtractResourceLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [name, q] of a) {
    const other = b.get(name);
    out.set(name, other ? q.sub(other) : q);
  }
  for (const [name, q] of b) if (!out.has(name)) out.set(name, q.neg());
  return out;
}

/** `a - b` with every negative result (and every name only in `b`) at zero (`SubtractWithNonNegativeResult`). */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const zero = parseQuantity("0");
  const out: ResourceList = new Map();
  for (const [name, q] of subtractResourceLists(a, b)) out.set(name, q.sign() > 0 ? q : zero);
  return out;
}

/** The entries of `list` whose names are in `names`. */
export function maskResourceList(list: ResourceList, names: Iterable<string>): ResourceList {
  const keep = new Set(names);
  return new Map([...list].filter(([name]) => keep.has(name)));
}

/** `list` without its zero entries. */
export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, q]) => !q.isZero()));
}

/** The names whose quantity is negative, sorted. */
export function negativeNames(list: ResourceList): string[] {
  return [...list]
    .filter(([, q]) => q.sign() < 0)
    .map(([name]) => name)
    .sort();
}

/** The names of `limits` that `used` (where it has them) exceeds, sorted; empty when `used` fits. */
export function exceededNames(used: ResourceList, limits: ResourceList): string[] {
  return [...limits]
    .filter(([name, limit]) => (used.get(name)?.cmp(limit) ?? 0) > 0)
    .map(([name]) => name)
    .sort();
}

/** True when both lists have the same names with equal quantities. */
export function equalResourceLists(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [name, q] of a) if (!b.get(name)?.equals(q)) return false;
  return true;
}

/** For every name of `other`, the greater of the two (in place; the reference's `maxResourceList`). */
export function maxInto(list: ResourceList, other: ResourceList): void {
  for (const [name, q] of other) {
    const have = list.get(name);
    if (!have || q.cmp(have) > 0) list.set(name, q);
  }
}

/** Adds `other` into `list` in place. */
export function addInto(list: ResourceList, other: ResourceList): void {
  for (const [name, q] of other) {
    const have = list.get(name);
    list.set(name, have ? have.add(q) : q);
  }
}

/** `name=value` pairs sorted by name and joined by commas (the reference's `prettyPrint`). */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((name) => `${name}=${(list.get(name) as Quantity).toString()}`)
    .join(",");
}
