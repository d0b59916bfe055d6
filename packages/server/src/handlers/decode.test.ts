import { kindSchema, type ResourceType } from "@orch/resources";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { APIServer } from "../api-server.js";

/** An embedder's kind whose `spec.color` is an enum, as `z.enum` declares one. */
const gadgetType: ResourceType = {
  group: "example.com",
  resource: "gadgets",
  singular: "gadget",
  kind: "Gadget",
  scope: "Namespaced",
  versions: [
    {
      name: "v1",
      storage: true,
      schema: kindSchema({ spec: z.object({ color: z.enum(["red", "blue"]).optional(), size: z.number().optional() }).optional() }, "A gadget."),
    },
  ],
};

const servers: APIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

async function call(
  server: APIServer,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<{ status: number; json: Record<string, unknown> }> {
  const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const res = await server.handle({
    method,
    url: path,
    headers: new Headers(text === undefined ? {} : { "content-type": contentType }),
    ...(text === undefined ? {} : { body: new TextEncoder().encode(text) }),
  });
  const decoded = typeof res.body === "string" ? res.body : new TextDecoder().decode(res.body);
  return { status: res.status, json: JSON.parse(decoded) as Record<string, unknown> };
}

const gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
const gadget = (color: unknown) => ({ apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "g" }, spec: { color } });
const unsupported = {
  code: 422,
  reason: "Invalid",
  message: 'Gadget.example.com "g" is invalid: spec.color: Unsupported value: "green": supported values: "red", "blue"',
  details: {
    name: "g",
    group: "example.com",
    kind: "Gadget",
    causes: [{ reason: "FieldValueNotSupported", message: 'Unsupported value: "green": supported values: "red", "blue"', field: "spec.color" }],
  },
};

describe("decoding the body of an embedder's kind", () => {
  function setup(): APIServer {
    const server = new APIServer({ resources: [gadgetType] });
    servers.push(server);
    return server;
  }

  it("answers a value outside an enum with the reference's 422 FieldValueNotSupported, on create, update, patch and apply", async () => {
    const server = setup();
    expect((await call(server, "POST", gadgets, gadget("green"))).json).toMatchObject(unsupported);
    expect((await call(server, "POST", gadgets, gadget("red"))).status).toBe(201);
    expect((await call(server, "PUT", `${gadgets}/g`, gadget("green"))).json).toMatchObject(unsupported);
    expect((await call(server, "PATCH", `${gadgets}/g`, { spec: { color: "green" } }, "application/merge-patch+json")).json).toMatchObject(unsupported);
    const apply = await call(server, "PATCH", `${gadgets}/g?fieldManager=me&force=true`, gadget("green"), "application/apply-patch+yaml");
    expect(apply.json).toMatchObject(unsupported);
    expect((await call(server, "GET", `${gadgets}/g`)).json).toMatchObject({ spec: { color: "red" } });
  });

  it("keeps the decoder's 400 for a value of the wrong JSON type", async () => {
    const res = await call(setup(), "POST", gadgets, { ...gadget("red"), spec: { size: "big" } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      reason: "BadRequest",
      message: 'Gadget in version "v1" cannot be handled as a Gadget: json: cannot unmarshal string into Go struct field Gadget.spec.size of type float64',
    });
  });

  it("publishes the kind's OpenAPI under the reversed group, with the GVK kubectl explain looks for", async () => {
    const doc = await call(setup(), "GET", "/openapi/v3/apis/example.com/v1");
    const schemas = (doc.json["components"] as { schemas: Record<string, Record<string, unknown>> }).schemas;
    expect(schemas["com.example.v1.Gadget"]).toMatchObject({
      "x-orch-group-version-kind": [{ group: "example.com", kind: "Gadget", version: "v1" }],
      "x-kubernetes-group-version-kind": [{ group: "example.com", kind: "Gadget", version: "v1" }],
    });
    expect((schemas["com.example.v1.Gadget"]?.["properties"] as Record<string, Record<string, unknown>>)["spec"]).toMatchObject({
      properties: { color: { type: "string", enum: ["red", "blue"] } },
    });
  });
});
