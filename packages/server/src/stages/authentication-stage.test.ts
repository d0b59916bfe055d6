import { AuthenticationError, type Authenticator } from "@orch/authn";
import { describe, expect, it } from "vitest";
import type { APIResponse } from "../api-request.js";
import { withAuthentication } from "./authentication-stage.js";
import { noopMetrics } from "../metrics.js";
import { chain, type ServerRequest } from "./stage.js";

const ok = async (request: ServerRequest): Promise<APIResponse> => ({ status: 200, headers: new Headers(), body: JSON.stringify(request.user ?? null) });

function request(headers: Record<string, string> = {}): ServerRequest {
  return { method: "GET", url: "/api/v1/namespaces", headers: new Headers(headers) };
}

const alice: Authenticator = {
  authenticate: async (r) => {
    const value = r.headers.get("authorization");
    if (value === null) return undefined;
    if (value === "Bearer alice") return { user: { name: "alice", groups: ["dev"] }, audiences: ["api"] };
    throw new AuthenticationError("bad token abc");
  },
};

async function status(handler: (r: ServerRequest) => Promise<APIResponse>, r: ServerRequest): Promise<number> {
  try {
    return (await handler(r)).status;
  } catch (error) {
    return (error as { code?: number }).code ?? 500;
  }
}

describe("withAuthentication", () => {
  it("serves the user the authenticator names, with its audiences, and removes the credential", async () => {
    const r = request({ authorization: "Bearer alice" });
    const handler = chain([withAuthentication(alice)], ok);
    expect((await handler(r)).status).toBe(200);
    expect(r.user).toEqual({ name: "alice", groups: ["dev"] });
    expect(r.audiences).toEqual(["api"]);
    expect(r.headers.has("authorization")).toBe(false);
  });

  it("serves a request with no credential as system:anonymous in system:unauthenticated", async () => {
    const r = request();
    await chain([withAuthentication(alice)], ok)(r);
    expect(r.user).toEqual({ name: "system:anonymous", groups: ["system:unauthenticated"] });
  });

  it("answers 401 Unauthorized for a refused credential, never anonymous, and logs the cause only", async () => {
    const lines: string[] = [];
    const r = request({ authorization: "Bearer mallory" });
    let thrown: unknown;
    try {
      await chain([withAuthentication(alice, { log: (m) => lines.push(m) })], ok)(r);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ status: { code: 401, reason: "Unauthorized", message: "Unauthorized" } });
    expect(JSON.stringify((thrown as { status: unknown }).status)).not.toContain("bad token");
    expect(lines).toEqual([expect.stringContaining("bad token abc")]);
    expect(r.user).toBeUndefined();
  });

  it("answers 401 to a request with no credential when anonymous requests are off", async () => {
    expect(await status(chain([withAuthentication(alice, { anonymous: false })], ok), request())).toBe(401);
  });

  it("keeps the user a trusted in-process caller set, authenticating nothing", async () => {
    const r = request({ authorization: "Bearer mallory" });
    r.user = { name: "tester", groups: ["system:masters"] };
    expect((await chain([withAuthentication(alice)], ok)(r)).status).toBe(200);
    expect(r.user).toEqual({ name: "tester", groups: ["system:masters"] });
  });

  it("lets an error that is not an authentication refusal through (a fault, not a 401)", async () => {
    const broken: Authenticator = { authenticate: async () => Promise.reject(new TypeError("bug")) };
    await expect(chain([withAuthentication(broken)], ok)(request())).rejects.toThrow(TypeError);
  });
});

describe("withAuthentication metrics", () => {
  it("counts success (anonymous included), failure and error, with their durations", async () => {
    const seen: [string, number][] = [];
    const metrics = { ...noopMetrics, authenticated: (result: string, seconds: number) => void seen.push([result, seconds]) };
    let t = 0;
    const now = () => (t += 500);
    const open = chain([withAuthentication(alice, { metrics, now })], ok);
    const closed = chain([withAuthentication(alice, { anonymous: false, metrics, now })], ok);
    expect(await status(open, request({ authorization: "Bearer alice" }))).toBe(200);
    expect(await status(open, request())).toBe(200);
    expect(await status(closed, request())).toBe(401);
    expect(await status(open, request({ authorization: "Bearer mallory" }))).toBe(401);
    expect(seen).toEqual([
      ["success", 0.5],
      ["success", 0.5],
      ["failure", 0.5],
      ["error", 0.5],
    ]);
  });
});
