/**
 * The RBAC authorizer (`--authorization-mode=RBAC`): allows a request when a rule of a role bound
 * to the user allows it, and otherwise has no opinion, as the reference's
 * `plugin/pkg/auth/authorizer/rbac`. It never denies: a later authorizer of the chain may still
 * allow.
 * @module
 */
import type { Attributes, AuthorizationResult, Authorizer, NonResourceRuleInfo, ResourceRuleInfo, RuleResolver, RulesResult } from "./authorizer.js";
import { defaultDomain, groupOf } from "./internal/domain-names.js";
import { requestOf } from "./rule-match.js";
import type { RBACGrant, RBACIndex } from "./rbac-index.js";
import type { RoleRef } from "./rbac-types.js";

/** Options of {@link rbacAuthorizer}. */
export interface RBACAuthorizerOptions {
  /**
   * The product domain (default `orch.io`): it names the RBAC group in resolution errors
   * (`clusterrole.rbac.authorization.orch.io "x" not found`).
   */
  domain?: string;
}

/**
 * The reference's aggregate error text: one message alone, several distinct ones as
 * `[a, b]`.
 */
function aggregate(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? (distinct[0] as string) : `[${distinct.join(", ")}]`;
}

/**
 * An authorizer and rule resolver over `index`.
 *
 * `authorize` visits the grants of the user that apply (ClusterRoleBindings everywhere, the
 * RoleBindings of `attributes.namespace` for a namespaced request) and allows on the first rule
 * that allows the request, with the reason `RBAC: allowed by ClusterRoleBinding "x" of
 * ClusterRole "y" to User "z"`. Otherwise the decision is `noOpinion` with an empty reason, or
 * `RBAC: clusterrole.rbac.authorization.<domain> "y" not found` when a binding of the user
 * references a role that does not exist.
 *
 * `rulesFor` lists the rules of every binding of the user that applies in the namespace, as
 * SelfSubjectRulesReview reports them; bindings to missing roles set `evaluationError`.
 *
 * @example
 * const authorizer = chainAuthorizer([privilegedGroupAuthorizer, rbacAuthorizer(index)]);
 */
export function rbacAuthorizer(index: RBACIndex, options: RBACAuthorizerOptions = {}): Authorizer & RuleResolver {
  const rbacGroup = groupOf("rbac.authorization", options.domain ?? defaultDomain);
  const notFound = (ref: RoleRef): string => `${ref.kind === "ClusterRole" ? "clusterrole" : "role"}.${rbacGroup} ${JSON.stringify(ref.name)} not found`;

  function decide(attributes: Attributes): AuthorizationResult {
    const request = requestOf(attributes);
    let missing: string[] | undefined;
    let allowedBy: RBACGrant | undefined;
    index.someGrant(attributes.user, attributes.namespace ?? "", (grant) => {
      if (grant.allows(request)) {
        allowedBy = grant;
        return true;
      }
      if (grant.rules === undefined) (missing ??= []).push(notFound(grant.roleRef));
      return false;
    });
    if (allowedBy !== undefined) return { decision: "allow", reason: `RBAC: allowed by ${allowedBy.describe()}` };
    return { decision: "noOpinion", reason: missing === undefined ? "" : `RBAC: ${aggregate(missing)}` };
  }

  return {
    authorize: async (attributes) => decide(attributes),
    async rulesFor(user, namespace) {
      const resourceRules: ResourceRuleInfo[] = [];
      const nonResourceRules: NonResourceRuleInfo[] = [];
      const missing: string[] = [];
      for (const grant of index.grantsFor(user, namespace)) {
        if (grant.rules === undefined) {
          missing.push(notFound(grant.roleRef));
          continue;
        }
        for (const rule of grant.rules) {
          if ((rule.resources ?? []).length > 0) {
            resourceRules.push({
              verbs: [...(rule.verbs ?? [])],
              apiGroups: [...(rule.apiGroups ?? [])],
              resources: [...(rule.resources ?? [])],
              resourceNames: [...(rule.resourceNames ?? [])],
            });
          }
          if ((rule.nonResourceURLs ?? []).length > 0) {
            nonResourceRules.push({ verbs: [...(rule.verbs ?? [])], nonResourceURLs: [...(rule.nonResourceURLs ?? [])] });
          }
        }
      }
      const result: RulesResult = { resourceRules, nonResourceRules, incomplete: false };
      if (missing.length > 0) result.evaluationError = aggregate(missing);
      return result;
    },
  };
}
