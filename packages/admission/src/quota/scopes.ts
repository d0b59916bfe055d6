/**
 * Quota scopes: a quota's `spec.scopes` and `spec.scopeSelector` as one list of selector
 * requirements (a scope is `{scopeName, operator: Exists}`), and how a requirement matches a set
 * of values (the reference's `ScopedResourceSelectorRequirementsAsSelector`: In, NotIn, Exists,
 * DoesNotExist over the map `{<scopeName>: value}`).
 * @module
 */
import type { APIObject } from "@orch/meta";
import { list, record, str } from "../internal/json.js";

/** One `ScopedResourceSelectorRequirement`. */
export interface ScopeSelector {
  scopeName: string;
  operator: string;
  values: string[];
}

/** Every scope requirement of `quota`: its `spec.scopes` (as Exists), then its `spec.scopeSelector`. */
export function quotaScopeSelectors(quota: APIObject): ScopeSelector[] {
  const spec = record(quota["spec"]) ?? {};
  const out: ScopeSelector[] = list(spec["scopes"]).map((s) => ({ scopeName: str(s), operator: "Exists", values: [] }));
  for (const e of list(record(spec["scopeSelector"])?.["matchExpressions"])) {
    const req = record(e) ?? {};
    out.push({ scopeName: str(req["scopeName"]), operator: str(req["operator"]), values: list(req["values"]).map(str) });
  }
  return out;
}

/**
 * True when `selector` matches an object whose value for the scope is `value` (`undefined`: the
 * object has none), with label-selector semantics (NotIn matches a missing value).
 */
export function selectorMatchesValue(selector: ScopeSelector, value: string | undefined): boolean {
  switch (selector.operator) {
    case "In":
      return value !== undefined && selector.values.includes(value);
    case "NotIn":
      return value === undefined || !selector.values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    default:
      return false;
  }
}

/** The Go-like print of requirements in errors: `[{PriorityClass In [high]}]`. */
export function formatScopeSelectors(selectors: readonly ScopeSelector[]): string {
  return `[${selectors.map((s) => `{${s.scopeName} ${s.operator} [${s.values.join(" ")}]}`).join(" ")}]`;
}
