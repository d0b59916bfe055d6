import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import { AuthenticationError } from "./authenticator.js";
import type { HTTPClient, HTTPRequest, HTTPResponse } from "./http-client.js";
import { tokenWebhookAuthenticator, type TokenWebhookOptions } from "./token-webhook.js";

const server = "https://webhook.example:8443/authenticate";

interface Seen {
  url: string;
  request: HTTPRequest;
  /** The request body, parsed. */
  json: unknown;
}

type Answer = HTTPResponse | "hang" | Error;

/**
 * A fake webhook: records each request and answers through `answer` (a response, an Error to
 * reject with, or "hang" for a webhook that never answers and ignores the abort signal).
 */
function fakeWebhook(answer: (json: { spec: { token: string; audiences?: string[] } }, seen: Seen) => Answer | Promise<Answer>) {
  const seen: Seen[] = [];
  const waiters: Array<() => void> = [];
  const http: HTTPClient = async (url, request) => {
    const json = JSON.parse(request.body as string) as { spec: { token: string; audiences?: string[] } };
    const s = { url, request, json };
    seen.push(s);
    for (const w of waiters.splice(0)) w();
    const a = await answer(json, s);
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

function review(status: unknown, apiVersion = "authentication.orch.io/v1beta1"): HTTPResponse {
  return respond(200, { apiVersion, kind: "TokenReview", status });
}

const alice = { authenticated: true, user: { username: "alice", uid: "42", groups: ["dev", "ops"], extra: { scopes: ["read", "write"] } } };

/** A webhook that accepts the token `good` as alice and refuses every other token. */
function aliceWebhook(apiVersion?: string) {
  return fakeWebhook((json) => review(json.spec.token === "good" ? alice : { authenticated: false, error: "unknown token" }, apiVersion));
}

function setup(options: Partial<TokenWebhookOptions> & { http: HTTPClient }) {
  const clock = new FakeClock();
  const logs: string[] = [];
  const authenticator = tokenWebhookAuthenticator({ server, clock, log: (m) => logs.push(m), ...options });
  return { clock, logs, authenticator };
}

/** Waits (on real macrotasks, as hashing a token with `crypto.subtle` takes) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 1_000) throw new Error("condition never held");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function refusal(promise: Promise<unknown>): Promise<AuthenticationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthenticationError);
  return error as AuthenticationError;
}

describe("tokenWebhookAuthenticator: the TokenReview sent", () => {
  it("POSTs a v1beta1 TokenReview of authentication.orch.io with the token and JSON headers by default", async () => {
    const webhook = aliceWebhook();
    const { authenticator } = setup({ http: webhook.http });
    await authenticator.authenticateToken("good", []);
    expect(webhook.seen).toHaveLength(1);
    const [s] = webhook.seen;
    expect(s?.url).toBe(server);
    expect(s?.request.method).toBe("POST");
    expect(s?.request.headers).toEqual({ "Content-Type": "application/json", Accept: "application/json" });
    expect(s?.request.signal).toBeInstanceOf(AbortSignal);
    expect(s?.json).toEqual({ apiVersion: "authentication.orch.io/v1beta1", kind: "TokenReview", spec: { token: "good" } });
  });

  it("POSTs a v1 TokenReview of the configured domain with the audiences and the config's bearer token", async () => {
    const webhook = fakeWebhook(() => review(alice, "authentication.example.com/v1"));
    const { authenticator } = setup({ http: webhook.http, domain: "example.com", version: "v1", bearerToken: "webhook-secret" });
    await authenticator.authenticateToken("good", ["api", "vault"]);
    const [s] = webhook.seen;
    expect(s?.request.headers).toEqual({ "Content-Type": "application/json", Accept: "application/json", Authorization: "Bearer webhook-secret" });
    expect(s?.json).toEqual({ apiVersion: "authentication.example.com/v1", kind: "TokenReview", spec: { token: "good", audiences: ["api", "vault"] } });
  });

  it("refuses a server that is not an absolute http(s) URL when it is built", () => {
    const { http } = aliceWebhook();
    expect(() => tokenWebhookAuthenticator({ server: "/authenticate", http })).toThrow(/not an absolute URL/);
    expect(() => tokenWebhookAuthenticator({ server: "ftp://webhook.example/", http })).toThrow(/not an http\(s\) URL/);
  });
});

describe("tokenWebhookAuthenticator: the webhook's answer", () => {
  it("maps an authenticated TokenReview to the user: username, uid, groups, extra; no audiences when none were asked for", async () => {
    const { authenticator } = setup({ http: aliceWebhook().http });
    expect(await authenticator.authenticateToken("good", [])).toEqual({
      user: { name: "alice", uid: "42", groups: ["dev", "ops"], extra: { scopes: ["read", "write"] } },
    });
  });

  it("gives a user without uid, groups or extra when the webhook names only the username", async () => {
    const { authenticator } = setup({ http: fakeWebhook(() => review({ authenticated: true, user: { username: "bob", uid: "", groups: null } })).http });
    const result = await authenticator.authenticateToken("t", []);
    expect(result).toStrictEqual({ user: { name: "bob", groups: [] } });
  });

  it("refuses the token with the webhook's status.error when it answers authenticated: false", async () => {
    const { authenticator, logs } = setup({ http: aliceWebhook().http });
    const error = await refusal(authenticator.authenticateToken("bad", []));
    expect(error.message).toBe("token webhook: unknown token");
    expect(logs).toEqual([]);
  });

  it("refuses the token with a generic message when authenticated: false comes without an error (or without a status)", async () => {
    const webhook = fakeWebhook((json) => review(json.spec.token === "a" ? { authenticated: false } : undefined));
    const { authenticator } = setup({ http: webhook.http });
    expect((await refusal(authenticator.authenticateToken("a", []))).message).toBe("token webhook: token not authenticated");
    expect((await refusal(authenticator.authenticateToken("b", []))).message).toBe("token webhook: token not authenticated");
  });

  it.each([
    ["a body that is not JSON", respond(200, "<html>oops</html>"), /token webhook: the answer is not JSON/],
    ["a JSON array", respond(200, "[]"), /the answer is not a JSON object/],
    ["HTTP 500", respond(500, "internal error"), /token webhook: answered HTTP 500: internal error/],
    ["HTTP 401", respond(401, ""), /answered HTTP 401$/],
    [
      "another apiVersion",
      review(alice, "authentication.orch.io/v1"),
      /not a authentication\.orch\.io\/v1beta1 TokenReview \(got kind "TokenReview", apiVersion "authentication\.orch\.io\/v1"\)/,
    ],
    [
      "another kind",
      respond(200, { apiVersion: "authentication.orch.io/v1beta1", kind: "SubjectAccessReview", status: alice }),
      /got kind "SubjectAccessReview"/,
    ],
    [
      "authenticated: true without a username",
      review({ authenticated: true, user: { username: "", groups: ["dev"] } }),
      /malformed TokenReview status: status\.user\.username is missing or empty/,
    ],
    ["authenticated: true without a user", review({ authenticated: true }), /status\.user is missing/],
    ["groups that are not strings", review({ authenticated: true, user: { username: "a", groups: [1] } }), /status\.user\.groups is not a list of strings/],
    [
      "extra values that are not lists",
      review({ authenticated: true, user: { username: "a", extra: { k: "v" } } }),
      /status\.user\.extra\["k"\] is not a list of strings/,
    ],
    ["authenticated that is not a boolean", review({ authenticated: "true", user: { username: "a" } }), /status\.authenticated is not a boolean/],
  ])("refuses the token, logs the webhook and the cause, and does not cache it, for %s", async (_name, response, message) => {
    const webhook = fakeWebhook(() => response);
    const { authenticator, logs } = setup({ http: webhook.http });
    const error = await refusal(authenticator.authenticateToken("good", []));
    expect(error.message).toMatch(message);
    expect(logs).toEqual([`token webhook ${server}: ${error.message.slice("token webhook: ".length)}`]);
    await refusal(authenticator.authenticateToken("good", []));
    expect(webhook.seen).toHaveLength(2);
    expect(authenticator.cacheStats().entries).toBe(0);
  });

  it("refuses the token and logs the cause when the webhook cannot be reached", async () => {
    const webhook = fakeWebhook(() => new Error("connect ECONNREFUSED 10.0.0.1:8443"));
    const { authenticator, logs } = setup({ http: webhook.http });
    const error = await refusal(authenticator.authenticateToken("good", []));
    expect(error.message).toBe("token webhook: request failed: connect ECONNREFUSED 10.0.0.1:8443");
    expect(logs).toEqual([`token webhook ${server}: request failed: connect ECONNREFUSED 10.0.0.1:8443`]);
  });

  it("refuses the token when the webhook does not answer within timeoutMs of the clock, aborting the request", async () => {
    const webhook = fakeWebhook(() => "hang");
    const { authenticator, clock, logs } = setup({ http: webhook.http, timeoutMs: 5_000 });
    const pending = refusal(authenticator.authenticateToken("good", []));
    await webhook.requests(1);
    clock.advance(4_999);
    expect(webhook.seen[0]?.request.signal?.aborted).toBe(false);
    clock.advance(1);
    const error = await pending;
    expect(error.message).toBe("token webhook: no answer within 5000 ms");
    expect(webhook.seen[0]?.request.signal?.aborted).toBe(true);
    expect(logs).toEqual([`token webhook ${server}: no answer within 5000 ms`]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("gives up after the default 10 s deadline", async () => {
    const webhook = fakeWebhook(() => "hang");
    const { authenticator, clock } = setup({ http: webhook.http });
    const pending = refusal(authenticator.authenticateToken("good", []));
    await webhook.requests(1);
    clock.advance(10_000);
    expect((await pending).message).toBe("token webhook: no answer within 10000 ms");
  });

  it("cancels the deadline timer once the webhook answers", async () => {
    const { authenticator, clock } = setup({ http: aliceWebhook().http });
    await authenticator.authenticateToken("good", []);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe("tokenWebhookAuthenticator: audiences", () => {
  function audienceWebhook(audiences: string[] | undefined) {
    return fakeWebhook(() => review({ ...alice, ...(audiences ? { audiences } : {}) }));
  }

  it("gives the audiences both the caller asked for and the webhook named, in the caller's order", async () => {
    const { authenticator } = setup({ http: audienceWebhook(["vault", "other", "api"]).http });
    const result = await authenticator.authenticateToken("good", ["api", "vault", "db"]);
    expect(result?.audiences).toEqual(["api", "vault"]);
  });

  it("gives every audience asked for when the webhook names none", async () => {
    const { authenticator } = setup({ http: audienceWebhook(undefined).http });
    expect((await authenticator.authenticateToken("good", ["api", "vault"]))?.audiences).toEqual(["api", "vault"]);
  });

  it("refuses the token when the webhook's audiences and the caller's have none in common, and caches that refusal", async () => {
    const webhook = audienceWebhook(["other"]);
    const { authenticator, logs } = setup({ http: webhook.http });
    const error = await refusal(authenticator.authenticateToken("good", ["api"]));
    expect(error.message).toBe("token webhook: the token is valid for other, none of the audiences api");
    await refusal(authenticator.authenticateToken("good", ["api"]));
    expect(webhook.seen).toHaveLength(1);
    expect(logs).toEqual([]);
  });

  it("does not check the webhook's audiences when the caller asks for none", async () => {
    const { authenticator } = setup({ http: audienceWebhook(["other"]).http });
    expect(await authenticator.authenticateToken("good", [])).toEqual({ user: expect.objectContaining({ name: "alice" }) });
  });

  it("caches per audience list: the same token with other audiences asks the webhook again", async () => {
    const webhook = audienceWebhook(undefined);
    const { authenticator } = setup({ http: webhook.http });
    await authenticator.authenticateToken("good", ["api"]);
    await authenticator.authenticateToken("good", ["vault"]);
    await authenticator.authenticateToken("good", ["api"]);
    expect(webhook.seen.map((s) => s.json)).toEqual([
      expect.objectContaining({ spec: { token: "good", audiences: ["api"] } }),
      expect.objectContaining({ spec: { token: "good", audiences: ["vault"] } }),
    ]);
  });
});

describe("tokenWebhookAuthenticator: the cache", () => {
  it("answers an accepted token from the cache for 2 minutes by default, then asks the webhook again", async () => {
    const webhook = aliceWebhook();
    const { authenticator, clock } = setup({ http: webhook.http });
    await authenticator.authenticateToken("good", []);
    clock.advance(119_999);
    expect((await authenticator.authenticateToken("good", []))?.user.name).toBe("alice");
    expect(webhook.seen).toHaveLength(1);
    expect(authenticator.cacheStats()).toEqual({ entries: 1, hits: 1, misses: 1, webhookCalls: 1 });
    clock.advance(1);
    expect(authenticator.cacheStats().entries).toBe(0);
    expect((await authenticator.authenticateToken("good", []))?.user.name).toBe("alice");
    expect(webhook.seen).toHaveLength(2);
  });

  it("keeps accepted tokens for cacheTTLMs when it is set", async () => {
    const webhook = aliceWebhook();
    const { authenticator, clock } = setup({ http: webhook.http, cacheTTLMs: 1_000 });
    await authenticator.authenticateToken("good", []);
    clock.advance(999);
    await authenticator.authenticateToken("good", []);
    expect(webhook.seen).toHaveLength(1);
    clock.advance(1);
    await authenticator.authenticateToken("good", []);
    expect(webhook.seen).toHaveLength(2);
  });

  it("caches a denial for 30 s by default, shorter than an acceptance", async () => {
    const webhook = aliceWebhook();
    const { authenticator, clock } = setup({ http: webhook.http });
    await refusal(authenticator.authenticateToken("bad", []));
    clock.advance(29_999);
    expect((await refusal(authenticator.authenticateToken("bad", []))).message).toBe("token webhook: unknown token");
    expect(webhook.seen).toHaveLength(1);
    clock.advance(1);
    await refusal(authenticator.authenticateToken("bad", []));
    expect(webhook.seen).toHaveLength(2);
  });

  it("keeps denials for failureCacheTTLMs when it is set", async () => {
    const webhook = aliceWebhook();
    const { authenticator, clock } = setup({ http: webhook.http, failureCacheTTLMs: 5_000 });
    await refusal(authenticator.authenticateToken("bad", []));
    clock.advance(4_999);
    await refusal(authenticator.authenticateToken("bad", []));
    expect(webhook.seen).toHaveLength(1);
    clock.advance(1);
    await refusal(authenticator.authenticateToken("bad", []));
    expect(webhook.seen).toHaveLength(2);
  });

  it("caches nothing when both TTLs are 0", async () => {
    const webhook = aliceWebhook();
    const { authenticator } = setup({ http: webhook.http, cacheTTLMs: 0, failureCacheTTLMs: 0 });
    await authenticator.authenticateToken("good", []);
    await authenticator.authenticateToken("good", []);
    await refusal(authenticator.authenticateToken("bad", []));
    await refusal(authenticator.authenticateToken("bad", []));
    expect(webhook.seen).toHaveLength(4);
  });

  it("does not cache a failed call: the next call reaches the webhook, and its answer is cached", async () => {
    let failing = true;
    const webhook = fakeWebhook(() => (failing ? respond(503, "") : review(alice)));
    const { authenticator } = setup({ http: webhook.http });
    await refusal(authenticator.authenticateToken("good", []));
    failing = false;
    expect((await authenticator.authenticateToken("good", []))?.user.name).toBe("alice");
    await authenticator.authenticateToken("good", []);
    expect(webhook.seen).toHaveLength(2);
  });

  it("keeps at most maxCacheEntries decisions, dropping the oldest", async () => {
    const webhook = fakeWebhook(() => review(alice));
    const { authenticator } = setup({ http: webhook.http, maxCacheEntries: 2 });
    for (const token of ["a", "b", "c"]) await authenticator.authenticateToken(token, []);
    expect(authenticator.cacheStats().entries).toBe(2);
    await authenticator.authenticateToken("c", []);
    await authenticator.authenticateToken("b", []);
    expect(webhook.seen).toHaveLength(3);
    await authenticator.authenticateToken("a", []);
    expect(webhook.seen).toHaveLength(4);
  });

  it("gives every caller a fresh result: changing one does not change what the cache gives next", async () => {
    const { authenticator } = setup({ http: aliceWebhook().http });
    const first = await authenticator.authenticateToken("good", ["api"]);
    first!.user.groups.push("system:masters");
    first!.user.extra!["scopes"]!.push("admin");
    first!.user.name = "mallory";
    first!.audiences!.push("vault");
    expect(await authenticator.authenticateToken("good", ["api"])).toEqual({
      user: { name: "alice", uid: "42", groups: ["dev", "ops"], extra: { scopes: ["read", "write"] } },
      audiences: ["api"],
    });
  });
});

describe("tokenWebhookAuthenticator: concurrent calls", () => {
  function gatedWebhook() {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const webhook = fakeWebhook(async (json) => {
      await gate;
      return review(json.spec.token === "good" ? alice : { authenticated: false, error: "unknown token" });
    });
    return { ...webhook, open: () => open() };
  }

  it("shares one webhook call among identical calls made while it is under way, each getting its own result", async () => {
    const webhook = gatedWebhook();
    const { authenticator } = setup({ http: webhook.http });
    const calls = [
      authenticator.authenticateToken("good", ["api"]),
      authenticator.authenticateToken("good", ["api"]),
      authenticator.authenticateToken("good", ["api"]),
    ];
    await until(() => authenticator.cacheStats().misses === 3);
    webhook.open();
    const results = await Promise.all(calls);
    expect(webhook.seen).toHaveLength(1);
    expect(results.map((r) => r?.user.name)).toEqual(["alice", "alice", "alice"]);
    expect(results[0]).not.toBe(results[1]);
    expect(results[0]?.user).not.toBe(results[1]?.user);
    expect(authenticator.cacheStats()).toMatchObject({ misses: 3, webhookCalls: 1 });
  });

  it("shares a denial too, giving each caller its own error", async () => {
    const webhook = gatedWebhook();
    const { authenticator } = setup({ http: webhook.http });
    const calls = [refusal(authenticator.authenticateToken("bad", [])), refusal(authenticator.authenticateToken("bad", []))];
    await until(() => authenticator.cacheStats().misses === 2);
    webhook.open();
    const [a, b] = await Promise.all(calls);
    expect(webhook.seen).toHaveLength(1);
    expect(a?.message).toBe("token webhook: unknown token");
    expect(a).not.toBe(b);
  });

  it("makes separate calls for different tokens", async () => {
    const webhook = gatedWebhook();
    const { authenticator } = setup({ http: webhook.http });
    const calls = [authenticator.authenticateToken("good", []), refusal(authenticator.authenticateToken("bad", []))];
    await webhook.requests(2);
    webhook.open();
    await Promise.all(calls);
    expect(webhook.seen.map((s) => (s.json as { spec: { token: string } }).spec.token).sort()).toEqual(["bad", "good"]);
  });

  it("refuses a caller whose signal aborts at once, without cancelling the call another caller waits for", async () => {
    const webhook = gatedWebhook();
    const { authenticator } = setup({ http: webhook.http });
    const leaving = new AbortController();
    const left = refusal(authenticator.authenticateToken("good", [], leaving.signal));
    const staying = authenticator.authenticateToken("good", []);
    await until(() => authenticator.cacheStats().misses === 2);
    leaving.abort();
    expect((await left).message).toBe("token webhook: the request was cancelled");
    expect(webhook.seen[0]?.request.signal?.aborted).toBe(false);
    webhook.open();
    expect((await staying)?.user.name).toBe("alice");
    expect(webhook.seen).toHaveLength(1);
  });

  it("aborts the webhook call when its only caller goes away, without logging or caching anything", async () => {
    const webhook = fakeWebhook(() => "hang");
    const { authenticator, logs, clock } = setup({ http: webhook.http });
    const caller = new AbortController();
    const pending = refusal(authenticator.authenticateToken("good", [], caller.signal));
    await webhook.requests(1);
    caller.abort();
    expect((await pending).message).toBe("token webhook: the request was cancelled");
    expect(webhook.seen[0]?.request.signal?.aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(logs).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
    expect(authenticator.cacheStats().entries).toBe(0);
  });

  it("refuses at once, without calling the webhook, when the caller's signal is already aborted", async () => {
    const webhook = aliceWebhook();
    const { authenticator } = setup({ http: webhook.http });
    await refusal(authenticator.authenticateToken("good", [], AbortSignal.abort()));
    expect(webhook.seen).toHaveLength(0);
  });
});
