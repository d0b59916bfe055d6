import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import { ExpiringCache } from "./expiring-cache.js";

describe("ExpiringCache", () => {
  it("forgets an entry once its time is up, by the clock", () => {
    const clock = new FakeClock(0);
    const cache = new ExpiringCache<string, number>(clock, 10);
    cache.set("a", 1, 1000);
    expect(cache.get("a")).toBe(1);
    clock.advance(1000);
    expect(cache.get("a")).toBeUndefined();
  });

  it("keeps nothing for a ttl of 0, and drops expired entries, then the oldest, when full", () => {
    const clock = new FakeClock(0);
    const cache = new ExpiringCache<string, number>(clock, 2);
    cache.set("never", 0, 0);
    expect(cache.get("never")).toBeUndefined();
    cache.set("short", 1, 10);
    cache.set("long", 2, 1000);
    clock.advance(20);
    cache.set("new", 3, 1000);
    expect([cache.get("short"), cache.get("long"), cache.get("new")]).toEqual([undefined, 2, 3]);
    cache.set("newer", 4, 1000);
    expect([cache.get("long"), cache.get("new"), cache.get("newer")]).toEqual([undefined, 3, 4]);
    expect(cache.size).toBe(2);
  });
});
