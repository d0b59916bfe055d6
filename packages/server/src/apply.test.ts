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
const cmPath = "/api/v1/namespaces/default/configmaps/cfg";
const config = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n${data}`;

describe("server-side apply through PATCH", () => {
  it("creates on the first apply and records an Apply entry for the manager", async () => {
    const server = new APIServer();
    const res = await call(server, "PATCH", `${cmPath}?fieldManager=alice`, config("  a: '1'\n"), applyYAML);
    expect(res.status).toBe(201);
    expect(res.json.data).toEqual({ a: "1" });
    expect(res.json.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: "alice", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:a": {} } } }),
    ]);
  });

  it("refuses a change of another manager's field with 409 and one cause per field, unless forced", async () => {
    const server = new APIServer();
    await call(server, "PATCH", `${cmPath}?fieldManager=alice`, config("  a: '1'\n"), applyYAML);
    const conflict = await call(server, "PATCH", `${cmPath}?fieldManager=bob`, config("  a: '2'\n"), applyYAML);
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({ reason: "Conflict", details: { causes: [{ reason: "FieldManagerConflict", field: ".data.a" }] } });
    expect(conflict.json.message).toContain('conflict with "alice"');
    const forced = await call(server, "PATCH", `${cmPath}?fieldManager=bob&force=true`, config("  a: '2'\n"), applyYAML);
    expect(forced.status).toBe(200);
    expect(forced.json.data).toEqual({ a: "2" });
    expect(forced.json.metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(["bob"]);
  });

  it("removes a field the manager stops applying, and records Update entries for other writes", async () => {
    const server = new APIServer();
    await call(server, "PATCH", `${cmPath}?fieldManager=alice`, config("  a: '1'\n  b: '2'\n"), applyYAML);
    const dropped = await call(server, "PATCH", `${cmPath}?fieldManager=alice`, config("  a: '1'\n"), applyYAML);
    expect(dropped.json.data).toEqual({ a: "1" });
    const merged = await call(server, "PATCH", cmPath, JSON.stringify({ data: { c: "3" } }), {
      "content-type": "application/merge-patch+json",
      "user-agent": "kubectl/v1.32",
    });
    expect(merged.json.metadata.managedFields).toEqual(
      expect.arrayContaining([expect.objectContaining({ manager: "kubectl", operation: "Update", fieldsV1: { "f:data": { "f:c": {} } } })]),
    );
  });

  it("requires a fieldManager and refuses managedFields, another name or another kind in the body", async () => {
    const server = new APIServer();
    expect((await call(server, "PATCH", cmPath, config("  a: '1'\n"), applyYAML)).status).toBe(422);
    expect((await call(server, "PATCH", `${cmPath}?fieldManager=${"x".repeat(129)}`, config("  a: '1'\n"), applyYAML)).status).toBe(422);
    const withManaged = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  managedFields:\n  - manager: x\n`;
    expect((await call(server, "PATCH", `${cmPath}?fieldManager=a`, withManaged, applyYAML)).status).toBe(400);
    const otherName = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n`;
    expect((await call(server, "PATCH", `${cmPath}?fieldManager=a`, otherName, applyYAML)).status).toBe(400);
    const otherKind = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: cfg\n`;
    expect((await call(server, "PATCH", `${cmPath}?fieldManager=a`, otherKind, applyYAML)).status).toBe(400);
    const bomb = `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`;
    expect((await call(server, "PATCH", `${cmPath}?fieldManager=a`, bomb, applyYAML)).status).toBe(400);
    expect((await call(server, "GET", cmPath)).status).toBe(404);
  });

  it("applies under dryRun without storing", async () => {
    const server = new APIServer();
    const res = await call(server, "PATCH", `${cmPath}?fieldManager=alice&dryRun=All`, config("  a: '1'\n"), applyYAML);
    expect(res.status).toBe(201);
    expect((await call(server, "GET", cmPath)).status).toBe(404);
  });
});
