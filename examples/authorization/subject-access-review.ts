/**
 * Asking about someone else: a SubjectAccessReview (cluster-wide; the bootstrap ClusterRole
 * `system:auth-delegator` may create them) and a LocalSubjectAccessReview (one namespace; the
 * ClusterRole `admin` may create them in the namespaces it is bound in). A gateway in front of
 * the server, or a namespace admin checking a colleague, asks this way.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { clusterRoleBindings, roleBindings, roles, waitUntilAllowed, type AccessReviewStatus } from "./access.js";
import { startInProcessControllers } from "@orch/controllers";

const rbac = "rbac.authorization.orch.io";

/** The answers of the reviews, in the order asked. */
export type ReviewAnswers = Record<string, AccessReviewStatus>;

/** The gateway asks about alice cluster-wide; carol, admin of team-a, asks about her in team-a. */
export async function subjectAccessReviews(log: (line: string) => void = console.log): Promise<ReviewAnswers> {
  const server = new APIServer({ authorization: ["RBAC"] });
  // The control loops orch-apiserver runs (default ServiceAccounts, quota usage, aggregated roles).
  const controllers = startInProcessControllers(server);
  await server.ready();
  const admin = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
  await admin.namespaces.create({ metadata: { name: "team-a" } });
  await admin
    .resource(roles)
    .create({ metadata: { name: "pod-reader" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }] }, { namespace: "team-a" });
  const bind = (name: string, kind: "Role" | "ClusterRole", role: string, subject: { kind: "User" | "Group"; name: string }) =>
    admin
      .resource(roleBindings)
      .create({ metadata: { name }, roleRef: { apiGroup: rbac, kind, name: role }, subjects: [{ ...subject, apiGroup: rbac }] }, { namespace: "team-a" });
  await bind("team-a-pod-readers", "Role", "pod-reader", { kind: "Group", name: "team-a" });
  await bind("carol-admin", "ClusterRole", "admin", { kind: "User", name: "carol" });
  await admin.resource(clusterRoleBindings).create({
    metadata: { name: "gateway-auth-delegator" },
    roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "system:auth-delegator" },
    subjects: [{ kind: "User", apiGroup: rbac, name: "gateway" }],
  });
  const gateway = new Client({ transport: inProcessTransport(server, { user: { name: "gateway", groups: ["system:authenticated"] } }) });
  const carol = new Client({ transport: inProcessTransport(server, { user: { name: "carol", groups: ["system:authenticated"] } }) });
  await waitUntilAllowed(gateway, { verb: "create", group: "authorization.orch.io", resource: "subjectaccessreviews" });
  await waitUntilAllowed(carol, { verb: "create", group: "authorization.orch.io", resource: "localsubjectaccessreviews", namespace: "team-a" });

  const answers: ReviewAnswers = {};
  const ask = async (what: string, client: Client, path: string, kind: string, spec: object) => {
    const review = await client.call<{ status: AccessReviewStatus }>({ method: "POST", path, body: { apiVersion: "authorization.orch.io/v1", kind, spec } });
    answers[what] = review.status;
    log(`${what}: ${review.status.allowed ? "allowed" : "not allowed"}${review.status.reason ? ` (${review.status.reason})` : ""}`);
  };
  const sar = "/apis/authorization.orch.io/v1/subjectaccessreviews";
  const pods = { namespace: "team-a", verb: "list", resource: "pods" };
  // spec.user and spec.groups are the user asked about, exactly as given: nothing is added.
  await ask("may alice (team-a) list pods in team-a", gateway, sar, "SubjectAccessReview", { user: "alice", groups: ["team-a"], resourceAttributes: pods });
  await ask("may alice (no groups) list pods in team-a", gateway, sar, "SubjectAccessReview", { user: "alice", resourceAttributes: pods });
  const anonymous = { user: "system:anonymous", groups: ["system:unauthenticated"] };
  await ask("may anonymous get /healthz", gateway, sar, "SubjectAccessReview", { ...anonymous, nonResourceAttributes: { path: "/healthz", verb: "get" } });
  await ask("may anonymous get /metrics", gateway, sar, "SubjectAccessReview", { ...anonymous, nonResourceAttributes: { path: "/metrics", verb: "get" } });
  await ask(
    "carol asks in team-a: may alice (team-a) delete pods",
    carol,
    "/apis/authorization.orch.io/v1/namespaces/team-a/localsubjectaccessreviews",
    "LocalSubjectAccessReview",
    { user: "alice", groups: ["team-a"], resourceAttributes: { ...pods, verb: "delete" } },
  );
  await controllers.stop();
  await server.shutdown();
  return answers;
}
