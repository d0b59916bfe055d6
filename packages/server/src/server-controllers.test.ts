/**
 * The `controllers` option of {@link APIServer}: each loop the server runs itself can be turned
 * off by its `--controllers` name, and stays on otherwise. Each case runs one server with every
 * loop on and one with every loop off side by side; once the first has done its work, the
 * second must not have.
 */
import { afterEach, describe, expect, it } from "vitest";
import { APIServer, serverControllerNames, type APIServerOptions } from "./api-server.js";

const servers: APIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

const allOff = Object.fromEntries(serverControllerNames.map((name) => [name, false]));

async function started(options: APIServerOptions): Promise<APIServer> {
  const server = new APIServer({ authorization: ["RBAC"], ...options });
  servers.push(server);
  await server.ready();
  return server;
}

const admin = { name: "admin", groups: ["system:masters"] };

async function call(server: APIServer, method: string, url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json" }),
    user: admin,
    ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : res.body ? new TextDecoder().decode(res.body) : "";
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Polls `check` every 10 ms until it holds; fails after 5 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met within 5 s");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Both servers, the first with every loop on, the second with every loop off. */
async function pair(): Promise<[APIServer, APIServer]> {
  return Promise.all([started({}), started({ controllers: allOff })]);
}

describe("APIServer controllers option", () => {
  it("names the four loops the server runs itself", () => {
    expect(serverControllerNames).toEqual(["namespace", "serviceaccount", "resourcequota", "clusterrole-aggregation"]);
  });

  it("serviceaccount: off, a new namespace gets no default ServiceAccount", async () => {
    const servers = await pair();
    for (const s of servers) expect((await call(s, "POST", "/api/v1/namespaces", { metadata: { name: "team" } })).status).toBe(201);
    const [on, off] = servers;
    await eventually(async () => (await call(on, "GET", "/api/v1/namespaces/team/serviceaccounts/default")).status === 200);
    expect((await call(off, "GET", "/api/v1/namespaces/team/serviceaccounts/default")).status).toBe(404);
  });

  it("namespace: off, the built-in namespaces exist but a deleted namespace stays Terminating", async () => {
    const servers = await pair();
    const [on, off] = servers;
    expect((await call(off, "GET", "/api/v1/namespaces/orch-system")).status).toBe(200);
    for (const s of servers) {
      expect((await call(s, "POST", "/api/v1/namespaces", { metadata: { name: "gone" } })).status).toBe(201);
      expect((await call(s, "DELETE", "/api/v1/namespaces/gone")).status).toBe(200);
    }
    await eventually(async () => (await call(on, "GET", "/api/v1/namespaces/gone")).status === 404);
    const kept = await call(off, "GET", "/api/v1/namespaces/gone");
    expect(kept.status).toBe(200);
    expect(kept.json["status"]).toMatchObject({ phase: "Terminating" });
  });

  it("resourcequota: off, a quota gets no status", async () => {
    const servers = await pair();
    const quota = { metadata: { name: "q" }, spec: { hard: { configmaps: "5" } } };
    for (const s of servers) expect((await call(s, "POST", "/api/v1/namespaces/default/resourcequotas", quota)).status).toBe(201);
    const [on, off] = servers;
    await eventually(async () => (await call(on, "GET", "/api/v1/namespaces/default/resourcequotas/q")).json["status"] !== undefined);
    expect((await call(off, "GET", "/api/v1/namespaces/default/resourcequotas/q")).json["status"]).toBeUndefined();
  });

  it("clusterrole-aggregation: off, a labelled ClusterRole is not aggregated into view", async () => {
    const servers = await pair();
    const rbac = "/apis/rbac.authorization.orch.io/v1/clusterroles";
    const widgets = {
      metadata: { name: "widget-viewer", labels: { "rbac.authorization.orch.io/aggregate-to-view": "true" } },
      rules: [{ apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get"] }],
    };
    for (const s of servers) expect((await call(s, "POST", rbac, widgets)).status).toBe(201);
    const aggregated = async (s: APIServer) => JSON.stringify((await call(s, "GET", `${rbac}/view`)).json["rules"] ?? []).includes("widgets");
    const [on, off] = servers;
    await eventually(() => aggregated(on));
    expect(await aggregated(off)).toBe(false);
  });
});
