/**
 * One watch of a store, and the hub that fans events out to watches: what `MemoryStore` and
 * `SqliteStore` (`@orch/store-sqlite`) hand to their watch consumers, exported for other
 * in-process `Store` implementations.
 *
 * A watcher owns an unbounded queue: a writer only appends to it (or hands the event straight
 * to a pending `next()`), so a slow consumer never blocks writers or other watchers; it only
 * costs memory for the events it has not read yet. Watchers with the same prefix share one
 * group, so an event costs one prefix check per distinct prefix and one push per watcher.
 * @module
 */
import type { StoreEvent } from "../store.js";

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

type Resolve = (result: IteratorResult<StoreEvent, undefined>) => void;

/** The async iterator handed to one consumer of `watch`. */
export class Watcher implements AsyncIterator<StoreEvent, undefined> {
  #buf: StoreEvent[] = [];
  #head = 0;
  #waiter: Resolve | undefined = undefined;
  #pending: Promise<IteratorResult<StoreEvent, undefined>> | undefined = undefined;
  #error: unknown = undefined;
  #closed = false;
  #signal: AbortSignal | undefined = undefined;
  #hub: WatchHub | undefined = undefined;
  /** Group membership, maintained by the hub. */
  group: Group | undefined = undefined;
  slot = -1;

  constructor(
    readonly prefix: string,
    /** The watch wants events with a revision greater than this. */
    readonly from: number,
  ) {}

  /** Queues `event` (replay or live) or hands it to a pending `next()`. */
  push(event: StoreEvent): void {
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      this.#pending = undefined;
      waiter({ done: false, value: event });
    } else {
      this.#buf.push(event);
    }
  }

  /** Makes the first `next()` reject with `error`; the watch is then over. */
  fail(error: unknown): void {
    this.#error = error;
    this.#closed = true;
  }

  /** Ties the watcher to `hub`, which ends it when `signal` aborts. */
  attach(hub: WatchHub, signal: AbortSignal): void {
    this.#hub = hub;
    this.#signal = signal;
    hub.track(signal, this);
  }

  /** Ends the watch: unregisters it, drops queued events and resolves a pending `next()` as done. */
  close(): void {
    if (this.#closed && this.#hub === undefined) return;
    this.#closed = true;
    this.#buf = [];
    this.#head = 0;
    const hub = this.#hub;
    if (hub !== undefined) {
      this.#hub = undefined;
      hub.remove(this);
      if (this.#signal !== undefined) hub.untrack(this.#signal, this);
    }
    this.#signal = undefined;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    this.#pending = undefined;
    waiter?.(DONE);
  }

  next(): Promise<IteratorResult<StoreEvent, undefined>> {
    const buf = this.#buf;
    if (this.#head < buf.length) {
      const event = buf[this.#head] as StoreEvent;
      (buf as unknown[])[this.#head++] = undefined;
      if (this.#head === buf.length) {
        this.#buf = [];
        this.#head = 0;
      } else if (this.#head >= 1024 && this.#head * 2 >= buf.length) {
        this.#buf = buf.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ done: false, value: event });
    }
    if (this.#error !== undefined) {
      const error = this.#error;
      this.#error = undefined;
      return Promise.reject(error);
    }
    if (this.#closed) return Promise.resolve(DONE);
    // A second next() before the first settled queues behind it, so results stay in order.
    if (this.#pending !== undefined) return this.#pending.then(() => this.next());
    const pending = new Promise<IteratorResult<StoreEvent, undefined>>((resolve) => {
      this.#waiter = resolve;
    });
    this.#pending = pending;
    return pending;
  }

  return(): Promise<IteratorResult<StoreEvent, undefined>> {
    this.close();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** The watchers of one prefix. */
export class Group {
  readonly watchers: Watcher[] = [];
  slot = -1;
  constructor(readonly prefix: string) {}
}

/** Registers watchers and fans events out to them. */
export class WatchHub {
  readonly #groups: Group[] = [];
  readonly #byPrefix = new Map<string, Group>();
  /** Watchers whose start revision the store has not reached yet. */
  #future: Watcher[] = [];
  #count = 0;

  /**
   * The watchers of each abort signal. One listener per signal, however many watches share it,
   * so a server-wide signal over thousands of watches neither costs a listener each nor trips
   * the runtime's listener-leak warning.
   */
  readonly #bySignal = new WeakMap<AbortSignal, { watchers: Set<Watcher>; listener: () => void }>();

  /** Number of open watchers. */
  get count(): number {
    return this.#count;
  }

  /** Ends `w` when `signal` aborts. */
  track(signal: AbortSignal, w: Watcher): void {
    let tracked = this.#bySignal.get(signal);
    if (tracked === undefined) {
      const watchers = new Set<Watcher>();
      const listener = (): void => {
        for (const each of [...watchers]) each.close();
      };
      tracked = { watchers, listener };
      this.#bySignal.set(signal, tracked);
      signal.addEventListener("abort", listener, { once: true });
    }
    tracked.watchers.add(w);
  }

  /** Forgets `w` for `signal`, removing the listener with the signal's last watcher. */
  untrack(signal: AbortSignal, w: Watcher): void {
    const tracked = this.#bySignal.get(signal);
    if (tracked === undefined) return;
    tracked.watchers.delete(w);
    if (tracked.watchers.size === 0) {
      signal.removeEventListener("abort", tracked.listener);
      this.#bySignal.delete(signal);
    }
  }

  /** Registers `w` for events after `w.from`; `current` is the store's newest revision. */
  add(w: Watcher, current: number): void {
    this.#count++;
    if (w.from > current) this.#future.push(w);
    else this.#join(w);
  }

  #join(w: Watcher): void {
    let group = this.#byPrefix.get(w.prefix);
    if (group === undefined) {
      group = new Group(w.prefix);
      group.slot = this.#groups.length;
      this.#groups.push(group);
      this.#byPrefix.set(w.prefix, group);
    }
    w.group = group;
    w.slot = group.watchers.length;
    group.watchers.push(w);
  }

  /** Unregisters `w` (no-op when it is not registered). */
  remove(w: Watcher): void {
    const group = w.group;
    if (group === undefined) {
      const i = this.#future.indexOf(w);
      if (i >= 0) {
        this.#future.splice(i, 1);
        this.#count--;
      }
      return;
    }
    const ws = group.watchers;
    const last = ws.pop() as Watcher;
    if (last !== w) {
      ws[w.slot] = last;
      last.slot = w.slot;
    }
    w.group = undefined;
    w.slot = -1;
    this.#count--;
    if (ws.length === 0) {
      const groups = this.#groups;
      const lastGroup = groups.pop() as Group;
      if (lastGroup !== group) {
        groups[group.slot] = lastGroup;
        lastGroup.slot = group.slot;
      }
      this.#byPrefix.delete(group.prefix);
    }
  }

  /** Delivers the event of `revision` to every watcher whose prefix matches its key. */
  publish(event: StoreEvent, revision: number): void {
    if (this.#future.length !== 0) this.#promote(revision);
    const groups = this.#groups;
    if (groups.length === 0) return;
    const key = event.entry.key;
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g] as Group;
      if (!key.startsWith(group.prefix)) continue;
      const ws = group.watchers;
      for (let i = 0; i < ws.length; i++) (ws[i] as Watcher).push(event);
    }
  }

  #promote(revision: number): void {
    const waiting: Watcher[] = [];
    for (const w of this.#future) {
      if (w.from < revision) this.#join(w);
      else waiting.push(w);
    }
    this.#future = waiting;
  }

  /** Ends every watcher. */
  closeAll(): void {
    for (const w of [...this.#future]) w.close();
    for (const group of [...this.#groups]) for (const w of [...group.watchers]) w.close();
  }
}
