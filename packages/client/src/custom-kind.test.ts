import { isNotFound, type APIObject, type ObjectMeta } from "@orch/meta";
import { int32, kindSchema, stringMap, type ResourceType } from "@orch/resources";
import { APIServer } from "@orch/server";
import { describe, expect, expectTypeOf, it } from "vitest";
import { Client } from "./client.js";
import { inProcessTransport } from "./in-process-transport.js";
import { FakeServer, json } from "./internal/fake-server.js";
import { resourceRefOf } from "./resource-ref.js";
import type { SchemaObject } from "./schema-object.js";

const widgetV1Schema = kindSchema(
  { size: int32().optional(), labelsCopy: stringMap().optional(), status: stringMap().optional() },
  "A widget of the embedder.",
);

/** The embedder's kind, declared with `satisfies` so that its schema's type survives. */
const widgetType = {
  group: "example.{domain}",
  resource: "widgets",
  singular: "widget",
  kind: "Widget",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: widgetV1Schema, storage: true }],
  subresources: ["status"],
} satisfies ResourceType;

type Widget = SchemaObject<typeof widgetV1Schema>;
const ns = { namespace: "default" };

function setup() {
  const server = new APIServer({ resources: [widgetType] });
  return new Client({ transport: inProcessTransport(server) });
}

describe("forType: a client for the embedder's own kind, from the ResourceType the server serves", () => {
  it("creates, gets, lists, patches and deletes objects of the kind, at its storage version", async () => {
    const widgets = setup().forType(widgetType);
    expect(widgets.ref).toEqual({ group: "example.{domain}", version: "v1", resource: "widgets", kind: "Widget", namespaced: true });
    const created = await widgets.create({ metadata: { name: "w" }, size: 3 }, ns);
    expect(created).toMatchObject({ apiVersion: "example.orch.io/v1", kind: "Widget", size: 3 });
    expect((await widgets.get("w", ns)).size).toBe(3);
    expect((await widgets.list(ns)).items.map((w) => w.metadata.name)).toEqual(["w"]);
    expect((await widgets.patch("w", { size: 4 }, "merge", ns)).size).toBe(4);
    expect((await widgets.patchStatus("w", { status: { ready: "yes" } }, "merge", ns)).status).toEqual({ ready: "yes" });
    await widgets.delete("w", ns);
    await expect(widgets.get("w", ns)).rejects.toSatisfy(isNotFound);
  });

  it("is typed by the kind's schema", () => {
    const widgets = setup().forType(widgetType);
    expectTypeOf(widgets.get).returns.resolves.toEqualTypeOf<Widget>();
    expectTypeOf<Widget["size"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Widget["metadata"]>().toEqualTypeOf<ObjectMeta>();
    const _typeOnly = () =>
      // @ts-expect-error size is a number in the schema
      widgets.create({ metadata: { name: "w" }, size: "big" }, ns);
    // A type widened to ResourceType leaves a plain APIObject.
    const widened: ResourceType = widgetType;
    expectTypeOf(setup().forType(widened).get).returns.resolves.toExtend<APIObject>();
  });

  it("talks in the version asked for, and refuses one the kind does not serve", () => {
    const client = setup();
    expect(client.forType(widgetType, { version: "v1" }).apiVersion).toBe("example.orch.io/v1");
    expect(() => client.forType(widgetType, { version: "v9" })).toThrow(TypeError);
  });
});

describe("validation of answers against the kind's schema, when asked", () => {
  const answering = (body: unknown) => new Client({ transport: inProcessTransport(new FakeServer(() => json(200, body))) });
  const bad = { apiVersion: "example.orch.io/v1", kind: "Widget", metadata: { name: "w", namespace: "default" }, size: "big" };

  it("throws a 500 InternalError naming the object when the server answers one that does not match", async () => {
    const widgets = answering(bad).forType(widgetType, { validate: true });
    await expect(widgets.get("w", ns)).rejects.toMatchObject({
      status: { code: 500, reason: "InternalError", message: expect.stringContaining('a Widget "w" that does not match') },
    });
    await expect(
      answering({ metadata: {}, items: [bad] })
        .forType(widgetType, { validate: true })
        .list(ns),
    ).rejects.toMatchObject({ status: { code: 500 } });
  });

  it("trusts answers without validate, and passes the ones that match with it", async () => {
    expect((await answering(bad).forType(widgetType).get("w", ns)).size).toBe("big");
    const good = { ...bad, size: 2 };
    expect(await answering(good).forType(widgetType, { validate: true }).get("w", ns)).toEqual(good);
    const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 };
    expect(await answering(status).forType(widgetType, { validate: true }).delete("w", ns)).toEqual(status);
  });

  it("checks through resource(ref, schema) too, typed by the schema", async () => {
    const client = answering(bad);
    const widgets = client.resource(resourceRefOf(widgetType), widgetV1Schema, { validate: true });
    expectTypeOf(widgets.get).returns.resolves.toEqualTypeOf<Widget>();
    await expect(widgets.get("w", ns)).rejects.toMatchObject({ status: { code: 500 } });
    expect((await client.resource(resourceRefOf(widgetType), widgetV1Schema).get("w", ns)).size).toBe("big");
  });
});
