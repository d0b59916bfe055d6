import { describe, expect, it, vi } from "vitest";
import { isBadRequest, isExpired, reasonOf, type StatusError } from "@orch/meta";
import { FakeClock } from "./fake-clock.js";
import { MemoryStore } from "./memory-store.js";
import type { Entry, StoreEvent } from "./store.js";
import { describeStoreConformance } from "./testing/index.js";

describeStoreConformance("MemoryStore", async () => {
  const store = new MemoryStore();
  return { store, cleanup: async () => store.close() };
});

async function rejection(promise: Promise<unknown>): Promise<StatusError> {
  try {
    await promise;
  } catch (error) {
    return error as StatusError;
  }
  throw new Error("expected a rejection");
}

const key = (name: string, resource = "configmaps", group = "core"): string => `/registry/${group}/${resource}/default/${name}`;

describe("MemoryStore revisions", () => {
  it("starts at revision 0 and numbers writes from 1", async () => {
    const store = new MemoryStore();
    expect(await store.revision()).toBe(0);
    expect((await store.create(key("a"), {})).modRevision).toBe(1);
    expect((await store.create(key("b"), {})).modRevision).toBe(2);
    await store.delete(key("a"));
    expect(await store.revision()).toBe(3);
    store.close();
  });

  it("throws 504 Too large resource version for reads beyond the newest revision", async () => {
    const store = new MemoryStore();
    await store.create(key("a"), {});
    const error = await rejection(store.get(key("a"), { revision: 2 }));
    expect(reasonOf(error)).toBe("Timeout");
    expect(error.code).toBe(504);
    expect(error.message).toBe("Timeout: Too large resource version: 2, current: 1");
    expect(error.status.details?.causes?.[0]?.reason).toBe("ResourceVersionTooLarge");
    expect(reasonOf(await rejection(store.list("/registry/", { revision: 5 })))).toBe("Timeout");
    expect(reasonOf(await rejection(store.compact(9)))).toBe("Timeout");
    store.close();
  });

  it("treats revision 0 as the newest, as etcd does", async () => {
    const store = new MemoryStore();
    const a = await store.create(key("a"), { v: 1 });
    const a2 = await store.update(key("a"), { v: 2 }, a.modRevision);
    expect(await store.get(key("a"), { revision: 0 })).toBe(a2);
    expect((await store.list("/registry/", { revision: 0 })).revision).toBe(2);
    store.close();
  });

  it("rejects negative or fractional revisions and limits with BadRequest", async () => {
    const store = new MemoryStore();
    await store.create(key("a"), {});
    expect(isBadRequest(await rejection(store.get(key("a"), { revision: -1 })))).toBe(true);
    expect(isBadRequest(await rejection(store.get(key("a"), { revision: 0.5 })))).toBe(true);
    expect(isBadRequest(await rejection(store.list("/", { limit: -1 })))).toBe(true);
    expect(isBadRequest(await rejection(store.list("/", { limit: 1.5 })))).toBe(true);
    expect(isBadRequest(await rejection(store.compact(-2)))).toBe(true);
    const it = store.watch("/", -1, new AbortController().signal)[Symbol.asyncIterator]();
    expect(isBadRequest(await rejection(it.next()))).toBe(true);
    store.close();
  });

  it("rejects values that are not objects with BadRequest", async () => {
    const store = new MemoryStore();
    expect(isBadRequest(await rejection(store.create(key("a"), null as unknown as object)))).toBe(true);
    expect(isBadRequest(await rejection(store.create(key("a"), "x" as unknown as object)))).toBe(true);
    expect(await store.revision()).toBe(0);
    store.close();
  });

  it("names the resource of the key in errors", async () => {
    const store = new MemoryStore();
    await store.create(key("a"), {});
    await store.create(key("l", "leases", "coordination.orch.io"), {});
    expect((await rejection(store.create(key("a"), {}))).message).toBe('configmaps "a" already exists');
    expect((await rejection(store.create(key("l", "leases", "coordination.orch.io"), {}))).message).toBe('leases.coordination.orch.io "l" already exists');
    expect((await rejection(store.update(key("b"), {}, 1))).message).toBe('configmaps "b" not found');
    const conflict = await rejection(store.update(key("a"), {}, 7));
    expect(conflict.message).toBe(
      'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(conflict.status.details).toEqual({ name: "a", kind: "configmaps" });
    store.close();
  });

  it("says which revisions are gone in Expired errors", async () => {
    const store = new MemoryStore();
    for (let i = 0; i < 4; i++) await store.create(key(`k${i}`), {});
    await store.compact(3);
    expect(store.compactedRevision).toBe(3);
    const error = await rejection(store.get(key("k0"), { revision: 1 }));
    expect(error.message).toBe("too old resource version: 1 (3)");
    expect(error.code).toBe(410);
    const watch = store.watch("/", 2, new AbortController().signal)[Symbol.asyncIterator]();
    expect((await rejection(watch.next())).message).toBe("too old resource version: 2 (3)");
    expect(await watch.next()).toEqual({ done: true, value: undefined });
    store.close();
  });
});

describe("MemoryStore values", () => {
  it("deep-freezes values on write", async () => {
    const store = new MemoryStore();
    const value = { metadata: { labels: { a: "b" } }, spec: { items: [{ x: 1 }, [2, { y: 3 }]] } };
    await store.create(key("a"), value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.metadata.labels)).toBe(true);
    expect(Object.isFrozen(value.spec.items)).toBe(true);
    expect(Object.isFrozen(value.spec.items[0])).toBe(true);
    expect(Object.isFrozen((value.spec.items[1] as unknown[])[1])).toBe(true);
    expect(() => {
      (value.metadata.labels as Record<string, string>).a = "changed";
    }).toThrow(TypeError);
    const entry = await store.get(key("a"));
    expect(Object.isFrozen(entry)).toBe(true);
    store.close();
  });

  it("skips subtrees that are already frozen", async () => {
    const store = new MemoryStore();
    const inner = { mutable: true };
    const frozen = Object.freeze({ inner });
    const value = { frozen, other: { x: 1 } };
    await store.create(key("a"), value);
    expect(Object.isFrozen(value.other)).toBe(true);
    expect(Object.isFrozen(inner)).toBe(false);
    store.close();
  });

  it("never copies: reads return the same entry and value objects while a key is unchanged", async () => {
    const store = new MemoryStore();
    const value = { data: { a: "1" } };
    const created = await store.create(key("a"), value);
    expect(created.value).toBe(value);
    const first = await store.get(key("a"));
    const second = await store.get(key("a"));
    expect(first).toBe(created);
    expect(second).toBe(created);
    expect((await store.get(key("a"), { revision: created.modRevision })) === created).toBe(true);
    const list = await store.list("/registry/core/configmaps/");
    expect(list.entries[0]).toBe(created);

    const controller = new AbortController();
    const it = store.watch("/registry/", 0, controller.signal)[Symbol.asyncIterator]();
    const event = await it.next();
    expect((event.value as StoreEvent).entry).toBe(created);

    const updated = await store.update(key("a"), { data: { a: "2" } }, created.modRevision);
    expect(await store.get(key("a"))).toBe(updated);
    expect(await store.get(key("a"), { revision: created.modRevision })).toBe(created);
    controller.abort();
    store.close();
  });

  it("hands out page arrays the caller owns", async () => {
    const store = new MemoryStore();
    for (let i = 0; i < 1500; i++) await store.create(key(`k${String(i).padStart(4, "0")}`), { i });
    const all = await store.list("/registry/");
    expect(all.entries).toHaveLength(1500);
    all.entries.length = 0;
    const page = await store.list("/registry/", { limit: 700 });
    page.entries.reverse();
    expect((await store.list("/registry/")).entries).toHaveLength(1500);
    expect((await store.list("/registry/", { limit: 700 })).entries[0]?.key).toBe(key("k0000"));
    store.close();
  });
});

describe("MemoryStore automatic compaction", () => {
  it("compacts history older than the window when a FakeClock advances, keeping current state", async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore({ clock, historyWindowMs: 60_000 });
    const a1 = await store.create(key("a"), { v: 1 }); // t=0, rev 1
    clock.advance(10_000);
    const a2 = await store.update(key("a"), { v: 2 }, a1.modRevision); // t=10s, rev 2
    const b = await store.create(key("b"), { v: 1 }); // t=10s, rev 3
    clock.advance(40_000);
    const deleted = await store.delete(key("b")); // t=50s, rev 4
    expect(deleted).toBe(b);

    clock.advance(15_000); // t=65s: only rev 1 is older than the window
    expect(store.compactedRevision).toBe(1);
    expect(await store.get(key("a"), { revision: 1 })).toBe(a1);

    clock.advance(10_000); // t=75s: revs 2 and 3 (t=10s) are older than the window too
    expect(store.compactedRevision).toBe(3);
    expect(isExpired(await rejection(store.get(key("a"), { revision: 2 })))).toBe(true);
    expect(isExpired(await rejection(store.list("/registry/", { revision: 1 })))).toBe(true);
    const it = store.watch("/registry/", 1, new AbortController().signal)[Symbol.asyncIterator]();
    expect(isExpired(await rejection(it.next()))).toBe(true);
    expect(await store.get(key("a"), { revision: 3 })).toBe(a2);
    expect((await store.list("/registry/", { revision: 3 })).entries).toEqual([a2, b]);

    clock.advance(60_000); // everything is older than the window
    expect(store.compactedRevision).toBe(4);
    expect(await store.get(key("a"))).toBe(a2);
    expect((await store.list("/registry/")).entries).toEqual([a2]);
    store.close();
  });

  it("runs its sweep timer only while there is history to forget", async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore({ clock, historyWindowMs: 1_000 });
    expect(clock.pendingTimers()).toBe(0);
    await store.create(key("a"), {});
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1_100);
    expect(store.compactedRevision).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
    await store.create(key("b"), {});
    expect(clock.pendingTimers()).toBe(1);
    store.close();
    expect(clock.pendingTimers()).toBe(0);
    await store.create(key("c"), {});
    expect(clock.pendingTimers()).toBe(0);
  });

  it("keeps history forever with an infinite window until compacted explicitly", async () => {
    const clock = new FakeClock(0);
    const store = new MemoryStore({ clock, historyWindowMs: Number.POSITIVE_INFINITY });
    const a = await store.create(key("a"), { v: 1 });
    await store.update(key("a"), { v: 2 }, a.modRevision);
    clock.advance(365 * 24 * 3600_000);
    expect(await store.get(key("a"), { revision: 1 })).toBe(a);
    expect(clock.pendingTimers()).toBe(0);
    store.close();
  });

  it("rejects a window that is not positive", () => {
    expect(() => new MemoryStore({ historyWindowMs: 0 })).toThrow(RangeError);
    expect(() => new MemoryStore({ historyWindowMs: Number.NaN })).toThrow(RangeError);
  });
});

describe("MemoryStore watches", () => {
  it("unregisters watches when they end by abort, by break, by return() or by close()", async () => {
    const store = new MemoryStore();
    const controller = new AbortController();
    const pending = store.watch("/", 0, controller.signal)[Symbol.asyncIterator]();
    const next = pending.next();
    const future = store.watch("/", 100, controller.signal)[Symbol.asyncIterator]();
    expect(store.watcherCount).toBe(2);
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(store.watcherCount).toBe(0);
    expect(await future.next()).toEqual({ done: true, value: undefined });

    await store.create(key("a"), {});
    for await (const _ of store.watch("/", 0, new AbortController().signal)) break;
    expect(store.watcherCount).toBe(0);

    const returned = store.watch("/", 0, new AbortController().signal)[Symbol.asyncIterator]();
    expect(store.watcherCount).toBe(1);
    await returned.return?.();
    expect(store.watcherCount).toBe(0);

    const open = store.watch("/", 1, new AbortController().signal)[Symbol.asyncIterator]();
    const waiting = open.next();
    expect(store.watcherCount).toBe(1);
    store.close();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(store.watcherCount).toBe(0);
    expect(await store.watch("/", 0, new AbortController().signal)[Symbol.asyncIterator]().next()).toMatchObject({ done: true });
  });

  it("listens once per abort signal however many watches share it", async () => {
    const store = new MemoryStore();
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, "addEventListener");
    const remove = vi.spyOn(controller.signal, "removeEventListener");
    const its = Array.from({ length: 50 }, () => store.watch("/", 0, controller.signal)[Symbol.asyncIterator]());
    expect(add).toHaveBeenCalledTimes(1);
    await its[0]?.return?.();
    expect(remove).not.toHaveBeenCalled();
    const pending = its.map((it) => it.next());
    controller.abort();
    expect((await Promise.all(pending)).every((r) => r.done)).toBe(true);
    expect(store.watcherCount).toBe(0);

    const other = new AbortController();
    const removeOther = vi.spyOn(other.signal, "removeEventListener");
    const one = store.watch("/", 0, other.signal)[Symbol.asyncIterator]();
    await one.return?.();
    expect(removeOther).toHaveBeenCalledTimes(1);
    store.close();
  });

  it("starts a watch when iteration starts, and each iteration is its own watch", async () => {
    const store = new MemoryStore();
    const iterable = store.watch("/", 0, new AbortController().signal);
    expect(store.watcherCount).toBe(0);
    const a = await store.create(key("a"), {});
    const one = iterable[Symbol.asyncIterator]();
    const two = iterable[Symbol.asyncIterator]();
    expect(store.watcherCount).toBe(2);
    expect((await one.next()).value).toMatchObject({ entry: a });
    expect((await two.next()).value).toMatchObject({ entry: a });
    store.close();
  });

  it("serves concurrent next() calls in order", async () => {
    const store = new MemoryStore();
    const it = store.watch("/", 0, new AbortController().signal)[Symbol.asyncIterator]();
    const results = [it.next(), it.next(), it.next()];
    const a = await store.create(key("a"), {});
    const b = await store.create(key("b"), {});
    const c = await store.create(key("c"), {});
    expect((await Promise.all(results)).map((r) => (r.value as StoreEvent).entry)).toEqual([a, b, c]);
    store.close();
  });

  it("fans each event out to 1,000 watchers, each getting every event once", async () => {
    const store = new MemoryStore();
    const controller = new AbortController();
    const counts = new Array<number>(1000).fill(0);
    const consumers = counts.map(async (_, i) => {
      for await (const e of store.watch("/registry/core/", 0, controller.signal)) {
        counts[i] = (counts[i] as number) + 1;
        if (e.entry.modRevision === 50) break;
      }
    });
    let rev = (await store.create(key("a"), { n: 0 })).modRevision;
    await store.create("/registry/apps/deployments/default/x", {}); // another prefix: not delivered
    for (let n = 1; (await store.revision()) < 50; n++) rev = (await store.update(key("a"), { n }, rev)).modRevision;
    await Promise.all(consumers);
    expect(new Set(counts)).toEqual(new Set([49]));
    expect(store.watcherCount).toBe(0);
    controller.abort();
    store.close();
  });
});

// A reference model: the full state after every revision, checked against the store.
describe("MemoryStore against a model", () => {
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

  for (const seed of [1, 2, 3, 4]) {
    it(`answers get and list at every retained revision like the model (seed ${seed})`, async () => {
      const random = rng(seed);
      const store = new MemoryStore();
      const prefixes = ["/registry/core/a/", "/registry/core/b/", "/registry/core/ab/"];
      const names = Array.from({ length: 300 }, (_, i) => `n${(i * 7919) % 1000}`);
      const states: Map<string, Entry>[] = [new Map()];
      let compacted = 0;
      for (let step = 0; step < 3000; step++) {
        const current = states[states.length - 1] as Map<string, Entry>;
        const k = `${prefixes[Math.floor(random() * 3)]}${names[Math.floor(random() * names.length)]}`;
        const existing = current.get(k);
        const next = new Map(current);
        if (!existing) {
          next.set(k, await store.create(k, { step }));
        } else if (random() < 0.6) {
          next.set(k, await store.update(k, { step }, existing.modRevision));
        } else {
          expect(await store.delete(k, existing.modRevision)).toBe(existing);
          next.delete(k);
        }
        states.push(next);
        if (step % 997 === 996) {
          compacted = states.length - 400;
          await store.compact(compacted);
        }
      }
      const newest = states.length - 1;
      expect(await store.revision()).toBe(newest);
      const sorted = (m: Map<string, Entry>, prefix: string): Entry[] =>
        [...m.values()].filter((e) => e.key.startsWith(prefix)).sort((x, y) => (x.key < y.key ? -1 : 1));

      for (let probe = 0; probe < 60; probe++) {
        const revision = compacted + Math.floor(random() * (newest - compacted + 1));
        const state = states[revision] as Map<string, Entry>;
        const prefix = probe % 4 === 3 ? "/registry/" : (prefixes[probe % 3] as string);
        const expected = sorted(state, prefix);
        const limit = 1 + Math.floor(random() * 40);
        const pages: Entry[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.list(prefix, after === undefined ? { revision, limit } : { revision, limit, after });
          pages.push(...page.entries);
          expect(page.remaining).toBe(expected.length - pages.length);
          expect(page.more).toBe(page.remaining > 0);
          if (!page.more) break;
          after = page.entries[page.entries.length - 1]?.key;
        }
        expect(pages).toEqual(expected);
        for (const e of expected.slice(0, 5)) expect(await store.get(e.key, { revision })).toBe(e);
      }
      // The newest revision answers through the count-based path.
      for (const prefix of [...prefixes, "/registry/", ""]) {
        const expected = sorted(states[newest] as Map<string, Entry>, prefix);
        const page = await store.list(prefix, { limit: 7 });
        expect(page.entries).toEqual(expected.slice(0, 7));
        expect(page.remaining).toBe(Math.max(0, expected.length - 7));
      }
      expect(isExpired(await rejection(store.get(prefixes[0] as string, { revision: compacted - 1 })))).toBe(true);
      store.close();
    });
  }
});
