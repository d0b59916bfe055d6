import { afterAll, describe, expect, it } from "vitest";
import { APIServer } from "../api-server.js";
import type { AuditEvent } from "../audit/event.js";
import { serveFetch } from "../serve-fetch.js";

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

describe("list body as parts", () => {
  const utf8 = new TextEncoder();
  /** Data with 2-, 3- and 4-byte characters, so that bytes and characters differ. */
  const data = (i: number) => ({ key: `välue ${i} € 😀`.repeat(1 + (i % 3)) });

  async function filled(server: APIServer, namespace: string, count: number): Promise<void> {
    const post = (url: string, body: unknown) =>
      server.handle({ method: "POST", url, headers: new Headers({ "content-type": "application/json" }), body: utf8.encode(JSON.stringify(body)) });
    expect((await post("/api/v1/namespaces", { metadata: { name: namespace } })).status).toBe(201);
    for (let i = 0; i < count; i++) {
      expect((await post(`/api/v1/namespaces/${namespace}/configmaps`, { metadata: { name: `cm-${i}` }, data: data(i) })).status).toBe(201);
    }
  }

  const get = (server: APIServer, url: string, accept = "application/json") => server.handle({ method: "GET", url, headers: new Headers({ accept }) });

  /** The text of the parts of `res`, which must be a body of parts. */
  function partsText(res: Awaited<ReturnType<typeof get>>): string {
    const parts = res.bodyParts;
    if (!parts) throw new Error("the list body is not made of parts");
    expect(parts.parts.reduce((n, p) => n + p.byteLength, 0)).toBe(parts.byteLength);
    const all = new Uint8Array(parts.byteLength);
    let offset = 0;
    for (const part of parts.parts) {
      all.set(part, offset);
      offset += part.byteLength;
    }
    return new TextDecoder().decode(all);
  }

  it("is byte for byte the list framing around each object's GET body, with and without limit and continue", async () => {
    await filled(server, "parted", 5);
    const objects: string[] = [];
    for (let i = 0; i < 5; i++) {
      const one = await get(server, `/api/v1/namespaces/parted/configmaps/cm-${i}`);
      objects.push(String(one.body));
    }
    const whole = await get(server, "/api/v1/namespaces/parted/configmaps");
    const text = partsText(whole);
    const rv = (JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    expect(text).toBe(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"${rv}"},"items":[${objects.join(",")}]}`);
    expect(whole.bodyParts?.byteLength).toBe(utf8.encode(text).byteLength);
    // `body` is the same text, joined when read.
    expect(whole.body).toBe(text);

    const pages: string[] = [];
    let next = "";
    do {
      const page = await get(server, `/api/v1/namespaces/parted/configmaps?limit=2${next ? `&continue=${encodeURIComponent(next)}` : ""}`);
      const pageText = partsText(page);
      const list = JSON.parse(pageText) as { metadata: Record<string, unknown>; items: unknown[] };
      expect(pageText).toBe(
        `{"kind":"ConfigMapList","apiVersion":"v1","metadata":${JSON.stringify(list.metadata)},"items":[${objects.slice(pages.length * 2, pages.length * 2 + 2).join(",")}]}`,
      );
      expect(page.bodyParts?.byteLength).toBe(utf8.encode(pageText).byteLength);
      pages.push(pageText);
      next = typeof list.metadata["continue"] === "string" ? list.metadata["continue"] : "";
    } while (next);
    expect(pages).toHaveLength(3);
  });

  it("is made of each object's converted bytes in a version that is not the storage version", async () => {
    const hpa = (name: string) => ({
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name },
        maxReplicas: 3,
        metrics: [{ type: "Pods", pods: { metric: { name: "q€" }, target: { type: "AverageValue", averageValue: "1" } } }],
      },
    });
    await namespaceWith("parted-hpa", 0);
    for (const name of ["a", "b"]) {
      const created = await server.handle({
        method: "POST",
        url: "/apis/autoscaling/v2/namespaces/parted-hpa/horizontalpodautoscalers",
        headers: new Headers({ "content-type": "application/json" }),
        body: utf8.encode(JSON.stringify(hpa(name))),
      });
      expect(created.status).toBe(201);
    }
    const base = "/apis/autoscaling/v1/namespaces/parted-hpa/horizontalpodautoscalers";
    const objects = [String((await get(server, `${base}/a`)).body), String((await get(server, `${base}/b`)).body)];
    // The v1 conversion keeps the v2-only metrics in an annotation.
    expect(objects[0]).toContain('"apiVersion":"autoscaling/v1"');
    expect(objects[0]).toContain("autoscaling.alpha.orch.io/metrics");
    for (let round = 0; round < 2; round++) {
      const listed = await get(server, base);
      const text = partsText(listed);
      const rv = (JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      expect(text).toBe(
        `{"kind":"HorizontalPodAutoscalerList","apiVersion":"autoscaling/v1","metadata":{"resourceVersion":"${rv}"},"items":[${objects.join(",")}]}`,
      );
      expect(listed.bodyParts?.byteLength).toBe(utf8.encode(text).byteLength);
      expect(listed.body).toBe(text);
    }
  });

  it("answers an empty list as parts too", async () => {
    await namespaceWith("parted-empty", 0);
    const text = partsText(await get(server, "/api/v1/namespaces/parted-empty/configmaps"));
    expect(JSON.parse(text)).toMatchObject({ kind: "ConfigMapList", items: [] });
    expect(text.endsWith('"items":[]}')).toBe(true);
  });

  it("keeps pretty, YAML and Table lists whole, and a protobuf-first list JSON parts", async () => {
    await filled(server, "parted-other", 2);
    const url = "/api/v1/namespaces/parted-other/configmaps";
    const plain = JSON.parse(String((await get(server, url)).body)) as unknown;
    const pretty = await get(server, `${url}?pretty=true`);
    expect(pretty.bodyParts).toBeUndefined();
    expect(JSON.parse(String(pretty.body))).toEqual(plain);
    const yaml = await get(server, url, "application/yaml");
    expect(yaml.bodyParts).toBeUndefined();
    expect(String(yaml.body)).toContain("kind: ConfigMapList");
    const table = await get(server, url, "application/json;as=Table;v=v1;g=meta.k8s.io");
    expect(table.bodyParts).toBeUndefined();
    expect(JSON.parse(String(table.body))).toMatchObject({ kind: "Table", rows: [{}, {}] });
    const protobufFirst = await get(server, url, "application/vnd.kubernetes.protobuf,application/json");
    expect(protobufFirst.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(partsText(protobufFirst))).toEqual(plain);
  });

  it("drops the parts when a stage assigns the body", async () => {
    await filled(server, "parted-assigned", 1);
    const res = await get(server, "/api/v1/namespaces/parted-assigned/configmaps");
    expect(res.bodyParts).toBeDefined();
    res.body = "{}";
    expect(res.bodyParts).toBeUndefined();
    expect(res.body).toBe("{}");
  });

  it("is recorded whole as the responseObject of a RequestResponse audit event", async () => {
    const events: AuditEvent[] = [];
    const audited = new APIServer({
      admission: [],
      audit: { policy: { rules: [{ level: "RequestResponse" }] }, sink: { write: (batch) => void events.push(...batch) } },
    });
    try {
      await filled(audited, "audited", 3);
      const res = await get(audited, "/api/v1/namespaces/audited/configmaps");
      const text = partsText(res);
      const complete = events.find((e) => e.stage === "ResponseComplete" && e.verb === "list");
      expect(complete?.responseObject).toEqual(JSON.parse(text));
    } finally {
      await audited.shutdown();
    }
  });

  it("reaches a serveFetch client byte for byte", async () => {
    await filled(server, "parted-fetch", 4);
    const url = "/api/v1/namespaces/parted-fetch/configmaps";
    const expected = partsText(await get(server, url));
    const res = await serveFetch(server, new Request(`http://localhost${url}`, { headers: { accept: "application/json" } }));
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(utf8.encode(expected));
    const head = await serveFetch(server, new Request(`http://localhost${url}`, { method: "HEAD" }));
    expect(await head.text()).toBe("");
  });
});
