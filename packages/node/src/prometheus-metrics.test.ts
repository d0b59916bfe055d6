import { APIServer } from "@orch/server";
import { describe, expect, it } from "vitest";
import { prometheusMetrics } from "./prometheus-metrics.js";

const admin = { name: "admin", groups: ["system:masters", "system:authenticated"] };

describe("prometheusMetrics", () => {
  it("renders what an in-process server records, and the server serves it at /metrics", async () => {
    const metrics = prometheusMetrics();
    const server = new APIServer({ metrics });
    await server.ready();
    expect((await server.handle({ method: "GET", url: "/api/v1/namespaces", headers: new Headers(), user: admin })).status).toBe(200);
    const res = await server.handle({ method: "GET", url: "/metrics", headers: new Headers(), user: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const body = String(res.body);
    expect(body).toContain(
      'apiserver_request_total{verb="LIST",group="",version="v1",resource="namespaces",subresource="",scope="cluster",component="apiserver",code="200"} 1',
    );
    expect(body).toContain('apiserver_request_duration_seconds_bucket{le="60",verb="LIST",group="",version="v1",resource="namespaces"');
    expect(body).toContain('apiserver_current_inflight_requests{request_kind="mutating"} 0');
    expect(body).toMatch(/^apiserver_storage_objects\{resource="namespaces"\} [1-9]/m);
    expect((await metrics.render()).body).toContain("# TYPE apiserver_longrunning_requests gauge");
  });

  it("counts requests of the same labels by code, and times them all in one series", async () => {
    const metrics = prometheusMetrics();
    const labels = { verb: "GET", group: "", version: "v1", resource: "pods", subresource: "", scope: "resource" as const, component: "apiserver" };
    metrics.requestFinished(labels, 200, 0.01);
    metrics.requestFinished(labels, 404, 0.01);
    metrics.requestFinished(labels, 200, 0.01);
    metrics.requestFinished({ ...labels, resource: "secrets" }, 200, 0.01);
    const body = (await metrics.render()).body;
    const series = 'verb="GET",group="",version="v1",resource="pods",subresource="",scope="resource",component="apiserver"';
    expect(body).toContain(`apiserver_request_total{${series},code="200"} 2`);
    expect(body).toContain(`apiserver_request_total{${series},code="404"} 1`);
    expect(body).toContain(`apiserver_request_total{${series.replace("pods", "secrets")},code="200"} 1`);
    expect(body).toContain(`apiserver_request_duration_seconds_count{${series}} 3`);
  });

  it("counts every audit event once in apiserver_audit_event_total, across scrapes", async () => {
    const metrics = prometheusMetrics();
    expect((await metrics.render()).body).toMatch(/^apiserver_audit_event_total 0$/m);
    for (let i = 0; i < 3; i++) metrics.auditEvent();
    expect((await metrics.render()).body).toMatch(/^apiserver_audit_event_total 3$/m);
    expect((await metrics.render()).body).toMatch(/^apiserver_audit_event_total 3$/m);
    metrics.auditEvent();
    expect((await metrics.render()).body).toMatch(/^apiserver_audit_event_total 4$/m);
  });

  it("is refused to a caller without get on /metrics, and absent from a server without a registry", async () => {
    const guarded = new APIServer({ metrics: prometheusMetrics(), authorization: ["RBAC"] });
    await guarded.ready();
    const alice = { name: "alice", groups: ["system:authenticated"] };
    expect((await guarded.handle({ method: "GET", url: "/metrics", headers: new Headers(), user: alice })).status).toBe(403);
    const monitor = { name: "prom", groups: ["system:monitoring", "system:authenticated"] };
    expect((await guarded.handle({ method: "GET", url: "/metrics", headers: new Headers(), user: monitor })).status).toBe(200);
    expect((await guarded.handle({ method: "POST", url: "/metrics", headers: new Headers(), user: admin })).status).toBe(405);
    expect((await new APIServer().handle({ method: "GET", url: "/metrics", headers: new Headers(), user: admin })).status).toBe(404);
  });
});
