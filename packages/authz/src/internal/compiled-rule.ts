/**
 * A policy rule compiled for the hot path of the RBAC authorizer: the same decisions as
 * `ruleAllows`, with each list turned into a `Set` (or an "all" flag) once, when the role is
 * first used, rather than scanned on every request.
 * @module
 */
import type { PolicyRule } from "../rbac-types.js";
import type { RBACRequest } from "../rule-match.js";

/** `u` without its trailing `*`s, as Go's `strings.TrimRight(u, "*")`. */
export function trimTrailingStars(u: string): string {
  let end = u.length;
  while (end > 0 && u.charCodeAt(end - 1) === 42) end--;
  return u.slice(0, end);
}

/** A set, or `null` for "everything" (the list held `*`). */
function setOf(values: readonly string[] | undefined): ReadonlySet<string> | null {
  const list = values ?? [];
  return list.includes("*") ? null : new Set(list);
}

/** One rule, compiled; {@link compileRules} compiles a role's. */
export class CompiledRule {
  private readonly verbs: ReadonlySet<string> | null;
  private readonly groups: ReadonlySet<string> | null;
  private readonly resources: ReadonlySet<string> | null;
  /** The `sub` of every `*\/sub` resource. */
  private readonly anySubresources: ReadonlySet<string>;
  /** Empty for every name. */
  private readonly names: ReadonlySet<string>;
  private readonly allURLs: boolean;
  private readonly urls: ReadonlySet<string>;
  private readonly urlPrefixes: readonly string[];

  constructor(readonly rule: PolicyRule) {
    this.verbs = setOf(rule.verbs);
    this.groups = setOf(rule.apiGroups);
    this.resources = setOf(rule.resources);
    const anySub = new Set<string>();
    for (const r of rule.resources ?? []) if (r.startsWith("*/")) anySub.add(r.slice(2));
    this.anySubresources = anySub;
    this.names = new Set(rule.resourceNames ?? []);
    const urls = rule.nonResourceURLs ?? [];
    this.allURLs = urls.includes("*");
    this.urls = new Set(urls);
    this.urlPrefixes = urls.filter((u) => u.endsWith("*")).map(trimTrailingStars);
  }

  /** True when the rule allows `request`; the same answer as `ruleAllows` on the source rule. */
  allows(request: RBACRequest): boolean {
    if (this.verbs !== null && !this.verbs.has(request.verb)) return false;
    if (request.resourceRequest) {
      if (this.groups !== null && !this.groups.has(request.apiGroup)) return false;
      if (
        this.resources !== null &&
        !this.resources.has(request.combinedResource) &&
        !(request.subresource !== "" && this.anySubresources.has(request.subresource))
      ) {
        return false;
      }
      return this.names.size === 0 || this.names.has(request.name);
    }
    if (this.allURLs || this.urls.has(request.path)) return true;
    for (const prefix of this.urlPrefixes) if (request.path.startsWith(prefix)) return true;
    return false;
  }
}

/** The rules of a role, compiled. */
export function compileRules(rules: readonly PolicyRule[] | undefined): readonly CompiledRule[] {
  return (rules ?? []).map((rule) => new CompiledRule(rule));
}
