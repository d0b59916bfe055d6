import { describe, expect, it } from "vitest";
import { APIServer } from "./api-server.js";

async function call(server: APIServer, method: string, url: string, body?: string, headers: Record<string, string> = {}) {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json", ...headers }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(body) }),
  });
  const text = typeof res.body === "string" ? res.body : "";
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const applyYAML = { "content-type": "application/apply-patch+yaml" };
const svcPath = "/api/v1/namespaces/default/services/web";
const deployPath = "/apis/apps/v1/namespaces/default/deployments/web";
const service = (ports: string) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n${ports}`;
const deployment = (ports: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: c\n        image: nginx\n        ports:\n${ports}`;

describe("the protocol key of port lists defaults to TCP", () => {
  it("in server-side apply of a Service, whose field set names the defaulted key", async () => {
    const server = new APIServer();
    const res = await call(server, "PATCH", `${svcPath}?fieldManager=m`, service("  - port: 80\n"), applyYAML);
    expect(res.status).toBe(201);
    expect(res.json.spec.ports).toEqual([{ port: 80, protocol: "TCP", targetPort: 80 }]);
    expect(res.json.metadata.managedFields[0].fieldsV1["f:spec"]["f:ports"]).toEqual({ 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {} } });
    const again = await call(server, "PATCH", `${svcPath}?fieldManager=m`, service("  - port: 80\n    name: a\n  - port: 81\n    name: b\n"), applyYAML);
    expect(again.status).toBe(200);
    expect(again.json.spec.ports.map((p: { protocol: string }) => p.protocol)).toEqual(["TCP", "TCP"]);
  });

  it("in server-side apply of a pod template's container ports", async () => {
    const server = new APIServer();
    const res = await call(server, "PATCH", `${deployPath}?fieldManager=m`, deployment("        - containerPort: 80\n"), applyYAML);
    expect(res.status).toBe(201);
    expect(res.json.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 80, protocol: "TCP" }]);
  });

  it("in a strategic merge patch that adds a port without protocol", async () => {
    const server = new APIServer();
    await call(server, "PATCH", `${svcPath}?fieldManager=m`, service("  - port: 80\n    name: a\n"), applyYAML);
    const res = await call(server, "PATCH", svcPath, JSON.stringify({ spec: { ports: [{ port: 81, name: "b" }] } }), {
      "content-type": "application/strategic-merge-patch+json",
    });
    expect(res.status).toBe(200);
    expect(res.json.spec.ports).toEqual([expect.objectContaining({ port: 81, protocol: "TCP" }), expect.objectContaining({ port: 80, protocol: "TCP" })]);
  });

  it("in the OpenAPI document, as the property's default", async () => {
    const server = new APIServer();
    const doc = (await call(server, "GET", "/openapi/v3/api/v1")).json;
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, { default?: unknown }> }>;
    const named = (suffix: string) => Object.entries(schemas).find(([k]) => k.endsWith(suffix))?.[1];
    expect(named(".core.v1.ServicePort")?.properties["protocol"]?.default).toBe("TCP");
    expect(named(".core.v1.ContainerPort")?.properties["protocol"]?.default).toBe("TCP");
  });
});
