/**
 * Helpers for the tests of this package (not exported): a clock that tells when a timer is
 * set, and a store that counts its open watches, so tests can prove nothing leaks.
 * @module
 */
import type { Clock, Store, StoreEvent } from "@orch/store";

/** A clock over `inner` whose `timerSet()` resolves when the next timer is set. */
export function signallingClock(inner: Clock): { clock: Clock; timerSet: () => Promise<void> } {
  let waiters: (() => void)[] = [];
  return {
    clock: {
      now: () => inner.now(),
      setTimer: (ms, fn) => {
        const cancel = inner.setTimer(ms, fn);
        const ready = waiters;
        waiters = [];
        for (const resolve of ready) resolve();
        return cancel;
      },
    },
    timerSet: () => new Promise((resolve) => waiters.push(resolve)),
  };
}

/** Delegates to `store`, counting the watches that are being iterated. */
export function countingWatches(store: Store): { store: Store; open: () => number } {
  let open = 0;
  const wrapped: Store = {
    get: (k, o) => store.get(k, o),
    list: (p, o) => store.list(p, o),
    create: (k, v) => store.create(k, v),
    update: (k, v, r) => store.update(k, v, r),
    delete: (k, r) => store.delete(k, r),
    revision: () => store.revision(),
    compact: (r) => store.compact(r),
    watch: (p, from, signal) => ({
      async *[Symbol.asyncIterator](): AsyncGenerator<StoreEvent> {
        open++;
        try {
          yield* store.watch(p, from, signal);
        } finally {
          open--;
        }
      },
    }),
  };
  return { store: wrapped, open: () => open };
}
