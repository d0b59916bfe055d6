import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp } from "./main.js";

describe("Express example", () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it("keeps the app's own routes", async () => {
    const res = await fetch(`${app.url}/hello`);
    expect(await res.json()).toEqual({ hello: "from express" });
  });

  it("keeps the app's body parser working for its own routes", async () => {
    const res = await fetch(`${app.url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
    expect(await res.json()).toEqual({ a: 1 });
  });

  it("serves writes behind express.json(): a create it parsed, then a merge patch it skipped", async () => {
    const created = await fetch(`${app.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "behind-parser" }, data: { mode: "fast" } }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ metadata: { name: "behind-parser" }, data: { mode: "fast" } });
    const patched = await fetch(`${app.url}/api/v1/namespaces/default/configmaps/behind-parser`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ data: { mode: "safe", extra: "1" } }),
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ data: { mode: "safe", extra: "1" } });
    const invalid = await fetch(`${app.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "Not_A_Name" } }),
    });
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({ kind: "Status", reason: "Invalid" });
  });

  it("serves the orch API beside them: create, then read back over HTTP", async () => {
    const created = await fetch(`${app.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "from-express" }, data: { a: "1" } }),
    });
    expect(created.status).toBe(201);
    const got = await fetch(`${app.url}/api/v1/namespaces/default/configmaps/from-express`);
    expect(await got.json()).toMatchObject({ kind: "ConfigMap", metadata: { name: "from-express" }, data: { a: "1" } });
    const missing = await fetch(`${app.url}/api/v1/namespaces/default/configmaps/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ kind: "Status", reason: "NotFound" });
  });
});
