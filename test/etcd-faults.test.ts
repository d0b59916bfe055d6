/**
 * Faults under orch-apiservers on etcd: an etcd
 * member killed during writes loses no acknowledged write; a server restarted under a watching
 * client resumes it from its last resourceVersion with no gap and no duplicate; the whole etcd
 * lost while serving ends open watches, half-writes nothing, and service resumes when it returns.
 * Every request, wait and process exit is bounded.
 * @module
 */
import { Agent, request as httpsRequest } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminTLS, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { startEtcd, startEtcdCluster, type EtcdCluster, type EtcdMember } from "./support/etcd.js";

interface Reply {
  status: number;
  json: unknown;
}
type Call = (method: string, path: string, body?: unknown) => Promise<Reply>;

interface ObjectMeta {
  name: string;
  resourceVersion: string;
}
interface ConfigMap {
  metadata: ObjectMeta;
  data?: Record<string, string>;
}
interface WatchEvent {
  type: string;
  object: ConfigMap & { kind?: string; code?: number };
}

const configmaps = "/api/v1/namespaces/default/configmaps";
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: EtcdCluster | undefined;
const servers = new Set<RunningAPIServer>();
const agents: Agent[] = [];
const requests = new Set<{ destroy(): void }>();

beforeAll(async () => {
  cluster = await startEtcdCluster(3);
}, 60_000);

afterAll(async () => {
  for (const req of requests) req.destroy();
  for (const agent of agents) agent.destroy();
  await Promise.all([...servers].map((s) => s.stop()));
  await cluster?.stop();
}, 60_000);

async function start(etcd: EtcdCluster): Promise<RunningAPIServer> {
  const server = await startAPIServer({ flags: ["--etcd-servers", etcd.endpoints.join(",")] });
  servers.add(server);
  return server;
}

/**
 * A keep-alive HTTPS client with `server`'s admin certificate. Each call is bounded at
 * `timeoutMs` as a whole (not only idle time) and rejects when it runs out.
 */
async function client(server: RunningAPIServer, timeoutMs = 20_000): Promise<Call> {
  const agent = new Agent({ ...(await adminTLS(server.dataDir)), keepAlive: true });
  agents.push(agent);
  return (method, path, body) =>
    new Promise<Reply>((resolve, reject) => {
      const req = httpsRequest(`${server.url}${path}`, { agent, method, headers: body === undefined ? {} : { "content-type": "application/json" } }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("error", reject);
        res.on("end", () => {
          let json: unknown;
          try {
            json = text === "" ? undefined : (JSON.parse(text) as unknown);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      });
      requests.add(req);
      const timer = setTimeout(() => req.destroy(new Error(`${method} ${path} took longer than ${timeoutMs} ms`)), timeoutMs);
      req.on("close", () => {
        clearTimeout(timer);
        requests.delete(req);
      });
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
}

/** A watch stream: the events so far, how it ended, and a way to end it. */
interface OpenWatch {
  readonly status: number;
  readonly events: WatchEvent[];
  /** Resolves when the stream ended: `close` (clean end), `error` (connection broken). */
  readonly ended: Promise<"close" | "error">;
  stop(): void;
}

/** Opens a watch on `server` at `path`; resolves once the response head arrived (bounded at 10 s). */
async function openWatch(server: RunningAPIServer, path: string): Promise<OpenWatch> {
  const tls = await adminTLS(server.dataDir);
  return new Promise<OpenWatch>((resolve, reject) => {
    const events: WatchEvent[] = [];
    let settle!: (how: "close" | "error") => void;
    const ended = new Promise<"close" | "error">((r) => (settle = r));
    const req = httpsRequest(`${server.url}${path}`, { ...tls, agent: false }, (res) => {
      clearTimeout(headTimer);
      let buffer = "";
      res.setEncoding("utf8").on("data", (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line !== "") events.push(JSON.parse(line) as WatchEvent);
        }
      });
      res.on("end", () => settle("close"));
      res.on("error", () => settle("error"));
      res.on("close", () => settle(res.complete ? "close" : "error"));
      resolve({ status: res.statusCode ?? 0, events, ended, stop: () => req.destroy() });
    });
    requests.add(req);
    req.on("close", () => requests.delete(req));
    const headTimer = setTimeout(() => req.destroy(new Error(`watch ${path} did not answer in 10 s`)), 10_000);
    req.on("error", (error) => {
      clearTimeout(headTimer);
      settle("error");
      reject(error);
    });
    req.end();
  });
}

/** Polls `check` every 50 ms until it is true; throws after `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The etcd leader of `etcd`, asked through the members' JSON gateway (bounded). */
async function leaderOf(etcd: EtcdCluster): Promise<EtcdMember> {
  const ids = await Promise.all(
    etcd.members.map(async (m) => {
      const res = await fetch(`${m.clientURL}/v3/maintenance/status`, { method: "POST", body: "{}", signal: AbortSignal.timeout(3_000) });
      return (await res.json()) as { header: { member_id: string }; leader: string };
    }),
  );
  const index = ids.findIndex((s) => s.header.member_id === s.leader);
  return etcd.members[index >= 0 ? index : 0]!;
}

function expectStatusBody(reply: Reply, codes: readonly number[]): void {
  expect(codes, `status ${reply.status}: ${JSON.stringify(reply.json)}`).toContain(reply.status);
  expect(reply.json).toMatchObject({ kind: "Status", status: "Failure", code: reply.status });
}

describe("etcd faults under two orch-apiservers over a 3-member etcd cluster", () => {
  it("loses no acknowledged write when the etcd leader is killed during writes, and writes resume", async () => {
    const etcd = cluster!;
    const [a, b] = await Promise.all([start(etcd), start(etcd)]);
    const calls = await Promise.all([client(a), client(b)]);
    const acked = new Map<string, string>(); // name -> last acknowledged value of data.v
    const unsure = new Map<string, Set<string>>(); // name -> values written after the last ack without an answer
    const failures: Reply[] = [];
    let phase: "before" | "down" | "after" = "before";
    const ackedIn = { before: 0, down: 0, after: 0 };
    let running = true;

    // 4 workers, each creating its own objects and updating its own counter, alternating servers.
    const worker = async (w: number): Promise<void> => {
      const counter = `fault-counter-${w}`;
      let rv: string | undefined;
      for (let i = 0; running; i++) {
        const call = calls[(w + i) % 2]!;
        const name = `fault-${w}-${i}`;
        const value = String(i);
        const created = await call("POST", configmaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { v: value } });
        if (created.status === 201) {
          acked.set(name, value);
          ackedIn[phase]++;
        } else {
          failures.push(created);
          unsure.set(name, new Set([value]));
        }
        // The counter: create once, then PUT at the last resourceVersion this worker saw.
        const body = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: counter, ...(rv === undefined ? {} : { resourceVersion: rv }) },
          data: { v: value },
        };
        const put = rv === undefined ? await call("POST", configmaps, body) : await call("PUT", `${configmaps}/${counter}`, body);
        if (put.status === 200 || put.status === 201) {
          rv = (put.json as ConfigMap).metadata.resourceVersion;
          acked.set(counter, value);
          unsure.delete(counter);
          ackedIn[phase]++;
        } else if (put.status === 409) {
          // An earlier write without an answer went through after all: read the counter again.
          const got = await call("GET", `${configmaps}/${counter}`);
          if (got.status === 200) rv = (got.json as ConfigMap).metadata.resourceVersion;
        } else {
          failures.push(put);
          const set = unsure.get(counter) ?? new Set<string>();
          set.add(value);
          unsure.set(counter, set);
        }
      }
    };
    const workers = Promise.all([0, 1, 2, 3].map(worker));
    try {
      await until(() => ackedIn.before >= 40, 15_000, "writes before the kill");
      const leader = await leaderOf(etcd);
      phase = "down";
      await bounded(leader.kill(), 5_000, "killing the etcd leader");
      await until(() => ackedIn.down >= 40, 20_000, "writes acknowledged while one member is down");
      await bounded(leader.start(), 20_000, "restarting the etcd member");
      phase = "after";
      await until(() => ackedIn.after >= 40, 15_000, "writes after the member returned");
    } finally {
      running = false;
      await bounded(workers, 45_000, "the writers' last requests");
    }

    // Failures during the kill are answered, as Status bodies with a 5xx code.
    for (const f of failures) expectStatusBody(f, [500, 503, 504]);
    // Every acknowledged write is there with its last acknowledged value (or a later write whose answer was lost).
    const list = await calls[1]!("GET", configmaps);
    expect(list.status).toBe(200);
    const stored = new Map((list.json as { items: ConfigMap[] }).items.map((cm) => [cm.metadata.name, cm.data?.["v"]]));
    for (const [name, value] of acked) {
      const allowed = new Set([value, ...(unsure.get(name) ?? [])]);
      expect(allowed, `${name} is ${stored.get(name)}, acknowledged ${value}`).toContain(stored.get(name));
    }
    expect(ackedIn.down).toBeGreaterThanOrEqual(40);
    expect(ackedIn.after).toBeGreaterThanOrEqual(40);
  }, 60_000);

  it("resumes a client's watch from its last resourceVersion across a restart of its server, with no gap and no duplicate", async () => {
    const etcd = cluster!;
    const [a, b] = await Promise.all([start(etcd), start(etcd)]);
    const callB = await client(b);
    const base = await callB("GET", configmaps);
    expect(base.status).toBe(200);
    const from = (base.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

    // The writer: 60 writes through B (creates, then updates of some), each recorded as the event it must produce.
    const written: string[] = [];
    const writer = (async () => {
      for (let i = 0; i < 60; i++) {
        const name = `resume-${i % 20}`;
        const res =
          i < 20
            ? await callB("POST", configmaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { i: String(i) } })
            : await callB("PUT", `${configmaps}/${name}`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { i: String(i) } });
        expect(res.status, JSON.stringify(res.json)).toBe(i < 20 ? 201 : 200);
        const cm = res.json as ConfigMap;
        written.push(`${i < 20 ? "ADDED" : "MODIFIED"} ${cm.metadata.name} ${cm.metadata.resourceVersion} ${cm.data?.["i"]}`);
        await sleep(15);
      }
    })();

    const seen: WatchEvent[] = [];
    const watchA = await openWatch(a, `${configmaps}?watch=1&resourceVersion=${from}&timeoutSeconds=60`);
    expect(watchA.status).toBe(200);
    try {
      await until(() => watchA.events.length >= 10, 15_000, "events before the restart");
      // Kill A mid-stream while B keeps taking writes.
      await bounded(a.stop(), 15_000, "stopping server A");
      servers.delete(a);
      await bounded(watchA.ended, 5_000, "the watch on A to end");
    } finally {
      watchA.stop();
    }
    for (const e of watchA.events) if (e.type !== "ERROR" && e.type !== "BOOKMARK") seen.push(e);
    const lastRV = seen.at(-1)!.object.metadata.resourceVersion;
    await until(() => written.length >= seen.length + 10, 15_000, "writes through B while A is down");

    const a2 = await start(etcd);
    const watchA2 = await openWatch(a2, `${configmaps}?watch=1&resourceVersion=${lastRV}&timeoutSeconds=60`);
    try {
      expect(watchA2.status).toBe(200);
      await bounded(writer, 20_000, "the writer");
      await until(() => watchA2.events.filter((e) => e.type !== "BOOKMARK").length >= written.length - seen.length, 15_000, "the resumed watch to catch up");
      await sleep(200); // Anything extra (a duplicate) would arrive now.
    } finally {
      watchA2.stop();
    }
    for (const e of watchA2.events) if (e.type !== "BOOKMARK") seen.push(e);
    expect(seen.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion} ${e.object.data?.["i"]}`)).toEqual(written);
  }, 60_000);
});

describe("the whole etcd lost while serving (single member)", () => {
  it("ends an open watch with an ERROR event or a clean close, leaves nothing half-written, and serves again once etcd returns", async () => {
    const etcd = await startEtcd();
    try {
      const server = await start(etcd);
      const call = await client(server, 25_000);
      const base = await call("GET", configmaps);
      const from = (base.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      const watch = await openWatch(server, `${configmaps}?watch=1&resourceVersion=${from}&timeoutSeconds=60`);
      expect(watch.status).toBe(200);

      // Writes in flight while etcd stops: each is answered (2xx or a 503/504 Status), none hangs.
      const outcomes = new Map<string, Reply>();
      let running = true;
      const writer = (async () => {
        for (let i = 0; running && i < 2000; i++) {
          const name = `lost-${i}`;
          outcomes.set(
            name,
            await call("POST", configmaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { i: String(i), pad: "x".repeat(2000) } }),
          );
        }
      })();
      await until(() => outcomes.size >= 20, 10_000, "writes before etcd stops");
      await bounded(etcd.members[0]!.stop(), 10_000, "stopping etcd");
      await until(() => [...outcomes.values()].some((r) => r.status >= 500), 20_000, "a write to fail");
      running = false;
      await bounded(writer, 30_000, "the writer's last request");

      // The watch ends: an ERROR event (a Status) or a clean close, within the bound.
      const how = await Promise.race([watch.ended, sleep(20_000).then(() => "open" as const)]);
      const last = watch.events.at(-1);
      if (how !== "close") expect(last?.type, `watch ${how} without an ERROR event`).toBe("ERROR");
      if (last?.type === "ERROR") expect(last.object).toMatchObject({ kind: "Status", status: "Failure" });
      watch.stop();
      for (const [, reply] of outcomes) {
        if (reply.status !== 201) expectStatusBody(reply, [503, 504]);
      }

      // etcd returns: the same server serves again (bounded retries), and nothing is half-written.
      await bounded(etcd.members[0]!.start(), 20_000, "restarting etcd");
      let list: Reply = { status: 0, json: undefined };
      for (let i = 0; i < 100 && list.status !== 200; i++) {
        list = await call("GET", configmaps);
        if (list.status !== 200) await sleep(100);
      }
      expect(list.status).toBe(200);
      const stored = new Map((list.json as { items: ConfigMap[] }).items.map((cm) => [cm.metadata.name, cm]));
      for (const [name, reply] of outcomes) {
        const cm = stored.get(name);
        const i = name.slice("lost-".length);
        if (reply.status === 201) expect(cm?.data).toEqual({ i, pad: "x".repeat(2000) });
        // A failed write is absent, or (its answer lost) present whole: never partial.
        else if (cm !== undefined) expect(cm.data).toEqual({ i, pad: "x".repeat(2000) });
      }
      const after = await call("POST", configmaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after-return" } });
      expect(after.status).toBe(201);
      const resumed = await openWatch(
        server,
        `${configmaps}?watch=1&resourceVersion=${(list.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion}&timeoutSeconds=10`,
      );
      try {
        expect(resumed.status).toBe(200);
        await until(() => resumed.events.some((e) => e.object.metadata.name === "after-return"), 10_000, "a watch after etcd returned");
      } finally {
        resumed.stop();
      }
    } finally {
      await etcd.stop();
    }
  }, 60_000);
});
