import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "./clock.js";

describe("systemClock", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("lets a background timer not keep the process alive, and keeps an ordinary one referenced", () => {
    const unrefed: number[] = [];
    let next = 0;
    vi.stubGlobal("setTimeout", (_fn: () => void, ms: number) => {
      const id = next++;
      return { unref: () => unrefed.push(id), ms };
    });
    const cleared: unknown[] = [];
    vi.stubGlobal("clearTimeout", (timer: unknown) => cleared.push(timer));
    const cancelOrdinary = systemClock.setTimer(1_000, () => undefined);
    const cancelBackground = systemClock.setTimer(2_000, () => undefined, { background: true });
    expect(unrefed).toEqual([1]);
    cancelBackground();
    cancelOrdinary();
    expect(cleared).toEqual([expect.objectContaining({ ms: 2_000 }), expect.objectContaining({ ms: 1_000 })]);
  });
});
