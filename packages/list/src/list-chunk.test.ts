import { StatusError } from "@orch/meta";
import { FakeClock, MemoryStore, type Entry } from "@orch/store";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { decodeContinueToken, encodeContinueToken } from "./continue-token.js";
import { expiredListMessage, inconsistentContinueMessage, listChunk, type ListChunk, type ListChunkOptions } from "./list-chunk.js";
import { countingWatches, signallingClock } from "./internal/test-support.js";
import { planRead, type ListPlan } from "./read-plan.js";

const prefix = "/registry/core/configmaps/default/";
const key = (name: string): string => `${prefix}${name}`;
const names = (chunk: ListChunk): string[] => chunk.entries.map((e) => e.key.slice(prefix.length));

async function expectStatus(promise: Promise<unknown>, code: number, reason: string): Promise<StatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StatusError);
  expect((error as StatusError).code).toBe(code);
  expect((error as StatusError).reason).toBe(reason);
  return error as StatusError;
}

let clock: FakeClock;
let store: MemoryStore;
let opts: ListChunkOptions;

beforeEach(async () => {
  clock = new FakeClock();
  // The store keeps its own clock, so the timers counted on `clock` are the reader's alone.
  store = new MemoryStore({ clock: new FakeClock() });
  opts = { clock };
  for (const name of ["a", "b", "c", "d", "e"]) await store.create(key(name), { name, color: name < "c" ? "red" : "blue" });
  await store.create("/registry/core/configmaps/default2/x", { name: "x" });
  await store.create("/registry/core/configmaps/other/y", { name: "y" });
});

describe("listChunk without paging", () => {
  it("lists every entry under the prefix at the newest revision, with no continue and no count", async () => {
    const chunk = await listChunk(store, prefix, { kind: "MostRecent" }, opts);
    expect(names(chunk)).toEqual(["a", "b", "c", "d", "e"]);
    expect(chunk.resourceVersion).toBe(await store.revision());
    expect(chunk.continue).toBe("");
    expect(chunk).not.toHaveProperty("remainingItemCount");
  });

  it("adds the trailing slash to a prefix, so default never lists default2", async () => {
    const chunk = await listChunk(store, "/registry/core/configmaps/default", { kind: "Any" }, opts);
    expect(names(chunk)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("filters with the predicate", async () => {
    const chunk = await listChunk(store, prefix, { kind: "MostRecent" }, { ...opts, predicate: (e) => (e.value as { color: string }).color === "blue" });
    expect(names(chunk)).toEqual(["c", "d", "e"]);
    expect(chunk.continue).toBe("");
  });

  it("hands out the store's entries without copying them", async () => {
    const [stored] = (await store.list(prefix, { limit: 1 })).entries;
    const chunk = await listChunk(store, prefix, { kind: "MostRecent" }, { ...opts, limit: 1 });
    expect(chunk.entries[0]?.value).toBe(stored?.value);
  });
});

describe("listChunk paging", () => {
  it("keeps one snapshot across chunks: later chunks read at the first chunk's revision", async () => {
    const first = await listChunk(store, prefix, planRead("list", { limit: 2 }), { ...opts, limit: 2 });
    expect(names(first)).toEqual(["a", "b"]);
    expect(first.remainingItemCount).toBe(3);
    expect(decodeContinueToken(first.continue)).toEqual({ revision: first.resourceVersion, startKey: "b\u0000" });

    const c = await store.get(key("c"));
    await store.update(key("c"), { name: "c", color: "green" }, c?.modRevision ?? 0);
    await store.create(key("bb"), { name: "bb" });
    await store.delete(key("d"));

    const second = await listChunk(store, prefix, planRead("list", { limit: 2, continue: first.continue }), { ...opts, limit: 2 });
    expect(names(second)).toEqual(["c", "d"]);
    expect((second.entries[0]?.value as { color: string }).color).toBe("blue");
    expect(second.resourceVersion).toBe(first.resourceVersion);
    expect(second.remainingItemCount).toBe(1);

    const third = await listChunk(store, prefix, planRead("list", { limit: 2, continue: second.continue }), { ...opts, limit: 2 });
    expect(names(third)).toEqual(["e"]);
    expect(third.resourceVersion).toBe(first.resourceVersion);
    expect(third.continue).toBe("");
    expect(third).not.toHaveProperty("remainingItemCount");
  });

  it("ends without a token when the last chunk is exactly full", async () => {
    const first = await listChunk(store, prefix, { kind: "MostRecent" }, { ...opts, limit: 3 });
    const last = await listChunk(store, prefix, planRead("list", { continue: first.continue }), { ...opts, limit: 2 });
    expect(names(last)).toEqual(["d", "e"]);
    expect(last.continue).toBe("");
  });

  it("lists everything left when a token comes without a limit", async () => {
    const first = await listChunk(store, prefix, { kind: "MostRecent" }, { ...opts, limit: 1 });
    const rest = await listChunk(store, prefix, planRead("list", { continue: first.continue }), opts);
    expect(names(rest)).toEqual(["b", "c", "d", "e"]);
    expect(rest.continue).toBe("");
  });

  it("keeps reading store pages until limit entries match, leaving the count out under a selector", async () => {
    const blue = (e: Entry): boolean => (e.value as { color: string }).color === "blue";
    const first = await listChunk(store, prefix, { kind: "MostRecent" }, { ...opts, limit: 2, predicate: blue });
    expect(names(first)).toEqual(["c", "d"]);
    expect(first.continue).not.toBe("");
    expect(first).not.toHaveProperty("remainingItemCount");
    const rest = await listChunk(store, prefix, planRead("list", { continue: first.continue }), { ...opts, limit: 2, predicate: blue });
    expect(names(rest)).toEqual(["e"]);
    expect(rest.continue).toBe("");
  });

  it("may return an empty last chunk when the predicate drops everything after a full one", async () => {
    const red = (e: Entry): boolean => (e.value as { color: string }).color === "red";
    const first = await listChunk(store, prefix, { kind: "MostRecent" }, { ...opts, limit: 2, predicate: red });
    expect(names(first)).toEqual(["a", "b"]);
    expect(first.continue).not.toBe("");
    const rest = await listChunk(store, prefix, planRead("list", { continue: first.continue }), { ...opts, limit: 2, predicate: red });
    expect(rest.entries).toEqual([]);
    expect(rest.continue).toBe("");
  });

  it("counts the remaining items exactly with a predicate that is not a selector", async () => {
    const notB = (e: Entry): boolean => !e.key.endsWith("/b");
    const first = await listChunk(store, prefix, { kind: "MostRecent" }, { ...opts, limit: 2, predicate: notB, hasSelector: false });
    expect(names(first)).toEqual(["a", "c"]);
    expect(first.remainingItemCount).toBe(2);
  });

  it("starts a forged start key that is not a successor key at that key, inclusive", async () => {
    const revision = await store.revision();
    const chunk = await listChunk(store, prefix, { kind: "Continue", revision, startKey: "c" }, { ...opts, limit: 2 });
    expect(names(chunk)).toEqual(["c", "d"]);
    const rooted = await listChunk(store, prefix, { kind: "Continue", revision, startKey: "/" }, opts);
    expect(names(rooted)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("pages through any collection to exactly the filtered snapshot of its first chunk, whatever is written meanwhile", async () => {
    const nameArb = fc.stringMatching(/^[a-z0-9]{1,6}$/);
    const write = fc.record({ op: fc.constantFrom("create", "update", "delete"), name: nameArb, pick: fc.nat() });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(nameArb, { maxLength: 30 }),
        fc.integer({ min: 1, max: 7 }),
        fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        fc.array(write, { maxLength: 40 }),
        async (keys, limit, modulus, writes) => {
          const s = new MemoryStore({ clock: new FakeClock() });
          const at = (name: string): string => `/registry/x/ys/${name}`;
          // Neighbours on both sides of the prefix, which no chunk may show.
          for (const other of ["/registry/x/yr/k", "/registry/x/ys", "/registry/x/ys0", "/registry/x/yz/k"]) await s.create(other, { i: -1 });
          for (const [i, name] of keys.entries()) await s.create(at(name), { i });
          const predicate = modulus === undefined ? undefined : (e: Entry): boolean => (e.value as { i: number }).i % 4 !== modulus;
          const expected = keys
            .map((name, i) => ({ name, i }))
            .filter(({ i }) => modulus === undefined || i % 4 !== modulus)
            .map(({ name }) => name)
            .sort();
          const seen: string[] = [];
          let token = "";
          let revision: number | undefined;
          for (let page = 0; page < 100; page++) {
            const plan: ListPlan = token === "" ? { kind: "MostRecent" } : planRead("list", { continue: token });
            const chunk = await listChunk(s, "/registry/x/ys", plan, { clock, limit, ...(predicate ? { predicate } : {}) });
            expect(chunk.entries.length).toBeLessThanOrEqual(limit);
            revision ??= chunk.resourceVersion;
            expect(chunk.resourceVersion).toBe(revision);
            seen.push(...chunk.entries.map((e) => e.key.slice("/registry/x/ys/".length)));
            if (predicate === undefined && chunk.continue !== "") expect(chunk.remainingItemCount).toBe(expected.length - seen.length);
            token = chunk.continue;
            if (token === "") break;
            // Writes between chunks must not show in the rest of the list.
            for (const w of writes.slice(page * 3, page * 3 + 3)) {
              const live = (await s.list("/registry/x/ys/")).entries;
              const victim = live[w.pick % Math.max(live.length, 1)];
              if (w.op === "create" && !live.some((e) => e.key === at(w.name))) await s.create(at(w.name), { i: w.pick });
              if (w.op === "update" && victim) await s.update(victim.key, { i: w.pick }, victim.modRevision);
              if (w.op === "delete" && victim) await s.delete(victim.key);
            }
          }
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("listChunk at exact revisions and expired tokens", () => {
  it("reads history at an Exact revision and reports that revision", async () => {
    const before = await store.revision();
    await store.delete(key("a"));
    const chunk = await listChunk(store, prefix, { kind: "Exact", revision: before }, opts);
    expect(names(chunk)).toEqual(["a", "b", "c", "d", "e"]);
    expect(chunk.resourceVersion).toBe(before);
  });

  it("answers a compacted Exact revision with 410 Expired", async () => {
    const before = await store.revision();
    await store.delete(key("a"));
    await store.compact(await store.revision());
    const error = await expectStatus(listChunk(store, prefix, { kind: "Exact", revision: before }, opts), 410, "Expired");
    expect(error.message).toBe(expiredListMessage);
  });

  it("answers an expired token with 410 and a token to list the rest inconsistently", async () => {
    const first = await listChunk(store, prefix, { kind: "MostRecent" }, { ...opts, limit: 2 });
    await store.create(key("ca"), { name: "ca", color: "blue" });
    await store.compact(await store.revision());

    const plan = planRead("list", { limit: 2, continue: first.continue });
    const error = await expectStatus(listChunk(store, prefix, plan, { ...opts, limit: 2 }), 410, "Expired");
    expect(error.message).toBe(inconsistentContinueMessage);
    const fresh = error.status.metadata.continue ?? "";
    expect(decodeContinueToken(fresh)).toEqual({ revision: -1, startKey: "b\u0000" });

    const rest = await listChunk(store, prefix, planRead("list", { limit: 2, continue: fresh }), { ...opts, limit: 2 });
    expect(names(rest)).toEqual(["c", "ca"]);
    expect(rest.resourceVersion).toBe(await store.revision());
    expect(decodeContinueToken(rest.continue)).toEqual({ revision: rest.resourceVersion, startKey: "ca\u0000" });
  });

  it("encodes the fresh token in the configured domain", async () => {
    const revision = await store.revision();
    await store.create(key("f"), {});
    await store.compact(await store.revision());
    const plan: ListPlan = { kind: "Continue", revision, startKey: "b\u0000" };
    const error = await expectStatus(listChunk(store, prefix, plan, { ...opts, domain: "k8s.io" }), 410, "Expired");
    expect(decodeContinueToken(error.status.metadata.continue ?? "", { domain: "k8s.io" }).revision).toBe(-1);
  });

  it("encodes the next token in the configured domain", async () => {
    const chunk = await listChunk(store, prefix, { kind: "MostRecent" }, { ...opts, limit: 1, domain: "k8s.io" });
    expect(chunk.continue).toBe(encodeContinueToken({ revision: chunk.resourceVersion, startKey: "a\u0000" }, { domain: "k8s.io" }));
  });
});

describe("listChunk waiting for a revision the store has not reached", () => {
  it("waits for NotOlderThan until the store catches up, then reads the newest revision", async () => {
    const signalling = signallingClock(clock);
    const target = (await store.revision()) + 1;
    const timerSet = signalling.timerSet();
    const listing = listChunk(store, prefix, { kind: "NotOlderThan", revision: target }, { clock: signalling.clock });
    await timerSet;
    await store.create(key("f"), {});
    const chunk = await listing;
    expect(chunk.resourceVersion).toBe(target);
    expect(names(chunk)).toContain("f");
    expect(clock.pendingTimers()).toBe(0);
  });

  it("reads an Exact revision once the store reaches it", async () => {
    const signalling = signallingClock(clock);
    const target = (await store.revision()) + 1;
    const timerSet = signalling.timerSet();
    const listing = listChunk(store, prefix, { kind: "Exact", revision: target }, { clock: signalling.clock });
    await timerSet;
    await store.create(key("f"), {});
    await store.create(key("g"), {});
    const chunk = await listing;
    expect(chunk.resourceVersion).toBe(target);
    expect(names(chunk)).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("gives up after 3 s of the clock with 504 Too large resource version, releasing its watch and timer", async () => {
    const counted = countingWatches(store);
    const signalling = signallingClock(clock);
    const current = await store.revision();
    const timerSet = signalling.timerSet();
    let settled = false;
    const listing = listChunk(counted.store, prefix, { kind: "NotOlderThan", revision: current + 5 }, { clock: signalling.clock });
    void listing.then(
      () => (settled = true),
      () => (settled = true),
    );
    await timerSet;
    clock.advance(2999);
    await store.create(key("f"), {});
    expect(settled).toBe(false);
    clock.advance(1);
    const error = await expectStatus(listing, 504, "Timeout");
    expect(error.message).toContain("Too large resource version");
    expect(error.status.details?.retryAfterSeconds).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
    expect(counted.open()).toBe(0);
  });

  it("honours a shorter waitMs", async () => {
    const signalling = signallingClock(clock);
    const timerSet = signalling.timerSet();
    const listing = listChunk(store, prefix, { kind: "Exact", revision: 1000 }, { clock: signalling.clock, waitMs: 10 });
    await timerSet;
    clock.advance(10);
    await expectStatus(listing, 504, "Timeout");
  });

  it("does not wait when the store is already there", async () => {
    const chunk = await listChunk(store, prefix, { kind: "NotOlderThan", revision: 1 }, opts);
    expect(chunk.resourceVersion).toBe(await store.revision());
    expect(clock.pendingTimers()).toBe(0);
  });
});
