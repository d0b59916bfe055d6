import { describe, expect, it } from "vitest";
import { expired, reasonOf } from "@orch/meta";
import { FakeClock, MemoryStore, type Entry, type ListOptions, type ListResult, type Store, type StoreEvent } from "@orch/store";
import { describeStoreConformance } from "@orch/store/testing";
import { listChunk } from "./list-chunk.js";
import { readOne } from "./read-one.js";
import { planRead } from "./read-plan.js";
import { hasCachedReads, WatchCache } from "./watch-cache.js";
import { openWatch, type WatchStreamEvent } from "./watch-stream.js";

describeStoreConformance("WatchCache over MemoryStore", async () => {
  const upstream = new MemoryStore({ historyWindowMs: Infinity });
  const store = new WatchCache(upstream);
  await store.start();
  return {
    store,
    cleanup: async () => {
      store.stop();
      upstream.close();
    },
  };
});

/** A store that counts the calls made to it and can break its watches on demand. */
class SpyStore implements Store {
  readonly inner = new MemoryStore({ historyWindowMs: Infinity });
  calls = { get: 0, list: 0, watch: 0, revision: 0 };
  /** Watches opened after this throw once they have delivered `breakAfter` events. */
  breakAfter: number | undefined;
  /** What a watch throws when it breaks (after `breakAfter` events). */
  breakError: unknown = new Error("upstream watch broke");
  /** The next watch fails at once with this error. */
  failNext: unknown;
  get(key: string, opts?: { revision?: number }): Promise<Entry | undefined> {
    this.calls.get++;
    return this.inner.get(key, opts);
  }
  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    this.calls.list++;
    return this.inner.list(prefix, opts);
  }
  create(key: string, value: object): Promise<Entry> {
    return this.inner.create(key, value);
  }
  update(key: string, value: object, rev: number): Promise<Entry> {
    return this.inner.update(key, value, rev);
  }
  delete(key: string, rev?: number): Promise<Entry> {
    return this.inner.delete(key, rev);
  }
  revision(): Promise<number> {
    this.calls.revision++;
    return this.inner.revision();
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  watch(prefix: string, from: number, signal: AbortSignal): AsyncIterable<StoreEvent> {
    this.calls.watch++;
    const inner = this.inner;
    const breakAfter = this.breakAfter;
    const breakError = this.breakError;
    const fail = this.failNext;
    this.failNext = undefined;
    return {
      async *[Symbol.asyncIterator]() {
        if (fail !== undefined) throw fail;
        let n = 0;
        for await (const e of inner.watch(prefix, from, signal)) {
          yield e;
          if (breakAfter !== undefined && ++n >= breakAfter) throw breakError;
        }
      },
    };
  }
}

async function take(it: AsyncIterator<StoreEvent>, n: number): Promise<StoreEvent[]> {
  const out: StoreEvent[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) throw new Error(`ended after ${out.length}`);
    out.push(r.value);
  }
  return out;
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(cond()).toBe(true);
}

const P = "/registry/core/configmaps/default/";

describe("WatchCache", () => {
  it("serves resourceVersion=0, NotOlderThan and MostRecent lists and gets from memory", async () => {
    const spy = new SpyStore();
    for (let i = 0; i < 50; i++) await spy.create(`${P}cm${String(i).padStart(3, "0")}`, { i });
    const cache = new WatchCache(spy);
    await cache.start();
    expect(hasCachedReads(cache)).toBe(true);
    const clock = new FakeClock();
    const listsAfterStart = spy.calls.list;
    const getsAfterStart = spy.calls.get;

    const any = await listChunk(cache, P, planRead("list", { resourceVersion: "0" }), { clock });
    expect(any.entries).toHaveLength(50);
    const paged = await listChunk(cache, P, planRead("list", { resourceVersion: "0", limit: 10 }), { clock, limit: 10 });
    expect(paged.entries).toHaveLength(10);
    expect(paged.remainingItemCount).toBe(40);
    const next = await listChunk(cache, P, planRead("list", { continue: paged.continue }), { clock, limit: 10 });
    expect(next.entries[0]?.key).toBe(`${P}cm010`);
    const rev = await cache.revision();
    const nol = await listChunk(cache, P, planRead("list", { resourceVersion: String(rev) }), { clock });
    expect(nol.entries).toHaveLength(50);
    expect((await readOne(cache, `${P}cm001`, planRead("get", { resourceVersion: "0" }), { clock }))?.value).toEqual({ i: 1 });
    expect(spy.calls.list).toBe(listsAfterStart);
    expect(spy.calls.get).toBe(getsAfterStart);

    // Consistent reads ask upstream for its revision only, and see a write at once.
    const e = await cache.create(`${P}new`, { x: 1 });
    const revisionsBefore = spy.calls.revision;
    expect(await readOne(cache, e.key, planRead("get", {}), { clock })).toEqual(e);
    expect((await listChunk(cache, P, planRead("list", {}), { clock })).entries).toHaveLength(51);
    expect(spy.calls.list).toBe(listsAfterStart);
    expect(spy.calls.get).toBe(getsAfterStart);
    expect(spy.calls.revision).toBe(revisionsBefore + 2);
    cache.stop();
  });

  it("makes a consistent read wait until its watch has delivered upstream's newest revision", async () => {
    const spy = new SpyStore();
    const cache = new WatchCache(spy);
    await cache.start();
    // Written behind the cache's back: upstream is ahead until the watch delivers it.
    const written = await spy.inner.create(`${P}behind`, { v: 1 });
    expect(cache.revisionOf(P)).toBeLessThan(written.modRevision);
    const listsBefore = spy.calls.list;
    expect(await cache.get(written.key)).toEqual(written);
    const list = await cache.list(P);
    expect(list.entries.map((x) => x.key)).toEqual([written.key]);
    expect(list.revision).toBeGreaterThanOrEqual(written.modRevision);
    expect(spy.calls.list).toBe(listsBefore);
    expect(spy.calls.get).toBe(0);
    cache.stop();
  });

  it("answers a consistent read at once, without asking upstream, when upstream knows its newest revision in this process", async () => {
    const spy = new SpyStore();
    let newest = 0;
    const local = Object.assign(spy, { newestRevision: () => newest });
    const cache = new WatchCache(local);
    await cache.start();
    const written = await cache.create(`${P}local`, { v: 1 });
    newest = written.modRevision;
    // Not yet delivered by the cache's watch: the read waits for it (asking upstream's revision).
    const revisionsBefore = spy.calls.revision;
    expect(await cache.get(written.key)).toEqual(written);
    await until(() => cache.revisionOf(P) === written.modRevision);
    const asked = spy.calls.revision;
    expect(asked).toBeGreaterThanOrEqual(revisionsBefore);
    const readsBefore = spy.calls.get + spy.calls.list;
    // Delivered: GET and LIST come from memory with no call upstream at all.
    expect(await cache.get(written.key)).toBe(await cache.get(written.key));
    expect((await cache.list(P)).entries.map((e) => e.key)).toEqual([written.key]);
    await expect(cache.list(P, { limit: -1 })).rejects.toMatchObject({ code: 400 });
    expect(spy.calls.revision).toBe(asked);
    expect(spy.calls.get + spy.calls.list).toBe(readsBefore);
    // Upstream ahead of the cache again: the read waits until the watch delivers.
    const behind = await spy.inner.create(`${P}behind`, { v: 2 });
    newest = behind.modRevision;
    expect(await cache.get(behind.key)).toEqual(behind);
    cache.stop();
  });

  it("sends consistent reads upstream for a while when the cache cannot catch up", async () => {
    const spy = new SpyStore();
    const clock = new FakeClock();
    // Only configmaps are cached: a write elsewhere moves upstream's revision beyond what the cache will ever see.
    const cache = new WatchCache(spy, { prefixes: [P], clock, freshnessWaitMs: 50 });
    await cache.start();
    const cm = await cache.create(`${P}a`, { v: 1 });
    await until(() => (cache.revisionOf(P) ?? 0) >= cm.modRevision);
    await spy.create("/registry/core/secrets/default/s", { v: 2 });
    const read = cache.get(cm.key);
    await until(() => clock.pendingTimers() > 0);
    clock.advance(50);
    expect(await read).toEqual(cm);
    expect(spy.calls.get).toBe(1);
    // Within the next seconds consistent reads go straight upstream, without waiting.
    expect((await cache.list(P)).entries).toHaveLength(1);
    expect(spy.calls.list).toBe(2);
    clock.advance(5_000);
    await spy.create(`${P}b`, { v: 3 });
    expect((await cache.list(P)).entries).toHaveLength(2);
    expect(spy.calls.list).toBe(2);
    cache.stop();
  });

  it("shares entries with upstream without copying them", async () => {
    const spy = new SpyStore();
    const a = await spy.create(`${P}a`, { v: 1 });
    const cache = new WatchCache(spy);
    await cache.start();
    const list = await cache.listCached(P, {}, 0);
    expect(list.entries[0]).toBe(a);
    expect(Object.isFrozen(list.entries[0]?.value)).toBe(true);
    cache.stop();
  });

  it("fans every event out to many watchers in order, replaying the window first", async () => {
    const spy = new SpyStore();
    const cache = new WatchCache(spy);
    await cache.start();
    const start = await cache.revision();
    const first = await cache.create(`${P}a`, { n: 0 });
    const controller = new AbortController();
    const watchers = Array.from({ length: 200 }, () => cache.watch(P, start, controller.signal)[Symbol.asyncIterator]());
    const watchesBefore = spy.calls.watch;
    const written = [first.modRevision];
    let cur = first;
    for (let i = 1; i < 20; i++) {
      cur = await cache.update(cur.key, { n: i }, cur.modRevision);
      written.push(cur.modRevision);
    }
    for (const w of watchers) expect((await take(w, 20)).map((e) => e.entry.modRevision)).toEqual(written);
    expect(spy.calls.watch).toBe(watchesBefore);
    expect(cache.watcherCount).toBe(200);
    controller.abort();
    expect(cache.watcherCount).toBe(0);
    cache.stop();
  });

  it("ends its watchers with the error when the upstream watch breaks, and resumes its own watch without losing or repeating events", async () => {
    const spy = new SpyStore();
    spy.breakAfter = 3;
    const cache = new WatchCache(spy, { retryMs: 1 });
    await cache.start();
    const from = await cache.revision();
    const it = cache.watch(P, from, new AbortController().signal)[Symbol.asyncIterator]();
    const written: number[] = [];
    for (let i = 0; i < 10; i++) written.push((await cache.create(`${P}k${i}`, { i })).modRevision);
    const seen: number[] = [];
    const error = await (async () => {
      try {
        for (let r = await it.next(); !r.done; r = await it.next()) seen.push(r.value.entry.modRevision);
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(String(error)).toContain("upstream watch broke");
    expect(seen).toEqual(written.slice(0, 3));
    expect(cache.watcherCount).toBe(0);

    // The cache itself went on from its revision: every event once, in its state and its window.
    await until(() => cache.revisionOf(P) === written[9]);
    expect(spy.calls.watch).toBeGreaterThanOrEqual(4);
    expect((await cache.listCached(P, {}, 0)).entries).toHaveLength(10);
    const resumed = cache.watch(P, seen[2] as number, new AbortController().signal)[Symbol.asyncIterator]();
    expect((await take(resumed, 7)).map((e) => e.entry.modRevision)).toEqual(written.slice(3));
    await resumed.return?.();
    cache.stop();
  });

  it("sends watches upstream while its upstream watch is broken, and serves them from memory once upstream answers", async () => {
    const spy = new SpyStore();
    spy.breakAfter = 1;
    spy.breakError = new Error("upstream lost");
    const cache = new WatchCache(spy, { retryMs: 1 });
    await cache.start();
    const watcher = cache.watch(P, await cache.revision(), new AbortController().signal)[Symbol.asyncIterator]();
    let down = true;
    const revision = spy.revision.bind(spy);
    spy.revision = () => (down ? Promise.reject(new Error("upstream down")) : revision());
    await spy.inner.create(`${P}a`, {});
    await expect(take(watcher, 2)).rejects.toThrow("upstream lost");
    const watchesBefore = spy.calls.watch;
    const during = cache.watch(P, await spy.inner.revision(), new AbortController().signal)[Symbol.asyncIterator]();
    expect(spy.calls.watch).toBe(watchesBefore + 1);
    await during.return?.();
    spy.breakAfter = undefined;
    down = false;
    await until(() => spy.calls.watch >= watchesBefore + 2);
    const b = await cache.create(`${P}b`, {});
    await until(() => cache.revisionOf(P) === b.modRevision);
    const calls = spy.calls.watch;
    const after = cache.watch(P, b.modRevision - 1, new AbortController().signal)[Symbol.asyncIterator]();
    expect((await take(after, 1))[0]?.entry.key).toBe(`${P}b`);
    expect(spy.calls.watch).toBe(calls);
    await after.return?.();
    cache.stop();
  });

  it("keeps its key order through random creates, updates and deletes, with reads in between", async () => {
    const spy = new SpyStore();
    const cache = new WatchCache(spy);
    await cache.start();
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 600; step++) {
      const key = `${P}k${random(80)}`;
      const current = await spy.inner.get(key);
      const roll = random(3);
      if (current === undefined) await cache.create(key, { step });
      else if (roll === 0) await cache.delete(key, current.modRevision);
      else await cache.update(key, { step }, current.modRevision);
      if (random(5) === 0 || step === 599) {
        const revision = await spy.inner.revision();
        await until(() => cache.revisionOf(P) === revision);
        const cached = await cache.listCached(P, {}, revision);
        const truth = await spy.inner.list(P);
        expect(cached.entries.map((e) => [e.key, e.modRevision])).toEqual(truth.entries.map((e) => [e.key, e.modRevision]));
        const page = await cache.listCached(P, { after: `${P}k4`, limit: 5 }, revision);
        const truthPage = await spy.inner.list(P, { after: `${P}k4`, limit: 5 });
        expect(page.entries.map((e) => e.key)).toEqual(truthPage.entries.map((e) => e.key));
        expect(page.remaining).toBe(truthPage.remaining);
      }
    }
    cache.stop();
  });

  it("relists when its revision was compacted upstream and ends its watchers with Expired", async () => {
    const spy = new SpyStore();
    // The upstream watch is cancelled as compacted after one event.
    spy.breakAfter = 1;
    spy.breakError = expired("compacted");
    const cache = new WatchCache(spy, { retryMs: 1 });
    await cache.start();
    const it = cache.watch(P, await cache.revision(), new AbortController().signal)[Symbol.asyncIterator]();
    await spy.inner.create(`${P}a`, {});
    await spy.inner.create(`${P}b`, {});
    await spy.inner.create(`${P}c`, {});
    expect((await take(it, 1))[0]?.entry.key).toBe(`${P}a`);
    const error = await it.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(reasonOf(error)).toBe("Expired");
    await until(() => cache.revisionOf(P) === 3);
    expect((await cache.listCached(P, {}, 0)).entries.map((e) => e.key)).toEqual([`${P}a`, `${P}b`, `${P}c`]);
    cache.stop();
  });

  it("advances its revision with every event, so a watch over it bookmarks the newest revision", async () => {
    const spy = new SpyStore();
    const cache = new WatchCache(spy);
    await cache.start();
    const clock = new FakeClock();
    const controller = new AbortController();
    const stream = openWatch(cache, P, planRead("watch", { resourceVersion: "0" }), {
      clock,
      signal: controller.signal,
      allowBookmarks: true,
      bookmarkIntervalMs: 1000,
    });
    const events: WatchStreamEvent[] = [];
    const reading = (async () => {
      for await (const e of stream) events.push(e);
    })();
    const a = await cache.create(`${P}a`, {});
    const b = await spy.inner.create(`${P}b`, {}); // a write the cache learns of only by its watch
    await until(() => events.length === 2);
    expect(cache.revisionOf(P)).toBe(b.modRevision);
    expect(await cache.revision()).toBe(b.modRevision);
    clock.advance(1000);
    await until(() => events.length === 3);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "ADDED", "BOOKMARK"]);
    expect(events[2]).toEqual({ type: "BOOKMARK", revision: b.modRevision });
    expect(a.modRevision).toBeLessThan(b.modRevision);
    controller.abort();
    await reading;
    cache.stop();
  });

  it("relays a watch from before its window to upstream, and expires one before a compaction", async () => {
    const spy = new SpyStore();
    const first = await spy.create(`${P}a`, { v: 0 });
    const cache = new WatchCache(spy, { windowEvents: 2 });
    await cache.start();
    let cur = first;
    for (let i = 1; i <= 5; i++) cur = await cache.update(cur.key, { v: i }, cur.modRevision);
    await until(() => cache.revisionOf(P) === cur.modRevision);
    const before = spy.calls.watch;
    const old = cache.watch(P, first.modRevision, new AbortController().signal)[Symbol.asyncIterator]();
    expect((await take(old, 5)).map((e) => e.entry.value)).toEqual([1, 2, 3, 4, 5].map((v) => ({ v })));
    expect(spy.calls.watch).toBe(before + 1);
    await cache.compact(cur.modRevision - 1);
    const expired = cache.watch(P, cur.modRevision - 2, new AbortController().signal)[Symbol.asyncIterator]();
    await expect(expired.next()).rejects.toThrow(/too old resource version/);
    cache.stop();
  });

  it("sends everything upstream before start and after stop, and ends its watchers on stop", async () => {
    const spy = new SpyStore();
    await spy.create(`${P}a`, {});
    const cache = new WatchCache(spy);
    expect(cache.ready).toBe(false);
    const lists = spy.calls.list;
    await cache.listCached(P, {}, 0);
    expect(spy.calls.list).toBe(lists + 1);
    await cache.start();
    expect(cache.ready).toBe(true);
    const it = cache.watch(P, await cache.revision(), new AbortController().signal)[Symbol.asyncIterator]();
    const pending = it.next();
    cache.stop();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(cache.ready).toBe(false);
  });
});
