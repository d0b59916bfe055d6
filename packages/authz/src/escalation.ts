/**
 * Escalation prevention: whether one set of rules covers another, as the reference's
 * `pkg/registry/rbac/validation` (`Covers`, `BreakdownRule`, `ConfirmNoEscalation`). A user may
 * create or update a role, or bind one, only with rules it already holds (unless it has the
 * `escalate` or `bind` verb, which the caller checks).
 * @module
 */
import type { UserInfo } from "@orch/authn";
import { trimTrailingStars } from "./internal/compiled-rule.js";
import type { RBACIndex } from "./rbac-index.js";
import type { PolicyRule } from "./rbac-types.js";

/**
 * `rule` broken into atoms of one verb, one group, one resource and at most one name (resource
 * rules), or one verb and one path (non-resource rules), in the reference's order.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const verbs = rule.verbs ?? [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of verbs) {
        if (names.length > 0) {
          for (const name of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        } else {
          out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of verbs) out.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return out;
}

function hasAll(set: readonly string[], contains: readonly string[]): boolean {
  for (const c of contains) if (!set.includes(c)) return false;
  return true;
}

/** Owner resources cover `covers`: `*`, each listed, or a sub-resource under `*\/sub`. */
function resourcesCoverAll(owner: readonly string[], covers: readonly string[]): boolean {
  if (owner.includes("*") || hasAll(owner, covers)) return true;
  for (const path of covers) {
    if (owner.includes(path)) continue;
    const slash = path.indexOf("/");
    if (slash < 0) return false;
    if (!owner.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlCovers(owner: string, path: string): boolean {
  if (owner === path) return true;
  return owner.endsWith("*") && path.startsWith(trimTrailingStars(owner));
}

function urlsCoverAll(owner: readonly string[], covers: readonly string[]): boolean {
  return covers.every((path) => owner.some((o) => urlCovers(o, path)));
}

/** Whether `owner` covers the atom `sub` (one verb, group, resource, name, or one verb and path). */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerVerbs = owner.verbs ?? [];
  const ownerGroups = owner.apiGroups ?? [];
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const verbs = ownerVerbs.includes("*") || hasAll(ownerVerbs, sub.verbs ?? []);
  const groups = ownerGroups.includes("*") || hasAll(ownerGroups, sub.apiGroups ?? []);
  const resources = resourcesCoverAll(owner.resources ?? [], sub.resources ?? []);
  const urls = urlsCoverAll(owner.nonResourceURLs ?? [], sub.nonResourceURLs ?? []);
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/**
 * Whether `ownerRules` allow everything `servantRules` allow, as the reference's
 * `validation.Covers`: each servant rule is broken into atoms ({@link breakdownRule}) and each
 * atom must be covered by one owner rule (`*` verbs, groups and resources cover all; `*\/sub`
 * covers that sub-resource of every resource; an owner without resource names covers any name,
 * one with names only those; a trailing `*` in an owner URL covers the paths it prefixes).
 * `missing` lists the atoms no owner rule covers, in order.
 *
 * Coverage is per rule: two owner rules that only together cover an atom (one giving the verb
 * on a group, another the resource) do not cover it, as in the reference.
 */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) {
    for (const atom of breakdownRule(servant)) {
      if (!ownerRules.some((owner) => ruleCovers(owner, atom))) missing.push(atom);
    }
  }
  return { covered: missing.length === 0, missing };
}

/**
 * The atoms of `rules` that `user` does not hold in `namespace` (its ClusterRoleBindings' rules
 * plus those of the namespace's RoleBindings, from `index`); empty when granting `rules` is no
 * escalation. Bindings to missing roles grant nothing here either.
 */
export function uncoveredRules(index: RBACIndex, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): PolicyRule[] {
  return covers(index.policyRulesFor(user, namespace).rules, rules).missing;
}
