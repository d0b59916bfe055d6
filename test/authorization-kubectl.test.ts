/**
 * Authorization end to end with kubectl, against `orch-apiserver --domain k8s.io` with the
 * default `--authorization-mode` (Node,RBAC) and a static token file: the admin certificate
 * (`O=system:masters`) writes RBAC objects with kubectl's typed commands (protobuf under k8s.io),
 * token users get exactly what they were granted, with the reference's 403 wording; `kubectl
 * auth can-i` (and `--list`) through the review APIs; impersonation (`--as`, `--as-group`);
 * escalation prevention (`escalate`, `bind`); ClusterRole aggregation into `view`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthorizationFixture, tableRows, tokenUsers, until, type AuthorizationFixture } from "./support/authorization.js";
import type { Kubectl, Options, Result } from "./support/kubectl.js";

const { alice, bob, carol } = tokenUsers;

let fx: AuthorizationFixture;
let admin: Kubectl;

/** Runs kubectl and expects it to succeed without a word on stderr; its stdout. */
async function ok(kubectl: Kubectl, args: readonly string[], options?: Options): Promise<string> {
  const res = await kubectl(args, options);
  expect({ code: res.code, stderr: res.stderr }, `kubectl ${args.join(" ")}`).toEqual({ code: 0, stderr: "" });
  return res.stdout;
}

/** Runs kubectl and expects it to fail with exactly `stderr` and nothing on stdout. */
async function fails(kubectl: Kubectl, args: readonly string[], stderr: string): Promise<void> {
  const res = await kubectl(args);
  expect(res, `kubectl ${args.join(" ")}`).toEqual<Result>({ code: 1, stdout: "", stderr });
}

const forbidden = (message: string) => `Error from server (Forbidden): ${message}\n`;

/** A user whose groups are the ones a token user gets: its own and `system:authenticated`. */
const reviewed = (user: { name: string; groups: readonly string[] }) => ({ name: user.name, groups: [...user.groups, "system:authenticated"] });

beforeAll(async () => {
  fx = await startAuthorizationFixture(["--domain", "k8s.io"]);
  admin = await fx.kubectl();
  for (const ns of ["team", "other", "alice-ns"]) await ok(admin, ["create", "namespace", ns]);
});

afterAll(async () => {
  expect(await fx?.stop()).toBe(0);
});

describe("RBAC objects written by the admin with kubectl", () => {
  it("creates a Role, a RoleBinding and a ClusterRoleBinding; get -o wide shows the reference's columns", async () => {
    expect(await ok(admin, ["create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods", "-n", "team"])).toBe(
      "role.rbac.authorization.k8s.io/pod-reader created\n",
    );
    expect(await ok(admin, ["create", "rolebinding", "alice-pod-reader", "--role=pod-reader", "--user=alice", "-n", "team"])).toBe(
      "rolebinding.rbac.authorization.k8s.io/alice-pod-reader created\n",
    );
    expect(await ok(admin, ["create", "clusterrolebinding", "dev-view", "--clusterrole=view", "--group=dev"])).toBe(
      "clusterrolebinding.rbac.authorization.k8s.io/dev-view created\n",
    );

    const role = JSON.parse(await ok(admin, ["get", "role", "pod-reader", "-n", "team", "-o", "json"])) as Record<string, unknown>;
    expect(role).toMatchObject({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "pod-reader", namespace: "team" } });
    expect(role["rules"]).toEqual([{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] }]);
    const binding = JSON.parse(await ok(admin, ["get", "rolebinding", "alice-pod-reader", "-n", "team", "-o", "json"])) as Record<string, unknown>;
    expect(binding["roleRef"]).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" });
    expect(binding["subjects"]).toEqual([{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }]);

    const [roles, bindings, ...rest] = (await ok(admin, ["get", "roles,rolebindings", "-n", "team", "-o", "wide"])).split("\n\n");
    expect(rest).toEqual([]);
    expect(roles!.split("\n")[0]).toMatch(/^NAME\s+CREATED AT$/);
    expect(tableRows(roles!)).toEqual([
      { NAME: "role.rbac.authorization.k8s.io/pod-reader", "CREATED AT": expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
    ]);
    expect(bindings!.split("\n")[0]).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/);
    expect(tableRows(bindings!)).toEqual([
      {
        NAME: "rolebinding.rbac.authorization.k8s.io/alice-pod-reader",
        ROLE: "Role/pod-reader",
        AGE: expect.stringMatching(/^\d+s$/),
        USERS: "alice",
        GROUPS: "",
        SERVICEACCOUNTS: "",
      },
    ]);
    expect(tableRows(await ok(admin, ["get", "clusterrolebinding", "dev-view", "-o", "wide"]))).toEqual([
      { NAME: "dev-view", ROLE: "ClusterRole/view", AGE: expect.stringMatching(/^\d+s$/), USERS: "", GROUPS: "dev", SERVICEACCOUNTS: "" },
    ]);
  });
});

describe("a token user with a RoleBinding (kubectl with alice's token)", () => {
  let asAlice: Kubectl;

  beforeAll(async () => {
    asAlice = await fx.kubectl(alice);
    await ok(admin, ["run", "web", "--image=nginx", "-n", "team"]);
    await fx.untilAccess(reviewed(alice), { resourceAttributes: { verb: "list", resource: "pods", namespace: "team" } }, true);
    await fx.untilAccess(reviewed(bob), { resourceAttributes: { verb: "list", resource: "pods", namespace: "other" } }, true);
  });

  it("may list pods in team, and nothing else: 403s worded as the reference's", async () => {
    expect(await ok(asAlice, ["get", "pods", "-n", "team", "-o", "name"])).toBe("pod/web\n");
    expect(await ok(asAlice, ["get", "pod", "web", "-n", "team", "-o", "jsonpath={.metadata.name}"])).toBe("web");
    await fails(
      asAlice,
      ["get", "secrets", "-n", "team"],
      forbidden('secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team"'),
    );
    await fails(
      asAlice,
      ["get", "pods", "-n", "other"],
      forbidden('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "other"'),
    );
    await fails(
      asAlice,
      ["delete", "pod", "web", "-n", "team"],
      forbidden('pods "web" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "team"'),
    );
    await fails(
      asAlice,
      ["get", "namespaces"],
      forbidden('namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope'),
    );
  });

  it("kubectl auth can-i answers yes (exit 0) and no (exit 1)", async () => {
    expect(await asAlice(["auth", "can-i", "get", "pods", "-n", "team"])).toEqual<Result>({ code: 0, stdout: "yes\n", stderr: "" });
    expect(await asAlice(["auth", "can-i", "watch", "pods", "-n", "team"])).toEqual<Result>({ code: 0, stdout: "yes\n", stderr: "" });
    expect(await asAlice(["auth", "can-i", "delete", "pods", "-n", "team"])).toEqual<Result>({ code: 1, stdout: "no\n", stderr: "" });
    expect(await asAlice(["auth", "can-i", "get", "pods", "-n", "other"])).toEqual<Result>({ code: 1, stdout: "no\n", stderr: "" });
    expect(await asAlice(["auth", "can-i", "get", "/api"])).toEqual<Result>({ code: 0, stdout: "yes\n", stderr: "" });
    expect(await asAlice(["auth", "can-i", "get", "/metrics"])).toEqual<Result>({ code: 1, stdout: "no\n", stderr: "" });
  });

  it("kubectl auth can-i --list shows the Role's rule with the bootstrap rules every user has", async () => {
    const out = await ok(asAlice, ["auth", "can-i", "--list", "-n", "team"]);
    const rows = tableRows(out);
    expect(out.split("\n")[0]).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    expect(rows).toContainEqual({ Resources: "pods", "Non-Resource URLs": "[]", "Resource Names": "[]", Verbs: "[get list watch]" });
    // system:basic-user and system:discovery, bound to system:authenticated.
    expect(rows).toContainEqual({
      Resources: "selfsubjectaccessreviews.authorization.k8s.io",
      "Non-Resource URLs": "[]",
      "Resource Names": "[]",
      Verbs: "[create]",
    });
    expect(rows).toContainEqual({
      Resources: "selfsubjectrulesreviews.authorization.k8s.io",
      "Non-Resource URLs": "[]",
      "Resource Names": "[]",
      Verbs: "[create]",
    });
    expect(rows).toContainEqual({ Resources: "", "Non-Resource URLs": "[/api]", "Resource Names": "[]", Verbs: "[get]" });
    expect(rows).toContainEqual({ Resources: "", "Non-Resource URLs": "[/version]", "Resource Names": "[]", Verbs: "[get]" });
    expect(
      rows
        .filter((r) => r.Resources !== "")
        .map((r) => r.Resources)
        .sort(),
    ).toEqual([
      "pods",
      "selfsubjectaccessreviews.authorization.k8s.io",
      "selfsubjectreviews.authentication.k8s.io",
      "selfsubjectrulesreviews.authorization.k8s.io",
    ]);
    // In another namespace the Role's rule is not there.
    expect(tableRows(await ok(asAlice, ["auth", "can-i", "--list", "-n", "other"])).map((r) => r.Resources)).not.toContain("pods");
  });

  it("the admin asks can-i for other users with --as and --as-group", async () => {
    const canI = (args: string[]) => admin(["auth", "can-i", ...args]);
    expect(await canI(["get", "pods", "--as", "alice", "-n", "team"])).toEqual<Result>({ code: 0, stdout: "yes\n", stderr: "" });
    expect(await canI(["list", "secrets", "--as", "alice", "-n", "team"])).toEqual<Result>({ code: 1, stdout: "no\n", stderr: "" });
    // view, bound to the group dev: read most things everywhere, but not secrets.
    expect(await canI(["list", "pods", "--as", "bob", "--as-group", "dev", "-n", "other"])).toEqual<Result>({ code: 0, stdout: "yes\n", stderr: "" });
    expect(await canI(["list", "secrets", "--as", "bob", "--as-group", "dev", "-n", "other"])).toEqual<Result>({ code: 1, stdout: "no\n", stderr: "" });
    expect(await canI(["create", "pods", "--as", "bob", "--as-group", "dev", "-n", "other"])).toEqual<Result>({ code: 1, stdout: "no\n", stderr: "" });
    // Impersonating bob without --as-group gives him no group but system:authenticated.
    expect(await canI(["list", "pods", "--as", "bob", "-n", "other"])).toEqual<Result>({ code: 1, stdout: "no\n", stderr: "" });
  });

  it("the admin acts as alice through impersonation; alice may not impersonate anyone", async () => {
    expect(await ok(admin, ["get", "pods", "--as", "alice", "-n", "team", "-o", "name"])).toBe("pod/web\n");
    await fails(
      admin,
      ["get", "secrets", "--as", "alice", "-n", "team"],
      forbidden('secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team"'),
    );
    const whoami = JSON.parse(await ok(admin, ["auth", "whoami", "--as", "bob", "--as-group", "dev", "-o", "json"])) as { status: { userInfo: unknown } };
    expect(whoami.status.userInfo).toEqual({ username: "bob", groups: ["dev", "system:authenticated"] });

    await fails(
      asAlice,
      ["get", "pods", "--as", "bob", "-n", "team"],
      forbidden('users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope'),
    );
    // Acting as herself is impersonation too.
    await fails(
      asAlice,
      ["get", "pods", "--as", "alice", "-n", "team"],
      forbidden('users "alice" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope'),
    );
  });

  it("with the impersonate verb on users named bob, alice acts as bob and no one else", async () => {
    await ok(admin, ["create", "clusterrole", "impersonate-bob", "--verb=impersonate", "--resource=users", "--resource-name=bob"]);
    await ok(admin, ["create", "clusterrolebinding", "alice-impersonates-bob", "--clusterrole=impersonate-bob", "--user=alice"]);
    await fx.untilAccess(reviewed(alice), { resourceAttributes: { verb: "impersonate", resource: "users", name: "bob" } }, true);

    const whoami = JSON.parse(await ok(asAlice, ["auth", "whoami", "--as", "bob", "-o", "json"])) as { status: { userInfo: unknown } };
    expect(whoami.status.userInfo).toEqual({ username: "bob", groups: ["system:authenticated"] });
    // Bob has no group when impersonated without one, so not dev's view either.
    await fails(
      asAlice,
      ["get", "pods", "--as", "bob", "-n", "other"],
      forbidden('pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "other"'),
    );
    await fails(
      asAlice,
      ["get", "pods", "--as", "carol", "-n", "team"],
      forbidden('users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope'),
    );
    // A group needs its own impersonate right.
    await fails(
      asAlice,
      ["get", "pods", "--as", "bob", "--as-group", "dev", "-n", "other"],
      forbidden('groups "dev" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope'),
    );
  });
});

describe("escalation prevention", () => {
  let asAlice: Kubectl;
  const grantNotHeld = (resource: string, name: string, lines: readonly string[]) =>
    `${resource}.rbac.authorization.k8s.io "${name}" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n${lines.join("\n")}`;

  beforeAll(async () => {
    asAlice = await fx.kubectl(alice);
    await ok(admin, ["create", "rolebinding", "alice-admin", "--clusterrole=admin", "--user=alice", "-n", "alice-ns"]);
    await fx.untilAccess(
      reviewed(alice),
      { resourceAttributes: { verb: "create", group: "rbac.authorization.k8s.io", resource: "roles", namespace: "alice-ns" } },
      true,
    );
  });

  it("alice, admin of her namespace, creates a Role with rules she holds, not one with rules she lacks", async () => {
    expect(await ok(asAlice, ["create", "role", "cm-editor", "--verb=get,list,create", "--resource=configmaps,secrets", "-n", "alice-ns"])).toBe(
      "role.rbac.authorization.k8s.io/cm-editor created\n",
    );
    await fails(
      asAlice,
      ["create", "role", "node-reader", "--verb=get", "--resource=nodes", "-n", "alice-ns"],
      forbidden(grantNotHeld("roles", "node-reader", ['{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}'])),
    );
    // Outside her namespace she may not create roles at all: the request is refused before the rules are looked at.
    await fails(
      asAlice,
      ["create", "role", "secret-reader", "--verb=get", "--resource=secrets", "-n", "team"],
      forbidden(
        'roles.rbac.authorization.k8s.io is forbidden: User "alice" cannot create resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "team"',
      ),
    );
    await fails(
      asAlice,
      ["create", "clusterrole", "secret-reader", "--verb=get", "--resource=secrets"],
      forbidden(
        'clusterroles.rbac.authorization.k8s.io is forbidden: User "alice" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
      ),
    );
  });

  it("with create on roles in team and on clusterroles, alice still cannot grant secrets there; the 403 names the missing rules", async () => {
    await ok(admin, [
      "create",
      "role",
      "rbac-writer",
      "--verb=create",
      "--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io",
      "-n",
      "team",
    ]);
    await ok(admin, ["create", "rolebinding", "alice-rbac-writer", "--role=rbac-writer", "--user=alice", "-n", "team"]);
    await ok(admin, ["create", "clusterrole", "clusterrole-writer", "--verb=create", "--resource=clusterroles.rbac.authorization.k8s.io"]);
    await ok(admin, ["create", "clusterrolebinding", "alice-clusterrole-writer", "--clusterrole=clusterrole-writer", "--user=alice"]);
    await fx.untilAccess(
      reviewed(alice),
      { resourceAttributes: { verb: "create", group: "rbac.authorization.k8s.io", resource: "roles", namespace: "team" } },
      true,
    );
    await fx.untilAccess(reviewed(alice), { resourceAttributes: { verb: "create", group: "rbac.authorization.k8s.io", resource: "clusterroles" } }, true);

    // Secrets she reads in alice-ns only, not in team nor cluster-wide.
    await fails(
      asAlice,
      ["create", "role", "secret-reader", "--verb=get,list", "--resource=secrets", "-n", "team"],
      forbidden(grantNotHeld("roles", "secret-reader", ['{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}'])),
    );
    await fails(
      asAlice,
      ["create", "clusterrole", "secret-reader", "--verb=get", "--resource=secrets"],
      forbidden(grantNotHeld("clusterroles", "secret-reader", ['{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}'])),
    );
    // Rules she does hold there are fine: pods in team (pod-reader), reviews everywhere (system:basic-user).
    expect(await ok(asAlice, ["create", "role", "pod-lister", "--verb=list", "--resource=pods", "-n", "team"])).toBe(
      "role.rbac.authorization.k8s.io/pod-lister created\n",
    );
    expect(await ok(asAlice, ["create", "clusterrole", "self-reviewer", "--verb=create", "--resource=selfsubjectaccessreviews.authorization.k8s.io"])).toBe(
      "clusterrole.rbac.authorization.k8s.io/self-reviewer created\n",
    );
  });

  it("a RoleBinding to cluster-admin is refused; binding view needs the rules of view or bind on it", async () => {
    const bindingNotHeld = (name: string, lines: readonly string[]) => `error: failed to create rolebinding: ${grantNotHeld("rolebindings", name, lines)}\n`;
    await fails(
      asAlice,
      ["create", "rolebinding", "alice-root", "--clusterrole=cluster-admin", "--user=alice", "-n", "alice-ns"],
      bindingNotHeld("alice-root", ['{APIGroups:["*"], Resources:["*"], Verbs:["*"]}', '{NonResourceURLs:["*"], Verbs:["*"]}']),
    );
    // In her namespace admin holds every rule of view.
    expect(await ok(asAlice, ["create", "rolebinding", "carol-view", "--clusterrole=view", "--user=carol", "-n", "alice-ns"])).toBe(
      "rolebinding.rbac.authorization.k8s.io/carol-view created\n",
    );
    // In team she holds pod-reader only: binding view there grants what she lacks.
    const res = await asAlice(["create", "rolebinding", "carol-view", "--clusterrole=view", "--user=carol", "-n", "team"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`error: failed to create rolebinding: ${grantNotHeld("rolebindings", "carol-view", [])}`);
    expect(res.stderr).toContain('\n{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list" "watch"]}\n');
    expect(res.stderr).not.toContain('Resources:["pods"], Verbs');

    // bind on the ClusterRole view (by name) lets her bind view, and only view.
    await ok(admin, ["create", "-f", "-"], {
      input: JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "bind-view" },
        rules: [{ apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], resourceNames: ["view"], verbs: ["bind"] }],
      }),
    });
    await ok(admin, ["create", "rolebinding", "alice-bind-view", "--clusterrole=bind-view", "--user=alice", "-n", "team"]);
    await fx.untilAccess(
      reviewed(alice),
      { resourceAttributes: { verb: "bind", group: "rbac.authorization.k8s.io", resource: "clusterroles", name: "view", namespace: "team" } },
      true,
    );
    expect(await ok(asAlice, ["create", "rolebinding", "carol-view", "--clusterrole=view", "--user=carol", "-n", "team"])).toBe(
      "rolebinding.rbac.authorization.k8s.io/carol-view created\n",
    );
    const edit = await asAlice(["create", "rolebinding", "carol-edit", "--clusterrole=edit", "--user=carol", "-n", "team"]);
    expect(edit.code).toBe(1);
    expect(edit.stderr).toContain(`error: failed to create rolebinding: ${grantNotHeld("rolebindings", "carol-edit", [])}`);
    await fails(
      asAlice,
      ["create", "rolebinding", "alice-root", "--clusterrole=cluster-admin", "--user=alice", "-n", "alice-ns"],
      bindingNotHeld("alice-root", ['{APIGroups:["*"], Resources:["*"], Verbs:["*"]}', '{NonResourceURLs:["*"], Verbs:["*"]}']),
    );

    // The binding alice made works for carol.
    await fx.untilAccess(reviewed(carol), { resourceAttributes: { verb: "list", resource: "configmaps", namespace: "team" } }, true);
    expect(await ok(await fx.kubectl(carol), ["get", "pods", "-n", "team", "-o", "name"])).toBe("pod/web\n");
  });
});

describe("ClusterRole aggregation", () => {
  const widgetRule = { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get"] };

  async function rulesOf(name: string): Promise<unknown[]> {
    return (JSON.parse(await ok(admin, ["get", "clusterrole", name, "-o", "json"])) as { rules?: unknown[] }).rules ?? [];
  }

  it("a ClusterRole labelled aggregate-to-view adds its rules to view (and so to edit and admin); deleting it takes them away", async () => {
    expect(await rulesOf("view")).not.toContainEqual(widgetRule);
    await ok(admin, ["create", "-f", "-"], {
      input: JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "widget-viewer", labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } },
        rules: [widgetRule],
      }),
    });
    let view: unknown[] = [];
    await until(
      async () => (view = await rulesOf("view")).some((r) => JSON.stringify(r) === JSON.stringify(widgetRule)),
      () => `view to include ${JSON.stringify(widgetRule)}: ${JSON.stringify(view)}`,
    );
    expect(await rulesOf("edit")).toContainEqual(widgetRule);
    expect(await rulesOf("admin")).toContainEqual(widgetRule);
    // bob is in dev, bound to view cluster-wide.
    await fx.untilAccess(reviewed(bob), { resourceAttributes: { verb: "get", group: "example.com", resource: "widgets", namespace: "other" } }, true);
    await fx.untilAccess(reviewed(bob), { resourceAttributes: { verb: "list", group: "example.com", resource: "widgets", namespace: "other" } }, false);

    expect(await ok(admin, ["delete", "clusterrole", "widget-viewer"])).toBe('clusterrole.rbac.authorization.k8s.io "widget-viewer" deleted\n');
    await until(
      async () => !(view = await rulesOf("view")).some((r) => JSON.stringify(r) === JSON.stringify(widgetRule)),
      () => `view to lose ${JSON.stringify(widgetRule)}: ${JSON.stringify(view)}`,
    );
    expect(await rulesOf("admin")).not.toContainEqual(widgetRule);
    await fx.untilAccess(reviewed(bob), { resourceAttributes: { verb: "get", group: "example.com", resource: "widgets", namespace: "other" } }, false);
  });
});
