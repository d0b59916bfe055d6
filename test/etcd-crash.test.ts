/**
 * Crashes under load over etcd: `orch-apiserver --etcd-servers=<3 members>` takes writes from 32
 * writers while an etcd member (the leader, then a follower, ...) is killed with SIGKILL and
 * started again on its data, and the server itself is killed with SIGKILL and started again
 * after each fault, once while a member is still down. After every server restart nothing
 * acknowledged is lost, nothing is half-applied, uids stay, resourceVersions only grow, a list
 * agrees with GETs, and a watch from before the faults replays every later change in order (or
 * answers 410 Gone). A write that fails while etcd elects a leader is fine if it was not
 * acknowledged; a 2xx that is later missing is not. Only the kill timing is random.
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminTLS, httpsRequestTo, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { CrashWorkload, until, type CrashTarget } from "./support/crash-workload.js";
import { startEtcdCluster, type EtcdCluster, type EtcdMember } from "./support/etcd.js";

const WRITERS = 32;
const configmaps = "/api/v1/namespaces/default/configmaps";

let etcd: EtcdCluster | undefined;
const servers = new Set<RunningAPIServer>();
const dirs: string[] = [];
let workload: CrashWorkload | undefined;

beforeAll(async () => {
  etcd = await startEtcdCluster(3);
}, 90_000);

afterAll(async () => {
  await workload?.stop();
  for (const server of servers) await server.stop();
  await etcd?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
}, 60_000);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The etcd leader, asked through the members' JSON gateway (every member must be up): the member
 * that names itself leader. Asks again while an election runs; bounded at about 10 s.
 */
async function leaderOf(cluster: EtcdCluster): Promise<EtcdMember> {
  let statuses: { header: { member_id: string }; leader: string }[] = [];
  for (let attempt = 0; attempt < 40; attempt++) {
    statuses = await Promise.all(
      cluster.members.map(async (m) => {
        const res = await fetch(`${m.clientURL}/v3/maintenance/status`, { method: "POST", body: "{}", signal: AbortSignal.timeout(5_000) });
        return (await res.json()) as { header: { member_id: string }; leader: string };
      }),
    );
    const index = statuses.findIndex((s) => s.header.member_id === s.leader);
    if (index >= 0) return cluster.members[index]!;
    await sleep(250);
  }
  throw new Error(`no member says it leads: ${JSON.stringify(statuses)}`);
}

describe("orch-apiserver over a 3-member etcd, members and the server killed during concurrent writes", () => {
  it(`loses no acknowledged write and half-applies none under ${WRITERS} writers`, async () => {
    const cluster = etcd!;
    const dataDir = await mkdtemp(join(tmpdir(), "orch-etcd-crash-"));
    dirs.push(dataDir);
    const flags = ["--etcd-servers", cluster.endpoints.join(",")];
    const start = async (): Promise<RunningAPIServer> => {
      const server = await startAPIServer({ dataDir, flags, readyTimeoutMs: 60_000 });
      servers.add(server);
      return server;
    };
    let server = await start();
    const tls = await adminTLS(dataDir);
    const target = (s: RunningAPIServer): CrashTarget => ({ url: s.url, tls });
    const load = (workload = new CrashWorkload({ writers: WRITERS, objectsPerWriter: 3, prefix: "etcdcrash", requestTimeoutMs: 30_000 }));
    let snapshot = await load.verify(target(server));
    const watches = { replayed: 0, expired: 0 };

    /** Waits for `count` more acknowledged writes (or every writer stuck on unanswered ones). */
    const writes = async (count: number, what: string): Promise<void> => {
      const from = load.acknowledged;
      await until(() => load.acknowledged >= from + count || load.parked === WRITERS, 90_000, what);
    };
    /** Kills the server at a random moment of the writes, starts it again, and checks everything. */
    const crashServer = async (round: string): Promise<void> => {
      await sleep(Math.floor(Math.random() * 400));
      await server.kill();
      servers.delete(server);
      await load.park();
      server = await start();
      // A write of the new server commits in the current etcd leader's term: every write the
      // killed server had proposed is applied or gone by then, so what is read next is final.
      let barrier = 0;
      for (let i = 0; i < 300 && barrier !== 201; i++) {
        barrier = (
          await httpsRequestTo(server.url, tls, {
            method: "POST",
            path: configmaps,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ metadata: { generateName: "barrier-" } }),
            timeoutMs: 30_000,
          }).catch(() => ({ status: 0 }))
        ).status;
        if (barrier !== 201) await sleep(200);
      }
      expect(barrier, `a write through the restarted server (${round})`).toBe(201);
      const after = await load.verify(target(server));
      expect(load.problems, `after ${round}`).toEqual([]);
      watches[await load.watchFrom(target(server), snapshot, after)]++;
      expect(load.problems, `watch after ${round}`).toEqual([]);
      snapshot = after;
      load.resume(target(server));
    };
    /** Kills `member` during the writes, writes on with two members, starts it again, writes on. */
    const crashMember = async (member: EtcdMember, round: string): Promise<void> => {
      await member.kill();
      await writes(WRITERS, `writes with ${member.name} down (${round})`);
      await member.start();
      await writes(WRITERS, `writes after ${member.name} returned (${round})`);
    };

    load.resume(target(server));
    await writes(WRITERS, "the first writes");
    // The leader, then the server.
    await crashMember(await leaderOf(cluster), "round 1 (leader)");
    await crashServer("round 1");
    // A follower, then the server.
    const leader = await leaderOf(cluster);
    await crashMember(
      cluster.members.find((m) => m !== leader)!,
      "round 2 (follower)",
    );
    await crashServer("round 2");
    // The server alone, twice.
    await writes(WRITERS, "writes before round 3");
    await crashServer("round 3");
    await writes(WRITERS, "writes before round 4");
    await crashServer("round 4");
    // The leader again, and the server while it is down: it starts and serves on two members.
    const down = await leaderOf(cluster);
    await down.kill();
    await writes(WRITERS, "writes with the leader down (round 5)");
    await crashServer("round 5");
    await writes(WRITERS, "writes on two members after the server restarted (round 5)");
    await down.start();
    await writes(WRITERS, "writes after the member returned (round 5)");
    await crashServer("round 6");
    await writes(WRITERS, "the last writes");
    await load.park();
    await load.verify(target(server));
    await load.stop();
    workload = undefined;

    expect(load.problems).toEqual([]);
    // A write may fail while etcd elects a leader, with a 5xx (or a 409 when the server retried
    // a write that had landed); it then counts as unanswered, and was checked as such.
    for (const failure of load.failedWrites) expect(failure).toMatch(/^(5\d\d|409) /);
    // Four waits for writes ran with every member up and no fault: those writes were all taken.
    expect(load.acknowledged).toBeGreaterThanOrEqual(4 * WRITERS);
    expect(watches.replayed + watches.expired).toBe(6);
    // Every kill of the server caught writers mid-request: their writes were checked as unanswered.
    expect(load.unanswered.landed + load.unanswered.notLanded).toBeGreaterThanOrEqual(6);
  }, 230_000);
});
