import type { UserInfo } from "@orch/authn";
import { describe, expect, it } from "vitest";
import { aggregatedRules } from "./aggregation.js";
import type { Attributes } from "./authorizer.js";
import { bootstrapPolicy, reconcileBinding, reconcileRole } from "./bootstrap-policy.js";
import { rbacAuthorizer } from "./rbac-authorizer.js";
import { RBACIndex } from "./rbac-index.js";
import type { ClusterRole, ClusterRoleBinding, RoleBinding } from "./rbac-types.js";

function find<T extends { metadata: { name: string } }>(list: readonly T[], name: string): T {
  const found = list.find((o) => o.metadata.name === name);
  if (!found) throw new Error(`${name} not in the policy`);
  return found;
}

/** The policy loaded into an index with admin/edit/view aggregated, as a server would run it. */
function authorizerFor(domain: string) {
  const policy = bootstrapPolicy(domain);
  const clusterRoles = policy.clusterRoles.map((r) => {
    const rules = aggregatedRules(r, policy.clusterRoles);
    return rules === undefined ? r : { ...r, rules };
  });
  return { policy, index: new RBACIndex({ ...policy, clusterRoles }) };
}

function resource(user: UserInfo, verb: string, apiGroup: string, res: string, namespace = "", extra: Partial<Attributes> = {}): Attributes {
  return { user, verb, resourceRequest: true, apiGroup, resource: res, subresource: "", namespace, name: "", ...extra };
}

describe("bootstrapPolicy", () => {
  it("labels and annotates every object with the orch.io names", () => {
    const policy = bootstrapPolicy("orch.io");
    const all = [...policy.clusterRoles, ...policy.clusterRoleBindings, ...policy.roles, ...policy.roleBindings];
    expect(all.length).toBeGreaterThan(30);
    for (const object of all) {
      expect(object.metadata.labels?.["orch.io/bootstrapping"]).toBe("rbac-defaults");
      expect(object.metadata.annotations).toEqual({ "rbac.authorization.orch.io/autoupdate": "true" });
      expect(object.apiVersion).toBe("rbac.authorization.orch.io/v1");
    }
  });

  it("carries no name of the reference's domain when the domain is orch.io", () => {
    const text = JSON.stringify(bootstrapPolicy("orch.io"));
    expect(text).not.toMatch(/k8s\.io|kubernetes\.io|kube|kubelet/);
  });

  it("uses the reference's names under k8s.io", () => {
    const policy = bootstrapPolicy("k8s.io");
    const names = policy.clusterRoles.map((r) => r.metadata.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "cluster-admin",
        "admin",
        "edit",
        "view",
        "system:kube-controller-manager",
        "system:kube-scheduler",
        "system:kubelet-api-admin",
        "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
        "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
        "system:certificates.k8s.io:kube-apiserver-client-approver",
        "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
        "system:certificates.k8s.io:kubelet-serving-approver",
        "system:certificates.k8s.io:legacy-unknown-approver",
      ]),
    );
    const edit = find(policy.clusterRoles, "edit");
    expect(edit.metadata.labels).toEqual({ "kubernetes.io/bootstrapping": "rbac-defaults", "rbac.authorization.k8s.io/aggregate-to-admin": "true" });
    expect(edit.metadata.annotations).toEqual({ "rbac.authorization.kubernetes.io/autoupdate": "true" });
    expect(edit.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { "rbac.authorization.k8s.io/aggregate-to-edit": "true" } }] });
    expect(find(policy.clusterRoles, "system:basic-user").rules).toEqual([
      { verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] },
      { verbs: ["create"], apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"] },
    ]);
    expect(find(policy.clusterRoleBindings, "system:node-proxier").subjects).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:kube-proxy" },
    ]);
    expect(find(policy.roles, "system:bootstrap-signer-clusterinfo").metadata.namespace).toBe("kube-public");
  });

  it("names the built-in signers in the approver roles", () => {
    const signers = (domain: string) =>
      bootstrapPolicy(domain)
        .clusterRoles.filter((r) => r.metadata.name.endsWith("-approver"))
        .map((r) => ({ name: r.metadata.name, rules: r.rules }));
    expect(signers("orch.io")).toEqual(
      [
        ["system:certificates.orch.io:legacy-unknown-approver", "orch.io/legacy-unknown"],
        ["system:certificates.orch.io:nodeagent-serving-approver", "orch.io/nodeagent-serving"],
        ["system:certificates.orch.io:orch-apiserver-client-approver", "orch.io/orch-apiserver-client"],
        ["system:certificates.orch.io:orch-apiserver-client-nodeagent-approver", "orch.io/orch-apiserver-client-nodeagent"],
      ].map(([name, signer]) => ({
        name,
        rules: [{ verbs: ["approve"], apiGroups: ["certificates.orch.io"], resources: ["signers"], resourceNames: [signer] }],
      })),
    );
    expect(signers("k8s.io").map((s) => s.rules?.[0]?.resourceNames?.[0])).toEqual([
      "kubernetes.io/legacy-unknown",
      "kubernetes.io/kubelet-serving",
      "kubernetes.io/kube-apiserver-client",
      "kubernetes.io/kube-apiserver-client-kubelet",
    ]);
  });

  it("keeps the reference's discovery, public-info and monitoring paths, sorted as the reference stores them", () => {
    const policy = bootstrapPolicy("orch.io");
    expect(find(policy.clusterRoles, "system:discovery").rules).toEqual([
      {
        verbs: ["get"],
        nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"],
      },
    ]);
    expect(find(policy.clusterRoles, "system:public-info-viewer").rules).toEqual([
      { verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] },
    ]);
    expect(find(policy.clusterRoles, "system:monitoring").rules).toEqual([
      { verbs: ["get"], nonResourceURLs: ["/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*"] },
    ]);
    expect(find(policy.clusterRoles, "cluster-admin").rules).toEqual([
      { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
      { verbs: ["*"], nonResourceURLs: ["*"] },
    ]);
  });

  it("binds the reference's subjects, plus the node bootstrap flow's", () => {
    const policy = bootstrapPolicy("orch.io");
    const subjects = Object.fromEntries(policy.clusterRoleBindings.map((b) => [b.metadata.name, (b.subjects ?? []).map((s) => `${s.kind}:${s.name}`)]));
    expect(subjects).toEqual({
      "cluster-admin": ["Group:system:masters"],
      "system:monitoring": ["Group:system:monitoring"],
      "system:discovery": ["Group:system:authenticated"],
      "system:basic-user": ["Group:system:authenticated"],
      "system:public-info-viewer": ["Group:system:authenticated", "Group:system:unauthenticated"],
      "system:node-proxier": ["User:system:orch-proxy"],
      "system:orch-controller-manager": ["User:system:orch-controller-manager"],
      "system:orch-scheduler": ["User:system:orch-scheduler"],
      "system:volume-scheduler": ["User:system:orch-scheduler"],
      "system:node": [],
      "system:service-account-issuer-discovery": ["Group:system:serviceaccounts"],
      "system:node-bootstrapper": ["Group:system:bootstrappers"],
      "system:certificates.orch.io:certificatesigningrequests:nodeclient": ["Group:system:bootstrappers"],
      "system:certificates.orch.io:certificatesigningrequests:selfnodeclient": ["Group:system:nodes"],
    });
    for (const binding of policy.clusterRoleBindings) {
      expect(policy.clusterRoles.map((r) => r.metadata.name)).toContain(binding.roleRef.name);
    }
  });

  it("returns fresh objects on every call", () => {
    const a = bootstrapPolicy("orch.io");
    a.clusterRoles[0]?.rules?.push({ verbs: ["x"] });
    expect(bootstrapPolicy("orch.io")).not.toEqual(a);
  });

  describe("as an authorizer's policy", () => {
    const { index } = authorizerFor("orch.io");
    const authorizer = rbacAuthorizer(index);
    const decide = async (a: Attributes) => (await authorizer.authorize(a)).decision;

    it("lets a bootstrap token create a CSR and have it auto-approved, and a node renew its own", async () => {
      const joiner: UserInfo = { name: "system:bootstrap:abcdef", groups: ["system:bootstrappers", "system:authenticated"] };
      const node: UserInfo = { name: "system:node:n1", groups: ["system:nodes", "system:authenticated"] };
      expect(await decide(resource(joiner, "create", "certificates.orch.io", "certificatesigningrequests"))).toBe("allow");
      expect(await decide(resource(joiner, "watch", "certificates.orch.io", "certificatesigningrequests"))).toBe("allow");
      expect(await decide(resource(joiner, "create", "certificates.orch.io", "certificatesigningrequests", "", { subresource: "nodeclient" }))).toBe("allow");
      expect(await decide(resource(joiner, "create", "certificates.orch.io", "certificatesigningrequests", "", { subresource: "selfnodeclient" }))).toBe(
        "noOpinion",
      );
      expect(await decide(resource(node, "create", "certificates.orch.io", "certificatesigningrequests", "", { subresource: "selfnodeclient" }))).toBe("allow");
      expect(await decide(resource(joiner, "update", "certificates.orch.io", "certificatesigningrequests", "", { subresource: "approval" }))).toBe("noOpinion");
    });

    it("lets anyone read the cluster-info ConfigMap of orch-public, and nothing else there", async () => {
      const anonymous: UserInfo = { name: "system:anonymous", groups: ["system:unauthenticated"] };
      expect(await decide(resource(anonymous, "get", "", "configmaps", "orch-public", { name: "cluster-info" }))).toBe("allow");
      expect(await decide(resource(anonymous, "get", "", "configmaps", "orch-public", { name: "other" }))).toBe("noOpinion");
      expect(await decide(resource(anonymous, "list", "", "configmaps", "orch-public"))).toBe("noOpinion");
      expect(await decide(resource(anonymous, "get", "", "configmaps", "default", { name: "cluster-info" }))).toBe("noOpinion");
    });

    it("grants view, edit and admin their aggregated powers through a RoleBinding", async () => {
      const bind = (name: string, role: string, user: string): RoleBinding => ({
        metadata: { name, namespace: "team" },
        roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: role },
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.orch.io", name: user }],
      });
      for (const [role, user] of [
        ["view", "viewer"],
        ["edit", "editor"],
        ["admin", "boss"],
      ] as const) {
        index.apply({ type: "ADDED", kind: "RoleBinding", object: bind(role, role, user) });
      }
      const as = (name: string): UserInfo => ({ name, groups: ["system:authenticated"] });
      expect(await decide(resource(as("viewer"), "list", "", "pods", "team"))).toBe("allow");
      expect(await decide(resource(as("viewer"), "get", "", "pods", "team", { subresource: "log" }))).toBe("allow");
      expect(await decide(resource(as("viewer"), "get", "", "secrets", "team"))).toBe("noOpinion");
      expect(await decide(resource(as("viewer"), "create", "", "pods", "team"))).toBe("noOpinion");
      expect(await decide(resource(as("editor"), "get", "", "secrets", "team"))).toBe("allow");
      expect(await decide(resource(as("editor"), "create", "apps", "deployments", "team"))).toBe("allow");
      expect(await decide(resource(as("editor"), "create", "coordination.orch.io", "leases", "team"))).toBe("allow");
      expect(await decide(resource(as("editor"), "create", "rbac.authorization.orch.io", "rolebindings", "team"))).toBe("noOpinion");
      expect(await decide(resource(as("boss"), "create", "rbac.authorization.orch.io", "rolebindings", "team"))).toBe("allow");
      expect(await decide(resource(as("boss"), "list", "", "pods", "team"))).toBe("allow");
      expect(await decide(resource(as("boss"), "list", "", "pods", "elsewhere"))).toBe("noOpinion");
      expect(await decide(resource(as("boss"), "update", "", "resourcequotas", "team"))).toBe("noOpinion");
    });
  });
});

describe("reconcileRole", () => {
  const wanted = (): ClusterRole => find(bootstrapPolicy("orch.io").clusterRoles, "system:node-bootstrapper");

  it("creates the wanted role when there is none", () => {
    expect(reconcileRole(undefined, wanted())).toEqual(wanted());
  });

  it("changes nothing when the existing role already has it all", () => {
    expect(reconcileRole({ ...wanted(), metadata: { ...wanted().metadata, resourceVersion: "7" } }, wanted())).toBeUndefined();
  });

  it("appends the missing rule atoms, keeps rules and labels an administrator added, and keeps the resourceVersion", () => {
    const existing: ClusterRole = {
      metadata: { name: "system:node-bootstrapper", resourceVersion: "7", labels: { "orch.io/bootstrapping": "custom", mine: "1" } },
      rules: [
        { verbs: ["create", "get"], apiGroups: ["certificates.orch.io"], resources: ["certificatesigningrequests"] },
        { verbs: ["get"], apiGroups: [""], resources: ["nodes"] },
      ],
    };
    expect(reconcileRole(existing, wanted())).toEqual({
      metadata: {
        name: "system:node-bootstrapper",
        resourceVersion: "7",
        labels: { "orch.io/bootstrapping": "custom", mine: "1" },
        annotations: { "rbac.authorization.orch.io/autoupdate": "true" },
      },
      rules: [
        ...(existing.rules ?? []),
        { verbs: ["list"], apiGroups: ["certificates.orch.io"], resources: ["certificatesigningrequests"] },
        { verbs: ["watch"], apiGroups: ["certificates.orch.io"], resources: ["certificatesigningrequests"] },
      ],
    });
  });

  it("leaves a role annotated autoupdate false alone", () => {
    const existing: ClusterRole = {
      metadata: { name: "system:node-bootstrapper", annotations: { "rbac.authorization.orch.io/autoupdate": "false" } },
      rules: [],
    };
    expect(reconcileRole(existing, wanted())).toBeUndefined();
    const k8s: ClusterRole = { metadata: { name: "system:node-bootstrapper", annotations: { "rbac.authorization.kubernetes.io/autoupdate": "false" } } };
    expect(reconcileRole(k8s, find(bootstrapPolicy("k8s.io").clusterRoles, "system:node-bootstrapper"))).toBeUndefined();
  });

  it("adds missing aggregation selectors, keeps the aggregated rules, and drops an aggregation the policy no longer has", () => {
    const admin = find(bootstrapPolicy("orch.io").clusterRoles, "admin");
    const existing: ClusterRole = {
      metadata: { ...admin.metadata },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { extra: "true" } }] },
      rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    };
    expect(reconcileRole(existing, admin)).toEqual({
      ...existing,
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { extra: "true" } }, ...(admin.aggregationRule?.clusterRoleSelectors ?? [])] },
    });
    expect(reconcileRole({ ...admin, rules: existing.rules ?? [] }, admin)).toBeUndefined();

    const plain = find(bootstrapPolicy("orch.io").clusterRoles, "system:basic-user");
    const wasAggregated: ClusterRole = { ...plain, aggregationRule: { clusterRoleSelectors: [] } };
    const result = reconcileRole(wasAggregated, plain);
    expect(result).toEqual(plain);
    expect(result).not.toHaveProperty("aggregationRule");
  });
});

describe("reconcileBinding", () => {
  const wanted = (): ClusterRoleBinding => find(bootstrapPolicy("orch.io").clusterRoleBindings, "system:public-info-viewer");

  it("creates the wanted binding when there is none and changes nothing when it matches", () => {
    expect(reconcileBinding(undefined, wanted())).toEqual(wanted());
    expect(reconcileBinding(wanted(), wanted())).toBeUndefined();
  });

  it("appends missing subjects after those an administrator added", () => {
    const existing: ClusterRoleBinding = {
      ...wanted(),
      metadata: { ...wanted().metadata, resourceVersion: "3" },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.orch.io", name: "carol" }, ...(wanted().subjects ?? []).slice(1)],
    };
    expect(reconcileBinding(existing, wanted())).toEqual({
      ...existing,
      subjects: [...(existing.subjects ?? []), (wanted().subjects ?? [])[0]],
    });
  });

  it("replaces a binding whose role reference differs (the caller deletes and recreates it)", () => {
    const existing: ClusterRoleBinding = { ...wanted(), roleRef: { ...wanted().roleRef, name: "something-else" } };
    expect(reconcileBinding(existing, wanted())).toEqual(wanted());
  });

  it("leaves a binding annotated autoupdate false alone, whatever it holds", () => {
    const existing: ClusterRoleBinding = {
      ...wanted(),
      metadata: { name: "system:public-info-viewer", annotations: { "rbac.authorization.orch.io/autoupdate": "false" } },
      roleRef: { ...wanted().roleRef, name: "other" },
      subjects: [],
    };
    expect(reconcileBinding(existing, wanted())).toBeUndefined();
  });
});
