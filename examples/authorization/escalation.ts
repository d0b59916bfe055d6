/**
 * Escalation prevention: a user who may write Roles and RoleBindings can only grant what she
 * holds herself. Carol administers `team-a` (the bootstrap ClusterRole `admin`, bound in the
 * namespace): she may hand out reading secrets, but not rights she lacks, and not
 * `cluster-admin`, until she is given the `escalate` or `bind` verb.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { clusterRoleBindings, clusterRoles, refusal, roleBindings, roles, waitUntilAllowed } from "./access.js";
import { startInProcessControllers } from "@orch/controllers";

const rbac = "rbac.authorization.orch.io";

/** Each write carol attempts, and its outcome. */
export type EscalationResult = Record<string, string>;

/** Carol, admin of team-a, grants what she holds, then tries to grant more. */
export async function escalation(log: (line: string) => void = console.log): Promise<EscalationResult> {
  const server = new APIServer({ authorization: ["RBAC"] });
  // The control loops orch-apiserver runs (default ServiceAccounts, quota usage, aggregated roles).
  const controllers = startInProcessControllers(server);
  await server.ready();
  const admin = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
  const carol = new Client({ transport: inProcessTransport(server, { user: { name: "carol", groups: ["system:authenticated"] } }) });
  await admin.namespaces.create({ metadata: { name: "team-a" } });
  await admin.resource(roleBindings).create(
    {
      metadata: { name: "carol-admin" },
      roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "admin" },
      subjects: [{ kind: "User", apiGroup: rbac, name: "carol" }],
    },
    { namespace: "team-a" },
  );
  await waitUntilAllowed(carol, { verb: "create", group: rbac, resource: "roles", namespace: "team-a" });
  // `admin` is an aggregated role: its rules arrive once aggregation has run.
  await waitUntilAllowed(carol, { verb: "get", resource: "secrets", namespace: "team-a" });

  const seen: EscalationResult = {};
  const attempt = async (what: string, call: () => Promise<unknown>) => {
    seen[what] = await call().then(
      () => "ok",
      (error: unknown) => refusal(error),
    );
    log(`${what}: ${seen[what]}`);
  };
  const createRole = (name: string, rules: object[]) => carol.resource(roles).create({ metadata: { name }, rules }, { namespace: "team-a" });
  const bindToDave = (name: string, kind: "Role" | "ClusterRole", role: string) =>
    carol
      .resource(roleBindings)
      .create(
        { metadata: { name }, roleRef: { apiGroup: rbac, kind, name: role }, subjects: [{ kind: "User", apiGroup: rbac, name: "dave" }] },
        { namespace: "team-a" },
      );

  // She holds these rules in team-a: she may put them in a Role and bind it.
  await attempt("carol creates Role secret-reader", () => createRole("secret-reader", [{ apiGroups: [""], resources: ["secrets"], verbs: ["get", "list"] }]));
  await attempt("carol binds Role secret-reader to dave", () => bindToDave("dave-secret-reader", "Role", "secret-reader"));
  // She does not hold these: the write is refused, naming every rule she lacks.
  await attempt("carol creates Role node-admin", () => createRole("node-admin", [{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "update"] }]));
  await attempt("carol binds ClusterRole cluster-admin to dave", () => bindToDave("dave-cluster-admin", "ClusterRole", "cluster-admin"));

  // The bind verb lets her grant one named role without holding its rules (escalate does the same for writing roles).
  await admin.resource(clusterRoles).create({
    metadata: { name: "bind-node-viewer" },
    rules: [{ apiGroups: [rbac], resources: ["clusterroles"], verbs: ["bind"], resourceNames: ["node-viewer"] }],
  });
  await admin.resource(clusterRoles).create({ metadata: { name: "node-viewer" }, rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "list"] }] });
  await admin.resource(clusterRoleBindings).create({
    metadata: { name: "carol-binds-node-viewer" },
    roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "bind-node-viewer" },
    subjects: [{ kind: "User", apiGroup: rbac, name: "carol" }],
  });
  await waitUntilAllowed(carol, { verb: "bind", group: rbac, resource: "clusterroles", name: "node-viewer" });
  await attempt("carol, with bind, binds ClusterRole node-viewer to dave", () => bindToDave("dave-node-viewer", "ClusterRole", "node-viewer"));
  await controllers.stop();
  await server.shutdown();
  return seen;
}
