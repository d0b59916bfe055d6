import { describe, expect, it } from "vitest";
import { anonymousRequests } from "./anonymous.js";
import { badCredentials } from "./bad-credentials.js";
import { bootstrapTokens } from "./bootstrap-tokens.js";
import { clientCertificates } from "./client-certificates.js";
import { inProcessUser } from "./in-process-user.js";
import { main } from "./main.js";
import { oidc } from "./oidc.js";
import { requestHeader } from "./request-header.js";
import { serviceAccountTokens } from "./service-account-tokens.js";
import { staticTokens } from "./static-tokens.js";
import { tokenReview } from "./token-review.js";
import { tokenWebhook } from "./token-webhook.js";

/** Runs `example` and returns what it returned and printed. */
async function run<T>(example: (log: (line: string) => void) => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const result = await example((line) => lines.push(line));
  return { result, lines };
}

describe("authentication examples", () => {
  it("client certificates: CN is the user, O the groups; another CA's or an expired certificate is 401", async () => {
    const { result, lines } = await run(clientCertificates);
    expect(result).toEqual({ username: "alice", groups: ["dev", "ops", "system:authenticated"] });
    expect(lines).toEqual(["certificate of alice: groups dev, ops, system:authenticated", "certificate from another CA: 401", "expired certificate: 401"]);
  });

  it("static tokens: the token file's user, uid and groups; an unknown token is 401", async () => {
    const { result, lines } = await run(staticTokens);
    expect(result).toEqual({ username: "alice", uid: "1001", groups: ["dev", "ops", "system:authenticated"] });
    expect(lines).toEqual(["token of alice: uid 1001, groups dev, ops, system:authenticated", "unknown token: 401 Unauthorized"]);
  });

  it("service-account tokens: the account as user; its tokens die with it", async () => {
    const { result, lines } = await run(serviceAccountTokens);
    expect(result).toMatchObject({
      username: "system:serviceaccount:default:builder",
      groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
    });
    expect(result.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines).toEqual([
      "token of system:serviceaccount:default:builder: groups system:serviceaccounts, system:serviceaccounts:default, system:authenticated",
      "token of a deleted account: 401 Unauthorized",
    ]);
  });

  it("bootstrap tokens: system:bootstrap:<id> in system:bootstrappers and the extra groups; a wrong secret is 401", async () => {
    const { result, lines } = await run(bootstrapTokens);
    expect(result).toEqual({ username: "system:bootstrap:07401b", groups: ["system:bootstrappers", "system:bootstrappers:workers", "system:authenticated"] });
    expect(lines[1]).toBe("wrong secret: 401 Unauthorized");
  });

  it("OIDC: the email claim is the user, the groups claim prefixed; an expired ID token is 401", async () => {
    const { result, lines } = await run(oidc);
    expect(result).toEqual({ username: "alice@example.com", groups: ["oidc:dev", "system:authenticated"] });
    expect(lines).toEqual(["ID token of alice@example.com: groups oidc:dev, system:authenticated", "expired ID token: 401 Unauthorized"]);
  });

  it("token webhook: the webhook's user; a token it denies is 401", async () => {
    const { result, lines } = await run(tokenWebhook);
    expect(result).toEqual({ username: "bob", uid: "42", groups: ["webhook-users", "system:authenticated"] });
    expect(lines[1]).toBe("token the webhook denies: 401 Unauthorized");
  });

  it("request header: the proxy names the user; without its certificate the headers are ignored", async () => {
    const { result, lines } = await run(requestHeader);
    expect(result.proxied).toEqual({ username: "carol", groups: ["dev", "system:authenticated"], extra: { scopes: ["read", "write"] } });
    expect(result.direct).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    expect(lines[1]).toBe("the same headers without the proxy's certificate: 201 as system:anonymous");
  });

  it("anonymous: no credential is system:anonymous, or 401 with anonymous requests off", async () => {
    const { result, lines } = await run(anonymousRequests);
    expect(result).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    expect(lines[1]).toBe("no credential, anonymous off: 401 Unauthorized");
  });

  it("in-process user: the given user, as given", async () => {
    const { result } = await run(inProcessUser);
    expect(result).toEqual({ username: "dana", uid: "7", groups: ["dev"] });
  });

  it("TokenReview: v1 and v1beta1 answer the token's user; an unknown token is not authenticated", async () => {
    const { result } = await run(tokenReview);
    const alice = { authenticated: true, user: { username: "alice", uid: "1001", groups: ["dev", "system:authenticated"] } };
    expect(result).toEqual([alice, alice, { authenticated: false }]);
  });

  it("bad credentials: every one is 401, and the log says why", async () => {
    const { result } = await run(badCredentials);
    expect(Object.keys(result.statuses)).toHaveLength(10);
    for (const [what, status] of Object.entries(result.statuses)) expect(status, what).toBe(401);
    const logged = result.logged.join("\n");
    for (const reason of [
      "empty",
      "longer than 16384 bytes",
      "not printable ASCII",
      'algorithm "none"',
      'algorithm "HS256"',
      'audiences ["vault"]',
      "no authenticator recognised it",
      "has expired",
    ]) {
      expect(logged).toContain(reason);
    }
  });

  it("main runs them all", async () => {
    const { lines } = await run(main);
    expect(lines.length).toBeGreaterThan(20);
  });
});
