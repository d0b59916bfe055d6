import { describe, expect, it } from "vitest";
import { aggregatedRules } from "./aggregation.js";
import { bootstrapPolicy } from "./bootstrap-policy.js";
import type { ClusterRole, PolicyRule } from "./rbac-types.js";

const r = (verb: string, resource: string): PolicyRule => ({ verbs: [verb], apiGroups: [""], resources: [resource] });

function role(name: string, labels: Record<string, string>, rules: PolicyRule[] = [], selectors?: ClusterRole["aggregationRule"]): ClusterRole {
  const out: ClusterRole = { metadata: { name, labels }, rules };
  if (selectors) out.aggregationRule = selectors;
  return out;
}

describe("aggregatedRules", () => {
  it("is undefined for a role without an aggregation rule, and empty for one without selectors", () => {
    expect(aggregatedRules(role("plain", {}, [r("get", "pods")]), [])).toBeUndefined();
    expect(aggregatedRules(role("empty", {}, [], {}), [role("x", { a: "b" }, [r("get", "pods")])])).toEqual([]);
  });

  it("unions the rules of matching roles, selector by selector and by name within one, without repeats", () => {
    const target = role("target", {}, [r("stale", "rules")], {
      clusterRoleSelectors: [{ matchLabels: { second: "true" } }, { matchLabels: { first: "true" } }],
    });
    const all = [
      role("b-first", { first: "true" }, [r("get", "b")]),
      role("a-first", { first: "true" }, [r("get", "a"), r("get", "shared")]),
      role("z-second", { second: "true" }, [r("get", "z"), r("get", "shared")]),
      role("unlabelled", {}, [r("get", "nope")]),
      target,
    ];
    expect(aggregatedRules(target, all)).toEqual([r("get", "z"), r("get", "shared"), r("get", "a"), r("get", "b")]);
  });

  it("matches expressions In, NotIn, Exists and DoesNotExist", () => {
    const all = [
      role("tier-web", { tier: "web", team: "x" }, [r("get", "web")]),
      role("tier-db", { tier: "db", team: "x" }, [r("get", "db")]),
      role("no-tier", { team: "x" }, [r("get", "none")]),
      role("secret", { tier: "web", restricted: "yes", team: "x" }, [r("get", "secret")]),
    ];
    const select = (expressions: NonNullable<NonNullable<ClusterRole["aggregationRule"]>["clusterRoleSelectors"]>[number]) =>
      aggregatedRules(role("t", {}, [], { clusterRoleSelectors: [expressions] }), all);
    expect(select({ matchExpressions: [{ key: "tier", operator: "In", values: ["web", "db"] }] })).toEqual([
      r("get", "secret"),
      r("get", "db"),
      r("get", "web"),
    ]);
    expect(select({ matchExpressions: [{ key: "tier", operator: "NotIn", values: ["web"] }] })).toEqual([r("get", "none"), r("get", "db")]);
    expect(
      select({
        matchExpressions: [
          { key: "tier", operator: "Exists" },
          { key: "restricted", operator: "DoesNotExist" },
        ],
      }),
    ).toEqual([r("get", "db"), r("get", "web")]);
    expect(select({ matchLabels: { team: "x" }, matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] })).toEqual([r("get", "none")]);
  });

  it("never includes the role itself, even when it matches its own selector", () => {
    const self = role("self", { agg: "true" }, [r("get", "mine")], { clusterRoleSelectors: [{ matchLabels: { agg: "true" } }] });
    expect(aggregatedRules(self, [self, role("other", { agg: "true" }, [r("get", "other")])])).toEqual([r("get", "other")]);
  });

  it("takes an aggregated role's gathered rules, not its stored ones, so admin sees view's rules through edit", () => {
    const policy = bootstrapPolicy("orch.io");
    const byName = new Map(policy.clusterRoles.map((c) => [c.metadata.name, c]));
    const admin = aggregatedRules(byName.get("admin") as ClusterRole, policy.clusterRoles) ?? [];
    const edit = aggregatedRules(byName.get("edit") as ClusterRole, policy.clusterRoles) ?? [];
    const view = aggregatedRules(byName.get("view") as ClusterRole, policy.clusterRoles) ?? [];
    expect(view).toEqual(byName.get("system:aggregate-to-view")?.rules);
    expect(edit).toEqual([...(byName.get("system:aggregate-to-edit")?.rules ?? []), ...view]);
    expect(admin).toEqual([...edit, ...(byName.get("system:aggregate-to-admin")?.rules ?? [])]);
  });

  it("terminates on a loop of selectors and gives the same answer every time", () => {
    const a = role("a", { in: "b" }, [r("old", "a")], { clusterRoleSelectors: [{ matchLabels: { in: "a" } }] });
    const b = role("b", { in: "a" }, [r("old", "b")], { clusterRoleSelectors: [{ matchLabels: { in: "b" } }] });
    const leafA = role("leaf-a", { in: "a" }, [r("get", "leaf-a")]);
    const leafB = role("leaf-b", { in: "b" }, [r("get", "leaf-b")]);
    const all = [a, b, leafA, leafB];
    const first = aggregatedRules(a, all);
    expect(first).toEqual([r("get", "leaf-b"), r("get", "leaf-a")]);
    expect(aggregatedRules(a, [...all].reverse())).toEqual(first);
    expect(aggregatedRules(b, all)).toEqual([r("get", "leaf-a"), r("get", "leaf-b")]);
  });

  it("lets an invalid selector select nothing", () => {
    const t = role("t", {}, [], { clusterRoleSelectors: [{ matchExpressions: [{ key: "x", operator: "In" }] }, { matchLabels: { ok: "1" } }] });
    expect(aggregatedRules(t, [role("x", { x: "1", ok: "1" }, [r("get", "x")])])).toEqual([r("get", "x")]);
    expect(
      aggregatedRules(role("u", {}, [], { clusterRoleSelectors: [{ matchExpressions: [{ key: "x", operator: "In" }] }] }), [
        role("x", { x: "1" }, [r("get", "x")]),
      ]),
    ).toEqual([]);
  });

  it("returns copies that do not alias the source roles' rules", () => {
    const source = role("s", { agg: "1" }, [r("get", "pods")]);
    const out = aggregatedRules(role("t", {}, [], { clusterRoleSelectors: [{ matchLabels: { agg: "1" } }] }), [source]) ?? [];
    out[0]?.verbs.push("delete");
    expect(source.rules?.[0]?.verbs).toEqual(["get"]);
  });
});
