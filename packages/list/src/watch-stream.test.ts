import { expired } from "@orch/meta";
import { FakeClock, MemoryStore, type Entry, type Store, type StoreEvent } from "@orch/store";
import { beforeEach, describe, expect, it } from "vitest";
import { countingWatches } from "./internal/test-support.js";
import { planRead, type WatchPlan } from "./read-plan.js";
import { openWatch, type OpenWatchOptions, type WatchStreamEvent } from "./watch-stream.js";

const prefix = "/registry/core/configmaps/";
const key = (name: string): string => `${prefix}default/${name}`;

let clock: FakeClock;
let store: MemoryStore;
let abort: AbortController;
let a: Entry;
let b: Entry;

beforeEach(async () => {
  clock = new FakeClock();
  // The store keeps its own clock, so the timers counted on `clock` are the watch's alone.
  store = new MemoryStore({ clock: new FakeClock() });
  abort = new AbortController();
  a = await store.create(key("a"), { color: "red" }); // revision 1
  b = await store.create(key("b"), { color: "blue" }); // revision 2
});

function open(plan: WatchPlan, extra: Partial<OpenWatchOptions> = {}, on: Store = store): AsyncGenerator<WatchStreamEvent, void, undefined> {
  return openWatch(on, prefix, plan, { clock, signal: abort.signal, ...extra });
}

async function next(stream: AsyncGenerator<WatchStreamEvent, void, undefined>): Promise<WatchStreamEvent> {
  const result = await stream.next();
  if (result.done === true) throw new Error("the stream ended");
  return result.value;
}

/** The events as `type name@modRevision value`, or `BOOKMARK@revision`. */
function show(event: WatchStreamEvent): string {
  switch (event.type) {
    case "BOOKMARK":
      return `BOOKMARK@${event.revision}`;
    case "ERROR":
      return `ERROR ${event.status.code} ${event.status.message ?? ""}`;
    default:
      return `${event.type} ${event.entry.key.slice(key("").length)}@${event.entry.modRevision} ${JSON.stringify(event.entry.value)}`;
  }
}

async function take(stream: AsyncGenerator<WatchStreamEvent, void, undefined>, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(show(await next(stream)));
  return out;
}

function expectNothingLeft(): void {
  expect(clock.pendingTimers()).toBe(0);
  expect(store.watcherCount).toBe(0);
}

describe("openWatch start points", () => {
  it.each(["StartMostRecent", "StartAny"] as const)("%s sends the state as synthetic ADDED events, then every change", async (kind) => {
    const stream = open({ kind });
    expect(await take(stream, 2)).toEqual(['ADDED a@1 {"color":"red"}', 'ADDED b@2 {"color":"blue"}']);
    await store.update(key("a"), { color: "green" }, a.modRevision);
    await store.delete(key("b"));
    await store.create(key("c"), { color: "red" });
    expect(await take(stream, 3)).toEqual(['MODIFIED a@3 {"color":"green"}', 'DELETED b@4 {"color":"blue"}', 'ADDED c@5 {"color":"red"}']);
    abort.abort();
    expect((await stream.next()).done).toBe(true);
    expectNothingLeft();
  });

  it("StartExact sends only the changes after its revision, history first", async () => {
    await store.update(key("a"), { color: "green" }, a.modRevision); // revision 3
    const stream = open(planRead("watch", { resourceVersion: "1" }));
    expect(await take(stream, 2)).toEqual(['ADDED b@2 {"color":"blue"}', 'MODIFIED a@3 {"color":"green"}']);
    await store.delete(key("a"));
    expect(await take(stream, 1)).toEqual(['DELETED a@4 {"color":"green"}']);
    await stream.return();
    expectNothingLeft();
  });

  it("StartExact beyond the store's revision waits for the store to get there", async () => {
    const stream = open({ kind: "StartExact", revision: 4 });
    const first = next(stream);
    await store.create(key("c"), {}); // 3
    await store.create(key("d"), {}); // 4
    await store.create(key("e"), { n: 5 }); // 5
    expect(show(await first)).toBe('ADDED e@5 {"n":5}');
    abort.abort();
    expect((await stream.next()).done).toBe(true);
    expectNothingLeft();
  });

  it("does nothing until iterated, and nothing at all when aborted first", async () => {
    const stream = open({ kind: "StartMostRecent" }, { allowBookmarks: true, timeoutMs: 1000 });
    expectNothingLeft();
    abort.abort();
    expect((await stream.next()).done).toBe(true);
    expectNothingLeft();
  });
});

describe("openWatch with a predicate", () => {
  const blue = (e: Entry): boolean => (e.value as { color?: string }).color === "blue";

  it("turns updates across the predicate into ADDED and DELETED, as the cacher does", async () => {
    const stream = open({ kind: "StartMostRecent" }, { predicate: blue });
    expect(await take(stream, 1)).toEqual(['ADDED b@2 {"color":"blue"}']);
    const a2 = await store.update(key("a"), { color: "blue" }, a.modRevision); // 3: starts matching
    const b2 = await store.update(key("b"), { color: "red" }, b.modRevision); // 4: stops matching
    await store.update(key("a"), { color: "blue", size: 1 }, a2.modRevision); // 5: still matches
    await store.delete(key("b")); // 6: did not match
    await store.create(key("c"), { color: "red" }); // 7: does not match
    await store.update(key("b"), { color: "blue" }, b2.modRevision).catch(() => undefined); // gone: NotFound
    await store.create(key("d"), { color: "blue" }); // 8
    await store.delete(key("a")); // 9
    expect(await take(stream, 5)).toEqual([
      'ADDED a@3 {"color":"blue"}',
      'DELETED b@4 {"color":"blue"}',
      'MODIFIED a@5 {"color":"blue","size":1}',
      'ADDED d@8 {"color":"blue"}',
      'DELETED a@9 {"color":"blue","size":1}',
    ]);
    await stream.return();
    expectNothingLeft();
  });

  it("leaves non-matching entries out of the synthetic ADDED events", async () => {
    const stream = open({ kind: "StartAny" }, { predicate: (e) => !blue(e) });
    expect(await take(stream, 1)).toEqual(['ADDED a@1 {"color":"red"}']);
    await store.create(key("c"), { color: "red" });
    expect(await take(stream, 1)).toEqual(['ADDED c@3 {"color":"red"}']);
    await stream.return();
  });
});

describe("openWatch bookmarks", () => {
  it("sends a BOOKMARK with the newest revision every interval when allowed", async () => {
    const stream = open({ kind: "StartMostRecent" }, { allowBookmarks: true, bookmarkIntervalMs: 1000 });
    expect(await take(stream, 2)).toHaveLength(2);
    clock.advance(1000);
    expect(await take(stream, 1)).toEqual(["BOOKMARK@2"]);
    await store.create(key("c"), {});
    expect(await take(stream, 1)).toEqual(["ADDED c@3 {}"]);
    clock.advance(1000);
    expect(await take(stream, 1)).toEqual(["BOOKMARK@3"]);
    abort.abort();
    expect((await stream.next()).done).toBe(true);
    expectNothingLeft();
  });

  it("defaults to one bookmark a minute", async () => {
    const stream = open({ kind: "StartExact", revision: 2 }, { allowBookmarks: true });
    const first = next(stream);
    clock.advance(59_999);
    await store.create(key("c"), {});
    expect(show(await first)).toBe("ADDED c@3 {}");
    clock.advance(1);
    expect(await take(stream, 1)).toEqual(["BOOKMARK@3"]);
    await stream.return();
    expectNothingLeft();
  });

  it("counts changes the predicate dropped in the bookmark's revision", async () => {
    const stream = open({ kind: "StartExact", revision: 2 }, { allowBookmarks: true, bookmarkIntervalMs: 10, predicate: () => false });
    const bookmark = next(stream);
    await store.create(key("c"), {});
    await store.create(key("d"), {});
    clock.advance(10);
    expect(show(await bookmark)).toBe("BOOKMARK@4");
    await stream.return();
  });

  it("sends no bookmarks unless allowed, and sets no timer for them", async () => {
    const stream = open({ kind: "StartExact", revision: 2 });
    const first = next(stream);
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(10 * 60_000);
    await store.create(key("c"), {});
    expect(show(await first)).toBe("ADDED c@3 {}");
    await stream.return();
    expectNothingLeft();
  });
});

describe("openWatch ends cleanly", () => {
  it("ends on timeoutMs, after a last bookmark when bookmarks are allowed", async () => {
    const stream = open({ kind: "StartMostRecent" }, { allowBookmarks: true, timeoutMs: 5000 });
    expect(await take(stream, 2)).toHaveLength(2);
    clock.advance(5000);
    expect(await take(stream, 1)).toEqual(["BOOKMARK@2"]);
    expect((await stream.next()).done).toBe(true);
    expectNothingLeft();
  });

  it("ends on timeoutMs without a bookmark when bookmarks are not allowed", async () => {
    const stream = open({ kind: "StartExact", revision: 2 }, { timeoutMs: 5000 });
    const end = stream.next();
    clock.advance(4999);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1);
    expect((await end).done).toBe(true);
    expectNothingLeft();
  });

  it("ends a pending read when the signal aborts", async () => {
    const counted = countingWatches(store);
    const stream = open({ kind: "StartExact", revision: 2 }, { allowBookmarks: true, timeoutMs: 60_000 }, counted.store);
    const pending = stream.next();
    abort.abort();
    expect((await pending).done).toBe(true);
    expectNothingLeft();
  });

  it("releases the store watch and timers when the consumer stops iterating", async () => {
    const seen: string[] = [];
    for await (const event of open({ kind: "StartMostRecent" }, { allowBookmarks: true, timeoutMs: 60_000 })) {
      seen.push(show(event));
      break;
    }
    expect(seen).toEqual(['ADDED a@1 {"color":"red"}']);
    expectNothingLeft();
  });
});

describe("openWatch failures", () => {
  it("answers a compacted start with one ERROR event, 410 too old resource version, then ends", async () => {
    await store.create(key("c"), {}); // 3
    await store.compact(3);
    const stream = open(planRead("watch", { resourceVersion: "1" }), { allowBookmarks: true });
    const event = await next(stream);
    expect(event).toEqual({
      type: "ERROR",
      status: expect.objectContaining({ kind: "Status", status: "Failure", code: 410, reason: "Expired", message: "too old resource version: 1 (3)" }),
    });
    expect((await stream.next()).done).toBe(true);
    expectNothingLeft();
  });

  it("finds the oldest retained revision itself when the store does not say it", async () => {
    await store.create(key("c"), {}); // 3
    await store.create(key("d"), {}); // 4
    await store.compact(4);
    const terse: Store = {
      ...countingWatches(store).store,
      watch: () => ({
        [Symbol.asyncIterator]: (): AsyncIterator<StoreEvent> => ({ next: () => Promise.reject(expired("compacted")) }),
      }),
    };
    const stream = open({ kind: "StartExact", revision: 1 }, {}, terse);
    expect(show(await next(stream))).toBe("ERROR 410 too old resource version: 1 (4)");
    expect((await stream.next()).done).toBe(true);
  });

  it("ends with an ERROR event carrying an InternalError when the store watch breaks", async () => {
    const broken: Store = {
      ...countingWatches(store).store,
      watch: () => ({
        [Symbol.asyncIterator]: (): AsyncIterator<StoreEvent> => ({ next: () => Promise.reject(new Error("connection lost")) }),
      }),
    };
    const stream = open({ kind: "StartMostRecent" }, { timeoutMs: 1000 }, broken);
    expect(await take(stream, 3)).toEqual(['ADDED a@1 {"color":"red"}', 'ADDED b@2 {"color":"blue"}', "ERROR 500 Internal error occurred: connection lost"]);
    expect((await stream.next()).done).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });
});
