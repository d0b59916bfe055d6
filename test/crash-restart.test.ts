/**
 * Crashes under load: `orch-apiserver` on its default SQLite store (`<data-dir>/state.db`) is
 * killed with SIGKILL at a random moment while 32 writers create, update and delete their own
 * ConfigMaps, and started again on the same data dir, 20 times. After every restart nothing
 * acknowledged is lost (an object is its last acknowledged state, or the one write whose answer
 * the crash swallowed), nothing is half-applied, uids stay, every resourceVersion given out
 * after the restart is above every one seen before, a list agrees with GETs and its
 * resourceVersion covers its items, and a watch from before the crash replays every later
 * change in order (or answers 410 Gone). Only the kill timing is random; the verdict is not.
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { adminRequest, adminTLS, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { CrashWorkload, until, type CrashTarget } from "./support/crash-workload.js";

const WRITERS = 32;
const RESTARTS = 20;

const servers = new Set<RunningAPIServer>();
const dirs: string[] = [];
let workload: CrashWorkload | undefined;

afterAll(async () => {
  await workload?.stop();
  for (const server of servers) await server.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}, 60_000);

async function start(dataDir: string): Promise<RunningAPIServer> {
  const server = await startAPIServer({ dataDir, readyTimeoutMs: 60_000 });
  servers.add(server);
  return server;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("orch-apiserver on SQLite, killed during concurrent writes", () => {
  it(`loses no acknowledged write and half-applies none across ${RESTARTS} SIGKILLs under ${WRITERS} writers`, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "orch-crash-"));
    dirs.push(dataDir);
    let server = await start(dataDir);
    const tls = await adminTLS(dataDir);
    const target = (s: RunningAPIServer): CrashTarget => ({ url: s.url, tls });
    const load = (workload = new CrashWorkload({ writers: WRITERS, objectsPerWriter: 3, prefix: "crash" }));
    let snapshot = await load.verify(target(server));
    const watches = { replayed: 0, expired: 0 };

    for (let round = 1; round <= RESTARTS; round++) {
      const ackedBefore = load.acknowledged;
      load.resume(target(server));
      // Some writes acknowledged in this life of the server, then the crash at a random moment.
      await until(() => load.acknowledged >= ackedBefore + WRITERS / 4 || load.parked === WRITERS, 60_000, `writes in round ${round}`);
      await sleep(Math.floor(Math.random() * 400));
      await server.kill();
      servers.delete(server);
      await load.park();

      const seenBefore = load.maxSeen;
      server = await start(dataDir);
      const after = await load.verify(target(server));
      expect(load.problems, `after restart ${round}`).toEqual([]);
      expect(after.rv).toBeGreaterThanOrEqual(seenBefore);
      watches[await load.watchFrom(target(server), snapshot, after)]++;
      expect(load.problems, `watch after restart ${round}`).toEqual([]);
      snapshot = after;
    }

    // A last round of writes on the last server: every answer's resourceVersion is above all seen before.
    const ackedBefore = load.acknowledged;
    load.resume(target(server));
    await until(() => load.acknowledged >= ackedBefore + WRITERS, 60_000, "writes after the last restart");
    await load.park();
    await load.verify(target(server));
    await load.stop();
    workload = undefined;

    expect(load.problems).toEqual([]);
    // The server answered every write it took with a 2xx: failures are broken connections only.
    expect(load.failedWrites).toEqual([]);
    expect(load.acknowledged).toBeGreaterThanOrEqual(RESTARTS * (WRITERS / 4) + WRITERS);
    expect(watches.replayed + watches.expired).toBe(RESTARTS);
    // Every kill caught writers mid-request: their writes were checked as unanswered.
    expect(load.unanswered.landed + load.unanswered.notLanded).toBeGreaterThanOrEqual(RESTARTS);
  }, 230_000);

  it("the checks catch a lost write and a half-applied one", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "orch-crash-"));
    dirs.push(dataDir);
    const server = await start(dataDir);
    const target = { url: server.url, tls: await adminTLS(dataDir) };
    const load = (workload = new CrashWorkload({ writers: 2, objectsPerWriter: 2, prefix: "tamper" }));
    // Writes until at least two objects are present (each is absent one seq in five), parked.
    for (let present = (await load.verify(target)).objects.size, round = 0; present < 2; round++) {
      expect(round, "rounds of writes to get two objects present").toBeLessThan(20);
      const acked = load.acknowledged;
      load.resume(target);
      await until(() => load.acknowledged >= acked + 8, 60_000, "writes");
      await load.park();
      present = (await load.verify(target)).objects.size;
    }
    const list = await adminRequest(server, { path: "/api/v1/namespaces/default/configmaps" });
    const present = (list.json as { items: { metadata: { name: string; resourceVersion: string }; data: Record<string, string> }[] }).items.filter((cm) =>
      cm.metadata.name.startsWith("tamper-"),
    );
    expect(present.length).toBeGreaterThanOrEqual(2);
    const [lost, torn] = present as [(typeof present)[number], (typeof present)[number]];
    expect((await adminRequest(server, { method: "DELETE", path: `/api/v1/namespaces/default/configmaps/${lost.metadata.name}` })).status).toBe(200);
    const put = await adminRequest(server, {
      method: "PUT",
      path: `/api/v1/namespaces/default/configmaps/${torn.metadata.name}`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...torn, data: { ...torn.data, copy: "0" } }),
    });
    expect(put.status).toBe(200);

    await load.verify(target);
    await load.stop();
    workload = undefined;
    expect(load.problems.some((p) => p.startsWith(`${lost.metadata.name} is absent; acknowledged seq`))).toBe(true);
    expect(load.problems.some((p) => p.startsWith(`GET ${torn.metadata.name} is not a whole write`))).toBe(true);
  }, 60_000);
});
