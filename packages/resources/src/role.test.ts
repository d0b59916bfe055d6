import { isForbidden, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import type { AccessAttributes, AccessPolicyRule, StrategyContext } from "./resource-type.js";
import { roleType, validateRole } from "./role.js";

const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const alice = { name: "alice", groups: ["dev", "system:authenticated"] };
const role = (rules: unknown[], name = "pod-reader"): APIObject => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "Role",
  metadata: { name, namespace: "ns" },
  rules,
});
const podRule = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };

interface Fake {
  ctx: StrategyContext;
  asked: AccessAttributes[];
  covered: [string, readonly AccessPolicyRule[]][];
}

/** A context whose authorizer allows `escalate` when `escalate`, and whose user holds nothing when `holdsNothing`. */
function fake(options: { escalate?: boolean; holdsNothing?: boolean; user?: StrategyContext["user"] } = {}): Fake {
  const asked: AccessAttributes[] = [];
  const covered: [string, readonly AccessPolicyRule[]][] = [];
  const ctx: StrategyContext = {
    domain: "k8s.io",
    now: 0,
    user: options.user ?? alice,
    authorize: async (attributes) => {
      asked.push(attributes);
      return { decision: options.escalate ? "allow" : "noOpinion", reason: "" };
    },
    uncoveredRules: async (_user, namespace, rules) => {
      covered.push([namespace, rules]);
      return options.holdsNothing ? [...rules] : [];
    },
  };
  return { ctx, asked, covered };
}

const check = (object: APIObject, old: APIObject | undefined, ctx: StrategyContext, subresource = "") =>
  roleType.strategy?.checkWriteAccess?.(object, old, subresource, ctx) ?? Promise.resolve();

describe("Role", () => {
  it("is a namespaced rbac.authorization.{domain}/v1 kind without short names, with the default Table", () => {
    expect(roleType).toMatchObject({ group: "rbac.authorization.{domain}", resource: "roles", singular: "role", kind: "Role", scope: "Namespaced" });
    expect(roleType.shortNames).toBeUndefined();
    expect(roleType.strategy?.tableColumns).toBeUndefined();
  });

  it("validates its rules as namespaced rules", () => {
    expect(validateRole(role([podRule]))).toEqual([]);
    expect(validateRole(role([]))).toEqual([]);
    expect(errorsOf(validateRole(role([podRule, { verbs: ["get"], nonResourceURLs: ["/healthz"] }])))).toEqual([
      ["rules[1].nonResourceURLs", "FieldValueInvalid", "namespaced rules cannot apply to non-resource URLs"],
    ]);
    expect(errorsOf(validateRole(role([{ apiGroups: [""], resources: ["pods"] }])))).toEqual([
      ["rules[0].verbs", "FieldValueRequired", "verbs must contain at least one value"],
    ]);
  });

  it("lets a caller that may escalate roles write any rules, asking by name on an update only, as the reference", async () => {
    const { ctx, asked, covered } = fake({ escalate: true, holdsNothing: true });
    await check(role([podRule]), undefined, ctx);
    await check(role([podRule, { ...podRule, verbs: ["list"] }]), role([podRule]), ctx);
    const attributes = {
      user: alice,
      verb: "escalate",
      resourceRequest: true,
      apiGroup: "rbac.authorization.k8s.io",
      apiVersion: "*",
      resource: "roles",
      subresource: "",
      namespace: "ns",
    };
    expect(asked).toEqual([
      { ...attributes, name: "" },
      { ...attributes, name: "pod-reader" },
    ]);
    expect(covered).toEqual([]);
  });

  it("lets a caller write the rules it holds in the role's namespace", async () => {
    const { ctx, covered } = fake();
    await check(role([podRule]), undefined, ctx);
    expect(covered).toEqual([["ns", [podRule]]]);
  });

  it("refuses rules the caller does not hold with the reference's 403", async () => {
    const { ctx } = fake({ holdsNothing: true });
    const error = await check(role([podRule]), undefined, ctx).catch((e: unknown) => e);
    expect(isForbidden(error)).toBe(true);
    expect((error as { status: { message: string } }).status.message).toBe(
      'roles.rbac.authorization.k8s.io "pod-reader" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
    );
  });

  it("checks an update's new rules, but not an update of garbage-collection fields only", async () => {
    const { ctx } = fake({ holdsNothing: true });
    const old = role([podRule]);
    await expect(check(role([podRule, { verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]), old, ctx)).rejects.toMatchObject({ status: { code: 403 } });
    const gc = role([podRule]);
    gc.metadata.finalizers = ["example.com/keep"];
    await expect(check(gc, old, ctx)).resolves.toBeUndefined();
  });

  it("passes for system:masters, without a user, and on a server without RBAC", async () => {
    await expect(
      check(role([podRule]), undefined, fake({ holdsNothing: true, user: { name: "root", groups: ["system:masters"] } }).ctx),
    ).resolves.toBeUndefined();
    await expect(check(role([podRule]), undefined, { domain: "k8s.io", now: 0 })).resolves.toBeUndefined();
    await expect(check(role([podRule]), undefined, { domain: "k8s.io", now: 0, user: alice })).resolves.toBeUndefined();
  });
});
