import type { UserInfo } from "@orch/authn";
import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import type { APIRequest, APIResponse } from "./api-request.js";
import { APIServer } from "./api-server.js";

const admin: UserInfo = { name: "admin", groups: ["system:masters", "system:authenticated"] };
const alice: UserInfo = { name: "alice", groups: ["dev", "system:authenticated"] };
const rbac = "/apis/rbac.authorization.orch.io/v1";

function call(
  server: APIServer,
  method: string,
  url: string,
  user: UserInfo | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<APIResponse> {
  const request: APIRequest = { method, url, headers: new Headers({ "content-type": "application/json", ...headers }) };
  if (user) request.user = user;
  if (body !== undefined) request.body = new TextEncoder().encode(JSON.stringify(body));
  return server.handle(request);
}

async function json(response: Promise<APIResponse>): Promise<{ status: number; body: APIObject & { message?: string } }> {
  const r = await response;
  return { status: r.status, body: JSON.parse(String(r.body)) as APIObject & { message?: string } };
}

/** Polls `check` until it holds (the RBAC index follows a store watch), for at most a second. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("never held");
}

async function rbacServer(): Promise<APIServer> {
  const server = new APIServer({ authorization: ["RBAC"] });
  await server.ready();
  expect((await call(server, "POST", "/api/v1/namespaces", admin, { metadata: { name: "team" } })).status).toBe(201);
  return server;
}

describe("APIServer authorization", () => {
  it("allows everything by default (an embedded server without options)", async () => {
    const server = new APIServer();
    expect((await call(server, "GET", "/api/v1/namespaces/default/secrets", undefined)).status).toBe(200);
  });

  it("under RBAC: anonymous callers reach health and version only; authenticated ones discovery and self-reviews", async () => {
    const server = await rbacServer();
    for (const path of ["/version", "/healthz", "/livez", "/readyz"]) expect((await call(server, "GET", path, undefined)).status).toBe(200);
    const api = await json(call(server, "GET", "/api", undefined));
    expect(api).toMatchObject({ status: 403, body: { reason: "Forbidden", message: 'forbidden: User "system:anonymous" cannot get path "/api"' } });
    expect((await call(server, "GET", "/api", alice)).status).toBe(200);
    const review = await json(
      call(server, "POST", "/apis/authorization.orch.io/v1/selfsubjectaccessreviews", alice, {
        spec: { resourceAttributes: { namespace: "team", verb: "list", resource: "pods" } },
      }),
    );
    expect(review).toMatchObject({ status: 201, body: { status: { allowed: false } } });
  });

  it("grants what a RoleBinding binds, and answers 403 as the reference words it otherwise", async () => {
    const server = await rbacServer();
    const role = { metadata: { name: "pod-reader" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] }] };
    expect((await call(server, "POST", `${rbac}/namespaces/team/roles`, admin, role)).status).toBe(201);
    const binding = {
      metadata: { name: "devs" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Role", name: "pod-reader" },
      subjects: [{ kind: "Group", name: "dev" }],
    };
    expect((await call(server, "POST", `${rbac}/namespaces/team/rolebindings`, admin, binding)).status).toBe(201);
    await eventually(async () => (await call(server, "GET", "/api/v1/namespaces/team/pods", alice)).status === 200);
    const secrets = await json(call(server, "GET", "/api/v1/namespaces/team/secrets", alice));
    expect(secrets).toMatchObject({
      status: 403,
      body: {
        message: 'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team"',
        details: { kind: "secrets" },
      },
    });
    expect((await call(server, "GET", "/api/v1/namespaces/default/pods", alice)).status).toBe(403);
    const rules = await json(call(server, "POST", "/apis/authorization.orch.io/v1/selfsubjectrulesreviews", alice, { spec: { namespace: "team" } }));
    expect((rules.body.status as { resourceRules: unknown[] }).resourceRules).toContainEqual({
      verbs: ["get", "list", "watch"],
      apiGroups: [""],
      resources: ["pods"],
    });
    const sar = await json(
      call(server, "POST", "/apis/authorization.orch.io/v1/subjectaccessreviews", admin, {
        spec: { user: "bob", groups: ["dev"], resourceAttributes: { namespace: "team", verb: "get", resource: "pods" } },
      }),
    );
    expect(sar.body.status).toMatchObject({ allowed: true });
  });

  it("refuses a role granting more than the caller holds, and a binding to a role it may not bind", async () => {
    const server = await rbacServer();
    // A role of its own: admin's rules come from aggregation, the controller manager's work.
    const lead = {
      metadata: { name: "team-lead" },
      rules: [
        { apiGroups: [""], resources: ["secrets", "configmaps"], verbs: ["get", "list"] },
        { apiGroups: ["rbac.authorization.orch.io"], resources: ["roles", "rolebindings"], verbs: ["create"] },
      ],
    };
    expect((await call(server, "POST", `${rbac}/clusterroles`, admin, lead)).status).toBe(201);
    const ownAdmin = {
      metadata: { name: "alice-lead" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "team-lead" },
      subjects: [{ kind: "User", name: "alice" }],
    };
    expect((await call(server, "POST", `${rbac}/namespaces/team/rolebindings`, admin, ownAdmin)).status).toBe(201);
    await eventually(async () => (await call(server, "GET", "/api/v1/namespaces/team/secrets", alice)).status === 200);
    const fine = { metadata: { name: "reader" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] };
    expect((await call(server, "POST", `${rbac}/namespaces/team/roles`, alice, fine)).status).toBe(201);
    const nodes = { metadata: { name: "nodes" }, rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get"] }] };
    const escalation = await json(call(server, "POST", `${rbac}/namespaces/team/roles`, alice, nodes));
    expect(escalation.status).toBe(403);
    expect(escalation.body.message).toContain("is attempting to grant RBAC permissions not currently held");
    const toAdmin = {
      metadata: { name: "root" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "cluster-admin" },
      subjects: [{ kind: "User", name: "alice" }],
    };
    expect((await call(server, "POST", `${rbac}/namespaces/team/rolebindings`, alice, toAdmin)).status).toBe(403);
  });

  it("impersonates with the right to, and refuses without it", async () => {
    const server = await rbacServer();
    const who = await json(
      call(server, "POST", "/apis/authentication.orch.io/v1/selfsubjectreviews", admin, {}, { "Impersonate-User": "bob", "Impersonate-Group": "qa" }),
    );
    expect(who.body.status).toEqual({ userInfo: { username: "bob", groups: ["qa", "system:authenticated"] } });
    const refused = await json(call(server, "GET", "/api/v1/namespaces", alice, undefined, { "Impersonate-User": "admin" }));
    expect(refused).toMatchObject({
      status: 403,
      body: { message: 'users "admin" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope' },
    });
  });
});
