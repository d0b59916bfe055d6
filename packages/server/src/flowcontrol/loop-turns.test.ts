import { describe, expect, it } from "vitest";
import { LoopTurns } from "./loop-turns.js";

describe("LoopTurns", () => {
  it("hands out one turn per scheduled callback, in the order they were asked for", async () => {
    const scheduled: (() => void)[] = [];
    const turns = new LoopTurns((fn) => scheduled.push(fn));
    const order: string[] = [];
    void turns.take().then(() => order.push("a"));
    void turns.take().then(() => order.push("b"));
    void turns.take().then(() => order.push("c"));
    // One turn is asked of the loop at a time.
    expect(scheduled).toHaveLength(1);
    expect(turns.waiting).toBe(3);
    scheduled.shift()?.();
    await Promise.resolve();
    expect(order).toEqual(["a"]);
    // The next turn was asked for before the first's work ran.
    expect(scheduled).toHaveLength(1);
    scheduled.shift()?.();
    scheduled.shift()?.();
    await Promise.resolve();
    expect(order).toEqual(["a", "b", "c"]);
    expect(turns.waiting).toBe(0);
    expect(scheduled).toHaveLength(0);
  });

  it("gives a turn, with the default scheduler, only after the work of the current one has run", async () => {
    const turns = new LoopTurns();
    const order: string[] = [];
    const turn = turns.take().then(() => order.push("turn"));
    // Work already under way (a request being answered) finishes first, however long its chain of promises.
    let chain = Promise.resolve();
    for (let i = 0; i < 100; i++) chain = chain.then(() => undefined);
    void chain.then(() => order.push("current work"));
    await turn;
    expect(order).toEqual(["current work", "turn"]);
  });
});
