/**
 * Where pods may run, as plain JSON: the reference's toleration algebra
 * (`pkg/util/tolerations`: superset, merge, whitelist) and node-selector label maps (parse a
 * `k=v,k2=v2` string, conflict, merge). Shared by the PodNodeSelector, PodTolerationRestriction
 * and RuntimeClass plugins.
 * @module
 */
import { parseLabelSelector, parseQuantity } from "@orch/meta";
import { record, semanticEqual, str } from "./json.js";

/** A toleration of a pod spec, as stored (unknown fields kept). */
export type Toleration = Record<string, unknown>;

/** A node-selector label map. */
export type LabelMap = Record<string, string>;

/** `tolerationSeconds` of `t`, `undefined` when unset. */
function seconds(t: Toleration): number | undefined {
  const s = t["tolerationSeconds"];
  return typeof s === "number" ? s : undefined;
}

/**
 * True when `ss` tolerates everything `t` tolerates (the reference's `isSuperset`): equal
 * tolerations; else the same key (or `ss` an empty key with `Exists`), the same effect (or `ss`
 * any effect), for `NoExecute` a `tolerationSeconds` of `t` no longer than `ss`'s, and `ss`
 * `Exists` or, with `Equal` (or empty), `t` `Equal` with the same value.
 */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (semanticEqual(ss, t)) return true;
  const ssKey = str(ss["key"]);
  const ssOperator = str(ss["operator"]);
  if (str(t["key"]) !== ssKey && (ssKey !== "" || ssOperator !== "Exists")) return false;
  const ssEffect = str(ss["effect"]);
  if (str(t["effect"]) !== ssEffect && ssEffect !== "") return false;
  if (ssEffect === "NoExecute") {
    const limit = seconds(ss);
    const own = seconds(t);
    if (limit !== undefined && (own === undefined || own > limit)) return false;
  }
  switch (ssOperator) {
    case "Equal":
    case "":
      return str(t["operator"]) === "Equal" && str(t["value"]) === str(ss["value"]);
    case "Exists":
      return true;
    default:
      return false;
  }
}

/**
 * `first` then `second`, without the tolerations another one covers (the reference's
 * `MergeTolerations`): of two equal tolerations the first is kept, a toleration covered by a
 * different later one is dropped.
 */
export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((later) => !semanticEqual(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}

/** True when every toleration is covered by one of `whitelist` (an empty whitelist allows all). */
export function coveredByWhitelist(tolerations: readonly Toleration[], whitelist: readonly Toleration[]): boolean {
  if (whitelist.length === 0) return true;
  return tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)));
}

/**
 * Parses a node-selector string (`k=v,k2=v2`, the reference's `ConvertSelectorToLabelsMap`)
 * into a label map, with the label-selector parser: only `=` and `==` requirements are allowed.
 * @throws Error `invalid selector: <text>` for other requirements, or the parser's message.
 */
export function parseLabelMap(text: string): LabelMap {
  const out: LabelMap = {};
  if (text.trim() === "") return out;
  let requirements;
  try {
    requirements = parseLabelSelector(text).requirements;
  } catch (error) {
    throw new Error(`invalid selector: ${text}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  for (const r of requirements) {
    const value = r.values[0];
    if ((r.operator !== "=" && r.operator !== "==") || value === undefined) throw new Error(`invalid selector: ${text}`);
    out[r.key] = value;
  }
  return out;
}

/** True when a key of both maps has different values (the reference's `labels.Conflicts`). */
export function labelsConflict(a: Readonly<LabelMap>, b: Readonly<LabelMap>): boolean {
  return Object.entries(a).some(([k, v]) => k in b && b[k] !== v);
}

/** A quantity as text (JSON numbers too), `undefined` for anything else. */
function quantityText(value: unknown): string | undefined {
  if (typeof value === "number") return String(value);
  return typeof value === "string" ? value : undefined;
}

/**
 * True when two resource lists (`overhead`, `podFixed`) hold the same quantities (`100m` equals
 * `0.1`), as the reference's semantic equality compares them; unset equals empty.
 */
export function resourceListsEqual(a: unknown, b: unknown): boolean {
  const ra = record(a) ?? {};
  const rb = record(b) ?? {};
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const key of keys) {
    const x = quantityText(ra[key]);
    const y = quantityText(rb[key]);
    if (x === undefined || y === undefined) {
      if (!semanticEqual(ra[key], rb[key])) return false;
      continue;
    }
    try {
      if (!parseQuantity(x).equals(parseQuantity(y))) return false;
    } catch {
      if (x !== y) return false;
    }
  }
  return true;
}
