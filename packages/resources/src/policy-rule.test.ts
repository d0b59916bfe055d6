import { FieldPath, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  compactRules,
  compactRuleString,
  confirmNoEscalation,
  escalationAllowed,
  escalationMessage,
  isOnlyMutatingGCFields,
  policyRulesOf,
  rbacGroup,
  validatePolicyRule,
} from "./policy-rule.js";
import type { AccessPolicyRule, StrategyContext } from "./resource-type.js";

const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const at = FieldPath.root("rules").index(0);
const alice = { name: "alice", groups: ["dev", "system:authenticated"] };

describe("PolicyRule", () => {
  it("names the RBAC group of a domain", () => {
    expect(rbacGroup("k8s.io")).toBe("rbac.authorization.k8s.io");
  });

  it.each([
    ["a resource rule", { verbs: ["get"], apiGroups: [""], resources: ["pods"] }, true],
    ["a rule with one resource and names", { verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: ["a", "b"] }, true],
    ["a non-resource rule of a cluster role", { verbs: ["get"], nonResourceURLs: ["/healthz"] }, false],
  ])("accepts %s", (_what, rule, namespaced) => {
    expect(validatePolicyRule(rule, namespaced, at)).toEqual([]);
  });

  it.each([
    ["no verbs", { apiGroups: [""], resources: ["pods"] }, true, [["rules[0].verbs", "FieldValueRequired", "verbs must contain at least one value"]]],
    [
      "no api groups nor resources",
      { verbs: ["get"] },
      false,
      [
        ["rules[0].apiGroups", "FieldValueRequired", "resource rules must supply at least one api group"],
        ["rules[0].resources", "FieldValueRequired", "resource rules must supply at least one resource"],
      ],
    ],
    [
      "names on several resources",
      { verbs: ["get"], apiGroups: [""], resources: ["pods", "secrets"], resourceNames: ["x"] },
      true,
      [["rules[0].resourceNames", "FieldValueRequired", "resource names cannot apply to multiple resources"]],
    ],
    [
      "non-resource URLs in a namespace",
      { verbs: ["get"], nonResourceURLs: ["/healthz"] },
      true,
      [["rules[0].nonResourceURLs", "FieldValueInvalid", "namespaced rules cannot apply to non-resource URLs"]],
    ],
    [
      "non-resource URLs with resources",
      { verbs: ["get"], resources: ["pods"], nonResourceURLs: ["/healthz"] },
      false,
      [["rules[0].nonResourceURLs", "FieldValueInvalid", "rules cannot apply to both regular resources and non-resource URLs"]],
    ],
  ])("refuses %s", (_what, rule, namespaced, expected) => {
    expect(errorsOf(validatePolicyRule(rule, namespaced, at))).toEqual(expected);
  });

  it("reads the rules of a role", () => {
    expect(policyRulesOf([{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }, "junk"])).toEqual([
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      { verbs: [] },
    ]);
    expect(policyRulesOf(undefined)).toEqual([]);
  });
});

describe("escalation messages", () => {
  it("prints a rule as the reference's CompactString", () => {
    expect(compactRuleString({ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] })).toBe(
      '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
    );
    expect(compactRuleString({ verbs: ["get"], nonResourceURLs: ["/healthz"] })).toBe('{NonResourceURLs:["/healthz"], Verbs:["get"]}');
    expect(compactRuleString({ verbs: ["get"], apiGroups: ["apps"], resources: ["deployments"], resourceNames: ["web"] })).toBe(
      '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]}',
    );
  });

  it("compacts atoms that differ only by verb", () => {
    const atoms: AccessPolicyRule[] = [
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      { verbs: ["list"], apiGroups: [""], resources: ["pods"] },
      { verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] },
      { verbs: ["get"], nonResourceURLs: ["/healthz"] },
    ];
    expect(compactRules(atoms)).toEqual([
      { verbs: ["get"], nonResourceURLs: ["/healthz"] },
      { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] },
      { verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] },
    ]);
    expect(atoms[0]?.verbs).toEqual(["get"]);
  });

  it("words the 403 as the reference: the user, its groups, the missing rules sorted", () => {
    const message = escalationMessage(alice, [
      { verbs: ["list"], apiGroups: [""], resources: ["secrets"] },
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      { verbs: ["get"], apiGroups: [""], resources: ["secrets"] },
    ]);
    expect(message).toBe(
      'user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["list" "get"]}',
    );
    expect(escalationMessage({ name: "bob", groups: [] }, [{ verbs: ["get"], nonResourceURLs: ["/x"] }])).toBe(
      'user "bob" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{NonResourceURLs:["/x"], Verbs:["get"]}',
    );
  });

  it("exempts writes without a user and by system:masters", () => {
    const ctx: StrategyContext = { domain: "k8s.io", now: 0 };
    expect(escalationAllowed(ctx)).toBe(true);
    expect(escalationAllowed({ ...ctx, user: { name: "admin", groups: ["system:masters"] } })).toBe(true);
    expect(escalationAllowed({ ...ctx, user: alice })).toBe(false);
  });

  it("refuses with the reference's 403 when rules are not covered, and passes without RBAC", async () => {
    const missing: AccessPolicyRule[] = [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }];
    const asked: unknown[] = [];
    const ctx: StrategyContext = {
      domain: "k8s.io",
      now: 0,
      user: alice,
      uncoveredRules: async (user, namespace, rules) => {
        asked.push([user.name, namespace, rules]);
        return missing;
      },
    };
    const error = await confirmNoEscalation(ctx, "roles", "x", "ns", missing).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: {
        code: 403,
        reason: "Forbidden",
        message:
          'roles.rbac.authorization.k8s.io "x" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
        details: { name: "x", group: "rbac.authorization.k8s.io", kind: "roles" },
      },
    });
    expect(asked).toEqual([["alice", "ns", missing]]);
    await expect(confirmNoEscalation({ ...ctx, uncoveredRules: async () => [] }, "roles", "x", "ns", missing)).resolves.toBeUndefined();
    await expect(confirmNoEscalation({ domain: "k8s.io", now: 0, user: alice }, "roles", "x", "ns", missing)).resolves.toBeUndefined();
  });

  it("sees updates that only change garbage-collection fields", () => {
    const old: APIObject = { metadata: { name: "r", resourceVersion: "1" }, rules: [{ verbs: ["get"] }] };
    const gc: APIObject = {
      metadata: { name: "r", resourceVersion: "2", finalizers: ["x.io/y"], ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "p", uid: "u" }] },
      rules: [{ verbs: ["get"] }],
    };
    expect(isOnlyMutatingGCFields(gc, old)).toBe(true);
    expect(isOnlyMutatingGCFields({ ...gc, rules: [{ verbs: ["*"] }] }, old)).toBe(false);
    expect(isOnlyMutatingGCFields({ ...old, metadata: { ...old.metadata, labels: { a: "b" } } }, old)).toBe(false);
  });
});
