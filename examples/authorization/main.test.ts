import { describe, expect, it } from "vitest";
import { businessHours, businessHoursAuthorizer } from "./business-hours.js";
import { defaultMode } from "./default-mode.js";
import { escalation } from "./escalation.js";
import { impersonation } from "./impersonation.js";
import { main } from "./main.js";
import { rbacForATeam } from "./rbac-team.js";
import { subjectAccessReviews } from "./subject-access-review.js";
import { authorizationWebhook } from "./webhook.js";

/** Runs `example` and returns what it returned and printed. */
async function run<T>(example: (log: (line: string) => void) => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const result = await example((line) => lines.push(line));
  return { result, lines };
}

describe("authorization examples", () => {
  it("RBAC for a team: a member lists pods, is refused secrets, and the reviews say so", async () => {
    const { result } = await run(rbacForATeam);
    expect(result.pods).toEqual(["web"]);
    expect(result.secrets).toBe('403 secrets "db" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "team-a"');
    expect(result.listPods).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "team-a-pod-readers/team-a" of Role "pod-reader" to Group "team-a"',
    });
    expect(result.getSecrets).toEqual({ allowed: false });
    expect(result.rules.incomplete).toBe(false);
    expect(result.rules.resourceRules).toContainEqual({ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods", "pods/log"] });
    // system:basic-user, bound to system:authenticated: every user may ask about itself.
    expect(result.rules.resourceRules).toContainEqual({
      verbs: ["create"],
      apiGroups: ["authorization.orch.io"],
      resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
    });
    expect(result.rules.resourceRules.some((rule) => rule.resources?.includes("secrets"))).toBe(false);
    expect(result.rules.nonResourceRules).toContainEqual(
      expect.objectContaining({ verbs: ["get"], nonResourceURLs: expect.arrayContaining(["/healthz", "/version"]) as unknown }),
    );
  });

  it("the embedded default allows anonymous to do everything; RBAC does not", async () => {
    const { result } = await run(defaultMode);
    expect(result.open).toBe("created anyones");
    expect(result.rbac).toBe('403 namespaces is forbidden: User "system:anonymous" cannot create resource "namespaces" in API group "" at the cluster scope');
  });

  it("an own authorizer before RBAC: writes are denied out of hours, with its reason; masters and reads pass", async () => {
    const { result } = await run(businessHours);
    expect(result).toEqual({
      "bob creates a ConfigMap on Tuesday 10:00": "ok",
      "bob creates a ConfigMap on Tuesday 22:00":
        '403 configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "team-a": writes are allowed Monday to Friday, 08:00 to 18:00 UTC',
      "bob reads a ConfigMap on Tuesday 22:00": "ok",
      "admin creates a ConfigMap on Tuesday 22:00": "ok",
    });
  });

  it("the business-hours authorizer decides on attributes alone", async () => {
    const saturday = businessHoursAuthorizer(() => new Date("2026-11-28T12:00:00Z"));
    const user = { name: "bob", groups: [] };
    const write = { user, verb: "delete", resourceRequest: true, apiGroup: "apps", resource: "deployments", namespace: "team-a", name: "web" };
    expect((await saturday.authorize(write)).decision).toBe("deny");
    expect((await saturday.authorize({ ...write, verb: "watch" })).decision).toBe("noOpinion");
    expect((await saturday.authorize({ ...write, verb: "create", apiGroup: "authorization.orch.io", resource: "selfsubjectaccessreviews" })).decision).toBe(
      "noOpinion",
    );
    expect((await saturday.authorize({ user, verb: "post", resourceRequest: false, path: "/logs" })).decision).toBe("noOpinion");
    const monday = businessHoursAuthorizer(() => new Date("2026-11-23T17:59:00Z"));
    expect((await monday.authorize(write)).decision).toBe("noOpinion");
  });

  it("webhook: allows and denies with its reasons, answers from its cache, and has no opinion when it is gone", async () => {
    const { result } = await run(authorizationWebhook);
    expect(result.calls).toEqual({
      "ci creates a ConfigMap in builds": "ok",
      "ci deletes namespace builds":
        '403 namespaces "builds" is forbidden: User "ci" cannot delete resource "namespaces" in API group "" in the namespace "builds": namespaces are deleted by the platform team\'s pipeline',
      "webhook gone: ci creates ConfigMap build-1 again": '409 configmaps "build-1" already exists',
      "webhook gone: ci reads ConfigMap build-1":
        '403 configmaps "build-1" is forbidden: User "ci" cannot get resource "configmaps" in API group "" in the namespace "builds"',
    });
    expect(result.logged).toHaveLength(1);
    expect(result.logged[0]).toMatch(/^authorization webhook http:\/\/127\.0\.0\.1:\d+\/authorize: request failed: /);
  });

  it("impersonation: the admin acts as alice; bob needs impersonate on the user and on each group", async () => {
    const { result } = await run(impersonation);
    expect(result.actingAs).toEqual({ username: "alice", groups: ["team-a", "system:authenticated"] });
    expect(result.calls).toEqual({
      "admin as alice lists pods in team-a": "ok",
      "admin as alice lists secrets in team-a":
        '403 secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team-a"',
      "bob as alice lists pods in team-a":
        '403 users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
      "bob, now allowed, as alice in group team-a lists pods":
        '403 groups "team-a" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope',
      "bob, now allowed, as alice lists pods": '403 pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "team-a"',
    });
  });

  it("escalation: a namespace admin grants what she holds, not more, unless she may bind the role", async () => {
    const { result } = await run(escalation);
    const notHeld = 'is forbidden: user "carol" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n';
    expect(result).toEqual({
      "carol creates Role secret-reader": "ok",
      "carol binds Role secret-reader to dave": "ok",
      "carol creates Role node-admin": `403 roles.rbac.authorization.orch.io "node-admin" ${notHeld}{APIGroups:[""], Resources:["nodes"], Verbs:["get" "update"]}`,
      "carol binds ClusterRole cluster-admin to dave": `403 rolebindings.rbac.authorization.orch.io "dave-cluster-admin" ${notHeld}{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`,
      "carol, with bind, binds ClusterRole node-viewer to dave": "ok",
    });
  });

  it("SubjectAccessReview and LocalSubjectAccessReview answer about the user as given", async () => {
    const { result } = await run(subjectAccessReviews);
    expect(result).toEqual({
      "may alice (team-a) list pods in team-a": {
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "team-a-pod-readers/team-a" of Role "pod-reader" to Group "team-a"',
      },
      "may alice (no groups) list pods in team-a": { allowed: false },
      "may anonymous get /healthz": {
        allowed: true,
        reason: 'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"',
      },
      "may anonymous get /metrics": { allowed: false },
      "carol asks in team-a: may alice (team-a) delete pods": { allowed: false },
    });
  });

  it("main runs them all", async () => {
    const { lines } = await run(main);
    expect(lines.filter((line) => line.startsWith("# "))).toHaveLength(7);
  });
});
