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
  return {
    events,
    write: (batch) => {
      events.push(...batch);
    },
  };
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
      user: { username: admin.name, groups: admin.groups },
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
    // At Metadata the body is not parsed by the audit stage: the create handler names the
    // object once it has decoded it, so the events after RequestReceived carry the name.
    expect(sink.events.map((e) => e.objectRef?.name)).toEqual([undefined, "s"]);
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
    // In the reference's shape (authentication/v1 UserInfo: `username`).
    expect(received?.user).toEqual({ username: admin.name, groups: admin.groups });
    expect(complete?.user).toEqual({ username: admin.name, groups: admin.groups });
    expect(JSON.parse(JSON.stringify(complete?.impersonatedUser))).toEqual({ username: "bob", groups: ["dev", "system:authenticated"] });
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

describe("audit annotations and sources", () => {
  it("annotates the authorization decision and its reason", async () => {
    const { server, sink } = serverWith();
    await server.handle(req("GET", "/api/v1/namespaces/default/configmaps"));
    expect(sink.events[0]?.annotations).toBeUndefined();
    expect(sink.events[1]?.annotations).toMatchObject({ "authorization.orch.io/decision": "allow" });
    expect(sink.events[1]?.annotations).toHaveProperty(["authorization.orch.io/reason"]);
  });

  it("annotates a refused request as forbid", async () => {
    const sink = recordingSink();
    const server = new APIServer({ authorization: ["RBAC"], audit: { policy, sink } });
    const r = req("GET", "/api/v1/namespaces/default/configmaps");
    r.user = { name: "nobody", groups: ["system:authenticated"] };
    const res = await server.handle(r);
    expect(res.status).toBe(403);
    expect(sink.events[1]?.annotations).toMatchObject({ "authorization.orch.io/decision": "forbid" });
  });

  it("records the annotations admission plugins add", async () => {
    const sink = recordingSink();
    const server = new APIServer({
      admission: [{ name: "stamp", admit: (attrs) => void (attrs.auditAnnotations["stamp.example.com/seen"] = attrs.name) }],
      audit: { policy, sink },
    });
    const res = await server.handle(req("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "cm" } }));
    expect(res.status).toBe(201);
    expect(sink.events[1]?.annotations).toMatchObject({ "stamp.example.com/seen": "cm" });
  });

  it("records PodSecurity's annotations on a pod write", async () => {
    const sink = recordingSink();
    const server = new APIServer({ admission: ["PodSecurity"], audit: { policy, sink } });
    const pod = { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx" }] } };
    const res = await server.handle(req("POST", "/api/v1/namespaces/default/pods", pod));
    expect(res.status, typeof res.body === "string" ? res.body : new TextDecoder().decode(res.body)).toBe(201);
    expect(sink.events[1]?.annotations).toMatchObject({ "pod-security.orch.io/enforce-policy": "privileged:latest" });
  });

  it("annotates a request through a deprecated version with the release that removes it", async () => {
    const { server, sink } = serverWith();
    const res = await server.handle(req("GET", "/apis/admissionregistration.orch.io/v1beta1/validatingwebhookconfigurations"));
    expect(res.status).toBe(200);
    expect(sink.events[1]?.annotations).toMatchObject({ "orch.io/deprecated": "true", "orch.io/removed-release": "1.22" });
  });

  it("lists X-Forwarded-For, then X-Real-Ip, then the peer address as sourceIPs", async () => {
    const { server, sink } = serverWith();
    const r = req("GET", "/api/v1/namespaces", undefined, { "X-Forwarded-For": "10.0.0.1, 10.0.0.2", "X-Real-Ip": "10.0.0.3" });
    r.remoteAddress = "127.0.0.1";
    await server.handle(r);
    expect(sink.events[0]?.sourceIPs).toEqual(["10.0.0.1", "10.0.0.2", "10.0.0.3", "127.0.0.1"]);
    const plain = req("GET", "/api/v1/namespaces");
    plain.remoteAddress = "::1";
    await server.handle(plain);
    expect(sink.events[2]?.sourceIPs).toEqual(["::1"]);
  });

  it("fails a request whose RequestReceived event a strict sink could not take", async () => {
    const sink: AuditSink = { write: (events) => (events[0]?.stage === "RequestReceived" ? Promise.reject(new Error("down")) : Promise.resolve()) };
    const server = new APIServer({ audit: { policy, sink } });
    const res = await server.handle(req("GET", "/api/v1/namespaces"));
    expect(res.status).toBe(500);
  });

  it("waits for a blocking sink before serving the request", async () => {
    const order: string[] = [];
    const sink: AuditSink = {
      write: async (events) => {
        await Promise.resolve();
        order.push(events[0]?.stage ?? "");
      },
    };
    const server = new APIServer({ audit: { policy, sink } });
    await server.handle(req("GET", "/api/v1/namespaces"));
    expect(order).toEqual(["RequestReceived", "ResponseComplete"]);
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

  it("gives a ResponseStarted event the annotations of its moment, and ResponseComplete all of them", async () => {
    const sink = recordingSink();
    const { audit } = auditStages({ policy: { rules: [{ level: "Metadata" }] }, sink, domain: "orch.io" });
    const watch = async (request: ServerRequest): Promise<APIResponse> => {
      request.auditAnnotations!["example.com/before"] = "1";
      return {
        status: 200,
        headers: new Headers(),
        stream: (async function* () {
          request.auditAnnotations!["example.com/during"] = "2";
          yield "{}\n";
        })(),
      };
    };
    const res = await chain([withRequestInfo, audit], watch)(req("GET", "/api/v1/namespaces/default/configmaps?watch=1"));
    for await (const chunk of res.stream ?? []) void chunk;
    expect(sink.events.map((e) => [e.stage, e.annotations])).toEqual([
      ["RequestReceived", undefined],
      ["ResponseStarted", { "example.com/before": "1" }],
      ["ResponseComplete", { "example.com/before": "1", "example.com/during": "2" }],
    ]);
  });

  it("leaves the fields an event does not have out of its JSON", async () => {
    const sink = recordingSink();
    const { audit } = auditStages({ policy: { rules: [{ level: "Metadata" }] }, sink, domain: "orch.io", newID: () => "x" });
    await chain([withRequestInfo, audit], ok)(req("GET", "/version"));
    const line = JSON.parse(JSON.stringify(sink.events[1])) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual([
      "kind",
      "apiVersion",
      "level",
      "auditID",
      "stage",
      "requestURI",
      "verb",
      "user",
      "userAgent",
      "responseStatus",
      "requestReceivedTimestamp",
      "stageTimestamp",
    ]);
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
