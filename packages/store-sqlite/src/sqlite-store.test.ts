import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import Database from "libsql";
import { isExpired, reasonOf, StatusError } from "@orch/meta";
import { FakeClock, MemoryStore, type Store, type StoreEvent } from "@orch/store";
import { describeStoreConformance } from "@orch/store/testing";
import { openSqliteStore, SqliteStore } from "./sqlite-store.js";

const root = mkdtempSync(join(tmpdir(), "orch-sqlite-test-"));
let counter = 0;
const freshPath = (): string => join(root, `s${counter++}.db`);

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the operation to fail, but it succeeded");
}

const key = (name: string): string => `/registry/core/configmaps/default/${name}`;

/** Reads `n` events from `it`. */
async function take(it: AsyncIterator<StoreEvent>, n: number): Promise<StoreEvent[]> {
  const out: StoreEvent[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) throw new Error(`watch ended after ${out.length} of ${n} events`);
    out.push(r.value);
  }
  return out;
}

/** The directory of the `tsx` loader, to run TypeScript in a child process. */
const here = fileURLToPath(new URL(".", import.meta.url));
const tsx = join(here, "..", "..", "..", "node_modules", "tsx", "dist", "loader.mjs");
const storeModule = join(here, "sqlite-store.ts");

/** Runs a TypeScript script in a child Node process; resolves with its exit and output. */
function child(
  script: string,
  onLine?: (line: string, kill: () => void) => void,
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  const file = join(root, `child-${counter++}.mts`);
  writeFileSync(file, script);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--conditions=@orch/source", "--import", tsx, file], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let partial = "";
    const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      partial += chunk.toString();
      const lines = partial.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) onLine?.(line, () => proc.kill("SIGKILL"));
    });
    proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    proc.on("error", reject);
    proc.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out, err });
    });
  });
}

describeStoreConformance("SqliteStore", () => {
  const store = new SqliteStore({ path: freshPath() });
  return Promise.resolve({ store, cleanup: () => Promise.resolve(store.close()) });
});

describe("SqliteStore durability", () => {
  it("serves every object with the same revisions after close and reopen, and watches from an old revision", async () => {
    const path = freshPath();
    const first = new SqliteStore({ path });
    const a1 = await first.create(key("a"), { v: 1 });
    const b = await first.create(key("b"), { v: 1 });
    const a2 = await first.update(key("a"), { v: 2 }, a1.modRevision);
    await first.delete(key("b"));
    const c = await first.create(key("c"), { nested: { list: [1, "x", null] } });
    const revision = await first.revision();
    first.close();

    const second = new SqliteStore({ path });
    try {
      expect(await second.revision()).toBe(revision);
      expect(await second.get(key("a"))).toEqual(a2);
      expect(await second.get(key("b"))).toBeUndefined();
      expect(await second.get(key("b"), { revision: b.modRevision })).toEqual(b);
      expect((await second.list("/registry/")).entries).toEqual([a2, c]);
      const events = await take(second.watch("/registry/", a1.modRevision, new AbortController().signal)[Symbol.asyncIterator](), 4);
      expect(events.map((e) => [e.type, e.entry.key, e.entry.modRevision])).toEqual([
        ["create", key("b"), b.modRevision],
        ["update", key("a"), a2.modRevision],
        ["delete", key("b"), b.modRevision + 2],
        ["create", key("c"), c.modRevision],
      ]);
      expect(events[1]?.prev).toEqual(a1);
      expect(events[2]?.prev).toEqual(b);
      // A write after reopen continues the revision sequence.
      const d = await second.create(key("d"), {});
      expect(d.modRevision).toBe(revision + 1);
      await second.compact(a2.modRevision);
    } finally {
      second.close();
    }

    const third = new SqliteStore({ path });
    try {
      expect(third.compactedRevision).toBe(a2.modRevision);
      const it = third.watch("/registry/", a1.modRevision, new AbortController().signal)[Symbol.asyncIterator]();
      expect(isExpired(await rejection(it.next()))).toBe(true);
      expect(isExpired(await rejection(third.get(key("a"), { revision: a1.modRevision })))).toBe(true);
      expect((await third.list("/registry/", { revision: a2.modRevision })).entries).toEqual([a2, b]);
    } finally {
      third.close();
    }
  });

  it("keeps every acknowledged write of a process killed with SIGKILL mid-loop", async () => {
    const dir = join(root, `crash-${counter++}`);
    const acknowledged: string[] = [];
    const script = `
import { openSqliteStore } from ${JSON.stringify(storeModule)};
const store = openSqliteStore(${JSON.stringify(dir)});
for (let i = 0; ; i++) {
  // Bursts of concurrent writes share commits; each key is printed once its write resolved.
  await Promise.all(Array.from({ length: 1 + (i % 5) }, async (_, j) => {
    const e = await store.create("/registry/core/configmaps/default/k" + i + "-" + j, { i, j, pad: "x".repeat(100) });
    process.stdout.write(e.key + " " + e.modRevision + "\\n");
  }));
}
`;
    const result = await child(script, (line, kill) => {
      if (line.startsWith("/registry/")) acknowledged.push(line);
      if (acknowledged.length === 300) kill();
    });
    expect(result.err).toBe("");
    expect(result.signal).toBe("SIGKILL");
    expect(acknowledged.length).toBeGreaterThanOrEqual(300);
    const store = openSqliteStore(dir);
    try {
      for (const line of acknowledged) {
        const [k, rev] = line.split(" ") as [string, string];
        const entry = await store.get(k);
        expect(entry?.modRevision, k).toBe(Number(rev));
      }
      // What the store holds is a gapless prefix of the revision sequence.
      const all = await store.list("/registry/");
      expect(all.entries.length).toBe(await store.revision());
    } finally {
      store.close();
    }
  });
});

describe("SqliteStore commit thread", () => {
  it("keeps a process alive while a write is unanswered, and not after", async () => {
    const dir = join(root, `thread-${counter++}`);
    // The store is never closed: the process must still end once its last write is answered.
    const script = `
import { openSqliteStore } from ${JSON.stringify(storeModule)};
const store = openSqliteStore(${JSON.stringify(dir)});
const writes = Array.from({ length: 200 }, (_, i) => store.create("/registry/core/configmaps/default/k" + i, { i }));
const entries = await Promise.all(writes);
process.stdout.write("acknowledged " + entries.length + " last " + entries.at(-1).modRevision + "\\n");
store.create("/registry/core/configmaps/default/last", {}).then((e) => process.stdout.write("last " + e.modRevision + "\\n"));
`;
    const result = await child(script);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toBe("acknowledged 200 last 200\nlast 201\n");
    const store = openSqliteStore(dir);
    try {
      expect((await store.list("/registry/")).entries).toHaveLength(201);
    } finally {
      store.close();
    }
  });

  it("answers writes queued and in flight when closed, in order, before the file is released", async () => {
    const path = freshPath();
    const store = new SqliteStore({ path });
    const first = Array.from({ length: 50 }, (_, i) => store.create(key(`a${i}`), { i }));
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is on the commit thread
    const second = Array.from({ length: 50 }, (_, i) => store.create(key(`b${i}`), { i }));
    store.close();
    const revisions = (await Promise.all([...first, ...second])).map((e) => e.modRevision);
    expect(revisions).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const reopened = new SqliteStore({ path });
    try {
      expect(await reopened.revision()).toBe(100);
      expect((await reopened.list("/registry/")).entries).toHaveLength(100);
    } finally {
      reopened.close();
    }
  });
});

describe("SqliteStore file lock", () => {
  it("refuses a second open of the file from another process while a store holds it, naming the path", async () => {
    const dir = join(root, `lock-${counter++}`);
    const store = openSqliteStore(dir);
    try {
      await store.create(key("a"), {});
      const script = `
import { openSqliteStore } from ${JSON.stringify(storeModule)};
try {
  openSqliteStore(${JSON.stringify(dir)});
  console.log("opened");
} catch (error) {
  console.log(error.name + " " + error.code + " " + error.message);
}
`;
      const result = await child(script);
      expect(result.err).toBe("");
      expect(result.out).toContain(`StatusError 503 ${join(dir, "state.db")} is in use by another orch server`);
      // In the same process too.
      const error = await rejection(Promise.resolve().then(() => openSqliteStore(dir)));
      expect(reasonOf(error)).toBe("ServiceUnavailable");
      expect(await store.get(key("a"))).toBeDefined();
    } finally {
      store.close();
    }
    const again = openSqliteStore(dir);
    expect((await again.list("/registry/")).entries).toHaveLength(1);
    again.close();
  });
});

describe("SqliteStore schema and lifecycle", () => {
  it("records the schema version and refuses a file of a newer one", async () => {
    const path = freshPath();
    new SqliteStore({ path }).close();
    const raw = new Database(path);
    expect(raw.prepare("PRAGMA user_version").get()).toMatchObject({ user_version: 1 });
    raw.exec("PRAGMA user_version = 7");
    raw.close();
    const error = await rejection(Promise.resolve().then(() => new SqliteStore({ path })));
    expect(error).toBeInstanceOf(StatusError);
    expect((error as Error).message).toContain(`${path} has schema version 7, newer than this build's 1`);
  });

  it("commits writes of one tick together, each checked against the ones before it", async () => {
    const store = new SqliteStore({ path: freshPath() });
    try {
      const results = await Promise.allSettled([
        store.create(key("a"), { n: 1 }),
        store.create(key("a"), { n: 2 }),
        store.update(key("a"), { n: 3 }, 1),
        store.delete(key("missing")),
      ]);
      expect(results.map((r) => (r.status === "fulfilled" ? r.value.modRevision : reasonOf(r.reason)))).toEqual([1, "AlreadyExists", 2, "NotFound"]);
      expect((await store.get(key("a")))?.value).toEqual({ n: 3 });
    } finally {
      store.close();
    }
  });

  it("gives a write the previous value written earlier in the same commit, and recreates a deleted key", async () => {
    const path = freshPath();
    let store = new SqliteStore({ path });
    try {
      const watch = store.watch(key(""), 0, AbortSignal.timeout(5_000))[Symbol.asyncIterator]();
      const [created, updated, deleted, recreated] = await Promise.all([
        store.create(key("b"), { n: 1 }),
        store.update(key("b"), { n: 2 }, 1),
        store.delete(key("b"), 2),
        store.create(key("b"), { n: 4 }),
      ]);
      expect([created.modRevision, updated.modRevision, deleted.modRevision, recreated.modRevision]).toEqual([1, 2, 2, 4]);
      expect(deleted.value).toEqual({ n: 2 });
      const events = await take(watch, 4);
      expect(events.map((e) => [e.type, e.entry.modRevision, e.entry.value, e.prev?.value])).toEqual([
        ["create", 1, { n: 1 }, undefined],
        ["update", 2, { n: 2 }, { n: 1 }],
        ["delete", 3, { n: 2 }, { n: 2 }],
        ["create", 4, { n: 4 }, undefined],
      ]);
      // Reopened, the commit thread knows every key's newest row from the file.
      store.close();
      store = new SqliteStore({ path });
      expect(reasonOf(await rejection(store.create(key("b"), {})))).toBe("AlreadyExists");
      expect(reasonOf(await rejection(store.update(key("b"), {}, 3)))).toBe("Conflict");
      expect((await store.delete(key("b"), 4)).value).toEqual({ n: 4 });
      await store.compact(5);
      expect((await store.create(key("b"), { n: 6 })).modRevision).toBe(6);
    } finally {
      store.close();
    }
  });

  it("commits queued writes on close, ends watches, and rejects calls after it", async () => {
    const path = freshPath();
    const store = new SqliteStore({ path });
    const it = store.watch("/", 0, new AbortController().signal)[Symbol.asyncIterator]();
    const write = store.create(key("a"), {});
    store.close();
    expect((await write).modRevision).toBe(1);
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(store.watcherCount).toBe(0);
    expect(reasonOf(await rejection(store.get(key("a"))))).toBe("ServiceUnavailable");
    expect(reasonOf(await rejection(store.create(key("b"), {})))).toBe("ServiceUnavailable");
    const reopened = new SqliteStore({ path });
    expect((await reopened.get(key("a")))?.modRevision).toBe(1);
    reopened.close();
  });

  it("compacts history older than the window as a FakeClock advances, keeping current state", async () => {
    const clock = new FakeClock(0);
    const store = new SqliteStore({ path: freshPath(), clock, historyWindowMs: 60_000 });
    try {
      const a1 = await store.create(key("a"), { v: 1 });
      clock.advance(30_000);
      const a2 = await store.update(key("a"), { v: 2 }, a1.modRevision);
      clock.advance(36_000); // the sample at 6s (revision 1) is a window old
      expect(store.compactedRevision).toBe(1);
      expect(await store.get(key("a"), { revision: 1 })).toEqual(a1);
      clock.advance(30_000); // the sample at 36s (revision 2) is a window old
      expect(store.compactedRevision).toBe(2);
      expect(isExpired(await rejection(store.get(key("a"), { revision: 1 })))).toBe(true);
      expect(await store.get(key("a"))).toEqual(a2);
    } finally {
      store.close();
    }
    expect(clock.pendingTimers()).toBe(0);
  });
});

// The same random writes on a MemoryStore and a SqliteStore (reopened midway, compacted twice):
// every get and every paged list at every retained revision answer alike.
describe("SqliteStore against MemoryStore", () => {
  function rng(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  for (const seed of [1, 2]) {
    it(`answers get, list and watch like the model at every retained revision (seed ${seed})`, async () => {
      const random = rng(seed);
      const path = freshPath();
      const model = new MemoryStore({ historyWindowMs: Number.POSITIVE_INFINITY });
      let store = new SqliteStore({ path, historyWindowMs: Number.POSITIVE_INFINITY });
      const prefixes = ["/registry/core/a/", "/registry/core/b/", "/registry/core/ab/"];
      let compacted = 0;
      try {
        for (let step = 0; step < 600; step++) {
          const k = `${prefixes[Math.floor(random() * 3)]}n${Math.floor(random() * 40)}`;
          const existing = await model.get(k);
          if (existing === undefined) {
            expect(await store.create(k, { step })).toEqual(await model.create(k, { step }));
          } else if (random() < 0.6) {
            expect(await store.update(k, { step }, existing.modRevision)).toEqual(await model.update(k, { step }, existing.modRevision));
          } else {
            expect(await store.delete(k, existing.modRevision)).toEqual(await model.delete(k, existing.modRevision));
          }
          if (step === 300) {
            store.close();
            store = new SqliteStore({ path, historyWindowMs: Number.POSITIVE_INFINITY });
          }
          if (step === 200 || step === 450) {
            compacted = step - 100;
            await Promise.all([store.compact(compacted), model.compact(compacted)]);
          }
        }
        // A last write under each prefix, so every watch below knows its last event.
        for (const prefix of prefixes) expect(await store.create(`${prefix}zz-end`, {})).toEqual(await model.create(`${prefix}zz-end`, {}));
        const endOf = (prefix: string): string => `${prefix === "/registry/" ? prefixes[2] : prefix}zz-end`;
        const newest = await model.revision();
        expect(await store.revision()).toBe(newest);
        for (let probe = 0; probe < 40; probe++) {
          const revision = compacted + Math.floor(random() * (newest - compacted + 1));
          const prefix = probe % 4 === 3 ? "/registry/" : (prefixes[probe % 3] as string);
          const limit = 1 + Math.floor(random() * 15);
          let after: string | undefined;
          for (;;) {
            const opts = after === undefined ? { revision, limit } : { revision, limit, after };
            const [got, want] = await Promise.all([store.list(prefix, opts), model.list(prefix, opts)]);
            expect(got).toEqual(want);
            for (const e of want.entries.slice(0, 3)) expect(await store.get(e.key, { revision })).toEqual(e);
            if (!want.more) break;
            after = want.entries[want.entries.length - 1]?.key;
          }
          const events = async (from: Store): Promise<StoreEvent[]> => {
            const out: StoreEvent[] = [];
            for await (const e of from.watch(prefix, revision, AbortSignal.timeout(5_000))) {
              out.push(e);
              if (e.entry.key === endOf(prefix)) break;
            }
            return out;
          };
          const expected = await events(model);
          expect(expected[expected.length - 1]?.entry.key).toBe(endOf(prefix));
          expect(await events(store)).toEqual(expected);
        }
        expect(reasonOf(await rejection(store.get(`${prefixes[0]}n1`, { revision: compacted - 1 })))).toBe("Expired");
      } finally {
        store.close();
        model.close();
      }
    });
  }
});
