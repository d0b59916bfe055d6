/**
 * What the four RBAC kinds (`rbac.authorization.{domain}/v1`: Role, ClusterRole, RoleBinding,
 * ClusterRoleBinding) share: the group, `PolicyRule` with the reference's validation, and the
 * escalation checks every write of a role or a binding goes through (the reference's
 * `ConfirmNoEscalation`, `escalate` and `bind`), with the 403 worded as the reference words it.
 * @module
 */
import { FieldPath, forbidden, invalidField, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { jsonEqual, record, strings } from "./internal/rules.js";
import type { AccessPolicyRule, RequestUser, StrategyContext } from "./resource-type.js";
import { atomicStrings, named } from "./schema/fields.js";

/** The RBAC group with `{domain}` unresolved, as resource types name it. */
export const rbacGroupPattern = "rbac.authorization.{domain}";

/** The RBAC group of `domain` (`rbac.authorization.k8s.io` for domain `k8s.io`). */
export function rbacGroup(domain: string): string {
  return `rbac.authorization.${domain}`;
}

/** The group whose members may write any role or binding (the reference's `system:masters`). */
export const privilegedGroupName = "system:masters";

/** `PolicyRule`: verbs on resources of API groups (optionally by name), or on non-resource URLs. */
export const policyRuleSchema = named(
  z
    .object({
      apiGroups: atomicStrings()
        .optional()
        .describe(
          'APIGroups is the name of the APIGroup that contains the resources.  If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed. "" represents the core API group and "*" represents all API groups.',
        ),
      nonResourceURLs: atomicStrings()
        .optional()
        .describe(
          'NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as the full, final step in the path Since non-resource URLs are not namespaced, this field is only applicable for ClusterRoles referenced from a ClusterRoleBinding. Rules can either apply to API resources (such as "pods" or "secrets") or non-resource URL paths (such as "/api"),  but not both.',
        ),
      resourceNames: atomicStrings()
        .optional()
        .describe("ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed."),
      resources: atomicStrings().optional().describe("Resources is a list of resources this rule applies to. '*' represents all resources."),
      verbs: atomicStrings()
        .optional()
        .describe("Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs."),
    })
    .meta({
      description:
        "PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.",
      required: ["verbs"],
    }),
  "api.rbac.v1.PolicyRule",
);

/**
 * The reference's `validatePolicyRule` for the rule at `path`: `verbs` required ("verbs must
 * contain at least one value"); a rule with `nonResourceURLs` may not be namespaced (`isNamespaced`:
 * a Role's) nor name API groups, resources or resource names; a resource rule needs `apiGroups`
 * and `resources`, and resource names only with a single resource.
 */
export function validatePolicyRule(rule: Record<string, unknown>, isNamespaced: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const verbs = strings(rule["verbs"]);
  const apiGroups = strings(rule["apiGroups"]);
  const resources = strings(rule["resources"]);
  const resourceNames = strings(rule["resourceNames"]);
  const urls = strings(rule["nonResourceURLs"]);
  if (verbs.length === 0) errors.push(requiredField(path.child("verbs"), "verbs must contain at least one value"));
  if (urls.length > 0) {
    if (isNamespaced) errors.push(invalidField(path.child("nonResourceURLs"), urls, "namespaced rules cannot apply to non-resource URLs"));
    if (apiGroups.length > 0 || resources.length > 0 || resourceNames.length > 0) {
      errors.push(invalidField(path.child("nonResourceURLs"), urls, "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return errors;
  }
  if (apiGroups.length === 0) errors.push(requiredField(path.child("apiGroups"), "resource rules must supply at least one api group"));
  if (resources.length === 0) errors.push(requiredField(path.child("resources"), "resource rules must supply at least one resource"));
  if (resourceNames.length > 0 && resources.length > 1) {
    errors.push(requiredField(path.child("resourceNames"), "resource names cannot apply to multiple resources"));
  }
  return errors;
}

/** The rules of `object[key]` (a role's `rules`) at `rules[i]`, checked by {@link validatePolicyRule}. */
export function validatePolicyRules(value: unknown, isNamespaced: boolean, path: FieldPath = FieldPath.root("rules")): FieldError[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((rule, i) => validatePolicyRule(record(rule) ?? {}, isNamespaced, path.index(i)));
}

/** The rules of a role object (`rules`), as {@link AccessPolicyRule}s; fields left out when empty. */
export function policyRulesOf(value: unknown): AccessPolicyRule[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => {
    const r = record(item) ?? {};
    const rule: AccessPolicyRule = { verbs: strings(r["verbs"]) };
    for (const key of ["apiGroups", "resources", "resourceNames", "nonResourceURLs"] as const) {
      if (Array.isArray(r[key])) rule[key] = strings(r[key]);
    }
    return rule;
  });
}

/** Go's `%q` of a list of strings: `["a" "b"]`. */
function quotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;
}

/**
 * The reference's `CompactString` of a rule, as escalation errors print it:
 * `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}` (empty fields left out).
 */
export function compactRuleString(rule: AccessPolicyRule): string {
  const parts: string[] = [];
  const add = (name: string, values: readonly string[] | undefined) => {
    if (values && values.length > 0) parts.push(`${name}:${quotedList(values)}`);
  };
  add("APIGroups", rule.apiGroups);
  add("Resources", rule.resources);
  add("NonResourceURLs", rule.nonResourceURLs);
  add("ResourceNames", rule.resourceNames);
  add("Verbs", rule.verbs);
  return `{${parts.join(", ")}}`;
}

// The reference's isSimpleResourceRule: verbs on one resource of one group, at most one name.
function simpleKey(rule: AccessPolicyRule): string | undefined {
  const names = rule.resourceNames ?? [];
  if (names.length > 1 || (rule.nonResourceURLs ?? []).length > 0) return undefined;
  if (rule.apiGroups?.length !== 1 || rule.resources?.length !== 1) return undefined;
  return JSON.stringify([rule.apiGroups[0], rule.resources[0], names.length > 0, names[0] ?? ""]);
}

/**
 * The reference's `CompactRules`: rules on one resource of one group (and at most one name)
 * that differ only by verb become one rule with all their verbs; other rules are kept as they are.
 */
export function compactRules(rules: readonly AccessPolicyRule[]): AccessPolicyRule[] {
  const compacted: AccessPolicyRule[] = [];
  const simple = new Map<string, AccessPolicyRule>();
  for (const rule of rules) {
    const key = simpleKey(rule);
    if (key === undefined) {
      compacted.push(rule);
      continue;
    }
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...rule.verbs];
    else simple.set(key, structuredClone(rule));
  }
  return [...compacted, ...simple.values()];
}

/**
 * The reason of the reference's 403 for a grant of rules the user does not hold:
 * `user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions
 * not currently held:` and one line per missing rule ({@link compactRules}, then
 * {@link compactRuleString}, sorted, without duplicates).
 */
export function escalationMessage(user: RequestUser, missing: readonly AccessPolicyRule[]): string {
  const lines = [...new Set(compactRules(missing).map(compactRuleString))].sort();
  return `user ${JSON.stringify(user.name)} (groups=${quotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join("\n")}`;
}

/**
 * The reference's `EscalationAllowed`: a write with no known user (a server without
 * authentication) or by a member of `system:masters` skips the escalation checks.
 */
export function escalationAllowed(ctx: StrategyContext): boolean {
  return !ctx.user || ctx.user.groups.includes(privilegedGroupName);
}

/**
 * The reference's `IsOnlyMutatingGCFields`: true when an update changes nothing but the fields
 * garbage collection writes (owner references, finalizers), or the bookkeeping fields
 * (`resourceVersion`, `managedFields`, `selfLink`); such an update needs no escalation check.
 */
export function isOnlyMutatingGCFields(object: APIObject, old: APIObject): boolean {
  const strip = (o: APIObject): Record<string, unknown> => {
    const meta: Record<string, unknown> = { ...o.metadata };
    for (const key of ["ownerReferences", "finalizers", "selfLink", "managedFields", "resourceVersion"]) delete meta[key];
    return { ...o, metadata: meta };
  };
  return jsonEqual(strip(object), strip(old));
}

/**
 * The reference's `ConfirmNoEscalation` through `ctx.uncoveredRules`: refuses with 403
 * (`<resource>.<group> "<name>" is forbidden: ` and {@link escalationMessage}) when the caller
 * does not hold every rule of `rules` in `namespace` (`""`: cluster-wide). Passes without a user
 * or without `ctx.uncoveredRules` (a server that does not run RBAC).
 * @throws StatusError 403 Forbidden.
 */
export async function confirmNoEscalation(
  ctx: StrategyContext,
  resource: string,
  name: string,
  namespace: string,
  rules: readonly AccessPolicyRule[],
): Promise<void> {
  const user = ctx.user;
  if (!user || !ctx.uncoveredRules) return;
  const missing = await ctx.uncoveredRules(user, namespace, rules);
  if (missing.length > 0) throw forbidden({ group: rbacGroup(ctx.domain), resource }, name, escalationMessage(user, missing));
}
