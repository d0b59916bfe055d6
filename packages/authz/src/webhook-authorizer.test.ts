import type { HTTPClient, HTTPRequest, HTTPResponse, UserInfo } from "@orch/authn";
import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import type { Attributes } from "./authorizer.js";
import { webhookAuthorizer, type WebhookAuthorizerOptions } from "./webhook-authorizer.js";

const server = "https://authz.example:8443/authorize";

interface Seen {
  url: string;
  request: HTTPRequest;
  /** The request body, parsed. */
  json: { apiVersion: string; kind: string; spec: Record<string, unknown> };
}

type Answer = HTTPResponse | "hang" | Error;

/**
 * A fake webhook: records each request and answers through `answer` (a response, an Error to
 * reject with, or "hang" for a webhook that never answers and ignores the abort signal).
 */
function fakeWebhook(answer: (seen: Seen) => Answer | Promise<Answer>) {
  const seen: Seen[] = [];
  const waiters: Array<() => void> = [];
  const http: HTTPClient = async (url, request) => {
    const s: Seen = { url, request, json: JSON.parse(request.body as string) as Seen["json"] };
    seen.push(s);
    for (const w of waiters.splice(0)) w();
    const a = await answer(s);
    if (a === "hang") return new Promise<HTTPResponse>(() => {});
    if (a instanceof Error) throw a;
    return a;
  };
  /** Resolves once the webhook has seen `n` requests. */
  const requests = async (n: number): Promise<void> => {
    while (seen.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { http, seen, requests };
}

function respond(status: number, body: unknown): HTTPResponse {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return { status, headers: new Headers({ "content-type": "application/json" }), body: new TextEncoder().encode(text) };
}

function review(status: unknown, apiVersion = "authorization.orch.io/v1beta1"): HTTPResponse {
  return respond(200, { apiVersion, kind: "SubjectAccessReview", status });
}

const alice: UserInfo = { name: "alice", uid: "42", groups: ["dev", "ops"], extra: { scopes: ["read", "write"] } };

function getPods(user: UserInfo = alice, name = "web"): Attributes {
  return { user, verb: "get", resourceRequest: true, apiGroup: "", apiVersion: "v1", resource: "pods", subresource: "", namespace: "dev", name };
}

function setup(options: Partial<WebhookAuthorizerOptions> & { http: HTTPClient }) {
  const clock = new FakeClock();
  const logs: string[] = [];
  const authorizer = webhookAuthorizer({ server, clock, log: (m) => logs.push(m), ...options });
  return { clock, logs, authorizer };
}

describe("webhookAuthorizer: the SubjectAccessReview sent", () => {
  it("POSTs a v1beta1 review of authorization.orch.io with the user's groups under spec.group and JSON headers by default", async () => {
    const webhook = fakeWebhook(() => review({ allowed: true }));
    const { authorizer } = setup({ http: webhook.http });
    await authorizer.authorize(getPods());
    expect(webhook.seen).toHaveLength(1);
    const [s] = webhook.seen;
    expect(s?.url).toBe(server);
    expect(s?.request.method).toBe("POST");
    expect(s?.request.headers).toEqual({ "Content-Type": "application/json", Accept: "application/json" });
    expect(s?.request.signal).toBeInstanceOf(AbortSignal);
    expect(s?.json).toEqual({
      apiVersion: "authorization.orch.io/v1beta1",
      kind: "SubjectAccessReview",
      spec: {
        resourceAttributes: { namespace: "dev", verb: "get", version: "v1", resource: "pods", name: "web" },
        user: "alice",
        group: ["dev", "ops"],
        extra: { scopes: ["read", "write"] },
        uid: "42",
      },
    });
  });

  it("POSTs a v1 review of the configured domain with the groups under spec.groups and the config's bearer token", async () => {
    const webhook = fakeWebhook(() => review({ allowed: true }, "authorization.k8s.io/v1"));
    const { authorizer } = setup({ http: webhook.http, domain: "k8s.io", version: "v1", bearerToken: "webhook-secret" });
    const attributes: Attributes = {
      user: alice,
      verb: "update",
      resourceRequest: true,
      apiGroup: "apps",
      apiVersion: "v1",
      resource: "deployments",
      subresource: "scale",
      namespace: "dev",
      name: "web",
    };
    expect((await authorizer.authorize(attributes)).decision).toBe("allow");
    const [s] = webhook.seen;
    expect(s?.request.headers).toEqual({ "Content-Type": "application/json", Accept: "application/json", Authorization: "Bearer webhook-secret" });
    expect(s?.json.apiVersion).toBe("authorization.k8s.io/v1");
    expect(s?.json.spec).toEqual({
      resourceAttributes: { namespace: "dev", verb: "update", group: "apps", version: "v1", resource: "deployments", subresource: "scale", name: "web" },
      user: "alice",
      groups: ["dev", "ops"],
      extra: { scopes: ["read", "write"] },
      uid: "42",
    });
    expect(s?.json.spec).not.toHaveProperty("group");
  });

  it("sends nonResourceAttributes with the path and verb for a non-resource request, and leaves out what the user lacks", async () => {
    const webhook = fakeWebhook(() => review({ allowed: true }));
    const { authorizer } = setup({ http: webhook.http });
    await authorizer.authorize({ user: { name: "bob", groups: [] }, verb: "get", resourceRequest: false, path: "/healthz" });
    expect(webhook.seen[0]?.json.spec).toEqual({ nonResourceAttributes: { path: "/healthz", verb: "get" }, user: "bob" });
  });

  it("refuses a bad server, version or failure policy when it is built", () => {
    const { http } = fakeWebhook(() => review({}));
    expect(() => webhookAuthorizer({ server: "/authorize", http })).toThrow(/not an absolute URL/);
    expect(() => webhookAuthorizer({ server: "ftp://authz.example/", http })).toThrow(/not an http\(s\) URL/);
    expect(() => webhookAuthorizer({ server, http, version: "v2" as "v1" })).toThrow(RangeError);
    expect(() => webhookAuthorizer({ server, http, failurePolicy: "Allow" as "Deny" })).toThrow(RangeError);
    expect(() => webhookAuthorizer({ server, http, timeoutMs: 0 })).toThrow(RangeError);
    expect(() => webhookAuthorizer({ server, http, authorizedTTLMs: -1 })).toThrow(RangeError);
  });
});

describe("webhookAuthorizer: the webhook's answer", () => {
  it("allows on status.allowed with the webhook's reason", async () => {
    const { authorizer } = setup({ http: fakeWebhook(() => review({ allowed: true, reason: "alice is an admin" })).http });
    expect(await authorizer.authorize(getPods())).toEqual({ decision: "allow", reason: "alice is an admin" });
  });

  it("denies on status.denied with the webhook's reason", async () => {
    const { authorizer } = setup({ http: fakeWebhook(() => review({ allowed: false, denied: true, reason: "not during a freeze" })).http });
    expect(await authorizer.authorize(getPods())).toEqual({ decision: "deny", reason: "not during a freeze" });
  });

  it("has no opinion when the webhook neither allows nor denies, and when the status is missing", async () => {
    const { authorizer } = setup({ http: fakeWebhook(() => review({ allowed: false, reason: "no rule matched" })).http });
    expect(await authorizer.authorize(getPods())).toEqual({ decision: "noOpinion", reason: "no rule matched" });
    const bare = setup({ http: fakeWebhook(() => respond(200, { apiVersion: "authorization.orch.io/v1beta1", kind: "SubjectAccessReview" })).http });
    expect(await bare.authorizer.authorize(getPods())).toEqual({ decision: "noOpinion", reason: "" });
  });

  it("denies with an error, and logs, when the webhook both allows and denies", async () => {
    const { authorizer, logs } = setup({ http: fakeWebhook(() => review({ allowed: true, denied: true, reason: "confused" })).http });
    const result = await authorizer.authorize(getPods());
    expect(result.decision).toBe("deny");
    expect(result.reason).toBe("confused");
    expect(result.error).toMatch(/both allowed and denied/);
    expect(logs).toHaveLength(1);
  });

  it("passes status.evaluationError on as the result's error without changing the decision", async () => {
    const { authorizer } = setup({ http: fakeWebhook(() => review({ allowed: true, evaluationError: "policy store partly unreachable" })).http });
    const result = await authorizer.authorize(getPods());
    expect(result.decision).toBe("allow");
    expect(result.error).toBe("authorization webhook: evaluation error: policy store partly unreachable");
  });

  it("reports that it cannot list a user's rules", async () => {
    const { authorizer } = setup({ http: fakeWebhook(() => review({})).http });
    expect(await authorizer.rulesFor(alice, "dev")).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: "webhook authorizer does not support user rule resolution",
    });
  });
});

describe("webhookAuthorizer: failures", () => {
  const garbage: Array<[string, HTTPResponse | Error, RegExp]> = [
    ["a failed connection", new Error("connect ECONNREFUSED"), /request failed: connect ECONNREFUSED/],
    ["an HTTP error status", respond(500, "internal trouble"), /answered HTTP 500: internal trouble/],
    ["a body that is not JSON", respond(200, "<html>"), /not JSON/],
    ["a JSON value that is not an object", respond(200, "[1,2]"), /not a JSON object/],
    ["another apiVersion", review({ allowed: true }, "authorization.orch.io/v1"), /not a authorization\.orch\.io\/v1beta1 SubjectAccessReview/],
    ["another kind", respond(200, { apiVersion: "authorization.orch.io/v1beta1", kind: "TokenReview", status: { allowed: true } }), /got kind "TokenReview"/],
    ["allowed that is not a boolean", review({ allowed: "yes" }), /status\.allowed is not a boolean/],
    ["denied that is not a boolean", review({ denied: 1 }), /status\.denied is not a boolean/],
    ["a reason that is not a string", review({ allowed: true, reason: 7 }), /status\.reason is not a string/],
    ["a status that is not an object", review("allowed"), /status is not an object/],
  ];
  for (const [what, answer, cause] of garbage) {
    it(`has no opinion, with the cause as error and a log line, on ${what}`, async () => {
      const { authorizer, logs } = setup({ http: fakeWebhook(() => answer).http });
      const result = await authorizer.authorize(getPods());
      expect(result.decision).toBe("noOpinion");
      expect(result.reason).toBe("");
      expect(result.error).toMatch(cause);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toContain(server);
      expect(logs[0]).toMatch(cause);
    });
  }

  it("denies on a failure when the failure policy is Deny", async () => {
    const { authorizer } = setup({ http: fakeWebhook(() => respond(503, "")).http, failurePolicy: "Deny" });
    const result = await authorizer.authorize(getPods());
    expect(result).toEqual({ decision: "deny", reason: "", error: "authorization webhook: answered HTTP 503" });
  });

  it("gives up on a webhook that does not answer within the timeout, aborting the request", async () => {
    const webhook = fakeWebhook(() => "hang");
    const { authorizer, clock, logs } = setup({ http: webhook.http, timeoutMs: 2_000 });
    const pending = authorizer.authorize(getPods());
    await webhook.requests(1);
    clock.advance(1_999);
    let settled = false;
    void pending.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    const result = await pending;
    expect(result.decision).toBe("noOpinion");
    expect(result.error).toBe("authorization webhook: no answer within 2000 ms");
    expect(webhook.seen[0]?.request.signal?.aborted).toBe(true);
    expect(logs).toEqual([`authorization webhook ${server}: no answer within 2000 ms`]);
  });

  it("applies the default timeout of 10 s and the Deny policy to a webhook that never answers", async () => {
    const webhook = fakeWebhook(() => "hang");
    const { authorizer, clock } = setup({ http: webhook.http, failurePolicy: "Deny" });
    const pending = authorizer.authorize(getPods());
    await webhook.requests(1);
    clock.advance(10_000);
    expect(await pending).toEqual({ decision: "deny", reason: "", error: "authorization webhook: no answer within 10000 ms" });
  });

  it("does not cache a failure: the next question asks the webhook again", async () => {
    let calls = 0;
    const webhook = fakeWebhook(() => (++calls === 1 ? respond(500, "") : review({ allowed: true })));
    const { authorizer } = setup({ http: webhook.http });
    expect((await authorizer.authorize(getPods())).decision).toBe("noOpinion");
    expect((await authorizer.authorize(getPods())).decision).toBe("allow");
    expect(webhook.seen).toHaveLength(2);
  });

  it("leaves no timer behind once the webhook has answered", async () => {
    const { authorizer, clock } = setup({ http: fakeWebhook(() => review({ allowed: true })).http });
    await authorizer.authorize(getPods());
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe("webhookAuthorizer: caching and sharing", () => {
  it("caches an allowed answer for 5 minutes by default", async () => {
    const webhook = fakeWebhook(() => review({ allowed: true }));
    const { authorizer, clock } = setup({ http: webhook.http });
    await authorizer.authorize(getPods());
    clock.advance(299_999);
    expect((await authorizer.authorize(getPods())).decision).toBe("allow");
    expect(webhook.seen).toHaveLength(1);
    clock.advance(1);
    await authorizer.authorize(getPods());
    expect(webhook.seen).toHaveLength(2);
  });

  it("caches a denied or no-opinion answer for 30 seconds by default", async () => {
    const webhook = fakeWebhook((s) => review(s.json.spec["user"] === "alice" ? { denied: true } : {}));
    const { authorizer, clock } = setup({ http: webhook.http });
    const bob: UserInfo = { name: "bob", groups: [] };
    await authorizer.authorize(getPods());
    await authorizer.authorize(getPods(bob));
    clock.advance(29_999);
    expect((await authorizer.authorize(getPods())).decision).toBe("deny");
    expect((await authorizer.authorize(getPods(bob))).decision).toBe("noOpinion");
    expect(webhook.seen).toHaveLength(2);
    clock.advance(1);
    await authorizer.authorize(getPods());
    await authorizer.authorize(getPods(bob));
    expect(webhook.seen).toHaveLength(4);
  });

  it("honours configured TTLs, 0 disabling the cache for that kind of answer", async () => {
    const webhook = fakeWebhook((s) => review({ allowed: (s.json.spec["resourceAttributes"] as { name: string }).name === "web" }));
    const { authorizer, clock } = setup({ http: webhook.http, authorizedTTLMs: 1_000, unauthorizedTTLMs: 0 });
    await authorizer.authorize(getPods(alice, "web"));
    await authorizer.authorize(getPods(alice, "db"));
    await authorizer.authorize(getPods(alice, "web"));
    await authorizer.authorize(getPods(alice, "db"));
    expect(webhook.seen.map((s) => (s.json.spec["resourceAttributes"] as { name: string }).name)).toEqual(["web", "db", "db"]);
    clock.advance(1_000);
    await authorizer.authorize(getPods(alice, "web"));
    expect(webhook.seen).toHaveLength(4);
  });

  it("keys the cache by the whole question: another user, verb or object asks again", async () => {
    const webhook = fakeWebhook(() => review({ allowed: true }));
    const { authorizer } = setup({ http: webhook.http });
    await authorizer.authorize(getPods());
    await authorizer.authorize(getPods({ ...alice, groups: ["dev"] }));
    await authorizer.authorize({ ...getPods(), verb: "delete" });
    await authorizer.authorize(getPods(alice, "db"));
    await authorizer.authorize(getPods({ name: "alice", uid: "42", groups: ["dev", "ops"], extra: { scopes: ["read", "write"] } }));
    expect(webhook.seen).toHaveLength(4);
  });

  it("does not cache questions whose names are huge", async () => {
    const webhook = fakeWebhook(() => review({ allowed: true }));
    const { authorizer } = setup({ http: webhook.http });
    const huge = getPods(alice, "x".repeat(10_000));
    await authorizer.authorize(huge);
    await authorizer.authorize(huge);
    expect(webhook.seen).toHaveLength(2);
  });

  it("shares one webhook call among identical questions asked while it is under way", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const webhook = fakeWebhook(async () => {
      await gate;
      return review({ allowed: true, reason: "ok" });
    });
    const { authorizer } = setup({ http: webhook.http });
    const first = authorizer.authorize(getPods());
    const second = authorizer.authorize(getPods());
    const other = authorizer.authorize(getPods(alice, "db"));
    await webhook.requests(2);
    release();
    const [a, b, c] = await Promise.all([first, second, other]);
    expect(webhook.seen).toHaveLength(2);
    expect(a).toEqual({ decision: "allow", reason: "ok" });
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
    expect(c?.decision).toBe("allow");
  });

  it("shares a failing call too, logging its failure once", async () => {
    const webhook = fakeWebhook(() => "hang");
    const { authorizer, clock, logs } = setup({ http: webhook.http });
    const both = Promise.all([authorizer.authorize(getPods()), authorizer.authorize(getPods())]);
    await webhook.requests(1);
    clock.advance(10_000);
    const results = await both;
    expect(results.map((r) => r.decision)).toEqual(["noOpinion", "noOpinion"]);
    expect(webhook.seen).toHaveLength(1);
    expect(logs).toHaveLength(1);
  });

  it("drops the oldest answer when the cache is full", async () => {
    const webhook = fakeWebhook(() => review({ allowed: true }));
    const { authorizer } = setup({ http: webhook.http, maxCacheEntries: 2 });
    await authorizer.authorize(getPods(alice, "a"));
    await authorizer.authorize(getPods(alice, "b"));
    await authorizer.authorize(getPods(alice, "c"));
    await authorizer.authorize(getPods(alice, "c"));
    await authorizer.authorize(getPods(alice, "b"));
    expect(webhook.seen).toHaveLength(3);
    await authorizer.authorize(getPods(alice, "a"));
    expect(webhook.seen).toHaveLength(4);
  });
});
