import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { startEtcd, type EtcdCluster } from "./support/etcd.js";

let etcd: EtcdCluster;
const servers: RunningAPIServer[] = [];

beforeAll(async () => {
  etcd = await startEtcd();
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await etcd?.stop();
});

async function start(flags: readonly string[] = []): Promise<RunningAPIServer> {
  const server = await startAPIServer({ flags: ["--etcd-servers", etcd.endpoints.join(","), ...flags] });
  servers.push(server);
  return server;
}

describe("orch-apiserver --etcd-servers", () => {
  it("keeps objects in etcd across a restart of the server", async () => {
    const first = await start();
    const created = await adminRequest(first, {
      method: "POST",
      path: "/api/v1/namespaces/default/configmaps",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept" }, data: { answer: "42" } }),
    });
    expect(created.status).toBe(201);
    const rv = (created.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    expect(await first.stop()).toBe(0);

    const second = await start();
    const got = await adminRequest(second, { path: "/api/v1/namespaces/default/configmaps/kept" });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ metadata: { name: "kept", resourceVersion: rv }, data: { answer: "42" } });
  });

  it("reports etcd's health as the readyz check named etcd", async () => {
    const server = await start();
    const ready = await adminRequest(server, { path: "/readyz?verbose" });
    expect(ready.status).toBe(200);
    expect(ready.text).toContain("[+]etcd ok");
  });

  it("keeps separate installations apart with --etcd-prefix", async () => {
    const a = await start(["--etcd-prefix", "/tenant-a"]);
    const b = await start(["--etcd-prefix", "/tenant-b"]);
    const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "only-a" } });
    const created = await adminRequest(a, {
      method: "POST",
      path: "/api/v1/namespaces/default/configmaps",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(created.status).toBe(201);
    expect((await adminRequest(b, { path: "/api/v1/namespaces/default/configmaps/only-a" })).status).toBe(404);
  });

  it("exits with 1 and names the endpoints when etcd cannot be reached at start", async () => {
    const error = await startAPIServer({ flags: ["--etcd-servers", "http://127.0.0.1:1"] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/exited with 1/);
    expect(error?.message).toContain("cannot reach etcd at http://127.0.0.1:1");
  });

  it("fails /readyz quickly while etcd is down and serves again once it is back", async () => {
    const own = await startEtcd();
    try {
      const server = await startAPIServer({ flags: ["--etcd-servers", own.endpoints.join(",")] });
      servers.push(server);
      await own.members[0]!.stop();
      const started = Date.now();
      const down = await adminRequest(server, { path: "/readyz?verbose" });
      expect(down.status).toBe(500);
      expect(down.text).toContain("[-]etcd failed");
      expect(Date.now() - started).toBeLessThan(5_000);
      const write = await adminRequest(server, {
        method: "POST",
        path: "/api/v1/namespaces/default/configmaps",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "while-down" } }),
      });
      expect([503, 504]).toContain(write.status);
      expect(write.json).toMatchObject({ kind: "Status", code: write.status });

      await own.members[0]!.start();
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await adminRequest(server, { path: "/readyz" })).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    } finally {
      await own.stop();
    }
  });
});
