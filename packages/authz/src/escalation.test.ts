import type { UserInfo } from "@orch/authn";
import { describe, expect, it } from "vitest";
import { breakdownRule, covers, uncoveredRules } from "./escalation.js";
import { RBACIndex } from "./rbac-index.js";
import type { PolicyRule } from "./rbac-types.js";

const rbac = "rbac.authorization.orch.io";

describe("breakdownRule", () => {
  it("splits a resource rule into one atom per group, resource, verb and name, in the reference's order", () => {
    expect(breakdownRule({ verbs: ["get", "list"], apiGroups: [""], resources: ["pods", "secrets"], resourceNames: ["a"] })).toEqual([
      { verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] },
      { verbs: ["list"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] },
      { verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] },
      { verbs: ["list"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a"] },
    ]);
  });

  it("splits a non-resource rule into one atom per path and verb", () => {
    expect(breakdownRule({ verbs: ["get", "head"], nonResourceURLs: ["/a"] })).toEqual([
      { verbs: ["get"], nonResourceURLs: ["/a"] },
      { verbs: ["head"], nonResourceURLs: ["/a"] },
    ]);
  });
});

describe("covers", () => {
  const pods = (verbs: string[], extra: Partial<PolicyRule> = {}): PolicyRule => ({ verbs, apiGroups: [""], resources: ["pods"], ...extra });

  it("covers everything with the all-powerful rules", () => {
    const owner: PolicyRule[] = [
      { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
      { verbs: ["*"], nonResourceURLs: ["*"] },
    ];
    const servant: PolicyRule[] = [pods(["get", "escalate"], { resourceNames: ["x"] }), { verbs: ["get"], nonResourceURLs: ["/metrics"] }];
    expect(covers(owner, servant)).toEqual({ covered: true, missing: [] });
  });

  it("lists exactly the atoms no owner rule covers", () => {
    expect(covers([pods(["get", "list"])], [pods(["get", "delete"])])).toEqual({
      covered: false,
      missing: [{ verbs: ["delete"], apiGroups: [""], resources: ["pods"] }],
    });
  });

  it("needs one owner rule to cover a whole atom: two partial rules do not add up", () => {
    const owner: PolicyRule[] = [pods(["list"]), { verbs: ["get"], apiGroups: [""], resources: ["secrets"] }];
    expect(covers(owner, [pods(["get"])]).covered).toBe(false);
  });

  it("covers a sub-resource of any resource with */subresource, but not the resource itself", () => {
    const owner: PolicyRule[] = [{ verbs: ["update"], apiGroups: ["*"], resources: ["*/status"] }];
    expect(covers(owner, [{ verbs: ["update"], apiGroups: ["apps"], resources: ["deployments/status", "pods/status"] }]).covered).toBe(true);
    expect(covers(owner, [{ verbs: ["update"], apiGroups: ["apps"], resources: ["deployments"] }]).covered).toBe(false);
    expect(covers(owner, [{ verbs: ["update"], apiGroups: ["apps"], resources: ["deployments/scale"] }]).covered).toBe(false);
  });

  it("covers any name without resourceNames, and only the listed names with them", () => {
    expect(covers([pods(["get"])], [pods(["get"], { resourceNames: ["a"] })]).covered).toBe(true);
    expect(covers([pods(["get"], { resourceNames: ["a", "b"] })], [pods(["get"], { resourceNames: ["b"] })]).covered).toBe(true);
    expect(covers([pods(["get"], { resourceNames: ["a"] })], [pods(["get"], { resourceNames: ["b"] })]).covered).toBe(false);
    expect(covers([pods(["get"], { resourceNames: ["a"] })], [pods(["get"])]).covered).toBe(false);
  });

  it("covers non-resource paths by equality or a trailing * prefix, and never through resource rules", () => {
    expect(covers([{ verbs: ["get"], nonResourceURLs: ["/apis/*"] }], [{ verbs: ["get"], nonResourceURLs: ["/apis/apps", "/apis/*"] }]).covered).toBe(true);
    expect(covers([{ verbs: ["get"], nonResourceURLs: ["/apis/*"] }], [{ verbs: ["get"], nonResourceURLs: ["/api"] }]).covered).toBe(false);
    expect(covers([{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }], [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }]).covered).toBe(false);
    expect(covers([{ verbs: ["*"], nonResourceURLs: ["*"] }], [pods(["get"])]).covered).toBe(false);
  });

  it("covers an empty servant list trivially", () => {
    expect(covers([], [])).toEqual({ covered: true, missing: [] });
  });
});

describe("uncoveredRules", () => {
  const index = new RBACIndex({
    clusterRoles: [
      { metadata: { name: "edit" }, rules: [{ verbs: ["get", "list", "create"], apiGroups: [""], resources: ["pods", "configmaps"] }] },
      { metadata: { name: "discovery" }, rules: [{ verbs: ["get"], nonResourceURLs: ["/api", "/api/*"] }] },
    ],
    roleBindings: [
      {
        metadata: { name: "b", namespace: "team-a" },
        roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "edit" },
        subjects: [{ kind: "User", name: "alice" }],
      },
    ],
    clusterRoleBindings: [
      {
        metadata: { name: "d" },
        roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "discovery" },
        subjects: [{ kind: "Group", name: "system:authenticated" }],
      },
    ],
  });
  const alice: UserInfo = { name: "alice", groups: ["system:authenticated"] };
  const grant: PolicyRule[] = [
    { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
    { verbs: ["get"], nonResourceURLs: ["/api/v1"] },
  ];

  it("finds nothing uncovered when the user holds the rules in that namespace (cluster-wide ones included)", () => {
    expect(uncoveredRules(index, alice, "team-a", grant)).toEqual([]);
  });

  it("returns the atoms the user lacks in another namespace", () => {
    expect(uncoveredRules(index, alice, "team-b", grant)).toEqual([{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]);
  });
});
