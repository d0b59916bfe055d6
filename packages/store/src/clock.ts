/**
 * The `Clock` port: wall time and timers, replaceable so tests control time.
 * @module
 */

/** Wall-clock time and one-shot timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

/**
 * The real clock. It reads the globals at call time, so a test that fakes `Date` or
 * `setTimeout` after import still controls it.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};
