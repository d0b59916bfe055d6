import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import { processQueue, WorkQueue } from "./work-queue.js";

describe("WorkQueue", () => {
  it("deduplicates keys and hands them out in order", async () => {
    const q = new WorkQueue();
    q.add("a");
    q.add("b");
    q.add("a");
    expect(q.length).toBe(2);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBe("b");
  });

  it("does not hand out a key being processed, and requeues it once when added meanwhile", async () => {
    const q = new WorkQueue();
    q.add("a");
    const key = await q.get();
    q.add("a");
    q.add("a");
    expect(q.length).toBe(0);
    q.done(key as string);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe("a");
    q.done("a");
    expect(q.length).toBe(0);
  });

  it("wakes a waiting get when a key arrives", async () => {
    const q = new WorkQueue();
    const pending = q.get();
    q.add("x");
    expect(await pending).toBe("x");
  });

  it("backs off per key exponentially from 5 ms up to 1000 s, and forget resets it", () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    expect([0, 1, 2, 3].map((n) => q.backoffOf(n))).toEqual([5, 10, 20, 40]);
    expect(q.backoffOf(40)).toBe(1_000_000);
    q.addRateLimited("a");
    q.addRateLimited("b");
    q.addRateLimited("a");
    expect(q.numRequeues("a")).toBe(2);
    clock.advance(4);
    expect(q.length).toBe(0);
    clock.advance(1);
    expect(q.length).toBe(2);
    q.forget("a");
    expect(q.numRequeues("a")).toBe(0);
    expect(q.numRequeues("b")).toBe(1);
  });

  it("shuts down: get drains then resolves undefined, adds are ignored, delayed adds are cancelled", async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.add("a");
    q.addAfter("later", 10);
    const waiting = new WorkQueue();
    const pending = waiting.get();
    waiting.shutDown();
    expect(await pending).toBeUndefined();
    q.shutDown();
    q.add("b");
    clock.advance(10);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBeUndefined();
  });
});

describe("processQueue", () => {
  it("forgets keys that sync and retries failing ones with back-off until shutdown", async () => {
    const q = new WorkQueue({ baseDelayMs: 1 });
    const seen: string[] = [];
    let failures = 2;
    const done = processQueue(
      q,
      async (key) => {
        seen.push(key);
        if (key === "bad" && failures-- > 0) throw new Error("boom");
        if (key === "bad") q.shutDown();
      },
      { workers: 2 },
    );
    q.add("good");
    q.add("bad");
    await done;
    expect(seen.filter((k) => k === "bad")).toHaveLength(3);
    expect(seen).toContain("good");
    expect(q.numRequeues("bad")).toBe(0);
  });
});
