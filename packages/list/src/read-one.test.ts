import { StatusError } from "@orch/meta";
import { FakeClock, MemoryStore } from "@orch/store";
import { beforeEach, describe, expect, it } from "vitest";
import { countingWatches, signallingClock } from "./internal/test-support.js";
import { planRead } from "./read-plan.js";
import { readOne } from "./read-one.js";

const key = "/registry/core/configmaps/default/a";
let clock: FakeClock;
let store: MemoryStore;

beforeEach(async () => {
  clock = new FakeClock();
  store = new MemoryStore({ clock: new FakeClock() });
  const a = await store.create(key, { v: 1 });
  await store.update(key, { v: 2 }, a.modRevision);
});

describe("readOne", () => {
  it("reads the newest state for Most Recent and Any", async () => {
    for (const resourceVersion of [undefined, "0"]) {
      const plan = planRead("get", resourceVersion === undefined ? {} : { resourceVersion });
      expect((await readOne(store, key, plan, { clock }))?.value).toEqual({ v: 2 });
    }
  });

  it("reads the newest state, not the named one, for Not older than", async () => {
    expect((await readOne(store, key, planRead("get", { resourceVersion: "1" }), { clock }))?.value).toEqual({ v: 2 });
    expect(clock.pendingTimers()).toBe(0);
  });

  it("returns undefined for an absent key", async () => {
    expect(await readOne(store, `${key}x`, { kind: "MostRecent" }, { clock })).toBeUndefined();
  });

  it("waits for a revision the store has not reached, then reads", async () => {
    const signalling = signallingClock(clock);
    const timerSet = signalling.timerSet();
    const reading = readOne(store, key, { kind: "NotOlderThan", revision: 3 }, { clock: signalling.clock });
    await timerSet;
    await store.update(key, { v: 3 }, 2);
    expect((await reading)?.value).toEqual({ v: 3 });
    expect(clock.pendingTimers()).toBe(0);
  });

  it("answers 504 Too large resource version after 3 s of the clock, leaking nothing", async () => {
    const counted = countingWatches(store);
    const signalling = signallingClock(clock);
    const timerSet = signalling.timerSet();
    const reading = readOne(counted.store, key, { kind: "NotOlderThan", revision: 9 }, { clock: signalling.clock });
    await timerSet;
    clock.advance(3000);
    const error = await reading.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).code).toBe(504);
    expect((error as StatusError).message).toBe("Timeout: Too large resource version: 9, current: 2");
    expect(clock.pendingTimers()).toBe(0);
    expect(counted.open()).toBe(0);
    expect(store.watcherCount).toBe(0);
  });
});
