import { describe, expect, it } from "vitest";
import { unauthorized } from "@orch/meta";
import { APIServer } from "../api-server.js";
import type { APIResponse } from "../api-request.js";
import type { AuditEvent, AuditSink } from "../audit/event.js";
import { parseAuditPolicy, type AuditPolicy } from "../audit/policy.js";
import { auditStages } from "./audit-stage.js";
import { withRequestInfo } from "./request-info-stage.js";
import { chain, type ServerRequest } from "./stage.js";

const admin = { name: "admin", groups: ["system:masters", "system:authenticated"] };

function recordingSink(): AuditSink & { events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return { events, write: (batch) => events.push(...batch) };
}

const policy = parseAuditPolicy(
  `apiVersion: audit.orch.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: RequestResponse
    resources: [{group: "", resources: ["configmaps"]}]
  - level: Request
    verbs: [create]
  - level: Metadata
`,
  "orch.io",
);

function serverWith(p: AuditPolicy = policy) {
  const sink = recordingSink();
  const server = new APIServer({ audit: { policy: p, sink } });
  return { server, sink };
}

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

function req(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): ServerRequest {
  const r: ServerRequest = { method, url, headers: new Headers({ "content-type": "application/json", "user-agent": "test/1", ...headers }), user: admin };
  if (body !== undefined) r.body = json(body);
  return r;
}

describe("auditStages in APIServer", () => {
  it("records RequestResponse with both bodies, the object reference and the final code", async () => {
    const { server, sink } = serverWith();
    const res = await server.handle(req("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "cm" }, data: { a: "1" } }));
    expect(res.status).toBe(201);
    const [received, complete] = sink.events;
    expect(sink.events.map((e) => e.stage)).toEqual(["RequestReceived", "ResponseComplete"]);
    expect(received).toMatchObject({
      kind: "Event",
      apiVersion: "audit.orch.io/v1",
      level: "RequestResponse",
      stage: "RequestReceived",
      requestURI: "/api/v1/namespaces/default/configmaps",
      verb: "create",
      user: admin,
      userAgent: "test/1",
      objectRef: { resource: "configmaps", namespace: "default", name: "cm", apiVersion: "v1" },
      requestObject: { metadata: { name: "cm" }, data: { a: "1" } },
    });
    expect(received?.responseObject).toBeUndefined();
    expect(complete).toMatchObject({ stage: "ResponseComplete", responseStatus: { metadata: {}, code: 201 }, responseObject: { kind: "ConfigMap" } });
    expect(complete?.auditID).toBe(received?.auditID);
    expect(res.headers.get("audit-id")).toBe(received?.auditID);
    expect(complete?.requestReceivedTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it("records Request level with the request body only, Metadata with none, and None not at all", async () => {
    const { server, sink } = serverWith();
    await server.handle(req("POST", "/api/v1/namespaces", { metadata: { name: "team" } }));
    await server.handle(req("GET", "/api/v1/namespaces/team"));
    await server.handle(req("GET", "/healthz"));
    const [created, , got] = sink.events;
    expect(created).toMatchObject({ level: "Request", requestObject: { metadata: { name: "team" } } });
    expect(sink.events[1]?.responseObject).toBeUndefined();
    expect(got).toMatchObject({ level: "Metadata", verb: "get", objectRef: { resource: "namespaces", name: "team" } });
    expect(got?.requestObject).toBeUndefined();
    expect(sink.events.some((e) => e.requestURI === "/healthz")).toBe(false);
    expect(sink.events).toHaveLength(4);
  });

  it("records Secrets at Metadata even where a wildcard rule says RequestResponse", async () => {
    const { server, sink } = serverWith({ rules: [{ level: "RequestResponse" }] });
    await server.handle(req("POST", "/api/v1/namespaces/default/secrets", { metadata: { name: "s" }, stringData: { password: "hunter2" } }));
    expect(sink.events.map((e) => e.level)).toEqual(["Metadata", "Metadata"]);
    expect(JSON.stringify(sink.events)).not.toContain("hunter2");
  });

  it("records failures with the Status's reason and message", async () => {
    const { server, sink } = serverWith();
    const res = await server.handle(req("GET", "/api/v1/namespaces/default/configmaps/missing"));
    expect(res.status).toBe(404);
    expect(sink.events[1]?.responseStatus).toEqual({
      metadata: {},
      code: 404,
      status: "Failure",
      reason: "NotFound",
      message: 'configmaps "missing" not found',
    });
    expect(sink.events[1]?.responseObject).toMatchObject({ kind: "Status", code: 404 });
  });

  it("keeps both identities of an impersonated request", async () => {
    const { server, sink } = serverWith();
    await server.handle(req("GET", "/api/v1/namespaces/default/pods", undefined, { "Impersonate-User": "bob", "Impersonate-Group": "dev" }));
    const [received, complete] = sink.events;
    expect(received?.user).toEqual(admin);
    expect(complete?.user).toEqual(admin);
    expect(complete?.impersonatedUser).toEqual({ name: "bob", groups: ["dev", "system:authenticated"] });
  });

  it("records ResponseStarted when a watch starts and ResponseComplete when it ends", async () => {
    const { server, sink } = serverWith();
    const abort = new AbortController();
    const r = req("GET", "/api/v1/namespaces/default/configmaps?watch=1");
    r.signal = abort.signal;
    const res = await server.handle(r);
    expect(sink.events.map((e) => e.stage)).toEqual(["RequestReceived", "ResponseStarted"]);
    expect(sink.events[1]).toMatchObject({ verb: "watch", responseStatus: { code: 200 } });
    abort.abort();
    for await (const chunk of res.stream ?? []) void chunk;
    expect(sink.events.map((e) => e.stage)).toEqual(["RequestReceived", "ResponseStarted", "ResponseComplete"]);
  });

  it("records a 401 with an empty user", async () => {
    const sink = recordingSink();
    const server = new APIServer({ anonymousAuth: false, audit: { policy, sink } });
    const res = await server.handle({ method: "GET", url: "/api/v1/namespaces", headers: new Headers() });
    expect(res.status).toBe(401);
    expect(sink.events).toMatchObject([{ stage: "ResponseComplete", user: {}, level: "Metadata", responseStatus: { code: 401, reason: "Unauthorized" } }]);
  });
});

describe("auditStages alone", () => {
  const ok = async (): Promise<APIResponse> => ({ status: 200, headers: new Headers(), body: "{}" });

  it("omits the stages the policy omits and takes the caller's Audit-ID", async () => {
    const sink = recordingSink();
    const { audit } = auditStages({ policy: { omitStages: ["RequestReceived"], rules: [{ level: "Metadata" }] }, sink, domain: "k8s.io" });
    await chain([withRequestInfo, audit], ok)(req("GET", "/version", undefined, { "Audit-ID": "abc" }));
    expect(sink.events).toMatchObject([{ apiVersion: "audit.k8s.io/v1", stage: "ResponseComplete", auditID: "abc", verb: "get", requestURI: "/version" }]);
    expect(sink.events[0]?.objectRef).toBeUndefined();
  });

  it("records Panic for a handler that throws something other than a Status, and rethrows it", async () => {
    const sink = recordingSink();
    const { audit } = auditStages({ policy: { rules: [{ level: "Metadata" }] }, sink, domain: "orch.io", newID: () => "x" });
    const boom = new Error("boom");
    await expect(chain([withRequestInfo, audit], () => Promise.reject(boom))(req("GET", "/version"))).rejects.toBe(boom);
    expect(sink.events.map((e) => [e.stage, e.responseStatus?.code])).toEqual([
      ["RequestReceived", undefined],
      ["Panic", 500],
    ]);
  });

  it("turns a Status thrown by a later stage into the response it records", async () => {
    const sink = recordingSink();
    const { audit } = auditStages({ policy: { rules: [{ level: "Metadata" }] }, sink, domain: "orch.io" });
    const res = await chain([withRequestInfo, audit], () => Promise.reject(unauthorized()))(req("GET", "/version"));
    expect(res.status).toBe(401);
    expect(sink.events[1]?.responseStatus?.code).toBe(401);
  });

  it("serves the request when the sink throws", async () => {
    const { audit } = auditStages({
      policy: { rules: [{ level: "Metadata" }] },
      sink: {
        write: () => {
          throw new Error("full");
        },
      },
      domain: "orch.io",
    });
    expect((await chain([withRequestInfo, audit], ok)(req("GET", "/version"))).status).toBe(200);
  });
});
