import { isBadRequest, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import type { AccessRules, RequestUser, StrategyContext } from "./resource-type.js";
import { allowAllRules, evaluateSelfSubjectRulesReview, rulesReviewStatus, selfSubjectRulesReviewType } from "./self-subject-rules-review.js";

const ssrr = (spec: Record<string, unknown>): APIObject => ({ apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectRulesReview", metadata: {}, spec });
const alice = { name: "alice", groups: ["dev"] };

describe("SelfSubjectRulesReview", () => {
  it("is a virtual, cluster-scoped authorization kind offering only create", () => {
    expect(selfSubjectRulesReviewType).toMatchObject({
      group: "authorization.{domain}",
      resource: "selfsubjectrulesreviews",
      kind: "SelfSubjectRulesReview",
      scope: "Cluster",
      virtual: true,
      verbs: ["create"],
    });
  });

  it("answers the caller's rules in the namespace, only the status, as the reference", async () => {
    const asked: [RequestUser, string][] = [];
    const rules: AccessRules = {
      resourceRules: [
        { verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews"], resourceNames: [] },
        { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["settings"] },
      ],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }],
      incomplete: true,
      evaluationError: "webhook authorizer does not support user rule resolution",
    };
    const ctx: StrategyContext = {
      domain: "k8s.io",
      now: 0,
      user: alice,
      rulesFor: async (user, namespace) => {
        asked.push([user, namespace]);
        return rules;
      },
    };
    const answer = await evaluateSelfSubjectRulesReview(ssrr({ namespace: "ns" }), ctx);
    expect(asked).toEqual([[alice, "ns"]]);
    expect(answer).toEqual({
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectRulesReview",
      metadata: {},
      spec: {},
      status: {
        resourceRules: [
          { verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews"] },
          { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["settings"] },
        ],
        nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }],
        incomplete: true,
        evaluationError: "webhook authorizer does not support user rule resolution",
      },
    });
  });

  it("keeps the lists and incomplete when empty", () => {
    expect(rulesReviewStatus({ resourceRules: [], nonResourceRules: [], incomplete: false })).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
    });
  });

  it("answers every rule without a server's rules, as an allow-all server", async () => {
    const answer = await evaluateSelfSubjectRulesReview(ssrr({ namespace: "ns" }), { domain: "k8s.io", now: 0, user: alice });
    expect(answer["status"]).toEqual(rulesReviewStatus(allowAllRules));
    expect(answer["status"]).toEqual({
      resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      incomplete: false,
    });
  });

  it.each([
    ["no namespace", ssrr({}), { domain: "k8s.io", now: 0, user: alice }, "no namespace on request"],
    ["no caller", ssrr({ namespace: "ns" }), { domain: "k8s.io", now: 0 }, "no user present on request"],
  ])("answers 400 for %s, as the reference", async (_what, object, ctx, message) => {
    const error = await evaluateSelfSubjectRulesReview(object, ctx).catch((e: unknown) => e);
    expect(isBadRequest(error)).toBe(true);
    expect((error as { message: string }).message).toBe(message);
  });
});
