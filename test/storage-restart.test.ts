/**
 * Nothing lost: `orch-apiserver` keeps its objects in `<data-dir>/state.db` by default. Killed
 * with SIGKILL and started again on the same data dir, it serves every object with the same uid
 * and resourceVersion, and a watch from a resourceVersion of before the crash resumes with every
 * later change, in order, then goes on live. `--storage-backend=memory` is the throwaway server
 * of old: a restart starts empty.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adminRequest, adminTLS, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

const started: RunningAPIServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.stop();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function start(dataDir: string, flags: string[] = [], securePort = 0): Promise<RunningAPIServer> {
  const server = await startAPIServer({ dataDir, flags, securePort });
  started.push(server);
  return server;
}

interface Meta {
  name: string;
  uid: string;
  resourceVersion: string;
}

async function createConfigMap(server: RunningAPIServer, name: string): Promise<Meta> {
  const res = await adminRequest(server, {
    method: "POST",
    path: "/api/v1/namespaces/default/configmaps",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name }, data: { name } }),
  });
  expect(res.status).toBe(201);
  return (res.json as { metadata: Meta }).metadata;
}

/** Opens a watch of ConfigMaps in `default` from `resourceVersion`; `next(n)` resolves with the next `n` events. */
async function watchFrom(server: RunningAPIServer, resourceVersion: string) {
  const tls = await adminTLS(server.dataDir);
  const events: { type: string; object: { metadata: Meta } }[] = [];
  let waiting: (() => void) | undefined;
  const req = httpsRequest(`${server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${resourceVersion}`, { ...tls, agent: false });
  req.on("response", (res) => {
    let buffer = "";
    res.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        events.push(JSON.parse(buffer.slice(0, nl)) as (typeof events)[number]);
        buffer = buffer.slice(nl + 1);
      }
      waiting?.();
    });
  });
  req.on("error", () => undefined);
  req.end();
  const next = async (count: number) => {
    const deadline = Date.now() + 10_000;
    while (events.length < count && Date.now() < deadline) await new Promise<void>((resolve) => ((waiting = resolve), setTimeout(resolve, 100)));
    return events.slice(0, count);
  };
  return { next, close: () => req.destroy() };
}

describe("orch-apiserver storage across restarts", () => {
  it("keeps every object, uid and resourceVersion across a SIGKILL, and resumes a watch without a gap", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "orch-restart-"));
    dirs.push(dataDir);
    const first = await start(dataDir);
    expect((await stat(join(dataDir, "state.db"))).isFile()).toBe(true);
    const before: Meta[] = [];
    for (let i = 0; i < 10; i++) before.push(await createConfigMap(first, `before-${i}`));
    const resumeFrom = before[before.length - 1]!.resourceVersion;
    const after: Meta[] = [];
    for (let i = 0; i < 10; i++) after.push(await createConfigMap(first, `after-${i}`));
    const port = Number(new URL(first.url).port);
    await first.kill();

    const second = await start(dataDir, [], port);
    for (const meta of [...before, ...after]) {
      const res = await adminRequest(second, { path: `/api/v1/namespaces/default/configmaps/${meta.name}` });
      expect(res.status).toBe(200);
      const got = (res.json as { metadata: Meta }).metadata;
      expect({ uid: got.uid, resourceVersion: got.resourceVersion }).toEqual({ uid: meta.uid, resourceVersion: meta.resourceVersion });
    }
    // A watch from before the crash gets every later change in order, then what happens now.
    const watch = await watchFrom(second, resumeFrom);
    try {
      const replayed = await watch.next(after.length);
      expect(replayed.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual(
        after.map((m) => ["ADDED", m.name, m.resourceVersion]),
      );
      const live = await createConfigMap(second, "live");
      expect(Number(live.resourceVersion)).toBeGreaterThan(Number(after[after.length - 1]!.resourceVersion));
      const all = await watch.next(after.length + 1);
      expect(all[after.length]?.object.metadata.name).toBe("live");
    } finally {
      watch.close();
    }
  }, 60_000);

  it("--storage-backend=memory forgets everything on restart", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "orch-restart-"));
    dirs.push(dataDir);
    const first = await start(dataDir, ["--storage-backend=memory"]);
    await createConfigMap(first, "gone");
    await first.stop();
    started.splice(started.indexOf(first), 1);
    const second = await start(dataDir, ["--storage-backend=memory"]);
    expect((await adminRequest(second, { path: "/api/v1/namespaces/default/configmaps/gone" })).status).toBe(404);
    await expect(stat(join(dataDir, "state.db"))).rejects.toThrow();
  }, 60_000);

  it("a second server on the same data dir refuses to start, naming the file", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "orch-restart-"));
    dirs.push(dataDir);
    await start(dataDir);
    await expect(startAPIServer({ dataDir, readyTimeoutMs: 15_000 })).rejects.toThrow(/state\.db/);
  }, 60_000);
});
