/**
 * The bootstrap RBAC policy: the ClusterRoles and ClusterRoleBindings a server writes at start
 * (the reference's `plugin/pkg/auth/authorizer/rbac/bootstrappolicy`), with every name that
 * carries the product domain substituted, and the reconciliation that keeps them current
 * without undoing what an administrator added (`pkg/registry/rbac/reconciliation`).
 *
 * Names under a domain: API groups `<x>.k8s.io` become `<x>.<domain>` (`apps`, `batch`,
 * `autoscaling`, `policy`, `extensions` and core stay as they are); labels and annotations under
 * `kubernetes.io` use the label domain (`kubernetes.io` for `k8s.io`, else the domain itself:
 * `orch.io/bootstrapping`, `rbac.authorization.orch.io/autoupdate`); the aggregation labels are
 * `rbac.authorization.<domain>/aggregate-to-admin|edit|view`; components named `kube-*` take the
 * product prefix (`system:orch-controller-manager`, users `system:orch-scheduler`,
 * `system:orch-proxy`) and `kubelet` becomes `nodeagent`; signer names are
 * `<labelDomain>/<product>-apiserver-client`, `<labelDomain>/<product>-apiserver-client-<agent>`,
 * `<labelDomain>/<agent>-serving` and `<labelDomain>/legacy-unknown`. Under `k8s.io` every name
 * is the reference's.
 * @module
 */
import { authenticatedGroup, bootstrapDefaultGroup, mastersGroup, serviceAccountsGroup, unauthenticatedGroup, anonymousUser } from "@orch/authn";
import type { LabelSelectorObject } from "@orch/meta";
import { covers } from "./escalation.js";
import { autoUpdateAnnotationOf, defaultDomain, groupOf, labelDomainOf, nodeAgentOf, productOf, publicNamespaceOf } from "./internal/domain-names.js";
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RBACObjectMeta, Subject } from "./rbac-types.js";

/** The bootstrap policy of one domain. */
export interface BootstrapPolicy {
  /** The cluster roles, in the reference's order. */
  clusterRoles: ClusterRole[];
  /** The cluster role bindings, in the reference's order, then orch's additions. */
  clusterRoleBindings: ClusterRoleBinding[];
  /** Namespaced roles (orch's addition for the node bootstrap flow). */
  roles: Role[];
  /** Namespaced role bindings (orch's addition for the node bootstrap flow). */
  roleBindings: RoleBinding[];
}

const read = ["get", "list", "watch"];
const write = ["create", "update", "patch", "delete", "deletecollection"];
const readWrite = [...read, ...write];
const readUpdate = ["get", "list", "watch", "update", "patch"];

/** Sorted and de-duplicated, as the reference's rule builder stores every list. */
function sorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

/** A resource rule as the reference's `NewRule(verbs).Groups(groups).Resources(resources).Names(names)`. */
function rule(verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[], resourceNames?: readonly string[]): PolicyRule {
  const out: PolicyRule = { verbs: sorted(verbs), apiGroups: sorted(apiGroups), resources: sorted(resources) };
  if (resourceNames && resourceNames.length > 0) out.resourceNames = sorted(resourceNames);
  return out;
}

/** A non-resource rule as the reference's `NewRule(verbs).URLs(urls)`. */
function urls(verbs: readonly string[], nonResourceURLs: readonly string[]): PolicyRule {
  return { verbs: sorted(verbs), nonResourceURLs: sorted(nonResourceURLs) };
}

/**
 * The bootstrap policy for `domain` (default `orch.io`).
 *
 * ClusterRoles: `cluster-admin`, `system:discovery`, `system:monitoring`, `system:basic-user`,
 * `system:public-info-viewer`, the aggregated `admin`, `edit` and `view` (no rules of their own:
 * `aggregatedRules` fills them) and the `system:aggregate-to-admin|edit|view` roles they gather,
 * `system:node`, `system:node-problem-detector`, `system:<agent>-api-admin`,
 * `system:node-bootstrapper`, `system:auth-delegator`, `system:<product>-aggregator`,
 * `system:<product>-controller-manager`, `system:persistent-volume-provisioner`, the CSR roles
 * `system:certificates.<domain>:certificatesigningrequests:nodeclient|selfnodeclient`,
 * `system:volume-scheduler`, one `system:certificates.<domain>:<signer>-approver` per built-in
 * signer, `system:service-account-issuer-discovery`, `system:node-proxier` and
 * `system:<product>-scheduler`, each with the reference's rules (a resource the server does not
 * serve is harmless). Left out: `system:heapster` and `system:kube-dns` (add-ons) and the
 * `system:controller:*` roles of the reference's controller manager.
 *
 * ClusterRoleBindings, as the reference: `cluster-admin` to group `system:masters`,
 * `system:monitoring` to group `system:monitoring`, `system:discovery` and `system:basic-user`
 * to `system:authenticated`, `system:public-info-viewer` to `system:authenticated` and
 * `system:unauthenticated`, `system:node-proxier` to user `system:<product>-proxy`, the
 * controller manager's and scheduler's roles (and `system:volume-scheduler`) to their users,
 * `system:node` to nobody (the Node authorizer grants nodes), and
 * `system:service-account-issuer-discovery` to `system:serviceaccounts`. Added for the node
 * bootstrap flow (the reference leaves them to its installer): `system:node-bootstrapper` and
 * the `nodeclient` role to group `system:bootstrappers` (create a CSR and have it
 * auto-approved), the `selfnodeclient` role to group `system:nodes` (renew), and in
 * `<product>-public` a Role and RoleBinding `system:bootstrap-signer-clusterinfo` letting
 * `system:anonymous` get the ConfigMap `cluster-info`.
 *
 * Every object carries the label `<labelDomain>/bootstrapping: rbac-defaults` and the
 * annotation `rbac.authorization.<labelDomain>/autoupdate: "true"`. Each call returns fresh
 * objects.
 */
export function bootstrapPolicy(domain: string = defaultDomain): BootstrapPolicy {
  const group = (prefix: string): string => groupOf(prefix, domain);
  const labelDomain = labelDomainOf(domain);
  const product = productOf(domain);
  const agent = nodeAgentOf(domain);
  const rbacGroup = group("rbac.authorization");
  const apiVersion = `${rbacGroup}/v1`;
  const authentication = group("authentication");
  const authorization = group("authorization");
  const certificates = group("certificates");
  const coordination = group("coordination");
  const discovery = group("discovery");
  const events = group("events");
  const networking = group("networking");
  const storage = group("storage");
  const aggregateTo = (role: string): string => `rbac.authorization.${domain}/aggregate-to-${role}`;

  const metadata = (name: string, extraLabels: Record<string, string> = {}, namespace?: string): RBACObjectMeta => {
    const out: RBACObjectMeta = {
      name,
      labels: { ...extraLabels, [`${labelDomain}/bootstrapping`]: "rbac-defaults" },
      annotations: { [autoUpdateAnnotationOf(domain)]: "true" },
    };
    if (namespace !== undefined) out.namespace = namespace;
    return out;
  };
  const clusterRole = (name: string, rules: PolicyRule[], labels?: Record<string, string>): ClusterRole => ({
    apiVersion,
    kind: "ClusterRole",
    metadata: metadata(name, labels),
    rules,
  });
  const aggregated = (name: string, selectFrom: string, labels?: Record<string, string>): ClusterRole => {
    const selector: LabelSelectorObject = { matchLabels: { [aggregateTo(selectFrom)]: "true" } };
    return { apiVersion, kind: "ClusterRole", metadata: metadata(name, labels), aggregationRule: { clusterRoleSelectors: [selector] } };
  };
  const eventsRule = rule(["create", "update", "patch"], ["", events], ["events"]);

  const signers = {
    apiServerClient: `${labelDomain}/${product}-apiserver-client`,
    apiServerClientAgent: `${labelDomain}/${product}-apiserver-client-${agent}`,
    agentServing: `${labelDomain}/${agent}-serving`,
    legacyUnknown: `${labelDomain}/legacy-unknown`,
  };
  const approver = (signer: string): ClusterRole =>
    clusterRole(`system:${certificates}:${signer.slice(signer.indexOf("/") + 1)}-approver`, [rule(["approve"], [certificates], ["signers"], [signer])]);

  const nodeRules: PolicyRule[] = [
    rule(["create"], [authentication], ["tokenreviews"]),
    rule(["create"], [authorization], ["subjectaccessreviews", "localsubjectaccessreviews"]),
    rule(read, [""], ["services"]),
    rule(["create", "get", "list", "watch"], [""], ["nodes"]),
    rule(["update", "patch"], [""], ["nodes/status"]),
    rule(["update", "patch"], [""], ["nodes"]),
    rule(["create", "update", "patch"], [""], ["events"]),
    rule(read, [""], ["pods"]),
    rule(["create", "delete"], [""], ["pods"]),
    rule(["update", "patch"], [""], ["pods/status"]),
    rule(["create"], [""], ["pods/eviction"]),
    rule(["get", "list", "watch"], [""], ["secrets", "configmaps"]),
    rule(["get"], [""], ["persistentvolumeclaims", "persistentvolumes"]),
    rule(["get"], [""], ["endpoints"]),
    rule(["create", "get", "list", "watch"], [certificates], ["certificatesigningrequests"]),
    rule(["get", "create", "update", "patch", "delete"], [coordination], ["leases"]),
    rule(["get"], [storage], ["volumeattachments"]),
    rule(["create"], [""], ["serviceaccounts/token"]),
    rule(["get", "update", "patch"], [""], ["persistentvolumeclaims/status"]),
    rule(["get", "watch", "list"], [storage], ["csidrivers"]),
    rule(["get", "create", "update", "patch", "delete"], [storage], ["csinodes"]),
    rule(["get", "list", "watch"], [group("node")], ["runtimeclasses"]),
  ];

  const controllerManager = `system:${product}-controller-manager`;
  const scheduler = `system:${product}-scheduler`;

  const clusterRoles: ClusterRole[] = [
    clusterRole("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    clusterRole("system:discovery", [
      urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"]),
    ]),
    clusterRole("system:monitoring", [urls(["get"], ["/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz", "/livez/*", "/readyz/*", "/healthz/*"])]),
    clusterRole("system:basic-user", [
      rule(["create"], [authorization], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], [authentication], ["selfsubjectreviews"]),
    ]),
    clusterRole("system:public-info-viewer", [urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/"])]),
    aggregated("admin", "admin"),
    aggregated("edit", "edit", { [aggregateTo("admin")]: "true" }),
    aggregated("view", "view", { [aggregateTo("edit")]: "true" }),
    clusterRole(
      "system:aggregate-to-admin",
      [rule(["create"], [authorization], ["localsubjectaccessreviews"]), rule(readWrite, [rbacGroup], ["roles", "rolebindings"])],
      { [aggregateTo("admin")]: "true" },
    ),
    clusterRole(
      "system:aggregate-to-edit",
      [
        rule(read, [""], ["pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"]),
        rule(["impersonate"], [""], ["serviceaccounts"]),
        rule(write, [""], ["pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"]),
        rule(["create"], [""], ["pods/eviction"]),
        rule(
          write,
          [""],
          [
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/proxy",
            "persistentvolumeclaims",
            "configmaps",
            "secrets",
            "events",
          ],
        ),
        rule(["create"], [""], ["serviceaccounts/token"]),
        rule(
          write,
          ["apps"],
          ["statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"],
        ),
        rule(write, ["autoscaling"], ["horizontalpodautoscalers"]),
        rule(write, ["batch"], ["jobs", "cronjobs"]),
        rule(
          write,
          ["extensions"],
          [
            "daemonsets",
            "deployments",
            "deployments/scale",
            "deployments/rollback",
            "ingresses",
            "replicasets",
            "replicasets/scale",
            "replicationcontrollers/scale",
            "networkpolicies",
          ],
        ),
        rule(write, ["policy"], ["poddisruptionbudgets"]),
        rule(write, [networking], ["networkpolicies", "ingresses"]),
        rule(readWrite, [coordination], ["leases"]),
      ],
      { [aggregateTo("edit")]: "true" },
    ),
    clusterRole(
      "system:aggregate-to-view",
      [
        rule(
          read,
          [""],
          [
            "pods",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/status",
            "endpoints",
            "persistentvolumeclaims",
            "persistentvolumeclaims/status",
            "configmaps",
          ],
        ),
        rule(
          read,
          [""],
          [
            "limitranges",
            "resourcequotas",
            "bindings",
            "events",
            "pods/status",
            "resourcequotas/status",
            "namespaces/status",
            "replicationcontrollers/status",
            "pods/log",
          ],
        ),
        // Reading namespaces at namespace scope means reading this namespace: a hint of which
        // namespaces a user may use.
        rule(read, [""], ["namespaces"]),
        rule(read, [discovery], ["endpointslices"]),
        rule(
          read,
          ["apps"],
          [
            "controllerrevisions",
            "statefulsets",
            "statefulsets/status",
            "statefulsets/scale",
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/status",
            "deployments/scale",
            "replicasets",
            "replicasets/status",
            "replicasets/scale",
          ],
        ),
        rule(read, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        rule(read, ["batch"], ["jobs", "cronjobs", "cronjobs/status", "jobs/status"]),
        rule(
          read,
          ["extensions"],
          [
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "ingresses",
            "ingresses/status",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "replicationcontrollers/scale",
            "networkpolicies",
          ],
        ),
        rule(read, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        rule(read, [networking], ["networkpolicies", "ingresses", "ingresses/status"]),
      ],
      { [aggregateTo("view")]: "true" },
    ),
    clusterRole("system:node", nodeRules),
    clusterRole("system:node-problem-detector", [rule(["get"], [""], ["nodes"]), rule(["patch"], [""], ["nodes/status"]), eventsRule]),
    clusterRole(`system:${agent}-api-admin`, [
      rule(["get", "list", "watch"], [""], ["nodes"]),
      rule(["proxy"], [""], ["nodes"]),
      rule(["*"], [""], ["nodes/proxy", "nodes/metrics", "nodes/stats", "nodes/log"]),
    ]),
    clusterRole("system:node-bootstrapper", [rule(["create", "get", "list", "watch"], [certificates], ["certificatesigningrequests"])]),
    clusterRole("system:auth-delegator", [rule(["create"], [authentication], ["tokenreviews"]), rule(["create"], [authorization], ["subjectaccessreviews"])]),
    clusterRole(`system:${product}-aggregator`, [rule(read, [""], ["services", "endpoints"])]),
    clusterRole(controllerManager, [
      eventsRule,
      rule(["create"], [coordination], ["leases"]),
      rule(["get", "update"], [coordination], ["leases"], [`${product}-controller-manager`]),
      rule(["create"], [""], ["secrets", "serviceaccounts"]),
      rule(["delete"], [""], ["secrets"]),
      rule(["get"], [""], ["configmaps", "namespaces", "secrets", "serviceaccounts"]),
      rule(["update"], [""], ["secrets", "serviceaccounts"]),
      rule(["create"], [authentication], ["tokenreviews"]),
      rule(["create"], [authorization], ["subjectaccessreviews"]),
      rule(["list", "watch"], ["*"], ["*"]),
      rule(["create"], [""], ["serviceaccounts/token"]),
    ]),
    clusterRole("system:persistent-volume-provisioner", [
      rule(["get", "list", "watch", "create", "delete"], [""], ["persistentvolumes"]),
      rule(["get", "list", "watch", "update"], [""], ["persistentvolumeclaims"]),
      rule(read, [storage], ["storageclasses"]),
      rule(["watch"], [""], ["events"]),
      eventsRule,
    ]),
    clusterRole(`system:${certificates}:certificatesigningrequests:nodeclient`, [rule(["create"], [certificates], ["certificatesigningrequests/nodeclient"])]),
    clusterRole(`system:${certificates}:certificatesigningrequests:selfnodeclient`, [
      rule(["create"], [certificates], ["certificatesigningrequests/selfnodeclient"]),
    ]),
    clusterRole("system:volume-scheduler", [
      rule(readUpdate, [""], ["persistentvolumes"]),
      rule(read, [storage], ["storageclasses"]),
      rule(readUpdate, [""], ["persistentvolumeclaims"]),
    ]),
    approver(signers.legacyUnknown),
    approver(signers.agentServing),
    approver(signers.apiServerClient),
    approver(signers.apiServerClientAgent),
    clusterRole("system:service-account-issuer-discovery", [urls(["get"], ["/.well-known/openid-configuration", "/openid/v1/jwks"])]),
    clusterRole("system:node-proxier", [
      rule(["list", "watch"], [""], ["services", "endpoints"]),
      rule(["get", "list", "watch"], [""], ["nodes"]),
      eventsRule,
      rule(["list", "watch"], [discovery], ["endpointslices"]),
    ]),
    clusterRole(scheduler, [
      eventsRule,
      rule(["create"], [coordination], ["leases"]),
      rule(["get", "update"], [coordination], ["leases"], [`${product}-scheduler`]),
      rule(read, [""], ["nodes"]),
      rule(["get", "list", "watch", "delete"], [""], ["pods"]),
      rule(["create"], [""], ["pods/binding", "bindings"]),
      rule(["patch", "update"], [""], ["pods/status"]),
      rule(read, [""], ["services", "replicationcontrollers"]),
      rule(read, ["apps", "extensions"], ["replicasets"]),
      rule(read, ["apps"], ["statefulsets"]),
      rule(read, ["policy"], ["poddisruptionbudgets"]),
      rule(read, [""], ["persistentvolumeclaims", "persistentvolumes"]),
      rule(["create"], [authentication], ["tokenreviews"]),
      rule(["create"], [authorization], ["subjectaccessreviews"]),
      rule(read, [storage], ["csinodes"]),
      rule(read, [""], ["namespaces"]),
      rule(read, [storage], ["csidrivers"]),
      rule(read, [storage], ["csistoragecapacities"]),
    ]),
  ];

  const subject = (kind: "User" | "Group", name: string): Subject => ({ apiGroup: rbacGroup, kind, name });
  const clusterBinding = (role: string, subjects: Subject[], name: string = role): ClusterRoleBinding => {
    const out: ClusterRoleBinding = {
      apiVersion,
      kind: "ClusterRoleBinding",
      metadata: metadata(name),
      roleRef: { apiGroup: rbacGroup, kind: "ClusterRole", name: role },
    };
    if (subjects.length > 0) out.subjects = subjects;
    return out;
  };
  const groups = (...names: string[]): Subject[] => names.map((n) => subject("Group", n));
  const users = (...names: string[]): Subject[] => names.map((n) => subject("User", n));

  const clusterRoleBindings: ClusterRoleBinding[] = [
    clusterBinding("cluster-admin", groups(mastersGroup)),
    clusterBinding("system:monitoring", groups("system:monitoring")),
    clusterBinding("system:discovery", groups(authenticatedGroup)),
    clusterBinding("system:basic-user", groups(authenticatedGroup)),
    clusterBinding("system:public-info-viewer", groups(authenticatedGroup, unauthenticatedGroup)),
    clusterBinding("system:node-proxier", users(`system:${product}-proxy`)),
    clusterBinding(controllerManager, users(controllerManager)),
    clusterBinding(scheduler, users(scheduler)),
    clusterBinding("system:volume-scheduler", users(scheduler)),
    // Kept with no subjects, as the reference: nodes are authorized by the Node authorizer.
    clusterBinding("system:node", []),
    clusterBinding("system:service-account-issuer-discovery", groups(serviceAccountsGroup)),
    // orch's additions for the node bootstrap flow (the reference's installer creates these).
    clusterBinding("system:node-bootstrapper", groups(bootstrapDefaultGroup)),
    clusterBinding(`system:${certificates}:certificatesigningrequests:nodeclient`, groups(bootstrapDefaultGroup)),
    clusterBinding(`system:${certificates}:certificatesigningrequests:selfnodeclient`, groups("system:nodes")),
  ];

  const publicNamespace = publicNamespaceOf(domain);
  const clusterInfo = "system:bootstrap-signer-clusterinfo";
  const roles: Role[] = [
    {
      apiVersion,
      kind: "Role",
      metadata: metadata(clusterInfo, {}, publicNamespace),
      rules: [rule(["get"], [""], ["configmaps"], ["cluster-info"])],
    },
  ];
  const roleBindings: RoleBinding[] = [
    {
      apiVersion,
      kind: "RoleBinding",
      metadata: metadata(clusterInfo, {}, publicNamespace),
      roleRef: { apiGroup: rbacGroup, kind: "Role", name: clusterInfo },
      subjects: users(anonymousUser),
    },
  ];

  return { clusterRoles, clusterRoleBindings, roles, roleBindings };
}

/** A plain-data deep copy. */
function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** JSON with object keys sorted: equal for deeply equal plain data. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return canonical(a ?? {}) === canonical(b ?? {});
}

/** True when an object's `rbac.authorization.<domain>/autoupdate` annotation is `"false"`. */
function isProtected(metadata: RBACObjectMeta): boolean {
  for (const [key, value] of Object.entries(metadata.annotations ?? {})) {
    if (value === "false" && /^rbac\.authorization\.[^/]+\/autoupdate$/.test(key)) return true;
  }
  return false;
}

/** Merges the wanted labels and annotations under the existing ones (existing values win); true when that changed `out`. */
function mergeMetadata(out: RBACObjectMeta, existing: RBACObjectMeta, wanted: RBACObjectMeta): boolean {
  let changed = false;
  const annotations = { ...(wanted.annotations ?? {}), ...(existing.annotations ?? {}) };
  if (!sameMap(annotations, existing.annotations)) {
    out.annotations = annotations;
    changed = true;
  }
  const labels = { ...(wanted.labels ?? {}), ...(existing.labels ?? {}) };
  if (!sameMap(labels, existing.labels)) {
    out.labels = labels;
    changed = true;
  }
  return changed;
}

/**
 * What to write so that `existing` has everything `wanted` (a bootstrap role) has, as the
 * reference's role reconciliation in its additive mode: the wanted labels and annotations are
 * added (existing values win), the atoms of the wanted rules that the existing rules do not
 * cover are appended (rules an administrator added stay), an aggregation rule gets the missing
 * selectors, and one the bootstrap role no longer has is removed.
 *
 * Returns `wanted` (a copy) when there is no existing role, `undefined` when nothing changes or
 * when `existing` is annotated `rbac.authorization.<labelDomain>/autoupdate: "false"`, and
 * otherwise a copy of `existing` (its `resourceVersion` kept, so the update is conditional).
 */
export function reconcileRole<T extends Role | ClusterRole>(existing: T | undefined, wanted: T): T | undefined {
  if (existing === undefined) return clone(wanted);
  if (isProtected(existing.metadata)) return undefined;
  const out = clone(existing);
  let changed = mergeMetadata(out.metadata, existing.metadata, wanted.metadata);

  const missing = covers(existing.rules ?? [], wanted.rules ?? []).missing;
  if (missing.length > 0) {
    out.rules = [...(out.rules ?? []), ...missing];
    changed = true;
  }

  const wantedAggregation = (wanted as ClusterRole).aggregationRule;
  const existingAggregation = (existing as ClusterRole).aggregationRule;
  const target = out as ClusterRole;
  if (wantedAggregation == null) {
    if (existingAggregation != null) {
      delete target.aggregationRule;
      changed = true;
    }
  } else {
    const have = new Set((existingAggregation?.clusterRoleSelectors ?? []).map(canonical));
    const missingSelectors = (wantedAggregation.clusterRoleSelectors ?? []).filter((s) => !have.has(canonical(s)));
    if (missingSelectors.length > 0) {
      target.aggregationRule =
        existingAggregation == null
          ? clone(wantedAggregation)
          : { clusterRoleSelectors: [...(existingAggregation.clusterRoleSelectors ?? []), ...clone(missingSelectors)] };
      changed = true;
    }
  }
  return changed ? out : undefined;
}

function subjectKey(s: Subject): string {
  return JSON.stringify([s.kind, s.apiGroup ?? "", s.name, s.namespace ?? ""]);
}

/**
 * What to write so that `existing` grants what `wanted` (a bootstrap binding) grants, as the
 * reference's binding reconciliation in its additive mode: wanted labels and annotations are
 * added (existing values win) and missing subjects appended (subjects an administrator added
 * stay).
 *
 * Returns `wanted` (a copy) when there is no existing binding, and also when the role
 * references differ: `roleRef` is immutable, so the caller must delete `existing` and create
 * the result. Returns `undefined` when nothing changes or when `existing` is annotated
 * `rbac.authorization.<labelDomain>/autoupdate: "false"`, and otherwise a copy of `existing`
 * (its `resourceVersion` kept).
 */
export function reconcileBinding<T extends RoleBinding | ClusterRoleBinding>(existing: T | undefined, wanted: T): T | undefined {
  if (existing === undefined) return clone(wanted);
  if (isProtected(existing.metadata)) return undefined;
  const a = existing.roleRef;
  const b = wanted.roleRef;
  if (a.apiGroup !== b.apiGroup || a.kind !== b.kind || a.name !== b.name) return clone(wanted);
  const out = clone(existing);
  let changed = mergeMetadata(out.metadata, existing.metadata, wanted.metadata);
  const have = new Set((existing.subjects ?? []).map(subjectKey));
  const missing = (wanted.subjects ?? []).filter((s) => !have.has(subjectKey(s)));
  if (missing.length > 0) {
    out.subjects = [...(out.subjects ?? []), ...clone(missing)];
    changed = true;
  }
  return changed ? out : undefined;
}
