import type { UserInfo } from "@orch/authn";
import { describe, expect, it } from "vitest";
import { requestOf } from "./rule-match.js";
import { clusterBinding, clusterRole, groupSubject, rbac, role, roleBinding, userSubject } from "./internal/rbac-fixtures.js";
import { RBACIndex, type RBACGrant } from "./rbac-index.js";
import type { PolicyRule, RoleBinding } from "./rbac-types.js";

const getPods: PolicyRule = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };
const listSecrets: PolicyRule = { verbs: ["list"], apiGroups: [""], resources: ["secrets"] };

const alice: UserInfo = { name: "alice", groups: ["devs", "system:authenticated"] };
const bob: UserInfo = { name: "bob", groups: ["system:authenticated"] };

function request(verb: string, resource: string, namespace = "") {
  return requestOf({ user: alice, verb, resourceRequest: true, apiGroup: "", resource, namespace });
}

/** True when some grant of `user` in `namespace` allows `verb` on core `resource`. */
function can(index: RBACIndex, user: UserInfo, namespace: string, verb: string, resource: string): boolean {
  const r = request(verb, resource, namespace);
  return index.someGrant(user, namespace, (grant) => grant.allows(r));
}

describe("RBACIndex", () => {
  it("grants a ClusterRoleBinding's role to its users and groups in every namespace and at cluster scope", () => {
    const index = new RBACIndex({
      clusterRoles: [clusterRole("pod-reader", [getPods])],
      clusterRoleBindings: [clusterBinding("devs-read", "pod-reader", [groupSubject("devs")])],
    });
    expect(can(index, alice, "", "get", "pods")).toBe(true);
    expect(can(index, alice, "team-a", "get", "pods")).toBe(true);
    expect(can(index, alice, "team-a", "list", "pods")).toBe(false);
    expect(can(index, bob, "team-a", "get", "pods")).toBe(false);
  });

  it("grants a RoleBinding's Role only in the binding's namespace", () => {
    const index = new RBACIndex({
      roles: [role("team-a", "reader", [getPods])],
      roleBindings: [roleBinding("team-a", "alice-read", "Role", "reader", [userSubject("alice")])],
    });
    expect(can(index, alice, "team-a", "get", "pods")).toBe(true);
    expect(can(index, alice, "team-b", "get", "pods")).toBe(false);
    expect(can(index, alice, "", "get", "pods")).toBe(false);
  });

  it("applies a ClusterRole referenced by a RoleBinding in that namespace only", () => {
    const index = new RBACIndex({
      clusterRoles: [clusterRole("pod-reader", [getPods])],
      roleBindings: [roleBinding("team-a", "read", "ClusterRole", "pod-reader", [userSubject("alice")])],
    });
    expect(can(index, alice, "team-a", "get", "pods")).toBe(true);
    expect(can(index, alice, "team-b", "get", "pods")).toBe(false);
    expect(can(index, alice, "", "get", "pods")).toBe(false);
  });

  it("does not resolve a RoleBinding's Role reference in another namespace", () => {
    const index = new RBACIndex({
      roles: [role("team-b", "reader", [getPods])],
      roleBindings: [roleBinding("team-a", "read", "Role", "reader", [userSubject("alice")])],
    });
    expect(can(index, alice, "team-a", "get", "pods")).toBe(false);
  });

  it("grants nothing through a ClusterRoleBinding that references a Role", () => {
    const index = new RBACIndex({
      roles: [role("team-a", "reader", [getPods])],
      clusterRoleBindings: [{ metadata: { name: "odd" }, roleRef: { apiGroup: rbac, kind: "Role", name: "reader" }, subjects: [userSubject("alice")] }],
    });
    expect(can(index, alice, "team-a", "get", "pods")).toBe(false);
    const grants = index.grantsFor(alice, "team-a");
    expect(grants).toHaveLength(1);
    expect(grants[0]?.rules).toBeUndefined();
  });

  it("matches a ServiceAccount subject to the user system:serviceaccount:<ns>:<name>, defaulting the namespace to the RoleBinding's", () => {
    const index = new RBACIndex({
      clusterRoles: [clusterRole("pod-reader", [getPods])],
      roleBindings: [
        roleBinding("team-a", "implicit", "ClusterRole", "pod-reader", [{ kind: "ServiceAccount", name: "builder" }]),
        roleBinding("team-a", "explicit", "ClusterRole", "pod-reader", [{ kind: "ServiceAccount", name: "deployer", namespace: "ci" }]),
      ],
      clusterRoleBindings: [clusterBinding("no-namespace", "pod-reader", [{ kind: "ServiceAccount", name: "ghost" }])],
    });
    const sa = (namespace: string, name: string): UserInfo => ({ name: `system:serviceaccount:${namespace}:${name}`, groups: [] });
    expect(can(index, sa("team-a", "builder"), "team-a", "get", "pods")).toBe(true);
    expect(can(index, sa("ci", "builder"), "team-a", "get", "pods")).toBe(false);
    expect(can(index, sa("ci", "deployer"), "team-a", "get", "pods")).toBe(true);
    expect(can(index, sa("team-a", "deployer"), "team-a", "get", "pods")).toBe(false);
    // A ServiceAccount subject without a namespace in a ClusterRoleBinding matches nobody.
    expect(can(index, sa("", "ghost"), "team-a", "get", "pods")).toBe(false);
    expect(can(index, { name: "system:serviceaccount::ghost", groups: [] }, "", "get", "pods")).toBe(false);
  });

  it("grants nothing through a binding to a missing role, then starts when the role appears and stops when it goes", () => {
    const index = new RBACIndex({ clusterRoleBindings: [clusterBinding("b", "later", [userSubject("alice")])] });
    expect(can(index, alice, "", "get", "pods")).toBe(false);
    expect(index.grantsFor(alice, "")[0]?.rules).toBeUndefined();

    index.apply({ type: "ADDED", kind: "ClusterRole", object: clusterRole("later", [getPods]) });
    expect(can(index, alice, "", "get", "pods")).toBe(true);

    index.apply({ type: "MODIFIED", kind: "ClusterRole", object: clusterRole("later", [listSecrets]) });
    expect(can(index, alice, "", "get", "pods")).toBe(false);
    expect(can(index, alice, "", "list", "secrets")).toBe(true);

    index.apply({ type: "DELETED", kind: "ClusterRole", object: clusterRole("later", []) });
    expect(can(index, alice, "", "list", "secrets")).toBe(false);
    expect(index.clusterRole("later")).toBeUndefined();
  });

  it("moves a binding's grants when its subjects change and drops them when it is deleted", () => {
    const index = new RBACIndex({
      clusterRoles: [clusterRole("pod-reader", [getPods])],
      roleBindings: [roleBinding("team-a", "b", "ClusterRole", "pod-reader", [userSubject("alice")])],
    });
    index.apply({ type: "MODIFIED", kind: "RoleBinding", object: roleBinding("team-a", "b", "ClusterRole", "pod-reader", [userSubject("bob")]) });
    expect(can(index, alice, "team-a", "get", "pods")).toBe(false);
    expect(can(index, bob, "team-a", "get", "pods")).toBe(true);
    expect(index.size().roleBindings).toBe(1);

    index.apply({ type: "DELETED", kind: "RoleBinding", object: roleBinding("team-a", "b", "ClusterRole", "pod-reader", []) });
    expect(can(index, bob, "team-a", "get", "pods")).toBe(false);
    expect(index.roleBinding("team-a", "b")).toBeUndefined();
    expect(index.size()).toEqual({ roles: 0, clusterRoles: 1, roleBindings: 0, clusterRoleBindings: 0 });
  });

  it("treats ADDED of a held object as a replacement and DELETED of an unknown one as nothing", () => {
    const index = new RBACIndex();
    index.apply({ type: "ADDED", kind: "ClusterRoleBinding", object: clusterBinding("b", "r", [userSubject("alice")]) });
    index.apply({ type: "ADDED", kind: "ClusterRoleBinding", object: clusterBinding("b", "r", [userSubject("bob")]) });
    index.apply({ type: "DELETED", kind: "Role", object: role("x", "nope", []) });
    index.apply({ type: "DELETED", kind: "ClusterRoleBinding", object: clusterBinding("nope", "r", []) });
    expect(index.size().clusterRoleBindings).toBe(1);
    expect(index.grantsFor(alice, "")).toHaveLength(0);
    expect(index.grantsFor(bob, "")).toHaveLength(1);
    expect(index.clusterRoleBinding("b")?.subjects).toEqual([userSubject("bob")]);
  });

  it("reads only the bindings that name the user or its groups", () => {
    const roles = [clusterRole("pod-reader", [getPods])];
    const noise: RoleBinding[] = [];
    for (let i = 0; i < 500; i++) noise.push(roleBinding("team-a", `other-${i}`, "ClusterRole", "pod-reader", [userSubject(`user-${i}`)]));
    const index = new RBACIndex({
      clusterRoles: roles,
      roleBindings: [...noise, roleBinding("team-a", "mine", "ClusterRole", "pod-reader", [groupSubject("devs")])],
      clusterRoleBindings: [clusterBinding("everyone", "pod-reader", [groupSubject("system:authenticated")])],
    });
    const visited: string[] = [];
    index.someGrant(alice, "team-a", (grant) => {
      visited.push(grant.binding.metadata.name);
      return false;
    });
    expect(visited).toEqual(["everyone", "mine"]);
  });

  it("visits ClusterRoleBindings before RoleBindings, the user's name before its groups, and stops at the first match", () => {
    const index = new RBACIndex({
      clusterRoles: [clusterRole("pod-reader", [getPods])],
      roleBindings: [roleBinding("ns", "local-user", "ClusterRole", "pod-reader", [userSubject("alice")])],
      clusterRoleBindings: [
        clusterBinding("cluster-group", "pod-reader", [groupSubject("devs")]),
        clusterBinding("cluster-user", "pod-reader", [userSubject("alice")]),
      ],
    });
    const order: string[] = [];
    const stopped = index.someGrant(alice, "ns", (grant) => {
      order.push(grant.binding.metadata.name);
      return grant.binding.metadata.name === "cluster-group";
    });
    expect(stopped).toBe(true);
    expect(order).toEqual(["cluster-user", "cluster-group"]);
  });

  it("lists each binding once in grantsFor, even when several of its subjects name the user", () => {
    const index = new RBACIndex({
      clusterRoles: [clusterRole("pod-reader", [getPods])],
      clusterRoleBindings: [clusterBinding("twice", "pod-reader", [userSubject("alice"), groupSubject("devs")])],
    });
    const grants = index.grantsFor(alice, "");
    expect(grants.map((g: RBACGrant) => g.subject)).toEqual([userSubject("alice")]);
    expect(index.policyRulesFor(alice, "")).toEqual({ rules: [getPods], missing: [] });
  });

  it("reports the role references of bindings whose role is missing in policyRulesFor", () => {
    const index = new RBACIndex({
      clusterRoles: [clusterRole("pod-reader", [getPods])],
      roleBindings: [roleBinding("ns", "gone", "Role", "gone", [userSubject("alice")])],
      clusterRoleBindings: [clusterBinding("read", "pod-reader", [userSubject("alice")])],
    });
    expect(index.policyRulesFor(alice, "ns")).toEqual({ rules: [getPods], missing: [{ apiGroup: rbac, kind: "Role", name: "gone" }] });
    expect(index.policyRulesFor(alice, "")).toEqual({ rules: [getPods], missing: [] });
  });

  it("describes a grant as the reference's allow reason does", () => {
    const index = new RBACIndex({
      clusterRoles: [clusterRole("edit", [getPods])],
      roleBindings: [
        roleBinding("team-a", "sa-edit", "ClusterRole", "edit", [{ kind: "ServiceAccount", name: "builder" }]),
        roleBinding("team-a", "user-edit", "ClusterRole", "edit", [userSubject("alice")]),
      ],
      clusterRoleBindings: [clusterBinding("devs-edit", "edit", [groupSubject("devs")])],
    });
    expect(index.grantsFor(alice, "team-a").map((g) => g.describe())).toEqual([
      'ClusterRoleBinding "devs-edit" of ClusterRole "edit" to Group "devs"',
      'RoleBinding "user-edit/team-a" of ClusterRole "edit" to User "alice"',
    ]);
    const builder: UserInfo = { name: "system:serviceaccount:team-a:builder", groups: [] };
    expect(index.grantsFor(builder, "team-a")[0]?.describe()).toBe('RoleBinding "sa-edit/team-a" of ClusterRole "edit" to ServiceAccount "builder/team-a"');
  });

  it("empties and reloads on reset, and lists its ClusterRoles", () => {
    const index = new RBACIndex({
      clusterRoles: [clusterRole("a", [getPods])],
      clusterRoleBindings: [clusterBinding("b", "a", [userSubject("alice")])],
    });
    index.reset({ clusterRoles: [clusterRole("c", [listSecrets]), clusterRole("d", [])], roles: [role("ns", "r", [])] });
    expect(index.size()).toEqual({ roles: 1, clusterRoles: 2, roleBindings: 0, clusterRoleBindings: 0 });
    expect([...index.clusterRoles()].map((r) => r.metadata.name).sort()).toEqual(["c", "d"]);
    expect(index.role("ns", "r")?.metadata.name).toBe("r");
    expect(index.grantsFor(alice, "")).toEqual([]);
    index.reset();
    expect(index.size()).toEqual({ roles: 0, clusterRoles: 0, roleBindings: 0, clusterRoleBindings: 0 });
  });
});
