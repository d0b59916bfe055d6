/**
 * The RBAC objects as they are stored and served (`rbac.authorization.<domain>/v1`): the JSON
 * shapes of the reference's `Role`, `ClusterRole`, `RoleBinding` and `ClusterRoleBinding`, with
 * only the metadata the RBAC engine reads. Plain data: nothing here validates.
 * @module
 */
import type { LabelSelectorObject } from "@orch/meta";

/**
 * The metadata the RBAC engine reads of a stored object. Objects read from storage carry more
 * (uid, timestamps, managed fields); the engine ignores it and reconciliation keeps it.
 */
export interface RBACObjectMeta {
  /** The object's name. */
  name: string;
  /** The namespace of a Role or RoleBinding; absent (or `""`) for the cluster-scoped kinds. */
  namespace?: string;
  /** Labels; aggregation selects ClusterRoles by them. */
  labels?: Record<string, string>;
  /** Annotations; `rbac.authorization.<labelDomain>/autoupdate: "false"` protects an object from reconciliation. */
  annotations?: Record<string, string>;
  /** The storage version, kept through reconciliation so an update is conditional. */
  resourceVersion?: string;
}

/**
 * One rule of a role: what verbs it allows on which resources of which API groups (optionally
 * only the named objects), or on which non-resource paths.
 *
 * `*` in `verbs`, `apiGroups`, `resources` or `nonResourceURLs` means all; `*\/status` in
 * `resources` means that sub-resource of every resource; a trailing `*` in a non-resource URL
 * makes it a prefix. An empty `resourceNames` means every name. A rule has resources or
 * non-resource URLs, and non-resource rules only take effect in ClusterRoles bound by
 * ClusterRoleBindings (as in the reference, a RoleBinding never authorizes a path).
 */
export interface PolicyRule {
  /** The verbs (`get`, `list`, `create`, `approve`, ...), `*` for all. Required. */
  verbs: string[];
  /** The API groups (`""` for core), `*` for all. */
  apiGroups?: string[];
  /** The resources (`pods`), `resource/subresource` (`pods/log`), `*\/subresource` or `*`. */
  resources?: string[];
  /** The object names the rule is limited to; absent or empty for every name. */
  resourceNames?: string[];
  /** Non-resource paths (`/healthz`, `/apis/*`), `*` for all. */
  nonResourceURLs?: string[];
}

/** A set of rules granted in one namespace (`Role`). */
export interface Role {
  /** `rbac.authorization.<domain>/v1` when read from the API. */
  apiVersion?: string;
  /** `Role` when read from the API. */
  kind?: "Role";
  /** Name and namespace. */
  metadata: RBACObjectMeta;
  /** The rules; absent for none. */
  rules?: PolicyRule[];
}

/**
 * How an aggregated ClusterRole gets its rules: the union of the rules of the ClusterRoles any
 * selector matches (see `aggregatedRules`).
 */
export interface AggregationRule {
  /** Label selectors over ClusterRoles; a role matching any of them contributes its rules. */
  clusterRoleSelectors?: LabelSelectorObject[];
}

/** A set of rules granted cluster-wide, or in one namespace through a RoleBinding (`ClusterRole`). */
export interface ClusterRole {
  /** `rbac.authorization.<domain>/v1` when read from the API. */
  apiVersion?: string;
  /** `ClusterRole` when read from the API. */
  kind?: "ClusterRole";
  /** Name (cluster-scoped: no namespace). */
  metadata: RBACObjectMeta;
  /** The rules; for an aggregated role, what the aggregation last wrote. */
  rules?: PolicyRule[];
  /** Present on an aggregated role: its rules are computed from other roles, not written by hand. */
  aggregationRule?: AggregationRule;
}

/** The kinds of subject a binding can name. */
export type SubjectKind = "User" | "Group" | "ServiceAccount";

/**
 * Who a binding grants its role to. A ServiceAccount subject means the user
 * `system:serviceaccount:<namespace>:<name>`; its namespace defaults to the RoleBinding's own.
 */
export interface Subject {
  /** `User`, `Group` or `ServiceAccount`. */
  kind: SubjectKind;
  /** `rbac.authorization.<domain>` for users and groups, `""` (or absent) for service accounts. */
  apiGroup?: string;
  /** The user, group or service account name. */
  name: string;
  /** The namespace of a service account. */
  namespace?: string;
}

/** The role a binding grants. Immutable once the binding is created. */
export interface RoleRef {
  /** `rbac.authorization.<domain>`. */
  apiGroup: string;
  /** `Role` (RoleBindings only: a Role of the binding's namespace) or `ClusterRole`. */
  kind: "Role" | "ClusterRole";
  /** The role's name. */
  name: string;
}

/** Grants a Role, or a ClusterRole's rules, to subjects within one namespace (`RoleBinding`). */
export interface RoleBinding {
  /** `rbac.authorization.<domain>/v1` when read from the API. */
  apiVersion?: string;
  /** `RoleBinding` when read from the API. */
  kind?: "RoleBinding";
  /** Name and namespace. */
  metadata: RBACObjectMeta;
  /** Who the role is granted to; absent for nobody. */
  subjects?: Subject[];
  /** The role granted. */
  roleRef: RoleRef;
}

/** Grants a ClusterRole to subjects in every namespace and at cluster scope (`ClusterRoleBinding`). */
export interface ClusterRoleBinding {
  /** `rbac.authorization.<domain>/v1` when read from the API. */
  apiVersion?: string;
  /** `ClusterRoleBinding` when read from the API. */
  kind?: "ClusterRoleBinding";
  /** Name (cluster-scoped: no namespace). */
  metadata: RBACObjectMeta;
  /** Who the role is granted to; absent for nobody. */
  subjects?: Subject[];
  /** The role granted: a ClusterRole (a `Role` reference grants nothing). */
  roleRef: RoleRef;
}
