/**
 * The store conformance suite: the behaviour every {@link Store} implementation must have, as a
 * vitest suite. `MemoryStore` runs it here; `EtcdStore` runs it against a real etcd.
 *
 * The suite assumes nothing about the store beyond the port: revisions are taken from the
 * writes themselves (never assumed to start anywhere, or to be consecutive, since other tests may
 * share a backend), every test works under its own random key prefix, and time is never faked
 * (real timers appear only as failure guards, so a hung watch fails instead of hanging).
 * @module
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reasonOf, StatusError, type StatusReason } from "@orch/meta";
import type { Entry, Store, StoreEvent } from "../store.js";

/** What {@link describeStoreConformance} gets from its `setup`: a store and how to dispose of it. */
export interface StoreHarness {
  /** The store under test; it may be shared with other tests (keys are prefixed per test). */
  store: Store;
  /** Called after each test: close the store, or forget it. */
  cleanup(): Promise<void>;
}

/** How long a test waits for a watch event before failing (a guard, not a timing). */
const GUARD_MS = 5_000;

let prefixCounter = 0;

function uniquePrefix(): string {
  const random = Math.random().toString(36).slice(2, 10);
  return `/registry/conformance.orch.io/t${Date.now().toString(36)}${random}${prefixCounter++}/`;
}

/** The error `promise` rejects with; fails the test when it fulfils. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the operation to fail, but it succeeded");
}

async function expectStatus(promise: Promise<unknown>, reason: StatusReason, code: number): Promise<StatusError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(StatusError);
  expect(reasonOf(error)).toBe(reason);
  expect((error as StatusError).code).toBe(code);
  return error as StatusError;
}

/** Resolves like `promise`, or rejects after `ms` so a missing event fails the test. */
function guard<T>(promise: Promise<T>, what: string, ms = GUARD_MS): Promise<T> {
  let cancel = (): void => {};
  const timeout = new Promise<never>((_, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    cancel = () => clearTimeout(timer);
  });
  return Promise.race([promise, timeout]).finally(cancel);
}

/** Reads exactly `n` events from `it` (failing when it ends first or stalls). */
async function take(it: AsyncIterator<StoreEvent>, n: number): Promise<StoreEvent[]> {
  const out: StoreEvent[] = [];
  while (out.length < n) {
    const result = await guard(it.next(), `event ${out.length + 1} of ${n}`);
    if (result.done) throw new Error(`watch ended after ${out.length} of ${n} events`);
    out.push(result.value);
  }
  return out;
}

/** A compact, comparable form of an event. */
function summary(event: StoreEvent): [string, string, number] {
  return [event.type, event.entry.key, event.entry.modRevision];
}

function keysOf(entries: readonly Entry[]): string[] {
  return entries.map((e) => e.key);
}

/**
 * Declares the conformance suite for one {@link Store} implementation. `setup` runs before each
 * test and its `cleanup` after it.
 *
 * @example
 * ```ts
 * describeStoreConformance("MemoryStore", async () => {
 *   const store = new MemoryStore();
 *   return { store, cleanup: async () => store.close() };
 * });
 * ```
 */
export function describeStoreConformance(name: string, setup: () => Promise<StoreHarness>): void {
  describe(`Store conformance: ${name}`, () => {
    let harness: StoreHarness;
    let store: Store;
    /** This test's key prefix. */
    let p: string;
    const controllers: AbortController[] = [];

    /** An abort signal that is aborted after the test, so no watch outlives it. */
    function signal(): AbortSignal {
      const controller = new AbortController();
      controllers.push(controller);
      return controller.signal;
    }

    function open(prefix: string, fromRevision: number, s: AbortSignal = signal()): AsyncIterator<StoreEvent> {
      return store.watch(prefix, fromRevision, s)[Symbol.asyncIterator]();
    }

    beforeEach(async () => {
      harness = await setup();
      store = harness.store;
      p = uniquePrefix();
    });

    afterEach(async () => {
      for (const controller of controllers.splice(0)) controller.abort();
      await harness.cleanup();
    });

    describe("ordering and revisions", () => {
      it("gives every write a greater revision than the last, across keys", async () => {
        const before = await store.revision();
        const a = await store.create(`${p}a`, { n: 1 });
        const b = await store.create(`${p}b`, { n: 2 });
        const a2 = await store.update(`${p}a`, { n: 3 }, a.modRevision);
        const deleted = await store.delete(`${p}b`);
        expect(a.modRevision).toBeGreaterThan(before);
        expect(b.modRevision).toBeGreaterThan(a.modRevision);
        expect(a2.modRevision).toBeGreaterThan(b.modRevision);
        expect(deleted.modRevision).toBe(b.modRevision);
        expect(await store.revision()).toBeGreaterThan(a2.modRevision);
      });

      it("creates entries whose createRevision and modRevision are the write's revision", async () => {
        const e = await store.create(`${p}a`, { n: 1 });
        expect(e.key).toBe(`${p}a`);
        expect(e.createRevision).toBe(e.modRevision);
        expect(e.value).toEqual({ n: 1 });
        expect(await store.revision()).toBeGreaterThanOrEqual(e.modRevision);
      });

      it("lists keys in ascending key order whatever the order of creation", async () => {
        const names = ["m", "b", "z", "a", "k", "ns/x", "ns/a", "B", "0"];
        for (const n of names) await store.create(`${p}${n}`, { n });
        const list = await store.list(p);
        expect(keysOf(list.entries)).toEqual(names.map((n) => `${p}${n}`).sort());
        expect(list.more).toBe(false);
        expect(list.remaining).toBe(0);
        expect(list.revision).toBeGreaterThanOrEqual(Math.max(...list.entries.map((e) => e.modRevision)));
      });

      it("reads back what was written, and undefined for a missing key", async () => {
        const value = { spec: { list: [1, { a: "b" }], flag: true, none: null } };
        const created = await store.create(`${p}a`, value);
        const got = await store.get(`${p}a`);
        expect(got).toEqual(created);
        expect(got?.value).toEqual(value);
        expect(await store.get(`${p}missing`)).toBeUndefined();
      });
    });

    describe("create, update and delete", () => {
      it("rejects the create of a present key with AlreadyExists and changes nothing", async () => {
        const first = await store.create(`${p}a`, { v: 1 });
        await expectStatus(store.create(`${p}a`, { v: 2 }), "AlreadyExists", 409);
        expect(await store.get(`${p}a`)).toEqual(first);
      });

      it("re-creates a deleted key with a new createRevision", async () => {
        const first = await store.create(`${p}a`, { v: 1 });
        await store.delete(`${p}a`, first.modRevision);
        const again = await store.create(`${p}a`, { v: 2 });
        expect(again.createRevision).toBeGreaterThan(first.createRevision);
        expect(again.createRevision).toBe(again.modRevision);
        expect((await store.get(`${p}a`))?.value).toEqual({ v: 2 });
      });

      it("updates with the current modRevision, keeping createRevision", async () => {
        const first = await store.create(`${p}a`, { v: 1 });
        const second = await store.update(`${p}a`, { v: 2 }, first.modRevision);
        expect(second.createRevision).toBe(first.createRevision);
        expect(second.modRevision).toBeGreaterThan(first.modRevision);
        expect(second.value).toEqual({ v: 2 });
        expect(await store.get(`${p}a`)).toEqual(second);
      });

      it("rejects an update with a stale modRevision with Conflict and keeps the value", async () => {
        const first = await store.create(`${p}a`, { v: 1 });
        const second = await store.update(`${p}a`, { v: 2 }, first.modRevision);
        await expectStatus(store.update(`${p}a`, { v: 3 }, first.modRevision), "Conflict", 409);
        expect(await store.get(`${p}a`)).toEqual(second);
      });

      it("rejects a delete with a stale modRevision with Conflict and keeps the key", async () => {
        const first = await store.create(`${p}a`, { v: 1 });
        const second = await store.update(`${p}a`, { v: 2 }, first.modRevision);
        await expectStatus(store.delete(`${p}a`, first.modRevision), "Conflict", 409);
        expect(await store.get(`${p}a`)).toEqual(second);
      });

      it("rejects update and delete of a missing key with NotFound", async () => {
        await expectStatus(store.update(`${p}missing`, { v: 1 }, 1), "NotFound", 404);
        await expectStatus(store.delete(`${p}missing`), "NotFound", 404);
        await expectStatus(store.delete(`${p}missing`, 1), "NotFound", 404);
        const e = await store.create(`${p}gone`, { v: 1 });
        await store.delete(`${p}gone`);
        await expectStatus(store.update(`${p}gone`, { v: 2 }, e.modRevision), "NotFound", 404);
        await expectStatus(store.delete(`${p}gone`), "NotFound", 404);
      });

      it("deletes with the current modRevision or unconditionally, returning the last entry", async () => {
        const a = await store.create(`${p}a`, { v: "a" });
        const b1 = await store.create(`${p}b`, { v: "b1" });
        const b2 = await store.update(`${p}b`, { v: "b2" }, b1.modRevision);
        expect(await store.delete(`${p}a`, a.modRevision)).toEqual(a);
        expect(await store.delete(`${p}b`)).toEqual(b2);
        expect(await store.get(`${p}a`)).toBeUndefined();
        expect(await store.get(`${p}b`)).toBeUndefined();
        expect((await store.list(p)).entries).toEqual([]);
      });
    });

    describe("reads at past revisions", () => {
      it("gets a key as it was at a past revision", async () => {
        const v1 = await store.create(`${p}a`, { v: 1 });
        const v2 = await store.update(`${p}a`, { v: 2 }, v1.modRevision);
        const other = await store.create(`${p}b`, { v: 0 });
        const v3 = await store.update(`${p}a`, { v: 3 }, v2.modRevision);
        expect(await store.get(`${p}a`, { revision: v1.modRevision })).toEqual(v1);
        expect(await store.get(`${p}a`, { revision: v2.modRevision })).toEqual(v2);
        expect(await store.get(`${p}a`, { revision: other.modRevision })).toEqual(v2);
        expect(await store.get(`${p}a`, { revision: v3.modRevision })).toEqual(v3);
        expect(await store.get(`${p}a`)).toEqual(v3);
      });

      it("sees keys deleted since, and not keys created later, at a past revision", async () => {
        const a = await store.create(`${p}a`, { v: "a" });
        const b = await store.create(`${p}b`, { v: "b" });
        const at = await store.revision();
        await store.delete(`${p}a`);
        const c = await store.create(`${p}c`, { v: "c" });
        const b2 = await store.update(`${p}b`, { v: "b2" }, b.modRevision);

        expect(await store.get(`${p}a`, { revision: at })).toEqual(a);
        expect(await store.get(`${p}c`, { revision: at })).toBeUndefined();
        const past = await store.list(p, { revision: at });
        expect(past.revision).toBe(at);
        expect(past.entries).toEqual([a, b]);

        const now = await store.list(p);
        expect(now.entries).toEqual([b2, c]);
        expect(now.revision).toBeGreaterThanOrEqual(b2.modRevision);
      });

      it("sees a key that was deleted and re-created as it was in each life", async () => {
        const first = await store.create(`${p}a`, { life: 1 });
        await store.delete(`${p}a`);
        const gap = await store.revision();
        const second = await store.create(`${p}a`, { life: 2 });
        expect(await store.get(`${p}a`, { revision: first.modRevision })).toEqual(first);
        expect(await store.get(`${p}a`, { revision: gap })).toBeUndefined();
        expect(await store.get(`${p}a`, { revision: second.modRevision })).toEqual(second);
        expect((await store.list(p, { revision: gap })).entries).toEqual([]);
      });
    });

    describe("paging", () => {
      it("pages with after and limit through one revision while writes continue", async () => {
        const names = Array.from({ length: 10 }, (_, i) => `k${i}`);
        for (const n of names) await store.create(`${p}${n}`, { n });
        const first = await store.list(p, { limit: 3 });
        const at = first.revision;
        const snapshot = await store.list(p, { revision: at });
        expect(keysOf(first.entries)).toEqual([`${p}k0`, `${p}k1`, `${p}k2`]);
        expect(first.more).toBe(true);
        expect(first.remaining).toBe(7);

        const pages = [first];
        let last = first;
        let round = 0;
        while (last.more) {
          // Writes between pages: none of them may show in the pages read at `at`.
          const victim = `${p}k${3 + round}`;
          const current = await store.get(victim);
          if (current) await store.delete(victim, current.modRevision);
          await store.create(`${p}k${round}x`, { added: round });
          const k9 = await store.get(`${p}k9`);
          if (k9) await store.update(`${p}k9`, { changed: round }, k9.modRevision);
          round++;

          const after = (last.entries[last.entries.length - 1] as Entry).key;
          last = await store.list(p, { revision: at, after, limit: 3 });
          expect(last.revision).toBe(at);
          pages.push(last);
        }
        expect(pages.map((page) => [page.entries.length, page.more, page.remaining])).toEqual([
          [3, true, 7],
          [3, true, 4],
          [3, true, 1],
          [1, false, 0],
        ]);
        expect(pages.flatMap((page) => page.entries)).toEqual(snapshot.entries);

        // The newest revision shows the writes.
        const now = await store.list(p);
        expect(keysOf(now.entries)).not.toContain(`${p}k3`);
        expect(keysOf(now.entries)).toContain(`${p}k0x`);
      });

      it("counts remaining entries at the newest revision and after deletions", async () => {
        for (const n of ["a", "b", "c", "d", "e"]) await store.create(`${p}${n}`, {});
        const page = await store.list(p, { limit: 2 });
        expect([page.more, page.remaining]).toEqual([true, 3]);
        await store.delete(`${p}d`);
        const again = await store.list(p, { limit: 2, after: `${p}a` });
        expect(keysOf(again.entries)).toEqual([`${p}b`, `${p}c`]);
        expect([again.more, again.remaining]).toEqual([true, 1]);
        const exact = await store.list(p, { limit: 4 });
        expect(keysOf(exact.entries)).toEqual([`${p}a`, `${p}b`, `${p}c`, `${p}e`]);
        expect([exact.more, exact.remaining]).toEqual([false, 0]);
      });

      it("returns everything without a limit or with limit 0", async () => {
        for (const n of ["a", "b", "c"]) await store.create(`${p}${n}`, {});
        for (const opts of [{}, { limit: 0 }]) {
          const list = await store.list(p, opts);
          expect(keysOf(list.entries)).toEqual([`${p}a`, `${p}b`, `${p}c`]);
          expect([list.more, list.remaining]).toEqual([false, 0]);
        }
      });

      it("starts strictly after `after`, even when that key does not exist", async () => {
        for (const n of ["a", "c", "e"]) await store.create(`${p}${n}`, {});
        expect(keysOf((await store.list(p, { after: `${p}c` })).entries)).toEqual([`${p}e`]);
        expect(keysOf((await store.list(p, { after: `${p}b` })).entries)).toEqual([`${p}c`, `${p}e`]);
        expect((await store.list(p, { after: `${p}e` })).entries).toEqual([]);
        expect(keysOf((await store.list(p, { after: "/" })).entries)).toEqual([`${p}a`, `${p}c`, `${p}e`]);
      });

      it("lists only keys under the prefix, not those of a sibling sharing its characters", async () => {
        await store.create(`${p}a/1`, {});
        await store.create(`${p}a/2`, {});
        await store.create(`${p}ab/1`, {});
        await store.create(`${p}a`, {});
        await store.create(`${p}b/1`, {});
        const list = await store.list(`${p}a/`);
        expect(keysOf(list.entries)).toEqual([`${p}a/1`, `${p}a/2`]);
        const page = await store.list(`${p}a/`, { limit: 1 });
        expect([page.more, page.remaining]).toEqual([true, 1]);
        const at = await store.revision();
        await store.create(`${p}a/3`, {});
        await store.create(`${p}ab/3`, {});
        const past = await store.list(`${p}a/`, { revision: at, limit: 1 });
        expect(keysOf(past.entries)).toEqual([`${p}a/1`]);
        expect([past.more, past.remaining]).toEqual([true, 1]);
        const rest = await store.list(`${p}a/`, { revision: at, after: `${p}a/1` });
        expect(keysOf(rest.entries)).toEqual([`${p}a/2`]);
      });
    });

    describe("watch", () => {
      it("replays the events after fromRevision, then delivers live events", async () => {
        const a1 = await store.create(`${p}a`, { v: 1 });
        const a2 = await store.update(`${p}a`, { v: 2 }, a1.modRevision);
        const b = await store.create(`${p}b`, { v: 1 });
        const it = open(p, a1.modRevision);
        const replayed = await take(it, 2);
        expect(replayed.map(summary)).toEqual([
          ["update", `${p}a`, a2.modRevision],
          ["create", `${p}b`, b.modRevision],
        ]);
        expect(replayed[0]?.entry).toEqual(a2);
        expect(replayed[0]?.prev).toEqual(a1);
        expect(replayed[1]?.entry).toEqual(b);
        expect(replayed[1]?.prev).toBeUndefined();

        const c = await store.create(`${p}c`, { v: 1 });
        const [live] = await take(it, 1);
        expect(live?.type).toBe("create");
        expect(live?.entry).toEqual(c);
      });

      it("from the newest revision delivers only later changes", async () => {
        await store.create(`${p}old`, {});
        const it = open(p, await store.revision());
        const fresh = await store.create(`${p}new`, {});
        const [event] = await take(it, 1);
        expect(event?.entry).toEqual(fresh);
      });

      it("delivers update events with the previous entry", async () => {
        const a1 = await store.create(`${p}a`, { v: 1 });
        const it = open(p, a1.modRevision);
        const a2 = await store.update(`${p}a`, { v: 2 }, a1.modRevision);
        const [event] = await take(it, 1);
        expect(event?.type).toBe("update");
        expect(event?.entry).toEqual(a2);
        expect(event?.prev).toEqual(a1);
      });

      it("delivers delete events with the last value at the deletion's revision, and prev", async () => {
        const a1 = await store.create(`${p}a`, { v: 1 });
        const a2 = await store.update(`${p}a`, { v: 2 }, a1.modRevision);
        const it = open(p, a2.modRevision);
        await store.delete(`${p}a`);
        const deletedAt = await store.revision();
        const [event] = await take(it, 1);
        expect(event?.type).toBe("delete");
        expect(event?.entry.key).toBe(`${p}a`);
        expect(event?.entry.value).toEqual({ v: 2 });
        expect(event?.entry.createRevision).toBe(a1.createRevision);
        expect(event?.entry.modRevision).toBe(deletedAt);
        expect(event?.entry.modRevision).toBeGreaterThan(a2.modRevision);
        expect(event?.prev).toEqual(a2);
      });

      it("keeps prefixes apart: a watch on /a/ does not see /ab/", async () => {
        const start = await store.revision();
        const onA = open(`${p}a/`, start);
        const onAB = open(`${p}ab/`, start);
        await store.create(`${p}ab/1`, {});
        await store.create(`${p}a`, {});
        const a1 = await store.create(`${p}a/1`, {});
        await store.create(`${p}ab/2`, {});
        const a2 = await store.create(`${p}a/2`, {});
        expect((await take(onA, 2)).map((e) => e.entry)).toEqual([a1, a2]);
        expect((await take(onAB, 2)).map((e) => e.entry.key)).toEqual([`${p}ab/1`, `${p}ab/2`]);
      });

      it("delivers every change in revision order without gaps or duplicates while writes interleave", async () => {
        const start = await store.revision();
        const written: number[] = [];
        let prev = await store.create(`${p}counter`, { n: 0 });
        written.push(prev.modRevision);
        for (let n = 1; n < 20; n++) {
          prev = await store.update(`${p}counter`, { n }, prev.modRevision);
          written.push(prev.modRevision);
        }
        const it = open(p, start);
        const seen: StoreEvent[] = [];
        // Consume the replay while writing: every event read is followed by a new write.
        for (let n = 20; n < 60; n++) {
          seen.push(...(await take(it, 1)));
          prev = await store.update(`${p}counter`, { n }, prev.modRevision);
          written.push(prev.modRevision);
          if (n % 3 === 0) await store.create(`${p}side-${n}`, {}).then((e) => written.push(e.modRevision));
        }
        seen.push(...(await take(it, written.length - seen.length)));
        const revisions = seen.map((e) => e.entry.modRevision);
        expect(revisions).toEqual(written);
        for (let i = 1; i < revisions.length; i++) expect(revisions[i]).toBeGreaterThan(revisions[i - 1] as number);
      });

      it("gives each of several watches on one prefix every event", async () => {
        const start = await store.revision();
        const its = [open(p, start), open(p, start), open(p, start)];
        const a = await store.create(`${p}a`, {});
        const b = await store.create(`${p}b`, {});
        for (const it of its) expect((await take(it, 2)).map((e) => e.entry)).toEqual([a, b]);
      });

      it("starts a watch from a revision the store has not reached once it gets there", async () => {
        const now = await store.revision();
        const it = open(p, now + 1);
        const a = await store.create(`${p}a`, {});
        const b = await store.create(`${p}b`, {});
        // Other users of a shared backend may have taken revision now + 1; our `a` shows only then.
        const expected = a.modRevision > now + 1 ? [a, b] : [b];
        expect((await take(it, expected.length)).map((e) => e.entry)).toEqual(expected);
      });

      it("never blocks writers on a watch that is not read, and queues its events in order", async () => {
        const start = await store.revision();
        const it = open(p, start);
        const written: number[] = [];
        for (let i = 0; i < 100; i++) written.push((await store.create(`${p}k${String(i).padStart(3, "0")}`, { i })).modRevision);
        const events = await take(it, 100);
        expect(events.map((e) => e.entry.modRevision)).toEqual(written);
      });
    });

    describe("compaction", () => {
      it("expires reads and watches before the compacted revision and keeps the state from it on", async () => {
        const a1 = await store.create(`${p}a`, { v: 1 });
        const a2 = await store.update(`${p}a`, { v: 2 }, a1.modRevision);
        const b = await store.create(`${p}b`, { v: 1 });
        const at = b.modRevision;
        await store.delete(`${p}b`);
        const a3 = await store.update(`${p}a`, { v: 3 }, a2.modRevision);
        await store.compact(at);

        await expectStatus(store.get(`${p}a`, { revision: a1.modRevision }), "Expired", 410);
        await expectStatus(store.list(p, { revision: a2.modRevision }), "Expired", 410);
        await expectStatus(store.list(p, { revision: a1.modRevision, limit: 1 }), "Expired", 410);
        await expectStatus(open(p, a1.modRevision).next(), "Expired", 410);

        // At and after the compacted revision everything is still there.
        expect(await store.get(`${p}a`, { revision: at })).toEqual(a2);
        expect((await store.list(p, { revision: at })).entries).toEqual([a2, b]);
        expect(await store.get(`${p}a`)).toEqual(a3);
        expect((await store.list(p)).entries).toEqual([a3]);
        const events = await take(open(p, at), 2);
        expect(events.map((e) => e.type)).toEqual(["delete", "update"]);
        expect(events[1]?.entry).toEqual(a3);
      });

      it("keeps the current state of every key, and tolerates compacting at or below an earlier compaction", async () => {
        const a = await store.create(`${p}a`, { v: 1 });
        const b1 = await store.create(`${p}b`, { v: 1 });
        const b2 = await store.update(`${p}b`, { v: 2 }, b1.modRevision);
        const now = await store.revision();
        await store.compact(now);
        await store.compact(a.modRevision);
        expect((await store.list(p)).entries).toEqual([a, b2]);
        expect(await store.get(`${p}a`, { revision: now })).toEqual(a);
        const b3 = await store.update(`${p}b`, { v: 3 }, b2.modRevision);
        expect(await store.get(`${p}b`)).toEqual(b3);
      });

      it("ends a watch that ended by expiry: the iterator is done after the error", async () => {
        const a1 = await store.create(`${p}a`, { v: 1 });
        const a2 = await store.update(`${p}a`, { v: 2 }, a1.modRevision);
        await store.update(`${p}a`, { v: 3 }, a2.modRevision);
        await store.compact(await store.revision());
        let caught: unknown;
        const events: StoreEvent[] = [];
        try {
          for await (const e of store.watch(p, a1.modRevision, signal())) events.push(e);
        } catch (error) {
          caught = error;
        }
        expect(events).toEqual([]);
        expect(reasonOf(caught)).toBe("Expired");
      });
    });

    describe("concurrency", () => {
      it("ends 20 concurrent compare-and-swap increment loops with the exact total", async () => {
        const key = `${p}counter`;
        await store.create(key, { n: 0 });
        const workers = 20;
        const perWorker = 10;
        let conflicts = 0;
        const worker = async (): Promise<void> => {
          for (let i = 0; i < perWorker; i++) {
            for (;;) {
              const current = await store.get(key);
              if (!current) throw new Error("counter vanished");
              try {
                await store.update(key, { n: (current.value as { n: number }).n + 1 }, current.modRevision);
                break;
              } catch (error) {
                if (reasonOf(error) !== "Conflict") throw error;
                conflicts++;
              }
            }
          }
        };
        await Promise.all(Array.from({ length: workers }, worker));
        const final = await store.get(key);
        expect(final?.value).toEqual({ n: workers * perWorker });
        expect(conflicts).toBeGreaterThanOrEqual(0);
      });

      it("lets exactly one of many concurrent creates of one key win", async () => {
        const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.create(`${p}one`, { i })));
        const won = results.filter((r): r is PromiseFulfilledResult<Entry> => r.status === "fulfilled");
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        expect(won).toHaveLength(1);
        expect(lost.map((r) => reasonOf(r.reason))).toEqual(Array(9).fill("AlreadyExists"));
        expect(await store.get(`${p}one`)).toEqual(won[0]?.value);
      });

      it("lets exactly one of many concurrent deletes with one expected revision win", async () => {
        const e = await store.create(`${p}one`, {});
        const results = await Promise.allSettled(Array.from({ length: 5 }, () => store.delete(`${p}one`, e.modRevision)));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const r of results) if (r.status === "rejected") expect(["Conflict", "NotFound"]).toContain(reasonOf(r.reason));
        expect(await store.get(`${p}one`)).toBeUndefined();
      });
    });

    describe("cancellation", () => {
      it("ends a watch that is awaiting next() promptly when its signal aborts", async () => {
        const controller = new AbortController();
        const it = open(p, await store.revision(), controller.signal);
        const pending = it.next();
        controller.abort();
        expect(await guard(pending, "the aborted watch to end", 2_000)).toEqual({ done: true, value: undefined });
        expect(await guard(it.next(), "next() after the end", 2_000)).toMatchObject({ done: true });
        // Later writes neither fail nor reach the ended watch.
        await store.create(`${p}after`, {});
        expect(await guard(it.next(), "next() after the end", 2_000)).toMatchObject({ done: true });
      });

      it("ends a watch whose signal aborted before iteration without any event", async () => {
        const start = await store.revision();
        await store.create(`${p}a`, {});
        const controller = new AbortController();
        controller.abort();
        const events: StoreEvent[] = [];
        for await (const e of store.watch(p, start, controller.signal)) events.push(e);
        expect(events).toEqual([]);
      });

      it("ends a for-await watch on abort from inside the loop, and other watches go on", async () => {
        const start = await store.revision();
        const controller = new AbortController();
        const other = open(p, start);
        const seen: StoreEvent[] = [];
        const loop = (async () => {
          for await (const e of store.watch(p, start, controller.signal)) {
            seen.push(e);
            if (seen.length === 2) controller.abort();
          }
        })();
        const a = await store.create(`${p}a`, {});
        const b = await store.create(`${p}b`, {});
        const c = await store.create(`${p}c`, {});
        await guard(loop, "the watch loop to end");
        expect(seen.map((e) => e.entry)).toEqual([a, b]);
        expect((await take(other, 3)).map((e) => e.entry)).toEqual([a, b, c]);
      });

      it("ends a watch left with break, and a new watch still sees later writes", async () => {
        const start = await store.revision();
        await store.create(`${p}a`, {});
        await store.create(`${p}b`, {});
        const s = signal();
        for await (const e of store.watch(p, start, s)) {
          expect(e.entry.key).toBe(`${p}a`);
          break;
        }
        const c = await store.create(`${p}c`, {});
        const it = open(p, c.modRevision - 1);
        const [event] = await take(it, 1);
        expect(event?.entry).toEqual(c);
      });
    });
  });
}
