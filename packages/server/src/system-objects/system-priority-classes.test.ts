import { MemoryStore } from "@orch/store";
import { describe, expect, it } from "vitest";
import { APIServer } from "../api-server.js";

/** A JSON document as the tests read it: any field may be followed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads nested fields of answers it checks
type Json = Record<string, any>;

async function get(server: APIServer, url: string) {
  const res = await server.handle({ method: "GET", url, headers: new Headers() });
  return { status: res.status, json: JSON.parse(typeof res.body === "string" ? res.body : new TextDecoder().decode(res.body)) as Json };
}

describe("the system PriorityClasses", () => {
  it("exist from the start with the reference's values", async () => {
    const server = new APIServer();
    const node = await get(server, "/apis/scheduling.orch.io/v1/priorityclasses/system-node-critical");
    expect(node.json).toMatchObject({ value: 2000001000, globalDefault: false, preemptionPolicy: "PreemptLowerPriority" });
    expect(node.json.description).toBe("Used for system critical pods that must not be moved from their current node.");
    const cluster = await get(server, "/apis/scheduling.orch.io/v1/priorityclasses/system-cluster-critical");
    expect(cluster.json.value).toBe(2000000000);
  });

  it("are created once by servers starting together on one store", async () => {
    const store = new MemoryStore();
    const [a, b] = [new APIServer({ store }), new APIServer({ store })];
    await Promise.all([a.ready(), b.ready()]);
    const list = await get(a, "/apis/scheduling.orch.io/v1/priorityclasses");
    expect((list.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort()).toEqual([
      "system-cluster-critical",
      "system-node-critical",
    ]);
  });

  it("stay when the whole collection is deleted; the other classes go", async () => {
    const server = new APIServer();
    const headers = new Headers({ "content-type": "application/json" });
    const body = new TextEncoder().encode(
      JSON.stringify({ apiVersion: "scheduling.orch.io/v1", kind: "PriorityClass", metadata: { name: "batch" }, value: 100 }),
    );
    expect((await server.handle({ method: "POST", url: "/apis/scheduling.orch.io/v1/priorityclasses", headers, body })).status).toBe(201);
    const deleted = await server.handle({ method: "DELETE", url: "/apis/scheduling.orch.io/v1/priorityclasses", headers: new Headers() });
    expect(deleted.status).toBe(200);
    const list = await get(server, "/apis/scheduling.orch.io/v1/priorityclasses");
    expect((list.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort()).toEqual([
      "system-cluster-critical",
      "system-node-critical",
    ]);
  });
});
