import type { Attributes, Authorizer } from "@orch/authz";
import { describe, expect, it } from "vitest";
import type { APIResponse } from "../api-request.js";
import { forbiddenError, withAuthorization } from "./authorization-stage.js";
import { withImpersonation } from "./impersonation-stage.js";
import { withRequestInfo } from "./request-info-stage.js";
import { noopMetrics } from "../metrics.js";
import { chain, type ServerRequest } from "./stage.js";

const alice = { name: "alice", groups: ["dev", "system:authenticated"] };
const ok = async (): Promise<APIResponse> => ({ status: 200, headers: new Headers() });

/** Allows what `allowed` says, recording every question. */
function recording(allowed: (a: Attributes) => boolean): Authorizer & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  return {
    asked,
    authorize: async (a) => {
      asked.push(a);
      return allowed(a) ? { decision: "allow", reason: "" } : { decision: "noOpinion", reason: "" };
    },
  };
}

function request(method: string, url: string, headers: Record<string, string> = {}): ServerRequest {
  return { method, url, headers: new Headers(headers), user: alice };
}

async function refusal(run: Promise<unknown>): Promise<{ code: number; message: string; details?: unknown }> {
  try {
    await run;
  } catch (error) {
    return (error as { status: { code: number; message: string; details?: unknown } }).status;
  }
  throw new Error("expected a refusal");
}

describe("withAuthorization", () => {
  it("asks with the request's attributes and lets an allowed request through", async () => {
    const authorizer = recording(() => true);
    const response = await chain([withRequestInfo, withAuthorization(authorizer)], ok)(request("GET", "/api/v1/namespaces/dev/pods/web/log"));
    expect(response.status).toBe(200);
    expect(authorizer.asked).toEqual([
      { user: alice, verb: "get", resourceRequest: true, apiGroup: "", apiVersion: "v1", resource: "pods", subresource: "log", namespace: "dev", name: "web" },
    ]);
  });

  it("answers 403 worded as the reference for a resource in a namespace, with details", async () => {
    const status = await refusal(
      chain([withRequestInfo, withAuthorization(recording(() => false))], ok)(request("GET", "/apis/apps/v1/namespaces/dev/deployments/web")),
    );
    expect(status).toMatchObject({
      code: 403,
      message: 'deployments.apps "web" is forbidden: User "alice" cannot get resource "deployments" in API group "apps" in the namespace "dev"',
      details: { name: "web", group: "apps", kind: "deployments" },
    });
  });

  it("words a cluster-scoped list and a non-resource path as the reference", async () => {
    const deny = recording(() => false);
    expect((await refusal(chain([withRequestInfo, withAuthorization(deny)], ok)(request("GET", "/api/v1/nodes")))).message).toBe(
      'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope',
    );
    expect((await refusal(chain([withRequestInfo, withAuthorization(deny)], ok)(request("GET", "/metrics")))).message).toBe(
      'forbidden: User "alice" cannot get path "/metrics"',
    );
  });

  it("names the object a list or watch selects with fieldSelector=metadata.name, as the reference", async () => {
    const authorizer = recording(() => true);
    await chain(
      [withRequestInfo, withAuthorization(authorizer)],
      ok,
    )(request("GET", "/api/v1/namespaces/dev/configmaps?watch=1&fieldSelector=metadata.name%3Dsettings"));
    await chain(
      [withRequestInfo, withAuthorization(authorizer)],
      ok,
    )(request("GET", "/api/v1/namespaces/dev/configmaps?fieldSelector=metadata.name!%3Dsettings"));
    expect(authorizer.asked.map((a) => [a.verb, a.name])).toEqual([
      ["watch", "settings"],
      ["list", ""],
    ]);
  });

  it("serves the health checks without asking (their paths exactly), and asks for everything else", async () => {
    const authorizer = recording(() => false);
    for (const path of ["/healthz", "/livez", "/readyz"])
      expect((await chain([withRequestInfo, withAuthorization(authorizer)], ok)(request("GET", path))).status).toBe(200);
    expect(authorizer.asked).toEqual([]);
    expect((await refusal(chain([withRequestInfo, withAuthorization(authorizer)], ok)(request("GET", "/livez/etcd")))).code).toBe(403);
  });

  it("adds the authorizer's reason after a colon", () => {
    const attributes: Attributes = { user: alice, verb: "delete", resourceRequest: true, apiGroup: "", resource: "secrets", namespace: "", name: "" };
    expect(forbiddenError(attributes, "Everything is forbidden.").message).toBe(
      'secrets is forbidden: User "alice" cannot delete resource "secrets" in API group "" at the cluster scope: Everything is forbidden.',
    );
  });
});

describe("withImpersonation", () => {
  const run = (authorizer: Authorizer, r: ServerRequest) =>
    chain([withRequestInfo, withImpersonation(authorizer, "orch.io")], async (req) => ({
      status: 200,
      headers: new Headers(),
      body: JSON.stringify({ user: req.user, by: req.impersonator }),
    }))(r);

  it("acts as the user, groups, extra and uid asked for, after checking each, and removes the headers", async () => {
    const authorizer = recording(() => true);
    const r = request("GET", "/api/v1/pods", {
      "Impersonate-User": "bob",
      "Impersonate-Group": "qa, ops",
      "Impersonate-Extra-Scopes%2Fread": "a",
      "Impersonate-Uid": "u-9",
    });
    const body = JSON.parse(String((await run(authorizer, r)).body)) as { user: unknown; by: unknown };
    expect(body).toEqual({ user: { name: "bob", uid: "u-9", groups: ["qa", "ops", "system:authenticated"], extra: { "scopes/read": ["a"] } }, by: alice });
    expect(authorizer.asked.map((a) => [a.verb, a.apiGroup, a.resource, a.subresource ?? "", a.name])).toEqual([
      ["impersonate", "", "users", "", "bob"],
      ["impersonate", "", "groups", "", "qa"],
      ["impersonate", "", "groups", "", "ops"],
      ["impersonate", "authentication.orch.io", "userextras", "scopes/read", "a"],
      ["impersonate", "authentication.orch.io", "uids", "", "u-9"],
    ]);
    expect([...r.headers.keys()].filter((k) => k.startsWith("impersonate-"))).toEqual([]);
  });

  it("gives an impersonated service account its groups, checked as serviceaccounts in its namespace", async () => {
    const authorizer = recording(() => true);
    const body = JSON.parse(String((await run(authorizer, request("GET", "/api", { "Impersonate-User": "system:serviceaccount:ci:builder" }))).body)) as {
      user: unknown;
    };
    expect(body.user).toEqual({
      name: "system:serviceaccount:ci:builder",
      groups: ["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"],
    });
    expect(authorizer.asked[0]).toMatchObject({ verb: "impersonate", resource: "serviceaccounts", namespace: "ci", name: "builder" });
  });

  it("refuses with 403 naming the caller and what it may not impersonate", async () => {
    const status = await refusal(
      run(
        recording((a) => a.resource === "users"),
        request("GET", "/api", { "Impersonate-User": "bob", "Impersonate-Group": "system:masters" }),
      ),
    );
    expect(status).toMatchObject({
      code: 403,
      message: 'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
    });
  });

  it("refuses groups, extra or uid without a user, and a bad escape, with 400", async () => {
    for (const headers of [
      { "Impersonate-Group": "qa" },
      { "Impersonate-Uid": "u" },
      { "Impersonate-Extra-x": "y" },
      { "Impersonate-User": "bob", "Impersonate-Extra-%zz": "y" },
    ]) {
      expect(
        (
          await refusal(
            run(
              recording(() => true),
              request("GET", "/api", headers),
            ),
          )
        ).code,
      ).toBe(400);
    }
  });

  it("passes a request without impersonation headers through untouched", async () => {
    const authorizer = recording(() => true);
    const body = JSON.parse(String((await run(authorizer, request("GET", "/api"))).body)) as { user: unknown; by?: unknown };
    expect(body).toEqual({ user: alice });
    expect(authorizer.asked).toEqual([]);
  });
});

describe("withAuthorization metrics and audit annotations", () => {
  it("counts allowed and denied decisions and annotates an audited request", async () => {
    const seen: string[] = [];
    const metrics = { ...noopMetrics, authorized: (decision: string) => void seen.push(decision) };
    const authorizer: Authorizer = {
      authorize: async (a) => (a.verb === "list" ? { decision: "allow", reason: "listing is fine" } : { decision: "deny", reason: "no writes" }),
    };
    const handler = chain([withRequestInfo, withAuthorization(authorizer, undefined, { domain: "k8s.io", metrics })], ok);
    const listed = request("GET", "/api/v1/namespaces");
    listed.auditAnnotations = {};
    expect((await handler(listed)).status).toBe(200);
    expect(listed.auditAnnotations).toEqual({ "authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "listing is fine" });
    const created = request("POST", "/api/v1/namespaces");
    created.auditAnnotations = {};
    expect((await refusal(handler(created))).code).toBe(403);
    expect(created.auditAnnotations).toEqual({ "authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": "no writes" });
    expect(seen).toEqual(["allowed", "denied"]);
  });

  it("counts an authorizer that fails as an error", async () => {
    const seen: string[] = [];
    const metrics = { ...noopMetrics, authorized: (decision: string) => void seen.push(decision) };
    const handler = chain([withRequestInfo, withAuthorization({ authorize: () => Promise.reject(new Error("boom")) }, undefined, { metrics })], ok);
    await expect(handler(request("GET", "/api/v1/namespaces"))).rejects.toThrow("boom");
    expect(seen).toEqual(["error"]);
  });
});
