/**
 * A LIST's body is written by the Node adapter as its parts (the list framing and each item's
 * cached bytes) in slices, never joined: over real HTTP the bytes and `Content-Length` must be
 * those of the body an in-process caller reads whole.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve, type ServedServer } from "@orch/node";
import { APIServer } from "@orch/server";

const server = new APIServer({ admission: [] });
let served: ServedServer;
const encoder = new TextEncoder();
/** Enough objects, with 2-, 3- and 4-byte characters, for a body of several 64 KiB slices. */
const count = 300;

async function post(url: string, body: unknown): Promise<void> {
  const res = await server.handle({
    method: "POST",
    url,
    headers: new Headers({ "content-type": "application/json" }),
    body: encoder.encode(JSON.stringify(body)),
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  await post("/api/v1/namespaces", { metadata: { name: "wire" } });
  for (let i = 0; i < count; i++) {
    await post("/api/v1/namespaces/wire/configmaps", {
      metadata: { name: `cm-${String(i).padStart(3, "0")}` },
      data: { text: `ünïcödé € 😀 ${i} `.repeat(20) },
    });
  }
  served = await serve(server, { port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await served.close();
  await server.shutdown();
});

function get(path: string): Promise<{ status: number; length: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${served.url}${path}`, { agent: false, headers: { accept: "application/json" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, length: res.headers["content-length"], body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** The body of the same LIST read in-process, whole. */
async function inProcess(path: string): Promise<string> {
  const res = await server.handle({ method: "GET", url: path, headers: new Headers({ accept: "application/json" }) });
  return String(res.body);
}

describe("a LIST body over HTTP", () => {
  it("is the in-process body byte for byte, with its Content-Length, whole and in pages", async () => {
    const path = "/api/v1/namespaces/wire/configmaps";
    const whole = await get(path);
    expect(whole.status).toBe(200);
    expect(whole.body.byteLength).toBeGreaterThan(3 * 64 * 1024);
    expect(whole.length).toBe(String(whole.body.byteLength));
    expect(whole.body.toString("utf8")).toBe(await inProcess(path));
    const list = JSON.parse(whole.body.toString("utf8")) as { items: { metadata: { name: string } }[] };
    expect(list.items).toHaveLength(count);

    const names: string[] = [];
    let next = "";
    do {
      const page = `${path}?limit=120${next ? `&continue=${encodeURIComponent(next)}` : ""}`;
      const got = await get(page);
      expect(got.length).toBe(String(got.body.byteLength));
      const text = got.body.toString("utf8");
      expect(text).toBe(await inProcess(page));
      const chunk = JSON.parse(text) as { metadata: { continue?: string }; items: { metadata: { name: string } }[] };
      names.push(...chunk.items.map((item) => item.metadata.name));
      next = chunk.metadata.continue ?? "";
    } while (next);
    expect(names).toEqual(list.items.map((item) => item.metadata.name));
  });
});
