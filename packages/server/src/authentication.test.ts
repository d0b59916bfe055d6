import { parseTokenFile } from "@orch/authn";
import type { APIObject } from "@orch/meta";
import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import type { APIRequest } from "./api-request.js";
import { APIServer } from "./api-server.js";

const whoamiPath = "/apis/authentication.orch.io/v1/selfsubjectreviews";
const review = JSON.stringify({ apiVersion: "authentication.orch.io/v1", kind: "SelfSubjectReview" });

function post(path: string, body: string, headers: Record<string, string> = {}): APIRequest {
  return { method: "POST", url: path, headers: new Headers({ "content-type": "application/json", ...headers }), body: new TextEncoder().encode(body) };
}

async function json(server: APIServer, request: APIRequest): Promise<{ status: number; body: APIObject }> {
  const response = await server.handle(request);
  return { status: response.status, body: JSON.parse(String(response.body)) as APIObject };
}

const tokens = parseTokenFile('alice-token,alice,uid-1,"dev,ops"\n');

describe("APIServer authentication", () => {
  it("serves a request with no credential as system:anonymous, and SelfSubjectReview says so", async () => {
    const server = new APIServer();
    const { status, body } = await json(server, post(whoamiPath, review));
    expect(status).toBe(201);
    expect(body.status).toEqual({ userInfo: { username: "system:anonymous", groups: ["system:unauthenticated"] } });
  });

  it("authenticates a bearer token with the token authenticators it is given, adding system:authenticated", async () => {
    const server = new APIServer({ authenticators: [tokens] });
    const { body } = await json(server, post(whoamiPath, review, { authorization: "Bearer alice-token" }));
    expect(body.status).toEqual({ userInfo: { username: "alice", uid: "uid-1", groups: ["dev", "ops", "system:authenticated"] } });
  });

  it("answers 401 Unauthorized to a token nobody recognises, telling the log why and the client nothing", async () => {
    const lines: string[] = [];
    const server = new APIServer({ authenticators: [tokens], log: (line) => lines.push(line) });
    const { status, body } = await json(server, {
      method: "GET",
      url: "/api/v1/namespaces/default/secrets",
      headers: new Headers({ authorization: "Bearer mallory" }),
    });
    expect(status).toBe(401);
    expect(body).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
    expect(lines).toEqual([expect.stringContaining("Unable to authenticate the request GET /api/v1/namespaces/default/secrets: invalid bearer token")]);
  });

  it("answers 401 to a request with no credential when anonymous requests are off", async () => {
    const server = new APIServer({ anonymousAuth: false });
    expect((await server.handle({ method: "GET", url: "/version", headers: new Headers() })).status).toBe(401);
  });

  it("keeps the user a trusted in-process caller gives, and fetch() takes the same pipeline", async () => {
    const server = new APIServer({ authenticators: [tokens] });
    const asTester = await json(server, { ...post(whoamiPath, review), user: { name: "tester", groups: ["system:masters"] } });
    expect(asTester.body.status).toEqual({ userInfo: { username: "tester", groups: ["system:masters"] } });
    const viaFetch = await server.fetch(
      new Request(`http://x${whoamiPath}`, {
        method: "POST",
        body: review,
        headers: { "content-type": "application/json", authorization: "Bearer alice-token" },
      }),
    );
    expect(((await viaFetch.json()) as APIObject).status).toMatchObject({ userInfo: { username: "alice" } });
    const refused = await server.fetch(new Request(`http://x${whoamiPath}`, { method: "POST", body: review, headers: { authorization: "Bearer nope" } }));
    expect(refused.status).toBe(401);
  });

  it("verifies the service-account tokens it signs, with the account's identity, until the account is deleted", async () => {
    const server = new APIServer();
    const admin = { name: "admin", groups: ["system:masters"] };
    const sa = await json(server, { ...post("/api/v1/namespaces/default/serviceaccounts", JSON.stringify({ metadata: { name: "builder" } })), user: admin });
    expect(sa.status).toBe(201);
    const issued = await json(server, {
      ...post(
        "/api/v1/namespaces/default/serviceaccounts/builder/token",
        JSON.stringify({ apiVersion: "authentication.orch.io/v1", kind: "TokenRequest", spec: {} }),
      ),
      user: admin,
    });
    const token = (issued.body.status as { token: string }).token;
    const who = await json(server, post(whoamiPath, review, { authorization: `Bearer ${token}` }));
    expect(who.body.status).toEqual({
      userInfo: {
        username: "system:serviceaccount:default:builder",
        uid: sa.body.metadata.uid,
        groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
        extra: { "authentication.orch.io/credential-id": [expect.stringMatching(/^JTI=/)] },
      },
    });
    // TokenReview answers with the same authenticators.
    const reviewed = await json(server, { ...post("/apis/authentication.orch.io/v1/tokenreviews", JSON.stringify({ spec: { token } })), user: admin });
    expect(reviewed.body.status).toMatchObject({ authenticated: true, user: { username: "system:serviceaccount:default:builder" } });
    const beta = await json(server, {
      ...post(
        "/apis/authentication.orch.io/v1beta1/tokenreviews",
        JSON.stringify({ apiVersion: "authentication.orch.io/v1beta1", kind: "TokenReview", spec: { token: "garbage" } }),
      ),
      user: admin,
    });
    expect(beta.body).toMatchObject({ apiVersion: "authentication.orch.io/v1beta1", kind: "TokenReview", status: { authenticated: false } });
    const wrongAudience = await json(server, {
      ...post("/apis/authentication.orch.io/v1/tokenreviews", JSON.stringify({ spec: { token, audiences: ["vault"] } })),
      user: admin,
    });
    expect(wrongAudience.body.status).toMatchObject({ authenticated: false });
    // A token created before the account is deleted and first used after: refused.
    const second = await json(server, { ...post("/api/v1/namespaces/default/serviceaccounts/builder/token", JSON.stringify({ spec: {} })), user: admin });
    await server.handle({ method: "DELETE", url: "/api/v1/namespaces/default/serviceaccounts/builder", headers: new Headers(), user: admin });
    const gone = await server.handle(post(whoamiPath, review, { authorization: `Bearer ${(second.body.status as { token: string }).token}` }));
    expect(gone.status).toBe(401);
  });

  it("accepts bootstrap tokens from their Secrets when asked to, until they expire", async () => {
    const clock = new FakeClock(Date.parse("2026-06-01T00:00:00Z"));
    const server = new APIServer({ clock, bootstrapTokenAuth: true });
    const admin = { name: "admin", groups: ["system:masters"] };
    const secret = {
      metadata: { name: "bootstrap-token-abcdef", namespace: "orch-system" },
      type: "bootstrap.orch.io/token",
      stringData: { "token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true", expiration: "2026-06-02T00:00:00Z" },
    };
    expect((await server.handle({ ...post("/api/v1/namespaces/orch-system/secrets", JSON.stringify(secret)), user: admin })).status).toBe(201);
    const who = await json(server, post(whoamiPath, review, { authorization: "Bearer abcdef.0123456789abcdef" }));
    expect(who.body.status).toEqual({ userInfo: { username: "system:bootstrap:abcdef", groups: ["system:bootstrappers", "system:authenticated"] } });
    expect((await server.handle(post(whoamiPath, review, { authorization: "Bearer abcdef.0123456789abcdeX" }))).status).toBe(401);
    clock.advance(2 * 24 * 3600 * 1000);
    expect((await server.handle(post(whoamiPath, review, { authorization: "Bearer abcdef.0123456789abcdef" }))).status).toBe(401);
  });

  it("refuses a bootstrap token Secret with bad data with 422 Invalid and its field paths, on create and on update", async () => {
    const server = new APIServer();
    const admin = { name: "admin", groups: ["system:masters"] };
    const path = "/api/v1/namespaces/orch-system/secrets";
    const secret = (stringData: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "bootstrap-token-abcdef", namespace: "orch-system" },
      type: "bootstrap.orch.io/token",
      stringData: { "token-id": "abcdef", "token-secret": "0123456789abcdef", ...stringData },
    });
    const bad = { "token-id": "ABCDEF", "token-secret": "short", expiration: "soon", "usage-bootstrap-signing": "yes", "auth-extra-groups": "system:masters" };
    const causes = [
      { reason: "FieldValueInvalid", message: 'Invalid value: "ABCDEF": must match [a-z0-9]{6}', field: "data[token-id]" },
      { reason: "FieldValueInvalid", message: 'Invalid value: "<secret data>": must match [a-z0-9]{16}', field: "data[token-secret]" },
      { reason: "FieldValueInvalid", message: 'Invalid value: "soon": must be an RFC 3339 time such as 2006-01-02T15:04:05Z', field: "data[expiration]" },
      { reason: "FieldValueInvalid", message: 'Invalid value: "yes": must be "true" when present', field: "data[usage-bootstrap-signing]" },
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: "system:masters": must match ^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$',
        field: "data[auth-extra-groups]",
      },
    ];
    const created = await json(server, { ...post(path, JSON.stringify(secret(bad))), user: admin });
    expect(created.status).toBe(422);
    expect(created.body).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Invalid",
      code: 422,
      details: { name: "bootstrap-token-abcdef", kind: "Secret", causes },
    });
    expect(created.body["message"]).toContain('Secret "bootstrap-token-abcdef" is invalid: [data[token-id]: Invalid value: "ABCDEF"');

    expect((await server.handle({ ...post(path, JSON.stringify(secret({}))), user: admin })).status).toBe(201);
    const put: APIRequest = { ...post(`${path}/bootstrap-token-abcdef`, JSON.stringify(secret(bad))), method: "PUT", user: admin };
    const updated = await json(server, put);
    expect(updated.status).toBe(422);
    expect(updated.body).toMatchObject({ reason: "Invalid", details: { causes } });
  });
});
