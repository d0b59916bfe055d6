/**
 * Role (`rbac.authorization.{domain}/v1`, namespaced, no short name): a namespaced set of
 * policy rules a RoleBinding grants. Rules are validated as the reference's
 * `pkg/apis/rbac/validation` (no non-resource URLs in a namespace); a create or update must not
 * grant rules the caller does not hold, unless the caller may `escalate` the role.
 * @module
 */
import { FieldPath, listType, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import {
  confirmNoEscalation,
  escalationAllowed,
  isOnlyMutatingGCFields,
  policyRuleSchema,
  policyRulesOf,
  rbacGroup,
  rbacGroupPattern,
  validatePolicyRules,
} from "./policy-rule.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { kindSchema } from "./schema/object-meta.js";

/** The zod schema of a Role in `v1`. */
export const roleV1Schema = kindSchema(
  {
    rules: listType(z.array(policyRuleSchema), "atomic").optional().describe("Rules holds all the PolicyRules for this Role"),
  },
  "Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.",
);

/**
 * The Role rules beyond metadata, for create and update alike: every rule of `rules` as the
 * reference's `validatePolicyRule` for a namespaced rule (`rules[0].verbs`: Required,
 * `rules[0].nonResourceURLs`: Invalid "namespaced rules cannot apply to non-resource URLs").
 */
export function validateRole(object: APIObject): FieldError[] {
  return validatePolicyRules(object["rules"], true, FieldPath.root("rules"));
}

/**
 * The reference's `RoleEscalationAuthorized`: whether `ctx.authorize` allows the caller the
 * `escalate` verb on the role `name` (`roles` or `clusterroles`) in `namespace`. False without
 * an authorizer or a user.
 */
export async function escalateAuthorized(ctx: StrategyContext, resource: "roles" | "clusterroles", namespace: string, name: string): Promise<boolean> {
  if (!ctx.authorize || !ctx.user) return false;
  const decision = await ctx.authorize({
    user: ctx.user,
    verb: "escalate",
    resourceRequest: true,
    apiGroup: rbacGroup(ctx.domain),
    apiVersion: "*",
    resource,
    subresource: "",
    namespace,
    name,
  });
  return decision.decision === "allow";
}

/**
 * The escalation check of a write of a Role or ClusterRole (`resource`), as the reference's
 * policy-based storage: passes without a user, for `system:masters`, for an update that changes
 * only garbage-collection fields, and when the caller may `escalate` the role (asked, as the
 * reference asks, with the role's name on an update and no name on a create); otherwise the
 * caller must hold every rule of the role (see `confirmNoEscalation`). Resolves to `true` when
 * the rules were not looked at (one of the exemptions), `false` when the caller holds them all.
 * @throws StatusError 403 Forbidden (`roles.rbac.authorization.k8s.io "x" is forbidden: user
 *   "alice" (groups=[...]) is attempting to grant RBAC permissions not currently held: ...`).
 */
export async function checkRoleEscalation(
  resource: "roles" | "clusterroles",
  object: APIObject,
  old: APIObject | undefined,
  ctx: StrategyContext,
): Promise<boolean> {
  if (escalationAllowed(ctx)) return true;
  if (old && isOnlyMutatingGCFields(object, old)) return true;
  const namespace = resource === "roles" ? (object.metadata?.namespace ?? "") : "";
  const name = object.metadata?.name ?? "";
  // As the reference, which asks with the request's name: none for a create (a POST to the collection).
  if (await escalateAuthorized(ctx, resource, namespace, old ? name : "")) return true;
  await confirmNoEscalation(ctx, resource, name, namespace, policyRulesOf(object["rules"]));
  return false;
}

/** The Role resource type (its Table is the default: Name and Created At, as the reference). */
export const roleType: ResourceType = {
  group: rbacGroupPattern,
  resource: "roles",
  singular: "role",
  kind: "Role",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: roleV1Schema, storage: true }],
  strategy: {
    nameIsPathSegment: true,
    validate: (object) => validateRole(object),
    checkWriteAccess: async (object, old, subresource, ctx) => {
      if (subresource === "") await checkRoleEscalation("roles", object, old, ctx);
    },
  },
};
