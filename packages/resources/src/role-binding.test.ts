import { isNotFound, notFound, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { clusterRoleBindingType } from "./cluster-role-binding.js";
import type { AccessAttributes, AccessPolicyRule, StrategyContext } from "./resource-type.js";
import { pathSegmentNameMessages as pathSegmentNameProblems } from "@orch/meta";
import { defaultRBACBinding, roleBindingType, validateRBACBindingUpdate, validateRoleBinding } from "./role-binding.js";

const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const ctx0 = { domain: "k8s.io", now: 0 };
const group = "rbac.authorization.k8s.io";
const alice = { name: "alice", groups: ["dev", "system:authenticated"] };
const binding = (fields: Record<string, unknown>, kind = "RoleBinding"): APIObject => ({
  apiVersion: `${group}/v1`,
  kind,
  metadata: kind === "RoleBinding" ? { name: "read-pods", namespace: "ns" } : { name: "read-pods" },
  ...fields,
});
const roleRef = { apiGroup: group, kind: "Role", name: "pod-reader" };
const podRule = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };

describe("RoleBinding and ClusterRoleBinding", () => {
  it("are rbac.authorization.{domain}/v1 kinds, namespaced and cluster-scoped", () => {
    expect(roleBindingType).toMatchObject({ group: "rbac.authorization.{domain}", resource: "rolebindings", kind: "RoleBinding", scope: "Namespaced" });
    expect(clusterRoleBindingType).toMatchObject({
      group: "rbac.authorization.{domain}",
      resource: "clusterrolebindings",
      kind: "ClusterRoleBinding",
      scope: "Cluster",
    });
  });

  it("defaults roleRef.apiGroup and the apiGroup of users and groups, not of service accounts", () => {
    const object = binding({
      roleRef: { kind: "Role", name: "r" },
      subjects: [
        { kind: "User", name: "jane" },
        { kind: "Group", name: "dev", apiGroup: "" },
        { kind: "ServiceAccount", name: "sa", apiGroup: "" },
        { kind: "User", name: "joe", apiGroup: "example.com" },
      ],
    });
    defaultRBACBinding(object, ctx0);
    expect(object["roleRef"]).toEqual({ kind: "Role", name: "r", apiGroup: group });
    expect(object["subjects"]).toEqual([
      { kind: "User", name: "jane", apiGroup: group },
      { kind: "Group", name: "dev", apiGroup: group },
      { kind: "ServiceAccount", name: "sa" },
      { kind: "User", name: "joe", apiGroup: "example.com" },
    ]);
  });

  it("accepts a binding of users, groups and service accounts", () => {
    const subjects = [
      { kind: "User", name: "system:admin", apiGroup: group },
      { kind: "Group", name: "dev", apiGroup: group },
      { kind: "ServiceAccount", name: "builder" },
    ];
    expect(validateRoleBinding(binding({ roleRef, subjects }), ctx0)).toEqual([]);
    expect(validateRoleBinding(binding({ roleRef: { ...roleRef, kind: "ClusterRole", name: "system:aggregate-to-view" } }), ctx0)).toEqual([]);
  });

  it.each([
    [
      "an unknown roleRef kind",
      { roleRef: { ...roleRef, kind: "Pod" } },
      [["roleRef.kind", "FieldValueNotSupported", 'supported values: "Role", "ClusterRole"']],
    ],
    ["another group", { roleRef: { ...roleRef, apiGroup: "apps" } }, [["roleRef.apiGroup", "FieldValueNotSupported", `supported values: "${group}"`]]],
    ["no role name", { roleRef: { apiGroup: group, kind: "Role" } }, [["roleRef.name", "FieldValueRequired", ""]]],
    ["a role name that is not a path segment", { roleRef: { ...roleRef, name: ".." } }, [["roleRef.name", "FieldValueInvalid", "may not be '..'"]]],
    [
      "an unknown subject kind",
      { roleRef, subjects: [{ kind: "Robot", name: "r2" }] },
      [["subjects[0].kind", "FieldValueNotSupported", 'supported values: "ServiceAccount", "User", "Group"']],
    ],
    [
      "a user without a name",
      { roleRef, subjects: [{ kind: "User", apiGroup: group }] },
      [
        ["subjects[0].name", "FieldValueRequired", ""],
        ["subjects[0].name", "FieldValueInvalid", "user name cannot be empty"],
      ],
    ],
    [
      "a group of another API group",
      { roleRef, subjects: [{ kind: "Group", name: "g", apiGroup: "x" }] },
      [["subjects[0].apiGroup", "FieldValueNotSupported", `supported values: "${group}"`]],
    ],
    [
      "a service account with an API group",
      { roleRef, subjects: [{ kind: "ServiceAccount", name: "sa", apiGroup: group }] },
      [["subjects[0].apiGroup", "FieldValueNotSupported", 'supported values: ""']],
    ],
    [
      "a service account name that is not a DNS subdomain",
      { roleRef, subjects: [{ kind: "ServiceAccount", name: "Sa" }] },
      [
        [
          "subjects[0].name",
          "FieldValueInvalid",
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ],
      ],
    ],
  ])("refuses %s", (_what, fields, expected) => {
    expect(errorsOf(validateRoleBinding(binding(fields), ctx0))).toEqual(expected);
  });

  it("lets a RoleBinding's service account leave its namespace out", () => {
    expect(validateRoleBinding(binding({ roleRef, subjects: [{ kind: "ServiceAccount", name: "sa" }] }), ctx0)).toEqual([]);
  });

  it("knows path segment names", () => {
    expect(pathSegmentNameProblems("system:controller:x")).toEqual([]);
    expect(pathSegmentNameProblems(".")).toEqual(["may not be '.'"]);
    expect(pathSegmentNameProblems("a/b%c")).toEqual(["may not contain '/'", "may not contain '%'"]);
  });

  it("refuses a change of roleRef with the reference's message", () => {
    const old = binding({ roleRef, subjects: [] });
    expect(validateRBACBindingUpdate(binding({ roleRef: { ...roleRef }, subjects: [{ kind: "User", name: "x" }] }), old)).toEqual([]);
    expect(errorsOf(validateRBACBindingUpdate(binding({ roleRef: { ...roleRef, name: "other" } }), old))).toEqual([
      ["roleRef", "FieldValueInvalid", "cannot change roleRef"],
    ]);
  });

  it("prints Name, Role and Age, and wide Users, Groups and ServiceAccounts", () => {
    const columns = roleBindingType.strategy?.tableColumns ?? [];
    expect(roleBindingType.strategy?.tableColumnsComplete).toBe(true);
    expect(columns.map((c) => [c.name, c.priority])).toEqual([
      ["Name", 0],
      ["Role", 0],
      ["Age", 0],
      ["Users", 1],
      ["Groups", 1],
      ["ServiceAccounts", 1],
    ]);
    const object = binding({
      roleRef: { ...roleRef, kind: "ClusterRole", name: "view" },
      subjects: [
        { kind: "User", name: "jane" },
        { kind: "User", name: "joe" },
        { kind: "Group", name: "dev" },
        { kind: "ServiceAccount", name: "sa", namespace: "ci" },
        { kind: "ServiceAccount", name: "local" },
      ],
    });
    object.metadata.creationTimestamp = "2026-01-01T00:00:00Z";
    const now = Date.parse("2026-01-01T00:05:00Z");
    expect(columns.map((c) => c.cell(object, now))).toEqual(["read-pods", "ClusterRole/view", "5m", "jane, joe", "dev", "ci/sa, /local"]);
    expect(clusterRoleBindingType.strategy?.tableColumns).toBe(columns);
  });
});

/** A context whose user may `bind` when `bind`, holds nothing when `holdsNothing`, and whose store has `roles`. */
function fake(options: { bind?: boolean; holdsNothing?: boolean; roles?: Record<string, APIObject> } = {}) {
  const asked: AccessAttributes[] = [];
  const covered: [string, readonly AccessPolicyRule[]][] = [];
  const read: string[] = [];
  const ctx: StrategyContext = {
    domain: "k8s.io",
    now: 0,
    user: alice,
    authorize: async (attributes) => {
      asked.push(attributes);
      return { decision: options.bind ? "allow" : "noOpinion", reason: "" };
    },
    uncoveredRules: async (_user, namespace, rules) => {
      covered.push([namespace, rules]);
      return options.holdsNothing ? [...rules] : [];
    },
    get: async (g, resource, namespace, name) => {
      const key = `${g}/${resource}/${namespace}/${name}`;
      read.push(key);
      const found = options.roles?.[key];
      if (!found) throw notFound({ group: g, resource }, name);
      return found;
    },
  };
  return { ctx, asked, covered, read };
}

const checkRoleBinding = (object: APIObject, old: APIObject | undefined, ctx: StrategyContext) =>
  roleBindingType.strategy?.checkWriteAccess?.(object, old, "", ctx) ?? Promise.resolve();
const checkClusterRoleBinding = (object: APIObject, ctx: StrategyContext) =>
  clusterRoleBindingType.strategy?.checkWriteAccess?.(object, undefined, "", ctx) ?? Promise.resolve();

describe("binding escalation checks", () => {
  const podReader: APIObject = { metadata: { name: "pod-reader", namespace: "ns" }, rules: [podRule] };

  it("lets a caller that may bind the role bind it, asking in the binding's namespace", async () => {
    const { ctx, asked, covered, read } = fake({ bind: true, holdsNothing: true });
    await checkRoleBinding(binding({ roleRef }), undefined, ctx);
    expect(asked).toEqual([
      { user: alice, verb: "bind", resourceRequest: true, apiGroup: group, resource: "roles", subresource: "", namespace: "ns", name: "pod-reader" },
    ]);
    expect(covered).toEqual([]);
    expect(read).toEqual([]);
  });

  it("asks about clusterroles for a ClusterRole, in the RoleBinding's namespace or cluster-wide", async () => {
    const { ctx, asked } = fake({ bind: true });
    await checkRoleBinding(binding({ roleRef: { ...roleRef, kind: "ClusterRole", name: "view" } }), undefined, ctx);
    await checkClusterRoleBinding(binding({ roleRef: { ...roleRef, kind: "ClusterRole", name: "view" } }, "ClusterRoleBinding"), ctx);
    expect(asked.map((a) => [a.resource, a.namespace, a.name])).toEqual([
      ["clusterroles", "ns", "view"],
      ["clusterroles", "", "view"],
    ]);
  });

  it("otherwise needs every rule of the referenced role", async () => {
    const { ctx, covered, read } = fake({ roles: { [`${group}/roles/ns/pod-reader`]: podReader } });
    await checkRoleBinding(binding({ roleRef }), undefined, ctx);
    expect(read).toEqual([`${group}/roles/ns/pod-reader`]);
    expect(covered).toEqual([["ns", [podRule]]]);
  });

  it("reads a ClusterRole cluster-wide and checks its rules in the binding's namespace", async () => {
    const view: APIObject = { metadata: { name: "view" }, rules: [podRule] };
    const { ctx, covered, read } = fake({ roles: { [`${group}/clusterroles//view`]: view } });
    await checkRoleBinding(binding({ roleRef: { ...roleRef, kind: "ClusterRole", name: "view" } }), undefined, ctx);
    await checkClusterRoleBinding(binding({ roleRef: { ...roleRef, kind: "ClusterRole", name: "view" } }, "ClusterRoleBinding"), ctx);
    expect(read).toEqual([`${group}/clusterroles//view`, `${group}/clusterroles//view`]);
    expect(covered).toEqual([
      ["ns", [podRule]],
      ["", [podRule]],
    ]);
  });

  it("refuses a grant of rules the caller does not hold with the reference's 403", async () => {
    const { ctx } = fake({ holdsNothing: true, roles: { [`${group}/roles/ns/pod-reader`]: podReader } });
    await expect(checkRoleBinding(binding({ roleRef }), undefined, ctx)).rejects.toMatchObject({
      status: {
        code: 403,
        message:
          'rolebindings.rbac.authorization.k8s.io "read-pods" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
      },
    });
  });

  it("answers 404 for a missing role, as the reference's GetRoleReferenceRules", async () => {
    const { ctx } = fake();
    const error = await checkRoleBinding(binding({ roleRef }), undefined, ctx).catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
    expect((error as { status: { message: string } }).status.message).toBe('roles.rbac.authorization.k8s.io "pod-reader" not found');
  });

  it("skips updates of garbage-collection fields, system:masters, callers without a user, and servers without RBAC", async () => {
    const { ctx, covered } = fake({ holdsNothing: true });
    const old = binding({ roleRef, subjects: [] });
    const gc = binding({ roleRef, subjects: [] });
    gc.metadata.ownerReferences = [{ apiVersion: "v1", kind: "Namespace", name: "ns", uid: "u" }];
    await expect(checkRoleBinding(gc, old, ctx)).resolves.toBeUndefined();
    await expect(checkRoleBinding(binding({ roleRef }), undefined, { ...ctx, user: { name: "root", groups: ["system:masters"] } })).resolves.toBeUndefined();
    await expect(checkRoleBinding(binding({ roleRef }), undefined, ctx0)).resolves.toBeUndefined();
    await expect(checkRoleBinding(binding({ roleRef }), undefined, { ...ctx0, user: alice })).resolves.toBeUndefined();
    expect(covered).toEqual([]);
  });
});
