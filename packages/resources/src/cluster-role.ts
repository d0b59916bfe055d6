/**
 * ClusterRole (`rbac.authorization.{domain}/v1`, cluster-scoped, no short name): a set of policy
 * rules, non-resource URLs included, that a RoleBinding or ClusterRoleBinding grants. With an
 * `aggregationRule`, its `rules` are controller-managed: the union of the rules of the
 * ClusterRoles its selectors match (the server's aggregation controller writes them; a write
 * stores them as given). Escalation checks as Role's; setting or changing an aggregation rule
 * also needs every permission (`*` on everything), as the reference requires.
 * @module
 */
import { FieldPath, forbidden, listType, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { validateSelector } from "./internal/access-rules.js";
import { webhookLabelSelectorSchema } from "./internal/access-webhook.js";
import { list, record } from "./internal/rules.js";
import { policyRuleSchema, rbacGroup, rbacGroupPattern, validatePolicyRules } from "./policy-rule.js";
import type { AccessPolicyRule, ResourceType, StrategyContext } from "./resource-type.js";
import { checkRoleEscalation } from "./role.js";
import { named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `AggregationRule`: the label selectors of the ClusterRoles whose rules a ClusterRole aggregates. */
export const aggregationRuleSchema = named(
  z
    .object({
      clusterRoleSelectors: listType(z.array(webhookLabelSelectorSchema), "atomic")
        .optional()
        .describe(
          "ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole's permissions will be added",
        ),
    })
    .meta({ description: "AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole" }),
  "api.rbac.v1.AggregationRule",
);

/** The zod schema of a ClusterRole in `v1`. */
export const clusterRoleV1Schema = kindSchema(
  {
    aggregationRule: aggregationRuleSchema
      .optional()
      .describe(
        "AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If AggregationRule is set, then the Rules are controller managed and direct changes to Rules will be stomped by the controller.",
      ),
    rules: listType(z.array(policyRuleSchema), "atomic").optional().describe("Rules holds all the PolicyRules for this ClusterRole"),
  },
  "ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.",
);

/** The rules an aggregation rule needs the caller to hold: everything (the reference's `fullAuthority`). */
export const fullAuthority: readonly AccessPolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

/** The reason of the 403 for an aggregation rule set by a caller without every permission. */
export const aggregationRuleForbiddenReason = "must have cluster-admin privileges to use the aggregationRule";

/**
 * The ClusterRole rules beyond metadata, for create and update alike: every rule as the
 * reference's `validatePolicyRule` for a cluster rule (non-resource URLs allowed, not together
 * with resources), and an `aggregationRule` with at least one selector
 * (`aggregationRule.clusterRoleSelectors`: Required), each a valid label selector.
 */
export function validateClusterRole(object: APIObject): FieldError[] {
  const errors = validatePolicyRules(object["rules"], false, FieldPath.root("rules"));
  const aggregation = record(object["aggregationRule"]);
  if (aggregation) {
    const path = FieldPath.root("aggregationRule").child("clusterRoleSelectors");
    const selectors = list(aggregation["clusterRoleSelectors"]);
    if (selectors.length === 0) errors.push(requiredField(path, "at least one clusterRoleSelector required if aggregationRule is non-nil"));
    selectors.forEach((selector, i) => errors.push(...validateSelector(selector, path.index(i))));
  }
  return errors;
}

/** True when `object` has an aggregation rule with at least one selector (the reference's `hasAggregationRule`). */
export function hasAggregationRule(object: APIObject | undefined): boolean {
  return list(record(object?.["aggregationRule"])?.["clusterRoleSelectors"]).length > 0;
}

/**
 * The access check of a ClusterRole write: Role's escalation check (see `checkRoleEscalation`),
 * then, when the new or the old role has an aggregation rule, the caller must hold
 * {@link fullAuthority}.
 * @throws StatusError 403 Forbidden.
 */
export async function checkClusterRoleWriteAccess(object: APIObject, old: APIObject | undefined, ctx: StrategyContext): Promise<void> {
  const exempt = await checkRoleEscalation("clusterroles", object, old, ctx);
  if (exempt || !ctx.user || !ctx.uncoveredRules) return;
  if (!hasAggregationRule(object) && !hasAggregationRule(old)) return;
  const missing = await ctx.uncoveredRules(ctx.user, "", fullAuthority);
  if (missing.length > 0) {
    throw forbidden({ group: rbacGroup(ctx.domain), resource: "clusterroles" }, object.metadata?.name ?? "", aggregationRuleForbiddenReason);
  }
}

/** The ClusterRole resource type (its Table is the default: Name and Created At, as the reference). */
export const clusterRoleType: ResourceType = {
  group: rbacGroupPattern,
  resource: "clusterroles",
  singular: "clusterrole",
  kind: "ClusterRole",
  scope: "Cluster",
  versions: [{ name: "v1", schema: clusterRoleV1Schema, storage: true }],
  strategy: {
    nameIsPathSegment: true,
    validate: (object) => validateClusterRole(object),
    checkWriteAccess: async (object, old, subresource, ctx) => {
      if (subresource === "") await checkClusterRoleWriteAccess(object, old, ctx);
    },
  },
};
