/**
 * `orch-apiserver` when etcd does not answer at start: a clear error and a non-zero exit, or
 * readiness false until it comes, per flag. By default it exits 1 naming the endpoint;
 * with `--etcd-wait-at-start` it serves at once, live but not ready, answers requests that need
 * storage with a 503 Status, and becomes ready and serves objects once etcd comes up on the port,
 * without a restart. Every wait is bounded.
 * @module
 */
import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { startEtcd, type EtcdCluster } from "./support/etcd.js";

const servers: RunningAPIServer[] = [];
const clusters: EtcdCluster[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all(clusters.map((c) => c.stop()));
}, 60_000);

/** A loopback port nothing listens on (free a moment ago). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (address !== null && typeof address === "object" ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

const configmaps = "/api/v1/namespaces/default/configmaps";

describe("orch-apiserver when etcd does not answer at start", () => {
  it("exits 1 within 10 s with a message naming the endpoint, by default", async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const error = await startAPIServer({ flags: ["--etcd-servers", endpoint], readyTimeoutMs: 10_000 }).then(
      (server) => {
        servers.push(server);
        return undefined;
      },
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/exited with 1 before it was ready/);
    expect(error?.message).toContain(`cannot reach etcd at ${endpoint}: `);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("with --etcd-wait-at-start: serves at once, not ready (live but for etcd), 503 for storage; ready and serving once etcd comes, without a restart", async () => {
    const port = await freePort();
    const endpoint = `http://127.0.0.1:${port}`;
    const server = await startAPIServer({ flags: ["--etcd-servers", endpoint, "--etcd-wait-at-start"], readyTimeoutMs: 10_000 });
    servers.push(server);

    // As in the reference, /livez checks etcd too; a probe that must not restart the server for a
    // lost etcd excludes it.
    const live = await adminRequest(server, { path: "/livez?verbose" });
    expect(live.status, live.text).toBe(500);
    expect(live.text).toContain("[-]etcd failed");
    expect((await adminRequest(server, { path: "/livez?exclude=etcd" })).status).toBe(200);
    const notReady = await adminRequest(server, { path: "/readyz?verbose" });
    expect(notReady.status).toBe(500);
    expect(notReady.text).toContain("[-]etcd failed");
    expect(notReady.text).toContain("readyz check failed");
    // What needs no storage is served; what does answers 503 as when etcd is lost later.
    expect((await adminRequest(server, { path: "/version" })).status).toBe(200);
    const list = await adminRequest(server, { path: configmaps });
    expect(list.status, list.text).toBe(503);
    expect(list.json).toMatchObject({ kind: "Status", status: "Failure", reason: "ServiceUnavailable", code: 503 });
    expect(server.stderr()).toContain(`cannot reach etcd at ${endpoint}`);

    const etcd = await startEtcd({ clientPorts: [port] });
    clusters.push(etcd);
    expect(etcd.endpoints).toEqual([endpoint]);
    const came = Date.now();
    let ready = 0;
    while (ready !== 200 && Date.now() - came < 20_000) {
      ready = (await adminRequest(server, { path: "/readyz" })).status;
      if (ready !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(ready, `/readyz ${Date.now() - came} ms after etcd came`).toBe(200);

    const created = await adminRequest(server, {
      method: "POST",
      path: configmaps,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after-wait" }, data: { answer: "42" } }),
    });
    expect(created.status, created.text).toBe(201);
    const got = await adminRequest(server, { path: `${configmaps}/after-wait` });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ metadata: { name: "after-wait" }, data: { answer: "42" } });
    expect(server.stderr()).toContain(`etcd at ${endpoint} answers: started`);
  }, 60_000);
});
