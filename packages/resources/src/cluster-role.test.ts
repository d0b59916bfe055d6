import { type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { aggregationRuleForbiddenReason, clusterRoleType, fullAuthority, hasAggregationRule, validateClusterRole } from "./cluster-role.js";
import type { AccessAttributes, AccessPolicyRule, StrategyContext } from "./resource-type.js";

const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const alice = { name: "alice", groups: ["dev"] };
const clusterRole = (fields: Record<string, unknown>, name = "monitoring"): APIObject => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRole",
  metadata: { name },
  ...fields,
});
const healthRule = { verbs: ["get"], nonResourceURLs: ["/healthz"] };
const aggregationRule = { clusterRoleSelectors: [{ matchLabels: { "rbac.example.com/aggregate-to-monitoring": "true" } }] };

/** A context whose user holds every rule but those of `missing` (by JSON). */
function fake(options: { escalate?: boolean; missing?: readonly AccessPolicyRule[] } = {}) {
  const asked: AccessAttributes[] = [];
  const covered: [string, readonly AccessPolicyRule[]][] = [];
  const missing = new Set((options.missing ?? []).map((r) => JSON.stringify(r)));
  const ctx: StrategyContext = {
    domain: "k8s.io",
    now: 0,
    user: alice,
    authorize: async (attributes) => {
      asked.push(attributes);
      return { decision: options.escalate ? "allow" : "deny", reason: "" };
    },
    uncoveredRules: async (_user, namespace, rules) => {
      covered.push([namespace, rules]);
      return rules.filter((r) => missing.has(JSON.stringify(r)));
    },
  };
  return { ctx, asked, covered };
}

const check = (object: APIObject, old: APIObject | undefined, ctx: StrategyContext) =>
  clusterRoleType.strategy?.checkWriteAccess?.(object, old, "", ctx) ?? Promise.resolve();

describe("ClusterRole", () => {
  it("is a cluster-scoped rbac.authorization.{domain}/v1 kind with the default Table", () => {
    expect(clusterRoleType).toMatchObject({ group: "rbac.authorization.{domain}", resource: "clusterroles", kind: "ClusterRole", scope: "Cluster" });
    expect(clusterRoleType.strategy?.tableColumns).toBeUndefined();
  });

  it.each([
    ["resource and non-resource rules", clusterRole({ rules: [{ verbs: ["get"], apiGroups: [""], resources: ["nodes"] }, healthRule] })],
    ["an aggregation rule", clusterRole({ aggregationRule })],
    [
      "an aggregation rule with expressions",
      clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: "a", operator: "Exists" }] }] } }),
    ],
  ])("accepts %s", (_what, object) => {
    expect(validateClusterRole(object)).toEqual([]);
  });

  it.each([
    [
      "resources with non-resource URLs",
      clusterRole({ rules: [{ verbs: ["get"], resources: ["nodes"], nonResourceURLs: ["/x"] }] }),
      [["rules[0].nonResourceURLs", "FieldValueInvalid", "rules cannot apply to both regular resources and non-resource URLs"]],
    ],
    [
      "an aggregation rule without selectors",
      clusterRole({ aggregationRule: {} }),
      [["aggregationRule.clusterRoleSelectors", "FieldValueRequired", "at least one clusterRoleSelector required if aggregationRule is non-nil"]],
    ],
  ])("refuses %s", (_what, object, expected) => {
    expect(errorsOf(validateClusterRole(object))).toEqual(expected);
  });

  it("refuses an invalid aggregation selector at its path", () => {
    const errors = validateClusterRole(
      clusterRole({ aggregationRule: { clusterRoleSelectors: [{}, { matchExpressions: [{ key: "a", operator: "Often" }] }] } }),
    );
    expect(errors.map((e) => e.field)).toEqual(["aggregationRule.clusterRoleSelectors[1].matchExpressions[0].operator"]);
  });

  it("knows an aggregation rule with selectors", () => {
    expect(hasAggregationRule(clusterRole({ aggregationRule }))).toBe(true);
    expect(hasAggregationRule(clusterRole({ aggregationRule: { clusterRoleSelectors: [] } }))).toBe(false);
    expect(hasAggregationRule(undefined)).toBe(false);
  });

  it("checks the rules cluster-wide, and asks about escalate on clusterroles", async () => {
    const { ctx, asked, covered } = fake();
    await check(clusterRole({ rules: [healthRule] }), undefined, ctx);
    expect(asked.map((a) => [a.verb, a.resource, a.namespace, a.name])).toEqual([["escalate", "clusterroles", "", ""]]);
    expect(covered).toEqual([["", [healthRule]]]);
  });

  it("needs every permission to set or drop an aggregation rule", async () => {
    const { ctx, covered } = fake({ missing: [fullAuthority[1] as AccessPolicyRule] });
    await expect(check(clusterRole({ aggregationRule }), undefined, ctx)).rejects.toMatchObject({
      status: { code: 403, message: `clusterroles.rbac.authorization.k8s.io "monitoring" is forbidden: ${aggregationRuleForbiddenReason}` },
    });
    expect(covered).toEqual([
      ["", []],
      ["", fullAuthority],
    ]);
    await expect(check(clusterRole({}), clusterRole({ aggregationRule }), ctx)).rejects.toMatchObject({ status: { code: 403 } });
    await expect(check(clusterRole({ rules: [healthRule] }), clusterRole({}), ctx)).resolves.toBeUndefined();
    await expect(check(clusterRole({ aggregationRule }), undefined, fake().ctx)).resolves.toBeUndefined();
  });

  it("lets a caller that may escalate set an aggregation rule", async () => {
    const { ctx, covered } = fake({ escalate: true, missing: [...fullAuthority] });
    await check(clusterRole({ aggregationRule }), undefined, ctx);
    expect(covered).toEqual([]);
  });
});
