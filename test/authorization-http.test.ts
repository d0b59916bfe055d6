/**
 * Authorization end to end over raw HTTPS (and kubectl apply), against `orch-apiserver` in the
 * default domain (`orch.io`) with the default `--authorization-mode` (Node,RBAC): what anonymous
 * and freshly authenticated users may do under the bootstrap policy; RBAC objects of
 * `rbac.authorization.orch.io/v1` applied with kubectl; the reference's validation of roles and
 * bindings; bad impersonation headers. Then a server with `--authorization-mode AlwaysDeny`,
 * where only `system:masters` gets through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYAML } from "yaml";
import { startAuthorizationFixture, tokenUsers, until, type AuthorizationFixture, type Caller } from "./support/authorization.js";
import type { RawResponse } from "./support/apiserver.js";

const { alice, bob, carol } = tokenUsers;

/** The Status body of a 403 with `message` and `details`. */
function forbiddenStatus(message: string, details: Record<string, string> = {}) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "Forbidden", code: 403, details };
}

function expectStatus(res: RawResponse, code: number, body: unknown): void {
  expect({ status: res.status, body: res.json }, res.text).toEqual({ status: code, body });
}

/** One server per domain (default modes Node,RBAC), started on first use and shared by the tests. */
const servers = new Map<string, Promise<AuthorizationFixture>>();
function serverFor(domain: "orch.io" | "k8s.io"): Promise<AuthorizationFixture> {
  let server = servers.get(domain);
  if (!server) {
    server = (async () => {
      const fx = await startAuthorizationFixture(domain === "orch.io" ? [] : ["--domain", domain]);
      for (const name of ["x", "y"]) {
        const res = await fx.request({
          method: "POST",
          path: "/api/v1/namespaces",
          body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name } }),
        });
        expect(res.status).toBe(201);
      }
      return fx;
    })();
    servers.set(domain, server);
  }
  return server;
}

afterAll(async () => {
  for (const server of servers.values()) expect(await (await server).stop()).toBe(0);
});

describe.each([
  { domain: "orch.io" as const, publicNamespace: "orch-public" },
  { domain: "k8s.io" as const, publicNamespace: "kube-public" },
])("anonymous requests and the bootstrap policy under Node,RBAC (--domain $domain)", ({ domain, publicNamespace }) => {
  let fx: AuthorizationFixture;
  const authorization = `authorization.${domain}`;

  beforeAll(async () => {
    fx = await serverFor(domain);
  });

  it("health and version are public (system:public-info-viewer); discovery is not", async () => {
    for (const path of ["/healthz", "/livez", "/readyz"]) {
      const res = await fx.request({ as: "anonymous", path });
      expect({ path, status: res.status, text: res.text }).toEqual({ path, status: 200, text: "ok" });
    }
    const version = await fx.request({ as: "anonymous", path: "/version" });
    expect(version.status).toBe(200);
    expect(version.json).toMatchObject({ major: "1" });

    for (const path of ["/api", "/apis", "/api/v1", "/openapi/v3"]) {
      expectStatus(await fx.request({ as: "anonymous", path }), 403, forbiddenStatus(`forbidden: User "system:anonymous" cannot get path "${path}"`));
    }
    expectStatus(
      await fx.request({ as: "anonymous", path: "/api/v1/namespaces" }),
      403,
      forbiddenStatus('namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope', {
        kind: "namespaces",
      }),
    );
  });

  it(`anonymous reads the ConfigMap cluster-info in ${publicNamespace} and nothing else there`, async () => {
    // orch-apiserver wrote cluster-info at start; the test adds another ConfigMap beside it.
    const res = await fx.request({
      method: "POST",
      path: `/api/v1/namespaces/${publicNamespace}/configmaps`,
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other-info" }, data: { kubeconfig: "..." } }),
    });
    expect(res.status).toBe(201);
    const info = await fx.request({ as: "anonymous", path: `/api/v1/namespaces/${publicNamespace}/configmaps/cluster-info` });
    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({
      kind: "ConfigMap",
      metadata: { name: "cluster-info", namespace: publicNamespace },
      data: { kubeconfig: expect.stringContaining("certificate-authority-data") },
    });
    expectStatus(
      await fx.request({ as: "anonymous", path: `/api/v1/namespaces/${publicNamespace}/configmaps/other-info` }),
      403,
      forbiddenStatus(
        `configmaps "other-info" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "${publicNamespace}"`,
        {
          name: "other-info",
          kind: "configmaps",
        },
      ),
    );
    expectStatus(
      await fx.request({ as: "anonymous", path: `/api/v1/namespaces/${publicNamespace}/configmaps` }),
      403,
      forbiddenStatus(
        `configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "${publicNamespace}"`,
        { kind: "configmaps" },
      ),
    );
    // Its get only: not an update.
    expectStatus(
      await fx.request({
        as: "anonymous",
        method: "PUT",
        path: `/api/v1/namespaces/${publicNamespace}/configmaps/cluster-info`,
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cluster-info" } }),
      }),
      403,
      forbiddenStatus(
        `configmaps "cluster-info" is forbidden: User "system:anonymous" cannot update resource "configmaps" in API group "" in the namespace "${publicNamespace}"`,
        {
          name: "cluster-info",
          kind: "configmaps",
        },
      ),
    );
  });

  it("an authenticated user with no bindings gets discovery (system:discovery) and self reviews (system:basic-user), nothing else", async () => {
    const api = await fx.request({ as: carol, path: "/api" });
    expect(api.status).toBe(200);
    expect(api.json).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const apis = await fx.request({ as: carol, path: "/apis" });
    expect(apis.status).toBe(200);
    expect(apis.json).toMatchObject({ kind: "APIGroupList" });
    expect((await fx.request({ as: carol, path: "/version" })).status).toBe(200);

    const review = await fx.request({
      as: carol,
      method: "POST",
      path: `/apis/${authorization}/v1/selfsubjectaccessreviews`,
      body: JSON.stringify({
        apiVersion: `${authorization}/v1`,
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { verb: "list", resource: "pods", namespace: "x" } },
      }),
    });
    expect(review.status).toBe(201);
    expect(review.json).toMatchObject({ kind: "SelfSubjectAccessReview", status: { allowed: false } });
    const allowed = await fx.request({
      as: carol,
      method: "POST",
      path: `/apis/${authorization}/v1/selfsubjectaccessreviews`,
      body: JSON.stringify({
        apiVersion: `${authorization}/v1`,
        kind: "SelfSubjectAccessReview",
        spec: { nonResourceAttributes: { verb: "get", path: "/api" } },
      }),
    });
    expect(allowed.status).toBe(201);
    expect(allowed.json).toMatchObject({
      status: {
        allowed: true,
        reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
      },
    });

    expectStatus(
      await fx.request({ as: carol, path: "/api/v1/namespaces/x/pods" }),
      403,
      forbiddenStatus('pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "x"', { kind: "pods" }),
    );
    // Someone else's review needs create on subjectaccessreviews.
    expectStatus(
      await fx.request({
        as: carol,
        method: "POST",
        path: `/apis/${authorization}/v1/subjectaccessreviews`,
        body: JSON.stringify({
          apiVersion: `${authorization}/v1`,
          kind: "SubjectAccessReview",
          spec: { user: "alice", resourceAttributes: { verb: "list", resource: "pods" } },
        }),
      }),
      403,
      forbiddenStatus(
        `subjectaccessreviews.${authorization} is forbidden: User "carol" cannot create resource "subjectaccessreviews" in API group "${authorization}" at the cluster scope`,
        {
          group: authorization,
          kind: "subjectaccessreviews",
        },
      ),
    );
  });
});

describe("RBAC objects of rbac.authorization.orch.io/v1 (default domain, Node,RBAC)", () => {
  let fx: AuthorizationFixture;
  const rbac = "/apis/rbac.authorization.orch.io/v1";

  beforeAll(async () => {
    fx = await serverFor("orch.io");
  });

  const manifest = `apiVersion: rbac.authorization.orch.io/v1
kind: Role
metadata:
  name: cm-reader
  namespace: x
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list]
---
apiVersion: rbac.authorization.orch.io/v1
kind: RoleBinding
metadata:
  name: alice-cm-reader
  namespace: x
roleRef:
  apiGroup: rbac.authorization.orch.io
  kind: Role
  name: cm-reader
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.orch.io
---
apiVersion: rbac.authorization.orch.io/v1
kind: ClusterRole
metadata:
  name: namespace-lister
rules:
- apiGroups: [""]
  resources: [namespaces]
  verbs: [list]
---
apiVersion: rbac.authorization.orch.io/v1
kind: ClusterRoleBinding
metadata:
  name: alice-namespace-lister
roleRef:
  apiGroup: rbac.authorization.orch.io
  kind: ClusterRole
  name: namespace-lister
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.orch.io
`;

  it("kubectl apply -f creates the four kinds; get -o yaml shows them; they grant what they say", async () => {
    const kubectl = await fx.kubectl();
    const path = await kubectl.file("rbac.yaml", manifest);
    expect(await kubectl(["apply", "-f", path])).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        "role.rbac.authorization.orch.io/cm-reader created",
        "rolebinding.rbac.authorization.orch.io/alice-cm-reader created",
        "clusterrole.rbac.authorization.orch.io/namespace-lister created",
        "clusterrolebinding.rbac.authorization.orch.io/alice-namespace-lister created",
        "",
      ].join("\n"),
    });
    const roles = await kubectl(["get", "roles", "-n", "x", "-o", "yaml"]);
    expect({ code: roles.code, stderr: roles.stderr }).toEqual({ code: 0, stderr: "" });
    const roleList = parseYAML(roles.stdout) as { apiVersion: string; kind: string; items: Record<string, unknown>[] };
    expect(roleList).toMatchObject({ apiVersion: "v1", kind: "List" });
    expect(roleList.items).toHaveLength(1);
    expect(roleList.items[0]).toMatchObject({
      apiVersion: "rbac.authorization.orch.io/v1",
      kind: "Role",
      metadata: { name: "cm-reader", namespace: "x", uid: expect.any(String), resourceVersion: expect.stringMatching(/^\d+$/) },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
    });
    const bindings = await kubectl(["get", "rolebindings", "-n", "x", "-o", "yaml"]);
    const bindingList = parseYAML(bindings.stdout) as { items: Record<string, unknown>[] };
    expect(bindingList.items).toHaveLength(1);
    expect(bindingList.items[0]).toMatchObject({
      apiVersion: "rbac.authorization.orch.io/v1",
      kind: "RoleBinding",
      metadata: { name: "alice-cm-reader", namespace: "x" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Role", name: "cm-reader" },
      subjects: [{ apiGroup: "rbac.authorization.orch.io", kind: "User", name: "alice" }],
    });
    const clusterRole = parseYAML((await kubectl(["get", "clusterrole", "namespace-lister", "-o", "yaml"])).stdout) as Record<string, unknown>;
    expect(clusterRole).toMatchObject({
      apiVersion: "rbac.authorization.orch.io/v1",
      kind: "ClusterRole",
      rules: [{ apiGroups: [""], resources: ["namespaces"], verbs: ["list"] }],
    });
    const clusterBinding = await kubectl([
      "get",
      "clusterrolebinding",
      "alice-namespace-lister",
      "-o",
      "jsonpath={.roleRef.kind}/{.roleRef.name} {.subjects[0].name}",
    ]);
    expect(clusterBinding.stdout).toBe("ClusterRole/namespace-lister alice");
    // Applying again changes nothing.
    expect((await kubectl(["apply", "-f", path])).stdout).toBe(
      [
        "role.rbac.authorization.orch.io/cm-reader unchanged",
        "rolebinding.rbac.authorization.orch.io/alice-cm-reader unchanged",
        "clusterrole.rbac.authorization.orch.io/namespace-lister unchanged",
        "clusterrolebinding.rbac.authorization.orch.io/alice-namespace-lister unchanged",
        "",
      ].join("\n"),
    );

    const aliceIdentity = { name: alice.name, groups: ["system:authenticated"] };
    await fx.untilAccess(aliceIdentity, { resourceAttributes: { verb: "list", resource: "configmaps", namespace: "x" } }, true);
    await fx.untilAccess(aliceIdentity, { resourceAttributes: { verb: "list", resource: "namespaces" } }, true);
    const list = await fx.request({ as: alice, path: "/api/v1/namespaces/x/configmaps" });
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ kind: "ConfigMapList" });
    expect((await fx.request({ as: alice, path: "/api/v1/namespaces" })).status).toBe(200);
    expectStatus(
      await fx.request({ as: alice, path: "/api/v1/namespaces/y/configmaps" }),
      403,
      forbiddenStatus('configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "y"', { kind: "configmaps" }),
    );
    expectStatus(
      await fx.request({ as: alice, path: "/api/v1/namespaces/x/secrets" }),
      403,
      forbiddenStatus('secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "x"', { kind: "secrets" }),
    );
  });

  /** POSTs `object` to `collection` of the RBAC group as the admin. */
  const create = (collection: string, object: Record<string, unknown>) =>
    fx.request({ method: "POST", path: `${rbac}/${collection}`, body: JSON.stringify({ apiVersion: "rbac.authorization.orch.io/v1", ...object }) });

  function invalid(kind: string, name: string, causes: { reason: string; message: string; field: string }[]) {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `${kind}.rbac.authorization.orch.io "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(", ")}`,
      reason: "Invalid",
      code: 422,
      details: { name, group: "rbac.authorization.orch.io", kind, causes },
    };
  }

  it("refuses a rule without verbs, non-resource URLs in a Role, and a roleRef to anything but a role (422)", async () => {
    expectStatus(
      await create("namespaces/x/roles", { kind: "Role", metadata: { name: "no-verbs" }, rules: [{ apiGroups: [""], resources: ["pods"] }] }),
      422,
      invalid("Role", "no-verbs", [
        { reason: "FieldValueRequired", message: "Required value: verbs must contain at least one value", field: "rules[0].verbs" },
      ]),
    );
    expectStatus(
      await create("namespaces/x/roles", { kind: "Role", metadata: { name: "urls" }, rules: [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }] }),
      422,
      invalid("Role", "urls", [
        {
          reason: "FieldValueInvalid",
          message: 'Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
          field: "rules[0].nonResourceURLs",
        },
      ]),
    );
    // The same rule is fine in a ClusterRole.
    expect(
      (await create("clusterroles", { kind: "ClusterRole", metadata: { name: "healthz-reader" }, rules: [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }] }))
        .status,
    ).toBe(201);
    expectStatus(
      await create("namespaces/x/rolebindings", {
        kind: "RoleBinding",
        metadata: { name: "pod-ref" },
        roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Pod", name: "web" },
        subjects: [{ kind: "User", name: "bob" }],
      }),
      422,
      invalid("RoleBinding", "pod-ref", [
        { reason: "FieldValueNotSupported", message: 'Unsupported value: "Pod": supported values: "Role", "ClusterRole"', field: "roleRef.kind" },
      ]),
    );
    expectStatus(
      await create("clusterrolebindings", {
        kind: "ClusterRoleBinding",
        metadata: { name: "role-ref" },
        roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Role", name: "cm-reader" },
        subjects: [{ kind: "User", name: "bob" }],
      }),
      422,
      invalid("ClusterRoleBinding", "role-ref", [
        { reason: "FieldValueNotSupported", message: 'Unsupported value: "Role": supported values: "ClusterRole"', field: "roleRef.kind" },
      ]),
    );
    for (const path of [
      `${rbac}/namespaces/x/roles/no-verbs`,
      `${rbac}/namespaces/x/roles/urls`,
      `${rbac}/namespaces/x/rolebindings/pod-ref`,
      `${rbac}/clusterrolebindings/role-ref`,
    ]) {
      expect((await fx.request({ path })).status, path).toBe(404);
    }
  });

  it("a RoleBinding to a missing Role is accepted from the admin and grants nothing", async () => {
    const res = await create("namespaces/y/rolebindings", {
      kind: "RoleBinding",
      metadata: { name: "bob-missing" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Role", name: "missing" },
      subjects: [{ kind: "User", name: "bob" }],
    });
    expect(res.status).toBe(201);
    // The subject's apiGroup is defaulted.
    expect(res.json).toMatchObject({ subjects: [{ kind: "User", name: "bob", apiGroup: "rbac.authorization.orch.io" }] });
    // Wait until the index holds the binding: its missing role then shows in the refusal.
    const bobIdentity = { name: bob.name, groups: [...bob.groups, "system:authenticated"] };
    let last: RawResponse | undefined;
    await until(
      async () => (last = await fx.request({ as: bob, path: "/api/v1/namespaces/y/configmaps" })).text.includes("not found"),
      () => `the refusal to name the missing role: ${last?.text}`,
    );
    expectStatus(
      last!,
      403,
      forbiddenStatus(
        'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "y": RBAC: role.rbac.authorization.orch.io "missing" not found',
        {
          kind: "configmaps",
        },
      ),
    );
    await fx.untilAccess(bobIdentity, { resourceAttributes: { verb: "get", resource: "configmaps", namespace: "y", name: "anything" } }, false);
  });

  it("bad impersonation headers are 400 (raw requests)", async () => {
    const badRequest = (message: string) => ({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "BadRequest", code: 400 });
    const withoutUser = badRequest("requested Impersonate-Group, Impersonate-Extra or Impersonate-Uid without impersonating a user (Impersonate-User)");
    expectStatus(await fx.request({ path: "/api", headers: { "Impersonate-User": "" } }), 400, badRequest("Impersonate-User must not be empty"));
    expectStatus(await fx.request({ path: "/api", headers: { "Impersonate-Group": "dev" } }), 400, withoutUser);
    expectStatus(await fx.request({ path: "/api", headers: { "Impersonate-Uid": "uid-bob" } }), 400, withoutUser);
    expectStatus(await fx.request({ path: "/api", headers: { "Impersonate-Extra-scopes": "view" } }), 400, withoutUser);
    const badEscape = badRequest("the impersonation header Impersonate-Extra-%zz is not valid percent-encoding");
    expectStatus(await fx.request({ path: "/api", headers: { "Impersonate-User": "bob", "Impersonate-Extra-%zz": "v" } }), 400, badEscape);

    // The same headers from someone who may not impersonate: still 400, decided before any check.
    expectStatus(await fx.request({ as: carol, path: "/api", headers: { "Impersonate-Group": "dev" } }), 400, withoutUser);
    // A well-formed impersonation by a user without the right is 403.
    expectStatus(
      await fx.request({ as: carol, path: "/api", headers: { "Impersonate-User": "bob" } }),
      403,
      forbiddenStatus('users "bob" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope', {
        name: "bob",
        kind: "users",
      }),
    );
    // And by the admin it works, extra and uid included.
    const whoami = await fx.request({
      method: "POST",
      path: "/apis/authentication.orch.io/v1/selfsubjectreviews",
      headers: { "Impersonate-User": "bob", "Impersonate-Group": "dev", "Impersonate-Uid": "uid-7", "Impersonate-Extra-Scopes%2FAll": "view" },
      body: JSON.stringify({ apiVersion: "authentication.orch.io/v1", kind: "SelfSubjectReview" }),
    });
    expect(whoami.status).toBe(201);
    expect(whoami.json).toMatchObject({
      status: { userInfo: { username: "bob", uid: "uid-7", groups: ["dev", "system:authenticated"], extra: { "scopes/all": ["view"] } } },
    });
  });
});

describe("--authorization-mode AlwaysDeny", () => {
  let fx: AuthorizationFixture;

  beforeAll(async () => {
    fx = await startAuthorizationFixture(["--authorization-mode", "AlwaysDeny"]);
  });

  afterAll(async () => {
    expect(await fx?.stop()).toBe(0);
  });

  it("refuses a token user (and anonymous) everything, with the authorizer's reason", async () => {
    const everything = ": Everything is forbidden.";
    const cases: { as: Caller; path: string; method?: string; body?: string; message: string; details?: Record<string, string> }[] = [
      { as: alice, path: "/version", message: `forbidden: User "alice" cannot get path "/version"${everything}` },
      { as: alice, path: "/openapi/v3", message: `forbidden: User "alice" cannot get path "/openapi/v3"${everything}` },
      { as: alice, path: "/api", message: `forbidden: User "alice" cannot get path "/api"${everything}` },
      {
        as: alice,
        path: "/api/v1/namespaces/default/pods",
        message: `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"${everything}`,
        details: { kind: "pods" },
      },
      {
        as: alice,
        path: "/apis/authorization.orch.io/v1/selfsubjectaccessreviews",
        method: "POST",
        body: JSON.stringify({
          apiVersion: "authorization.orch.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: { nonResourceAttributes: { verb: "get", path: "/api" } },
        }),
        message: `selfsubjectaccessreviews.authorization.orch.io is forbidden: User "alice" cannot create resource "selfsubjectaccessreviews" in API group "authorization.orch.io" at the cluster scope${everything}`,
        details: { group: "authorization.orch.io", kind: "selfsubjectaccessreviews" },
      },
      { as: "anonymous", path: "/version", message: `forbidden: User "system:anonymous" cannot get path "/version"${everything}` },
    ];
    for (const c of cases) {
      const { message, details, ...request } = c;
      expectStatus(await fx.request(request), 403, forbiddenStatus(message, details));
    }
    // The health checks are never authorized (the reference's --authorization-always-allow-paths).
    for (const path of ["/healthz", "/livez", "/readyz"]) expect((await fx.request({ as: "anonymous", path })).status).toBe(200);
  });

  it("lets the admin certificate (O=system:masters) do everything", async () => {
    expect((await fx.request({ path: "/api" })).status).toBe(200);
    const created = await fx.request({
      method: "POST",
      path: "/api/v1/namespaces/default/configmaps",
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "masters" } }),
    });
    expect(created.status).toBe(201);
    expect((await fx.request({ path: "/api/v1/namespaces/default/configmaps/masters" })).status).toBe(200);
    const kubectl = await fx.kubectl();
    expect(await kubectl(["get", "configmaps", "-n", "default", "-o", "name"])).toEqual({ code: 0, stdout: "configmap/masters\n", stderr: "" });
    // kubectl auth can-i speaks authorization.k8s.io; in the default domain the review is raw.
    const review = await fx.request({
      method: "POST",
      path: "/apis/authorization.orch.io/v1/selfsubjectaccessreviews",
      body: JSON.stringify({
        apiVersion: "authorization.orch.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { verb: "delete", resource: "nodes" } },
      }),
    });
    expect(review.status).toBe(201);
    expect(review.json).toMatchObject({ status: { allowed: true } });
  });
});
