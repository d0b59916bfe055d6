/**
 * The `Clock` port: wall time and timers, replaceable so tests control time.
 * @module
 */

/** Wall-clock time and one-shot timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Calls `fn` once after `ms` milliseconds; the returned function cancels it. With
   * `background: true` the timer alone does not keep the process alive (where the runtime can
   * tell, as Node's `unref` does); a clock without such a notion may ignore it.
   */
  setTimer(ms: number, fn: () => void, options?: { background?: boolean }): () => void;
}

/**
 * The real clock. It reads the globals at call time, so a test that fakes `Date` or
 * `setTimeout` after import still controls it.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn, options) => {
    const timer = setTimeout(fn, ms);
    if (options?.background) (timer as unknown as { unref?: () => void }).unref?.();
    return () => clearTimeout(timer);
  },
};
