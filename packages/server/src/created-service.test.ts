import { describe, expect, it } from "vitest";
import { APIServer } from "./api-server.js";

async function call(server: APIServer, method: string, url: string, body?: string) {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json" }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(body) }),
  });
  const text = typeof res.body === "string" ? res.body : "";
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

describe("a Service created by POST", () => {
  it("carries the empty status and leaves the fields the server allocates unowned", async () => {
    const server = new APIServer();
    const body = { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } };
    const res = await call(server, "POST", "/api/v1/namespaces/default/services?fieldManager=kubectl-create", JSON.stringify(body));
    expect(res.status).toBe(201);
    expect(res.json.status).toEqual({ loadBalancer: {} });
    expect(res.json.spec).toMatchObject({
      clusterIP: expect.any(String),
      clusterIPs: [expect.any(String)],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
    });
    const [entry, ...others] = res.json.metadata.managedFields;
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ manager: "kubectl-create", operation: "Update" });
    const spec = entry.fieldsV1["f:spec"];
    // What the request set and what defaulting added are the caller's; allocations are not.
    expect(Object.keys(spec).sort()).toEqual(["f:internalTrafficPolicy", "f:ports", "f:selector", "f:sessionAffinity", "f:type"]);
    const got = await call(server, "GET", "/api/v1/namespaces/default/services/web");
    expect(got.json.status).toEqual({ loadBalancer: {} });
  });

  it("does not record a status the create drops as the caller's", async () => {
    const server = new APIServer();
    const body = { metadata: { name: "web" }, spec: { ports: [{ port: 80 }] }, status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } };
    const res = await call(server, "POST", "/api/v1/namespaces/default/services?fieldManager=m", JSON.stringify(body));
    expect(res.status).toBe(201);
    expect(res.json.status).toEqual({ loadBalancer: {} });
    expect(res.json.metadata.managedFields[0].fieldsV1["f:status"]).toBeUndefined();
  });
});
