/**
 * HorizontalPodAutoscaler through the server in both versions: `autoscaling/v2` stored and
 * preferred, `autoscaling/v1` served beside it, and an object written in one read (and written
 * back) through the other without losing what only v2 can say.
 */
import { APIServer } from "@orch/server";
import { describe, expect, it } from "vitest";

async function call(server: APIServer, method: string, url: string, body?: unknown) {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json", accept: "application/json" }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : "";
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const path = (v: string) => `/apis/autoscaling/${v}/namespaces/default/horizontalpodautoscalers`;
const pods = { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } };

describe("HorizontalPodAutoscaler in autoscaling/v1 and v2", () => {
  it("lists both versions in discovery, v2 preferred", async () => {
    const server = new APIServer({ admission: [] });
    const group = await call(server, "GET", "/apis/autoscaling");
    expect(group.status).toBe(200);
    expect(group.json.versions.map((v: { version: string }) => v.version)).toEqual(["v2", "v1"]);
    expect(group.json.preferredVersion.version).toBe("v2");
  });

  it("reads a v2 object through v1 with its v2-only fields in annotations, and a v1 write-back keeps them", async () => {
    const server = new APIServer({ admission: [] });
    const created = await call(server, "POST", path("v2"), {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        maxReplicas: 5,
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } }, pods],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const v1 = await call(server, "GET", `${path("v1")}/web`);
    expect(v1.json.apiVersion).toBe("autoscaling/v1");
    expect(v1.json.spec).toEqual({
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: 1,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 60,
    });
    expect(JSON.parse(v1.json.metadata.annotations["autoscaling.alpha.orch.io/metrics"])).toEqual([pods]);
    expect(JSON.parse(v1.json.metadata.annotations["autoscaling.alpha.orch.io/behavior"])).toMatchObject({ scaleDown: { stabilizationWindowSeconds: 60 } });
    const put = await call(server, "PUT", `${path("v1")}/web`, { ...v1.json, spec: { ...v1.json.spec, maxReplicas: 7 } });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    const v2 = await call(server, "GET", `${path("v2")}/web`);
    expect(v2.json.spec.maxReplicas).toBe(7);
    expect(v2.json.spec.metrics).toEqual([pods, { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } }]);
    expect(v2.json.spec.behavior).toEqual(created.json.spec.behavior);
    expect(v2.json.metadata.annotations).toBeUndefined();
  });

  it("names the v1 annotations after the reference's domain under --domain k8s.io", async () => {
    const server = new APIServer({ admission: [], domain: "k8s.io" });
    const created = await call(server, "POST", path("v2"), {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web" },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 5, metrics: [pods] },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const v1 = await call(server, "GET", `${path("v1")}/web`);
    expect(Object.keys(v1.json.metadata.annotations)).toEqual(["autoscaling.alpha.kubernetes.io/metrics"]);
    const list = await call(server, "GET", path("v1"));
    expect(Object.keys(list.json.items[0].metadata.annotations)).toEqual(["autoscaling.alpha.kubernetes.io/metrics"]);
  });

  it("defaults a v1 object without a CPU target to 80% as v2 does", async () => {
    const server = new APIServer({ admission: [] });
    const created = await call(server, "POST", path("v1"), {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "plain" },
      spec: { scaleTargetRef: { kind: "Deployment", name: "web" }, maxReplicas: 3 },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.spec).toMatchObject({ minReplicas: 1, targetCPUUtilizationPercentage: 80 });
    expect(created.json.metadata.annotations).toBeUndefined();
  });
});
