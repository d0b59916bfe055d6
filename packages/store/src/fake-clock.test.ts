import { describe, expect, it } from "vitest";
import { FakeClock } from "./fake-clock.js";

describe("FakeClock", () => {
  it("starts at 2026-01-01T00:00:00Z by default and at the given time otherwise", () => {
    expect(new FakeClock().now()).toBe(Date.UTC(2026, 0, 1));
    expect(new FakeClock(1234).now()).toBe(1234);
  });

  it("does not move on its own", async () => {
    const clock = new FakeClock(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(clock.now()).toBe(0);
  });

  it("advance moves time and fires due timers in time order, with now() at each due time", () => {
    const clock = new FakeClock(0);
    const fired: [string, number][] = [];
    clock.setTimer(30, () => fired.push(["c", clock.now()]));
    clock.setTimer(10, () => fired.push(["a", clock.now()]));
    clock.setTimer(20, () => fired.push(["b", clock.now()]));
    clock.setTimer(50, () => fired.push(["late", clock.now()]));
    clock.advance(30);
    expect(fired).toEqual([
      ["a", 10],
      ["b", 20],
      ["c", 30],
    ]);
    expect(clock.now()).toBe(30);
    expect(clock.pendingTimers()).toBe(1);
  });

  it("fires timers due at the same instant in the order they were set", () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    for (let i = 0; i < 5; i++) clock.setTimer(10, () => fired.push(i));
    clock.advance(10);
    expect(fired).toEqual([0, 1, 2, 3, 4]);
  });

  it("fires timers set by firing callbacks when they fall due within the same advance", () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    const tick = (): void => {
      fired.push(clock.now());
      clock.setTimer(10, tick);
    };
    clock.setTimer(10, tick);
    clock.advance(35);
    expect(fired).toEqual([10, 20, 30]);
    expect(clock.now()).toBe(35);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(5);
    expect(fired).toEqual([10, 20, 30, 40]);
  });

  it("a zero-delay timer set by a callback fires in the same advance", () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimer(10, () => {
      fired.push("outer");
      clock.setTimer(0, () => fired.push("inner"));
    });
    clock.advance(10);
    expect(fired).toEqual(["outer", "inner"]);
  });

  it("a cancelled timer never fires and no longer counts as pending", () => {
    const clock = new FakeClock(0);
    let fired = false;
    const cancel = clock.setTimer(10, () => (fired = true));
    expect(clock.pendingTimers()).toBe(1);
    cancel();
    cancel();
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(100);
    expect(fired).toBe(false);
  });

  it("a timer cancelled by an earlier callback in the same advance does not fire", () => {
    const clock = new FakeClock(0);
    let fired = false;
    let cancelLater = (): void => {};
    clock.setTimer(10, () => cancelLater());
    cancelLater = clock.setTimer(20, () => (fired = true));
    clock.advance(30);
    expect(fired).toBe(false);
  });

  it("negative delays fire on the next advance, even advance(0)", () => {
    const clock = new FakeClock(100);
    let fired = 0;
    clock.setTimer(-5, () => fired++);
    clock.advance(0);
    expect(fired).toBe(1);
    expect(clock.now()).toBe(100);
  });

  it("set moves forward like advance and backward without firing", () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    clock.setTimer(10, () => fired.push(clock.now()));
    clock.setTimer(100, () => fired.push(clock.now()));
    clock.set(50);
    expect(fired).toEqual([10]);
    expect(clock.now()).toBe(50);
    clock.set(5);
    expect(clock.now()).toBe(5);
    expect(fired).toEqual([10]);
    clock.set(100);
    expect(fired).toEqual([10, 100]);
  });

  it("rejects negative or non-finite steps", () => {
    const clock = new FakeClock(0);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(() => clock.set(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(clock.now()).toBe(0);
  });
});
