/**
 * The authorizers every server has (`AlwaysAllow`, `AlwaysDeny`) and the chain
 * `--authorization-mode` builds from a list of them.
 * @module
 */
import type { UserInfo } from "@orch/authn";
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from "./authorizer.js";

/** The group whose members every authorizer of the reference allows everything (`system:masters`). */
export const privilegedGroup = "system:masters";

/** Allows every request (`--authorization-mode=AlwaysAllow`, and an embedded server's default). */
export const alwaysAllow: Authorizer & RuleResolver = {
  authorize: async () => ({ decision: "allow", reason: "" }),
  rulesFor: async () => ({
    resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], resourceNames: [] }],
    nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
    incomplete: false,
  }),
};

/** Denies every request (`--authorization-mode=AlwaysDeny`). */
export const alwaysDeny: Authorizer & RuleResolver = {
  authorize: async () => ({ decision: "deny", reason: "Everything is forbidden." }),
  rulesFor: async () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/**
 * Members of `system:masters` may do everything, whatever the other authorizers say (the
 * reference's privileged-group authorizer, always first in its chain).
 */
export const privilegedGroupAuthorizer: Authorizer = {
  authorize: async (attributes: Attributes) =>
    attributes.user.groups.includes(privilegedGroup) ? { decision: "allow", reason: "" } : { decision: "noOpinion", reason: "" },
};

/**
 * Asks each authorizer in order (the reference's union authorizer): the first `allow` or `deny`
 * decides; when every one has no opinion, the request is denied with their reasons and errors
 * joined. An authorizer that rejects counts as no opinion with its error.
 */
export function chainAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    async authorize(attributes) {
      // Made only when an authorizer has no opinion: most requests are decided by the first one.
      let reasons: string[] | undefined;
      let errors: string[] | undefined;
      for (const authorizer of authorizers) {
        let result: AuthorizationResult;
        try {
          result = await authorizer.authorize(attributes);
        } catch (error) {
          (errors ??= []).push(error instanceof Error ? error.message : String(error));
          continue;
        }
        if (result.decision !== "noOpinion") return result;
        if (result.reason) (reasons ??= []).push(result.reason);
        if (result.error) (errors ??= []).push(result.error);
      }
      const out: AuthorizationResult = { decision: "noOpinion", reason: reasons === undefined ? "" : reasons.join("\n") };
      if (errors !== undefined) out.error = errors.join(", ");
      return out;
    },
  };
}

function isRuleResolver(value: unknown): value is RuleResolver {
  return typeof (value as Partial<RuleResolver> | undefined)?.rulesFor === "function";
}

/**
 * The rules a user holds across `authorizers` (each that is also a {@link RuleResolver}); an
 * authorizer that cannot list its rules makes the answer `incomplete`, as the reference says of
 * the Node and Webhook modes.
 */
export async function rulesFor(authorizers: readonly Authorizer[], user: UserInfo, namespace: string): Promise<RulesResult> {
  const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
  const errors: string[] = [];
  for (const authorizer of authorizers) {
    if (authorizer === privilegedGroupAuthorizer) {
      if (user.groups.includes(privilegedGroup)) {
        out.resourceRules.push({ verbs: ["*"], apiGroups: ["*"], resources: ["*"], resourceNames: [] });
        out.nonResourceRules.push({ verbs: ["*"], nonResourceURLs: ["*"] });
      }
      continue;
    }
    if (!isRuleResolver(authorizer)) {
      out.incomplete = true;
      continue;
    }
    try {
      const rules = await authorizer.rulesFor(user, namespace);
      out.resourceRules.push(...rules.resourceRules);
      out.nonResourceRules.push(...rules.nonResourceRules);
      if (rules.incomplete) out.incomplete = true;
      if (rules.evaluationError) errors.push(rules.evaluationError);
    } catch (error) {
      out.incomplete = true;
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (errors.length > 0) out.evaluationError = errors.join(", ");
  return out;
}
