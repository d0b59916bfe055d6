/**
 * ClusterRole aggregation: the rules an aggregated ClusterRole (`admin`, `edit`, `view`) gets
 * from the ClusterRoles its `aggregationRule.clusterRoleSelectors` select, as the reference's
 * ClusterRole aggregation controller computes them. Pure: the caller writes the result into the
 * role's `rules` when it differs.
 * @module
 */
import { labelSelectorFromObject, type LabelSelector } from "@orch/meta";
import type { ClusterRole, PolicyRule } from "./rbac-types.js";

/** The identity of a rule for de-duplication: its five lists, absent as empty. */
function ruleKey(rule: PolicyRule): string {
  return JSON.stringify([rule.verbs ?? [], rule.apiGroups ?? [], rule.resources ?? [], rule.resourceNames ?? [], rule.nonResourceURLs ?? []]);
}

function copyRule(rule: PolicyRule): PolicyRule {
  const out: PolicyRule = { verbs: [...(rule.verbs ?? [])] };
  if (rule.apiGroups) out.apiGroups = [...rule.apiGroups];
  if (rule.resources) out.resources = [...rule.resources];
  if (rule.resourceNames) out.resourceNames = [...rule.resourceNames];
  if (rule.nonResourceURLs) out.nonResourceURLs = [...rule.nonResourceURLs];
  return out;
}

/** The valid selectors of an aggregation rule; an invalid selector selects nothing. */
function selectorsOf(role: ClusterRole): LabelSelector[] {
  const out: LabelSelector[] = [];
  for (const object of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const conversion = labelSelectorFromObject(object);
    if (conversion.ok) out.push(conversion.selector);
  }
  return out;
}

/**
 * The rules of the aggregated ClusterRole `role`, from the other ClusterRoles of `all`, or
 * `undefined` when `role` has no `aggregationRule` (its rules are its own).
 *
 * For each selector in order, each ClusterRole it matches in name order contributes its rules;
 * a rule already present is not repeated. A matched role that is itself aggregated contributes
 * the rules it aggregates (not its stored rules, which are an earlier output), so `admin` sees
 * the rules `edit` gets from `view` without waiting for `edit` to be rewritten first. Each role
 * is visited once: `role` itself and roles already on the way are skipped, so a loop of
 * selectors terminates and gives the same answer every time. An invalid selector selects
 * nothing; an empty `clusterRoleSelectors` gives `[]`.
 *
 * @example
 * const rules = aggregatedRules(admin, index.clusterRoles());
 * if (rules && JSON.stringify(rules) !== JSON.stringify(admin.rules ?? [])) write({ ...admin, rules });
 */
export function aggregatedRules(role: ClusterRole, all: Iterable<ClusterRole>): PolicyRule[] | undefined {
  if (role.aggregationRule === undefined || role.aggregationRule === null) return undefined;
  const byName = new Map<string, ClusterRole>();
  for (const r of all) byName.set(r.metadata.name, r);
  byName.set(role.metadata.name, role);
  const sorted = [...byName.values()].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));

  const rules: PolicyRule[] = [];
  const seenRules = new Set<string>();
  const visited = new Set<string>([role.metadata.name]);
  const selectorCache = new Map<string, LabelSelector[]>();

  const collect = (aggregated: ClusterRole): void => {
    let selectors = selectorCache.get(aggregated.metadata.name);
    if (selectors === undefined) {
      selectors = selectorsOf(aggregated);
      selectorCache.set(aggregated.metadata.name, selectors);
    }
    for (const selector of selectors) {
      for (const candidate of sorted) {
        const name = candidate.metadata.name;
        if (visited.has(name) || !selector.matches(candidate.metadata.labels)) continue;
        visited.add(name);
        if (candidate.aggregationRule !== undefined && candidate.aggregationRule !== null) {
          collect(candidate);
          continue;
        }
        for (const rule of candidate.rules ?? []) {
          const key = ruleKey(rule);
          if (seenRules.has(key)) continue;
          seenRules.add(key);
          rules.push(copyRule(rule));
        }
      }
    }
  };
  collect(role);
  return rules;
}
