/**
 * Whether one RBAC rule allows one request: the reference's matching helpers
 * (`k8s.io/kubernetes/pkg/apis/rbac/v1/evaluation_helpers.go`) and `RuleAllows`.
 *
 * Resource forms: `*` matches every resource and every sub-resource; `pods` matches only the
 * resource itself; `pods/log` matches that sub-resource; `*\/log` matches the `log` sub-resource
 * of every resource. As in the reference there is no `pods/*` form: it matches only a
 * sub-resource literally named `*`.
 * @module
 */
import type { Attributes } from "./authorizer.js";
import { trimTrailingStars } from "./internal/compiled-rule.js";
import type { PolicyRule } from "./rbac-types.js";

/**
 * A request reduced to what rules match on (see {@link requestOf}): computed once per decision
 * and matched against every candidate rule.
 */
export interface RBACRequest {
  /** The verb. */
  readonly verb: string;
  /** True for a resource request, false for a non-resource path. */
  readonly resourceRequest: boolean;
  /** The API group, `""` for core. */
  readonly apiGroup: string;
  /** `resource` or `resource/subresource`. */
  readonly combinedResource: string;
  /** The sub-resource, `""` for none. */
  readonly subresource: string;
  /** The object's name, `""` for a collection. */
  readonly name: string;
  /** The non-resource path. */
  readonly path: string;
}

/** The request `attributes` describe, with absent fields as `""`. */
export function requestOf(attributes: Attributes): RBACRequest {
  const resource = attributes.resource ?? "";
  const subresource = attributes.subresource ?? "";
  return {
    verb: attributes.verb,
    resourceRequest: attributes.resourceRequest,
    apiGroup: attributes.apiGroup ?? "",
    combinedResource: subresource === "" ? resource : `${resource}/${subresource}`,
    subresource,
    name: attributes.name ?? "",
    path: attributes.path ?? "",
  };
}

/** True when the rule lists `verb` or `*`. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs ?? []) if (v === "*" || v === verb) return true;
  return false;
}

/** True when the rule lists `apiGroup` (`""` for core) or `*`. */
export function apiGroupMatches(rule: PolicyRule, apiGroup: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === "*" || g === apiGroup) return true;
  return false;
}

/**
 * True when the rule covers `resource` with `subresource` (`""` for none): it lists `*`, the
 * combined `resource/subresource` (or the bare resource when there is no sub-resource), or
 * `*\/subresource`.
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === "" ? resource : `${resource}/${subresource}`;
  for (const r of rule.resources ?? []) {
    if (r === "*" || r === combined) return true;
    if (subresource !== "" && r.length === subresource.length + 2 && r.startsWith("*/") && r.endsWith(subresource)) return true;
  }
  return false;
}

/** True when the rule names no objects (all names) or lists `name`. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  return names.includes(name);
}

/** True when the rule lists `*`, `path` itself, or a prefix of `path` ending in `*` (`/apis/*`). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === "*" || u === path) return true;
    if (u.endsWith("*") && path.startsWith(trimTrailingStars(u))) return true;
  }
  return false;
}

/**
 * True when `rule` allows the request `attributes` describe: verb, group, resource and name for
 * a resource request; verb and path for a non-resource one. Absent attributes count as `""`.
 */
export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (attributes.resourceRequest) {
    return (
      apiGroupMatches(rule, attributes.apiGroup ?? "") &&
      resourceMatches(rule, attributes.resource ?? "", attributes.subresource ?? "") &&
      resourceNameMatches(rule, attributes.name ?? "")
    );
  }
  return nonResourceURLMatches(rule, attributes.path ?? "");
}
