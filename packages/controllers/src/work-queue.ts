/**
 * {@link WorkQueue}: the reference's rate-limited work queue. Keys are deduplicated, a key being
 * processed is never handed out twice (added meanwhile, it is queued once more when
 * {@link WorkQueue.done} is called), and failures are retried after a per-key exponential
 * back-off that {@link WorkQueue.forget} resets.
 * @module
 */
import { systemClock, type Clock } from "@orch/store";

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** The timers of delayed adds; `systemClock` of `@orch/store` by default. */
  clock?: Pick<Clock, "setTimer">;
  /** The first back-off of a failing key, in ms (5 by default, as the reference's). */
  baseDelayMs?: number;
  /** The longest back-off, in ms (1000 s by default, as the reference's). */
  maxDelayMs?: number;
}

/**
 * A queue of keys for workers. {@link WorkQueue.get} hands out the oldest key not being
 * processed; the worker calls {@link WorkQueue.done} when it is through with it, and either
 * {@link WorkQueue.forget} (success) or {@link WorkQueue.addRateLimited} (failure, retried after
 * 5 ms, 10 ms, 20 ms, ... up to 1000 s).
 *
 * @example
 * const queue = new WorkQueue();
 * queue.add("default/a");
 * const key = await queue.get(); // "default/a"
 * queue.done(key!);
 */
export class WorkQueue {
  readonly #clock: Pick<Clock, "setTimer">;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  /** Keys waiting, in order; each also in #dirty. */
  #queue: string[] = [];
  /** Keys that need processing (queued, or added while being processed). */
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Set<() => void>();
  #waiters: ((key: string | undefined) => void)[] = [];
  #shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#baseDelayMs = options.baseDelayMs ?? 5;
    this.#maxDelayMs = options.maxDelayMs ?? 1_000_000;
  }

  /** How many keys wait to be handed out (not counting those being processed or delayed). */
  get length(): number {
    return this.#queue.length;
  }

  /** True once {@link WorkQueue.shutDown} was called. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Queues `key` unless it is already waiting; a key being processed is queued again once done. Ignored after shutdown. */
  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      waiter(key);
    } else {
      this.#queue.push(key);
    }
  }

  /** Adds `key` after `ms` milliseconds (at once when `ms <= 0`). */
  addAfter(key: string, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const cancel = this.#clock.setTimer(ms, () => {
      this.#timers.delete(cancel);
      this.add(key);
    });
    this.#timers.add(cancel);
  }

  /** Adds `key` after its back-off, which doubles with each call until {@link WorkQueue.forget}. */
  addRateLimited(key: string): void {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    this.addAfter(key, this.backoffOf(failures));
  }

  /** The back-off after `failures` earlier failures: `baseDelayMs * 2^failures`, capped. */
  backoffOf(failures: number): number {
    return Math.min(this.#baseDelayMs * 2 ** failures, this.#maxDelayMs);
  }

  /** Forgets the failures of `key`: its next back-off is the base one again. */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** How many times `key` was re-added with {@link WorkQueue.addRateLimited} since it was last forgotten. */
  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /**
   * The next key, marked as being processed; waits for one. Resolves `undefined` once the queue
   * is shut down and empty. The caller must call {@link WorkQueue.done} with the key.
   */
  get(): Promise<string | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      return Promise.resolve(key);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Ends the processing of `key`; queues it again if it was added meanwhile. */
  done(key: string): void {
    this.#processing.delete(key);
    if (!this.#dirty.has(key)) return;
    this.#dirty.delete(key);
    this.add(key);
  }

  /** Stops accepting keys, cancels delayed adds and wakes waiting {@link WorkQueue.get} calls with `undefined`. */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const cancel of this.#timers) cancel();
    this.#timers.clear();
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
  }
}

/**
 * Runs `workers` loops that take keys from `queue` and call `sync` with each until the queue is
 * shut down. A key whose sync succeeds is forgotten; one whose sync throws is re-added with its
 * back-off, after `onError` is told. Resolves when every loop has ended.
 */
export async function processQueue(
  queue: WorkQueue,
  sync: (key: string) => Promise<void>,
  options: { workers?: number; onError?: (key: string, error: unknown) => void } = {},
): Promise<void> {
  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await sync(key);
        queue.forget(key);
      } catch (error) {
        options.onError?.(key, error);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers ?? 1 }, worker));
}
