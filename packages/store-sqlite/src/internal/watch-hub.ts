/**
 * The in-process fan-out of committed events: each watch is a queue that the store fills with
 * its catch-up read of the log and then with every committed event under its prefix.
 * @module
 */
import type { StoreEvent } from "@orch/store";

type Waiter = { resolve: (r: IteratorResult<StoreEvent>) => void; reject: (e: unknown) => void };

/** One watch: an unbounded queue of events, served to `next()` calls in order. */
export class Watch implements AsyncIterator<StoreEvent> {
  readonly prefix: string;
  /** Events at or below this revision are not delivered (they were read from the log or are before the start). */
  from: number;
  #queue: StoreEvent[] = [];
  #head = 0;
  #waiters: Waiter[] = [];
  #error: unknown = undefined;
  #done = false;
  readonly #onEnd: (w: Watch) => void;

  constructor(prefix: string, from: number, onEnd: (w: Watch) => void) {
    this.prefix = prefix;
    this.from = from;
    this.#onEnd = onEnd;
  }

  /** Queues `event` when it is under the prefix and after `from`. */
  offer(event: StoreEvent): void {
    if (this.#done || event.entry.modRevision <= this.from || !event.entry.key.startsWith(this.prefix)) return;
    this.from = event.entry.modRevision;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter.resolve({ done: false, value: event });
    else this.#queue.push(event);
  }

  /** Ends the watch: pending and later `next()` calls are done (after `error`, when given, is thrown once). */
  end(error?: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#queue = [];
    this.#head = 0;
    this.#onEnd(this);
    const waiters = this.#waiters.splice(0);
    if (error !== undefined && waiters.length === 0) this.#error = error;
    waiters.forEach((w, i) => (i === 0 && error !== undefined ? w.reject(error) : w.resolve({ done: true, value: undefined })));
  }

  next(): Promise<IteratorResult<StoreEvent>> {
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head++] as StoreEvent;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.#error !== undefined) {
      const error = this.#error;
      this.#error = undefined;
      return Promise.reject(error);
    }
    if (this.#done) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  return(): Promise<IteratorResult<StoreEvent>> {
    this.end();
    this.#error = undefined;
    return Promise.resolve({ done: true, value: undefined });
  }
}

/** Every open watch of one store. */
export class WatchHub {
  readonly #watches = new Set<Watch>();

  /** Opens a watch on `prefix` delivering events after `from`, ended when `signal` aborts. */
  open(prefix: string, from: number, signal: AbortSignal): Watch {
    const onAbort = (): void => watch.end();
    const watch = new Watch(prefix, from, (w) => {
      this.#watches.delete(w);
      signal.removeEventListener("abort", onAbort);
    });
    this.#watches.add(watch);
    signal.addEventListener("abort", onAbort, { once: true });
    return watch;
  }

  /** Delivers committed events, in revision order, to every matching watch. */
  emit(events: readonly StoreEvent[]): void {
    if (this.#watches.size === 0) return;
    for (const watch of this.#watches) for (const event of events) watch.offer(event);
  }

  /** How many watches are open. */
  get count(): number {
    return this.#watches.size;
  }

  /** Ends every open watch. */
  closeAll(): void {
    for (const watch of [...this.#watches]) watch.end();
  }
}
