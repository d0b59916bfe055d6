/**
 * The minimal implementations each benchmark is measured against: they do the same job with
 * nothing else (no history, no freezing, no ordering, no conflict semantics beyond a check).
 * @module
 */
import { EventEmitter } from "eventemitter3";

/** An entry of the baseline store, shaped like the Store port's. */
export interface BaselineEntry {
  key: string;
  value: object;
  createRevision: number;
  modRevision: number;
}

/** An async `Map` keyed store with a revision counter. */
export class MapStore {
  private readonly map = new Map<string, BaselineEntry>();
  private rev = 0;

  /** The entry at `key`. */
  async get(key: string): Promise<BaselineEntry | undefined> {
    return this.map.get(key);
  }

  /** Adds `key`; throws when present. */
  async create(key: string, value: object): Promise<BaselineEntry> {
    if (this.map.has(key)) throw new Error("exists");
    const rev = ++this.rev;
    const entry = { key, value, createRevision: rev, modRevision: rev };
    this.map.set(key, entry);
    return entry;
  }

  /** Replaces `key` when its modRevision matches. */
  async update(key: string, value: object, expect: number): Promise<BaselineEntry> {
    const current = this.map.get(key);
    if (!current || current.modRevision !== expect) throw new Error("conflict");
    const entry = { key, value, createRevision: current.createRevision, modRevision: ++this.rev };
    this.map.set(key, entry);
    return entry;
  }
}

/** A page of a pre-sorted array: binary search for the start, then a slice. */
export function slicePage<T extends { key: string }>(sorted: readonly T[], after: string, limit: number): T[] {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as T).key <= after) lo = mid + 1;
    else hi = mid;
  }
  return sorted.slice(lo, lo + limit);
}

/** A minimal async queue: what any async consumer of a fan-out needs. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiter: ((r: IteratorResult<T>) => void) | undefined;

  /** Delivers `item` to the consumer. */
  push(item: T): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter({ value: item, done: false });
    } else this.items.push(item);
  }

  /** Iterates the queue forever. */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.items.length) return Promise.resolve({ value: this.items.shift() as T, done: false });
        return new Promise((resolve) => (this.waiter = resolve));
      },
    };
  }
}

/** eventemitter3 fan-out: one emitter, one listener per consumer, each feeding its queue. */
export function emitterFanOut<T>(consumers: number): { emit(item: T): void; queues: AsyncQueue<T>[] } {
  const emitter = new EventEmitter();
  const queues = Array.from({ length: consumers }, () => {
    const queue = new AsyncQueue<T>();
    emitter.on("event", (item: T) => queue.push(item));
    return queue;
  });
  return { emit: (item) => emitter.emit("event", item), queues };
}
