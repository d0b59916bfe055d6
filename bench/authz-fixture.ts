/**
 * The RBAC objects of the authorization benchmark, the same for the servers it loads and for
 * the in-process decision timing: 100 namespaces, 1,000 ClusterRoles, 10 Roles per namespace
 * (1,000) and 50 RoleBindings per namespace (5,000), half to ClusterRoles and half to Roles, each
 * naming two or three users and groups out of 2,000 users and 200 groups. The benchmark's user,
 * `bench-user` in group `bench`, is named by three bindings of {@link benchNamespace}: the first
 * two grant other things, the third (to a ClusterRole whose last rule it is) lets it get
 * ConfigMaps. Deterministic: every call gives the same objects.
 * @module
 */
import type { ClusterRole, PolicyRule, Role, RoleBinding, Subject } from "@orch/authz";

/** The namespace the benchmark's user is bound in, and its ConfigMap lives in. */
export const benchNamespace = "ns-042";
/** The benchmark's user. */
export const benchUser = "bench-user";
/** Its group (authentication adds `system:authenticated`). */
export const benchGroup = "bench";

/** The fixture's objects. */
export interface AuthzFixture {
  namespaces: string[];
  clusterRoles: ClusterRole[];
  roles: Role[];
  roleBindings: RoleBinding[];
}

const rbacGroup = "rbac.authorization.orch.io";
const resources: readonly [string, string][] = [
  ["", "pods"],
  ["", "services"],
  ["", "endpoints"],
  ["", "persistentvolumeclaims"],
  ["", "serviceaccounts"],
  ["", "events"],
  ["apps", "deployments"],
  ["apps", "statefulsets"],
  ["apps", "daemonsets"],
  ["batch", "jobs"],
  ["batch", "cronjobs"],
  ["coordination.orch.io", "leases"],
  ["networking.orch.io", "ingresses"],
  ["policy", "poddisruptionbudgets"],
];
const verbSets: readonly string[][] = [["get", "list", "watch"], ["create", "update", "patch", "delete"], ["get"], ["*"]];

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** Rule `k` of role `seed`: one group, a resource (and its status, or one name), a verb set (never ConfigMaps or Secrets). */
function ruleOf(seed: number, k: number): PolicyRule {
  const [group, resource] = resources[(seed * 7 + k * 3) % resources.length] as [string, string];
  const verbs = [...(verbSets[(seed + k) % verbSets.length] as string[])];
  // Every ninth rule is limited to one object (resource names go with a single resource).
  if ((seed + k) % 9 === 0) return { apiGroups: [group], resources: [resource], resourceNames: [`${resource}-${seed % 13}`], verbs };
  return { apiGroups: [group], resources: (seed + k) % 2 === 0 ? [resource, `${resource}/status`] : [resource], verbs };
}

const user = (n: number): Subject => ({ kind: "User", apiGroup: rbacGroup, name: `user-${pad(n, 4)}` });
const group = (n: number): Subject => ({ kind: "Group", apiGroup: rbacGroup, name: `group-${pad(n, 3)}` });

/** The name of ClusterRole `i` (0 to 999); the last one grants reading ConfigMaps. */
export const clusterRoleName = (i: number) => `bench-clusterrole-${pad(i, 4)}`;

/** The benchmark's objects. */
export function authzFixture(): AuthzFixture {
  const namespaces = Array.from({ length: 100 }, (_, i) => `ns-${pad(i, 3)}`);
  const clusterRoles: ClusterRole[] = [];
  for (let i = 0; i < 1000; i++) {
    const rules = Array.from({ length: 3 + (i % 4) }, (_, k) => ruleOf(i, k));
    if (i === 999) rules.push({ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch"] });
    clusterRoles.push({ metadata: { name: clusterRoleName(i), labels: { team: `team-${i % 20}` } }, rules });
  }
  const roles: Role[] = [];
  const roleBindings: RoleBinding[] = [];
  namespaces.forEach((namespace, n) => {
    for (let r = 0; r < 10; r++) {
      roles.push({ metadata: { name: `bench-role-${r}`, namespace }, rules: Array.from({ length: 2 + (r % 3) }, (_, k) => ruleOf(1000 + n * 10 + r, k)) });
    }
    for (let b = 0; b < 50; b++) {
      const i = n * 50 + b;
      const subjects = [user((i * 7) % 2000), group((i * 3) % 200)];
      if (i % 3 === 0) subjects.push(user((i * 13 + 5) % 2000));
      const roleRef =
        b % 2 === 0
          ? { apiGroup: rbacGroup, kind: "ClusterRole" as const, name: clusterRoleName((i * 17) % 999) }
          : { apiGroup: rbacGroup, kind: "Role" as const, name: `bench-role-${b % 10}` };
      roleBindings.push({ metadata: { name: `bench-binding-${pad(b, 2)}`, namespace }, roleRef, subjects });
    }
  });
  // The user's three bindings in its namespace: two that grant other things, then ConfigMaps.
  const own = roleBindings.filter((binding) => binding.metadata.namespace === benchNamespace);
  const me: Subject = { kind: "User", apiGroup: rbacGroup, name: benchUser };
  (own[10] as RoleBinding).subjects?.push(me);
  (own[21] as RoleBinding).subjects?.push(me);
  const reader = own[40] as RoleBinding;
  reader.roleRef = { apiGroup: rbacGroup, kind: "ClusterRole", name: clusterRoleName(999) };
  reader.subjects?.push(me);
  // Its group is bound in other namespaces (never visited for a request in its own).
  for (const binding of roleBindings.filter((_, i) => i % 97 === 0 && roleBindings[i]?.metadata.namespace !== benchNamespace)) {
    binding.subjects?.push({ kind: "Group", apiGroup: rbacGroup, name: benchGroup });
  }
  return { namespaces, clusterRoles, roles, roleBindings };
}
