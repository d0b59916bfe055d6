/**
 * Impersonation (`kubectl --as alice --as-group team-a`): a caller allowed to `impersonate`
 * users sends `Impersonate-User` (and `Impersonate-Group`) headers and is served as that user,
 * with that user's rights. A caller without the right is refused 403.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { clusterRoleBindings, clusterRoles, pods, refusal, roleBindings, roles, waitUntilAllowed } from "./access.js";

/** What the impersonation example saw. */
export interface ImpersonationResult {
  /** Who the server took the admin for, with the headers (a SelfSubjectReview). */
  actingAs: { username?: string; groups?: string[] };
  /** Each call and its outcome. */
  calls: Record<string, string>;
}

/** The admin acts as alice; bob may not until a ClusterRole lets him impersonate her. */
export async function impersonation(log: (line: string) => void = console.log): Promise<ImpersonationResult> {
  const server = new APIServer({ authorization: ["RBAC"] });
  await server.ready();
  const admin = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
  await admin.namespaces.create({ metadata: { name: "team-a" } });
  await admin
    .resource(roles)
    .create({ metadata: { name: "pod-reader" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }] }, { namespace: "team-a" });
  await admin.resource(roleBindings).create(
    {
      metadata: { name: "team-a-pod-readers" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Role", name: "pod-reader" },
      subjects: [{ kind: "Group", apiGroup: "rbac.authorization.orch.io", name: "team-a" }],
    },
    { namespace: "team-a" },
  );

  // The admin's requests, served as alice in team-a (what kubectl --as alice --as-group team-a sends).
  const impersonate = { "Impersonate-User": "alice", "Impersonate-Group": "team-a" };
  const adminAsAlice = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] }, headers: impersonate }) });
  await waitUntilAllowed(adminAsAlice, { verb: "list", resource: "pods", namespace: "team-a" });
  const review = await adminAsAlice.call<{ status: { userInfo: { username?: string; groups?: string[] } } }>({
    method: "POST",
    path: "/apis/authentication.orch.io/v1/selfsubjectreviews",
    body: { apiVersion: "authentication.orch.io/v1", kind: "SelfSubjectReview" },
  });
  const actingAs = review.status.userInfo;
  log(`admin with Impersonate-User: alice is ${actingAs.username}, groups ${actingAs.groups?.join(", ")}`);

  const calls: Record<string, string> = {};
  const attempt = async (what: string, call: () => Promise<unknown>) => {
    calls[what] = await call().then(
      () => "ok",
      (error: unknown) => refusal(error),
    );
    log(`${what}: ${calls[what]}`);
  };
  await attempt("admin as alice lists pods in team-a", () => adminAsAlice.resource(pods).list({ namespace: "team-a" }));
  await attempt("admin as alice lists secrets in team-a", () => adminAsAlice.secrets.list({ namespace: "team-a" }));

  // bob holds no impersonate right: the request is refused before anything else is looked at.
  const bob = { user: { name: "bob", groups: ["system:authenticated"] } };
  const bobAsAlice = new Client({ transport: inProcessTransport(server, { ...bob, headers: { "Impersonate-User": "alice" } }) });
  await attempt("bob as alice lists pods in team-a", () => bobAsAlice.resource(pods).list({ namespace: "team-a" }));

  // impersonate is a verb like any other: on users (and groups), limited here to one name.
  await admin
    .resource(clusterRoles)
    .create({ metadata: { name: "impersonate-alice" }, rules: [{ apiGroups: [""], resources: ["users"], verbs: ["impersonate"], resourceNames: ["alice"] }] });
  await admin.resource(clusterRoleBindings).create({
    metadata: { name: "bob-impersonates-alice" },
    roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "impersonate-alice" },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.orch.io", name: "bob" }],
  });
  await waitUntilAllowed(new Client({ transport: inProcessTransport(server, bob) }), { verb: "impersonate", resource: "users", name: "alice" });
  const bobAsAliceInTeamA = new Client({ transport: inProcessTransport(server, { ...bob, headers: impersonate }) });
  await attempt("bob, now allowed, as alice in group team-a lists pods", () => bobAsAliceInTeamA.resource(pods).list({ namespace: "team-a" }));
  // Without Impersonate-Group, alice is in system:authenticated only: not in team-a.
  await attempt("bob, now allowed, as alice lists pods", () => bobAsAlice.resource(pods).list({ namespace: "team-a" }));
  await server.shutdown();
  return { actingAs, calls };
}
