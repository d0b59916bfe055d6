/**
 * Authorization through the official JavaScript client, `@kubernetes/client-node` 1.x, against
 * `orch-apiserver --domain k8s.io` (default modes Node,RBAC): the admin (client certificate)
 * writes a Role and a RoleBinding with `RbacAuthorizationV1Api`; alice (a static token) gets what
 * they grant and an `ApiException` 403 for the rest; the review APIs of `AuthorizationV1Api`.
 */
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthorizationFixture, tokenUsers, type AuthorizationFixture } from "./support/authorization.js";

const { alice } = tokenUsers;
const ns = "cn-team";

let fx: AuthorizationFixture;
let adminConfig: k8s.KubeConfig;
let aliceConfig: k8s.KubeConfig;

/** The code and Status body of the `ApiException` `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<{ code: number; status: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(k8s.ApiException);
    const e = error as k8s.ApiException<unknown>;
    const status = (typeof e.body === "string" ? JSON.parse(e.body) : e.body) as Record<string, unknown>;
    return { code: e.code, status };
  }
  throw new Error("expected the request to fail");
}

beforeAll(async () => {
  fx = await startAuthorizationFixture(["--domain", "k8s.io"]);
  adminConfig = new k8s.KubeConfig();
  adminConfig.loadFromFile(fx.server.kubeconfigPath);
  aliceConfig = new k8s.KubeConfig();
  aliceConfig.loadFromFile(await fx.kubeconfig(alice));
  await adminConfig.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
});

afterAll(async () => {
  expect(await fx?.stop()).toBe(0);
});

describe("@kubernetes/client-node with RBAC", () => {
  it("the admin creates a Role and a RoleBinding with RbacAuthorizationV1Api", async () => {
    const rbac = adminConfig.makeApiClient(k8s.RbacAuthorizationV1Api);
    const role = await rbac.createNamespacedRole({
      namespace: ns,
      body: { metadata: { name: "pod-reader" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] }] },
    });
    expect(role.metadata).toMatchObject({ name: "pod-reader", namespace: ns });
    expect(role.rules).toEqual([{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] }]);
    const binding = await rbac.createNamespacedRoleBinding({
      namespace: ns,
      // No apiGroup on the subject: the server defaults it, as the reference's.
      body: {
        metadata: { name: "alice-pod-reader" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" },
        subjects: [{ kind: "User", name: "alice" }],
      },
    });
    expect(binding.subjects).toEqual([{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }]);
    expect((await rbac.listNamespacedRoleBinding({ namespace: ns })).items.map((b) => b.metadata?.name)).toEqual(["alice-pod-reader"]);
    await fx.untilAccess({ name: "alice", groups: ["system:authenticated"] }, { resourceAttributes: { verb: "list", resource: "pods", namespace: ns } }, true);
  });

  it("alice lists pods and is refused secrets with ApiException 403", async () => {
    const core = aliceConfig.makeApiClient(k8s.CoreV1Api);
    const pods = await core.listNamespacedPod({ namespace: ns });
    expect(pods.items).toEqual([]);
    expect(await failure(core.listNamespacedSecret({ namespace: ns }))).toEqual({
      code: 403,
      status: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "${ns}"`,
        reason: "Forbidden",
        code: 403,
        details: { kind: "secrets" },
      },
    });
    const write = await failure(
      core.createNamespacedPod({ namespace: ns, body: { metadata: { name: "web" }, spec: { containers: [{ name: "web", image: "nginx" }] } } }),
    );
    expect(write.code).toBe(403);
    expect(write.status["message"]).toBe(`pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "${ns}"`);
    // Nor may she write RBAC objects.
    const role = await failure(
      aliceConfig.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRole({ namespace: ns, body: { metadata: { name: "mine" }, rules: [] } }),
    );
    expect(role.code).toBe(403);
    expect(role.status["message"]).toBe(
      `roles.rbac.authorization.k8s.io is forbidden: User "alice" cannot create resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "${ns}"`,
    );
  });

  it("alice asks about herself with createSelfSubjectAccessReview", async () => {
    const authz = aliceConfig.makeApiClient(k8s.AuthorizationV1Api);
    const review = (resourceAttributes: k8s.V1ResourceAttributes) => authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes } } });
    const allowed = await review({ verb: "get", resource: "pods", namespace: ns });
    expect(allowed.status).toEqual({ allowed: true, reason: `RBAC: allowed by RoleBinding "alice-pod-reader/${ns}" of Role "pod-reader" to User "alice"` });
    expect((await review({ verb: "list", resource: "secrets", namespace: ns })).status?.allowed).toBe(false);
    expect((await review({ verb: "get", resource: "pods", namespace: "default" })).status?.allowed).toBe(false);

    const rules = await authz.createSelfSubjectRulesReview({ body: { spec: { namespace: ns } } });
    expect(rules.status?.resourceRules).toContainEqual({ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] });
    expect(rules.status?.incomplete).toBe(false);
  });

  it("the admin asks about alice with createSubjectAccessReview; alice may not", async () => {
    const authz = adminConfig.makeApiClient(k8s.AuthorizationV1Api);
    const review = (resourceAttributes: k8s.V1ResourceAttributes) =>
      authz.createSubjectAccessReview({ body: { spec: { user: "alice", groups: ["system:authenticated"], resourceAttributes } } });
    const allowed = await review({ verb: "watch", resource: "pods", namespace: ns });
    expect(allowed.status).toEqual({ allowed: true, reason: `RBAC: allowed by RoleBinding "alice-pod-reader/${ns}" of Role "pod-reader" to User "alice"` });
    const refused = await review({ verb: "delete", resource: "pods", namespace: ns, name: "web" });
    expect(refused.status?.allowed).toBe(false);
    expect(refused.status?.denied).not.toBe(true);

    const asAlice = await failure(
      aliceConfig
        .makeApiClient(k8s.AuthorizationV1Api)
        .createSubjectAccessReview({ body: { spec: { user: "bob", resourceAttributes: { verb: "get", resource: "pods" } } } }),
    );
    expect(asAlice.code).toBe(403);
    expect(asAlice.status["message"]).toBe(
      'subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope',
    );
  });
});
