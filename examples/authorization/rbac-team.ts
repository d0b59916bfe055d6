/**
 * RBAC for a team, on an embedded server (`orch-apiserver --authorization-mode RBAC`): an admin
 * creates the team's namespace, a Role that reads pods and a RoleBinding granting it to the
 * group `team-a`; a member lists pods, is refused secrets, and asks the server what she may do.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { canI, pods, refusal, roleBindings, roles, rulesIn, waitUntilAllowed, type AccessReviewStatus, type RulesReviewStatus } from "./access.js";
import { startInProcessControllers } from "@orch/controllers";

/** What the team example found. */
export interface TeamResult {
  /** The pods alice listed. */
  pods: string[];
  /** The 403 of her read of a secret: code and message. */
  secrets: string;
  /** The SelfSubjectAccessReview answers: list pods, get secrets. */
  listPods: AccessReviewStatus;
  getSecrets: AccessReviewStatus;
  /** The SelfSubjectRulesReview of `team-a`. */
  rules: RulesReviewStatus;
}

/** Sets up team-a's rights as an admin, then acts as alice, a member. */
export async function rbacForATeam(log: (line: string) => void = console.log): Promise<TeamResult> {
  const server = new APIServer({ authorization: ["RBAC"] });
  // The control loops orch-apiserver runs (default ServiceAccounts, quota usage, aggregated roles).
  const controllers = startInProcessControllers(server);
  await server.ready(); // the bootstrap roles are written and the RBAC index loaded
  const admin = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
  // An in-process user is taken as given: add system:authenticated, as authentication would.
  const alice = new Client({ transport: inProcessTransport(server, { user: { name: "alice", groups: ["team-a", "system:authenticated"] } }) });

  await admin.namespaces.create({ metadata: { name: "team-a" } });
  await admin.resource(pods).create({ metadata: { name: "web" }, spec: { containers: [{ name: "web", image: "nginx" }] } }, { namespace: "team-a" });
  await admin
    .resource(roles)
    .create(
      { metadata: { name: "pod-reader" }, rules: [{ apiGroups: [""], resources: ["pods", "pods/log"], verbs: ["get", "list", "watch"] }] },
      { namespace: "team-a" },
    );
  await admin.resource(roleBindings).create(
    {
      metadata: { name: "team-a-pod-readers" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "Role", name: "pod-reader" },
      subjects: [{ kind: "Group", apiGroup: "rbac.authorization.orch.io", name: "team-a" }],
    },
    { namespace: "team-a" },
  );
  // The RBAC index follows a watch of the store: the binding grants a moment after the create.
  const listPods = await waitUntilAllowed(alice, { verb: "list", resource: "pods", namespace: "team-a" });
  log(`can alice list pods in team-a? ${listPods.allowed ? "yes" : "no"}: ${listPods.reason}`);

  const list = await alice.resource(pods).list({ namespace: "team-a" });
  const names = list.items.map((pod) => pod.metadata.name ?? "");
  log(`alice lists pods in team-a: ${names.join(", ")}`);

  let secrets = "";
  await alice.secrets.get("db", { namespace: "team-a" }).catch((error: unknown) => {
    secrets = refusal(error);
    log(`alice gets secret db: ${secrets}`);
  });

  const getSecrets = await canI(alice, { verb: "get", resource: "secrets", namespace: "team-a" });
  log(`can alice get secrets in team-a? ${getSecrets.allowed ? "yes" : "no"}`);

  const rules = await rulesIn(alice, "team-a");
  for (const rule of rules.resourceRules)
    log(`alice in team-a: ${rule.verbs.join(",")} ${(rule.resources ?? []).join(",")} (group "${(rule.apiGroups ?? []).join(",")}")`);
  await controllers.stop();
  await server.shutdown();
  return { pods: names, secrets, listPods, getSecrets, rules };
}
