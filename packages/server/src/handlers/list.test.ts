import { afterAll, describe, expect, it } from "vitest";
import { APIServer } from "../api-server.js";

const server = new APIServer({ admission: [] });
afterAll(() => server.shutdown());

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json", accept: "application/json" }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : res.body ? new TextDecoder().decode(res.body) : "";
  return { status: res.status, text };
}

async function namespaceWith(name: string, count: number): Promise<void> {
  expect((await call("POST", "/api/v1/namespaces", { metadata: { name } })).status).toBe(201);
  for (let i = 0; i < count; i++) {
    const created = await call("POST", `/api/v1/namespaces/${name}/configmaps`, { metadata: { name: `cm-${i}` }, data: { key: `value ${i}` } });
    expect(created.status).toBe(201);
  }
}

describe("list body", () => {
  it.each([0, 1, 3])("is compact JSON holding each of %i objects once, in name order", async (count) => {
    await namespaceWith(`listed-${count}`, count);
    const { status, text } = await call("GET", `/api/v1/namespaces/listed-${count}/configmaps`);
    expect(status).toBe(200);
    const list = JSON.parse(text) as { kind: string; apiVersion: string; items: { metadata: { name: string }; data: { key: string } }[] };
    // Joined from each object's stored JSON, it reads back as the same compact text.
    expect(JSON.stringify(list)).toBe(text);
    expect(list.kind).toBe("ConfigMapList");
    expect(list.apiVersion).toBe("v1");
    expect(list.items.map((item) => [item.metadata.name, item.data.key])).toEqual(Array.from({ length: count }, (_, i) => [`cm-${i}`, `value ${i}`]));
  });

  it("keeps the list metadata of a chunk (continue, remainingItemCount) ahead of its items", async () => {
    await namespaceWith("chunked", 3);
    const { text } = await call("GET", "/api/v1/namespaces/chunked/configmaps?limit=2");
    const list = JSON.parse(text) as { metadata: { continue?: string; remainingItemCount?: number }; items: unknown[] };
    expect(JSON.stringify(list)).toBe(text);
    expect(list.items).toHaveLength(2);
    expect(list.metadata.remainingItemCount).toBe(1);
    expect(typeof list.metadata.continue).toBe("string");
  });
});
