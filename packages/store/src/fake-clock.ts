/**
 * `FakeClock`: a {@link Clock} whose time only moves when a test moves it.
 * @module
 */
import type { Clock } from "./clock.js";

interface Timer {
  readonly at: number;
  /** Creation order, so timers due at the same instant fire in the order they were set. */
  readonly seq: number;
  readonly fn: () => void;
}

/**
 * A manual {@link Clock} for tests: `now()` stays put until {@link FakeClock.advance} or
 * {@link FakeClock.set} moves it, and timers fire only then, synchronously, in time order.
 *
 * @example
 * ```ts
 * const clock = new FakeClock();
 * const store = new MemoryStore({ clock });
 * clock.advance(6 * 60_000); // fires the store's compaction sweeps
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  /** Pending timers, sorted by `at` then `seq`. */
  #timers: Timer[] = [];

  /** @param startMs the initial time in milliseconds since the Unix epoch (default 2026-01-01T00:00:00Z). */
  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }

  /** The fake time in milliseconds since the Unix epoch. */
  now(): number {
    return this.#now;
  }

  /**
   * Schedules `fn` to run once the clock has been advanced by `ms` (negative or NaN counts as 0;
   * a 0 ms timer still waits for the next `advance`). Returns a function that cancels it.
   */
  setTimer(ms: number, fn: () => void): () => void {
    const delay = ms > 0 ? ms : 0;
    const timer: Timer = { at: this.#now + delay, seq: this.#seq++, fn };
    const timers = this.#timers;
    // Binary search for the first timer that fires strictly after this one.
    let lo = 0;
    let hi = timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((timers[mid] as Timer).at <= timer.at) lo = mid + 1;
      else hi = mid;
    }
    timers.splice(lo, 0, timer);
    return () => {
      const i = this.#timers.indexOf(timer);
      if (i >= 0) this.#timers.splice(i, 1);
    };
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due, in time order, with `now()`
   * set to each timer's due time while it runs. Timers set by a firing callback fire too when
   * they fall due within the same advance.
   * @throws RangeError when `ms` is negative or not finite.
   */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`FakeClock.advance: ms must be a finite non-negative number, got ${ms}`);
    const target = this.#now + ms;
    for (;;) {
      const next = this.#timers[0];
      if (next === undefined || next.at > target) break;
      this.#timers.shift();
      if (next.at > this.#now) this.#now = next.at;
      next.fn();
    }
    this.#now = target;
  }

  /**
   * Sets the time to `ms`. Moving forward behaves as {@link FakeClock.advance}; moving backward
   * only changes `now()` (pending timers keep their absolute due times).
   * @throws RangeError when `ms` is not finite.
   */
  set(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`FakeClock.set: ms must be finite, got ${ms}`);
    if (ms >= this.#now) this.advance(ms - this.#now);
    else this.#now = ms;
  }

  /** How many timers are set and have neither fired nor been cancelled. */
  pendingTimers(): number {
    return this.#timers.length;
  }
}
