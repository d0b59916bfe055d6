/**
 * Test-only builders of RBAC objects, shared by the index and authorizer tests. Imported by
 * tests only, never by the package's entry.
 * @module
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from "../rbac-types.js";

/** The RBAC group of the fixtures' domain. */
export const rbac = "rbac.authorization.orch.io";

/** A ClusterRole `name` with `rules`. */
export const clusterRole = (name: string, rules: PolicyRule[]): ClusterRole => ({ metadata: { name }, rules });

/** A Role `namespace`/`name` with `rules`. */
export const role = (namespace: string, name: string, rules: PolicyRule[]): Role => ({ metadata: { name, namespace }, rules });

/** A User subject. */
export const userSubject = (name: string): Subject => ({ kind: "User", apiGroup: rbac, name });

/** A Group subject. */
export const groupSubject = (name: string): Subject => ({ kind: "Group", apiGroup: rbac, name });

/** A ClusterRoleBinding `name` of ClusterRole `roleName` to `subjects`. */
export const clusterBinding = (name: string, roleName: string, subjects: Subject[]): ClusterRoleBinding => ({
  metadata: { name },
  roleRef: { apiGroup: rbac, kind: "ClusterRole", name: roleName },
  subjects,
});

/** A RoleBinding `namespace`/`name` of the `kind` `roleName` to `subjects`. */
export const roleBinding = (namespace: string, name: string, kind: "Role" | "ClusterRole", roleName: string, subjects: Subject[]): RoleBinding => ({
  metadata: { name, namespace },
  roleRef: { apiGroup: rbac, kind, name: roleName },
  subjects,
});
