/**
 * SelfSubjectRulesReview (`authorization.{domain}/v1`, cluster-scoped, virtual: only `create`):
 * the rules the caller holds in a namespace (`kubectl auth can-i --list`), from the server's
 * authorization chain. The list may be incomplete (an authorizer that cannot list its rules);
 * it is for user interfaces, not for authorization decisions.
 * @module
 */
import { badRequest, listType, type APIObject } from "@orch/meta";
import { z } from "zod";
import { record, str } from "./internal/rules.js";
import type { AccessRules, ResourceType, StrategyContext } from "./resource-type.js";
import { atomicStrings, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `SelfSubjectRulesReviewSpec`: the namespace to list the rules of. */
export const selfSubjectRulesReviewSpecSchema = named(
  z
    .object({
      namespace: z.string().optional().describe("Namespace to evaluate rules for. Required."),
    })
    .meta({ description: "SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview." }),
  "api.authorization.v1.SelfSubjectRulesReviewSpec",
);

/** `ResourceRule`: verbs the subject may use on resources. */
export const resourceRuleSchema = named(
  z
    .object({
      apiGroups: atomicStrings()
        .optional()
        .describe(
          'APIGroups is the name of the APIGroup that contains the resources.  If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed.  "*" means all.',
        ),
      resourceNames: atomicStrings()
        .optional()
        .describe('ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.  "*" means all.'),
      resources: atomicStrings()
        .optional()
        .describe(
          'Resources is a list of resources this rule applies to.  "*" means all in the specified apiGroups.\n "*/foo" represents the subresource \'foo\' for all resources in the specified apiGroups.',
        ),
      verbs: atomicStrings()
        .optional()
        .describe('Verb is a list of kubernetes resource API verbs, like: get, list, watch, create, update, delete, proxy.  "*" means all.'),
    })
    .meta({
      description:
        "ResourceRule is the list of actions the subject is allowed to perform on resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
      required: ["verbs"],
    }),
  "api.authorization.v1.ResourceRule",
);

/** `NonResourceRule`: verbs the subject may use on non-resource URLs. */
export const nonResourceRuleSchema = named(
  z
    .object({
      nonResourceURLs: atomicStrings()
        .optional()
        .describe(
          'NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as the full, final step in the path.  "*" means all.',
        ),
      verbs: atomicStrings()
        .optional()
        .describe('Verb is a list of kubernetes non-resource API verbs, like: get, post, put, delete, patch, head, options.  "*" means all.'),
    })
    .meta({ description: "NonResourceRule holds information that describes a rule for the non-resource", required: ["verbs"] }),
  "api.authorization.v1.NonResourceRule",
);

/** `SubjectRulesReviewStatus`: the rules found, and whether the list is complete. */
export const subjectRulesReviewStatusSchema = named(
  z
    .object({
      evaluationError: z
        .string()
        .optional()
        .describe(
          "EvaluationError can appear in combination with Rules. It indicates an error occurred during rule evaluation, such as an authorizer that doesn't support rule evaluation, and that ResourceRules and/or NonResourceRules may be incomplete.",
        ),
      incomplete: z
        .boolean()
        .optional()
        .describe(
          "Incomplete is true when the rules returned by this call are incomplete. This is most commonly encountered when an authorizer, such as an external authorizer, doesn't support rules evaluation.",
        ),
      nonResourceRules: listType(z.array(nonResourceRuleSchema), "atomic")
        .optional()
        .describe(
          "NonResourceRules is the list of actions the subject is allowed to perform on non-resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
        ),
      resourceRules: listType(z.array(resourceRuleSchema), "atomic")
        .optional()
        .describe(
          "ResourceRules is the list of actions the subject is allowed to perform on resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
        ),
    })
    .meta({
      description:
        "SubjectRulesReviewStatus contains the result of a rules check. This check can be incomplete depending on the set of authorizers the server is configured with and any errors experienced during evaluation. Because authorization rules are additive, if a rule appears in a list it's safe to assume the subject has that permission, even if that list is incomplete.",
      required: ["resourceRules", "nonResourceRules", "incomplete"],
    }),
  "api.authorization.v1.SubjectRulesReviewStatus",
);

/** The zod schema of a SelfSubjectRulesReview in `v1`. */
export const selfSubjectRulesReviewV1Schema = kindSchema({
  spec: selfSubjectRulesReviewSpecSchema.optional().describe("Spec holds information about the request being evaluated."),
  status: subjectRulesReviewStatusSchema.optional().describe("Status is filled in by the server and indicates the set of actions a user can perform."),
}).meta({
  description:
    "SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace. The returned list of actions may be incomplete depending on the server's authorization mode, and any errors experienced during the evaluation. SelfSubjectRulesReview should be used by UIs to show/hide actions, or to quickly let an end user reason about their permissions. It should NOT Be used by external systems to drive authorization decisions as this raises confused deputy, cache lifetime/revocation, and correctness concerns. SubjectAccessReview, and LocalAccessReview are the correct way to defer authorization decisions to the API server.",
  required: ["spec"],
});

/**
 * The rules of a server without an authorizer (a strategy run without a server), which allows
 * every request: every verb on everything, as `AlwaysAllow` lists them.
 */
export const allowAllRules: AccessRules = {
  resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], resourceNames: [] }],
  nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
  incomplete: false,
};

/**
 * The `status` of a rules review for `rules`, in the reference's JSON: `resourceRules`,
 * `nonResourceRules` and `incomplete` always present; a rule's lists left out when empty
 * (`verbs` aside); `evaluationError` only when set.
 */
export function rulesReviewStatus(rules: AccessRules): Record<string, unknown> {
  const nonEmpty = (out: Record<string, unknown>, key: string, values: readonly string[]) => {
    if (values.length > 0) out[key] = [...values];
  };
  const resourceRules = rules.resourceRules.map((r) => {
    const rule: Record<string, unknown> = { verbs: [...r.verbs] };
    nonEmpty(rule, "apiGroups", r.apiGroups);
    nonEmpty(rule, "resources", r.resources);
    nonEmpty(rule, "resourceNames", r.resourceNames);
    return rule;
  });
  const nonResourceRules = rules.nonResourceRules.map((r) => {
    const rule: Record<string, unknown> = { verbs: [...r.verbs] };
    nonEmpty(rule, "nonResourceURLs", r.nonResourceURLs);
    return rule;
  });
  const status: Record<string, unknown> = { resourceRules, nonResourceRules, incomplete: rules.incomplete };
  if (rules.evaluationError) status["evaluationError"] = rules.evaluationError;
  return status;
}

/**
 * The answer to a SelfSubjectRulesReview: the rules the caller (`ctx.user`) holds in
 * `spec.namespace`, from `ctx.rulesFor` ({@link allowAllRules} without one), as
 * {@link rulesReviewStatus}. As the reference, the answer carries only the status (an empty spec).
 * @throws StatusError 400 `no user present on request` where no caller is known, `no namespace
 *   on request` for an empty `spec.namespace`, as the reference.
 */
export async function evaluateSelfSubjectRulesReview(object: APIObject, ctx: StrategyContext): Promise<APIObject> {
  if (!ctx.user) throw badRequest("no user present on request");
  const namespace = str(record(object["spec"])?.["namespace"]);
  if (namespace === "") throw badRequest("no namespace on request");
  const rules = ctx.rulesFor ? await ctx.rulesFor(ctx.user, namespace) : allowAllRules;
  const answer: APIObject = { metadata: {}, spec: {}, status: rulesReviewStatus(rules) };
  if (object.apiVersion !== undefined) answer.apiVersion = object.apiVersion;
  if (object.kind !== undefined) answer.kind = object.kind;
  return answer;
}

/** The SelfSubjectRulesReview resource type: virtual, `create` only, answered with the caller's rules. */
export const selfSubjectRulesReviewType: ResourceType = {
  group: "authorization.{domain}",
  resource: "selfsubjectrulesreviews",
  singular: "selfsubjectrulesreview",
  kind: "SelfSubjectRulesReview",
  scope: "Cluster",
  versions: [{ name: "v1", schema: selfSubjectRulesReviewV1Schema, storage: true }],
  verbs: ["create"],
  virtual: true,
  strategy: {
    evaluate: (object, ctx) => evaluateSelfSubjectRulesReview(object, ctx),
  },
};
