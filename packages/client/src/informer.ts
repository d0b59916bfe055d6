/**
 * {@link Informer}: a local, eventually consistent copy of a collection, kept by a list and
 * then a watch from the list's resourceVersion, with a relist when the watch falls too far
 * behind (410 `Expired`) or fails, indexes over the copy, and periodic resyncs.
 * @module
 */
import { isFailureStatus, StatusError, type APIObject, type Status } from "@orch/meta";
import { responseError } from "./client.js";
import type { ResourceClient } from "./client.js";
import { Indexer, objectKey, type Indexers } from "./informer-indexer.js";

/** The timer port the informer backs off and resyncs with (the `setTimer` of `@orch/store`'s `Clock` fits). */
export interface InformerTimers {
  /** Calls `fn` once after `ms` milliseconds; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

/** Timers on the global `setTimeout`, looked up at each call so tests can replace it. */
export const systemTimers: InformerTimers = {
  setTimer: (ms, fn) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** Callbacks for changes to the informer's cache. A handler that throws does not stop the informer. */
export interface InformerHandlers<T extends APIObject> {
  /** An object appeared (from the initial list, a relist, an `ADDED` event, or the cache replayed to a handler added late). */
  onAdd?(object: T): void;
  /** An object changed; `old` is the cached state before. On a resync `old === object`. */
  onUpdate?(old: T, object: T): void;
  /** An object went away; its last known state. */
  onDelete?(object: T): void;
}

/** Options of {@link Informer.addEventHandler}. */
export interface EventHandlerOptions {
  /**
   * This handler's resync period in ms: every period it gets `onUpdate(object, object)` for every
   * cached object. {@link InformerOptions.resyncPeriodMs} by default; 0 for none.
   */
  resyncPeriodMs?: number;
}

/** Options of {@link Informer}. */
export interface InformerOptions {
  /** Watch one namespace; every namespace by default. */
  namespace?: string;
  /** Only objects with matching labels. */
  labelSelector?: string;
  /** Only objects with matching fields. */
  fieldSelector?: string;
  /** Page size of the (re)list; 500 by default. */
  pageSize?: number;
  /** First back-off after a failure, in ms (1000 by default); it doubles up to {@link InformerOptions.maxBackoffMs}. */
  initialBackoffMs?: number;
  /** Longest back-off, in ms (30000 by default). */
  maxBackoffMs?: number;
  /**
   * The default resync period of the handlers, in ms: every period, once synced, each handler
   * gets `onUpdate(object, object)` for every cached object (client-go's resync), so a controller
   * re-checks what no event told it about. 0 (the default) for none.
   */
  resyncPeriodMs?: number;
  /** Timers for the back-off and the resyncs; {@link systemTimers} by default. */
  timers?: InformerTimers;
  /** Told about every failed list or watch before the informer backs off and retries, and about handlers that throw. */
  onError?(error: unknown): void;
}

/** A 410 from a watch (an ERROR event or the answer to the request), after `events` other events. */
class Expired extends Error {
  constructor(
    readonly error: StatusError,
    readonly events: number,
  ) {
    super(error.message, { cause: error });
  }
}

interface Registration<T extends APIObject> {
  handlers: InformerHandlers<T>;
  resyncPeriodMs: number;
  cancelResync: (() => void) | undefined;
}

interface SyncWaiter {
  resolve(): void;
  reject(error: unknown): void;
}

function resyncPeriod(ms: number | undefined): number {
  if (ms === undefined) return 0;
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a resync period must be a finite number of ms, 0 or more, not ${ms}`);
  return ms;
}

function statusErrorOf(status: unknown): StatusError {
  if (isFailureStatus(status)) return new StatusError(status);
  const code = (status as Partial<Status> | null)?.code;
  return responseError(code ?? 500, JSON.stringify(status));
}

/**
 * Lists a collection, then watches it from the list's resourceVersion, keeping an indexed cache by
 * `namespace/name` and calling handlers on every change. When the stream ends the watch is
 * re-opened from the last resourceVersion seen. On a 410 `Expired` it relists at once; when the
 * watch of that fresh list expires again before any event (the server cannot serve it yet), it
 * backs off before each further relist, as after any other failure (doubling, capped). A relist
 * diffs the new state against the cache, so handlers see adds, updates and deletes missed
 * meanwhile. Every event costs O(k) in the handlers and index values it touches.
 *
 * @example
 * const informer = new Informer(client.configMaps, { namespace: "default", resyncPeriodMs: 60_000 });
 * informer.addIndexers({ app: labelIndex("app") });
 * informer.addEventHandler({ onAdd: (cm) => console.log("added", cm.metadata.name) });
 * informer.start();
 * await informer.waitForSync();
 * const web = informer.byIndex("app", "web");
 * await informer.stop();
 */
export class Informer<T extends APIObject = APIObject> {
  readonly #resource: ResourceClient<T>;
  readonly #options: InformerOptions;
  readonly #timers: InformerTimers;
  readonly #resyncPeriodMs: number;
  readonly #store = new Indexer<T>();
  readonly #registrations = new Set<Registration<T>>();
  readonly #syncWaiters = new Set<SyncWaiter>();
  #controller: AbortController | undefined;
  #stopped = false;
  #synced = false;
  #resourceVersion = "";
  #running: Promise<void> | undefined;

  /** @throws RangeError for a negative or non-finite {@link InformerOptions.resyncPeriodMs}. */
  constructor(resource: ResourceClient<T>, options: InformerOptions = {}) {
    this.#resource = resource;
    this.#options = options;
    this.#timers = options.timers ?? systemTimers;
    this.#resyncPeriodMs = resyncPeriod(options.resyncPeriodMs);
  }

  /**
   * Registers handlers and, as client-go does, replays every object already cached to their
   * `onAdd` before returning, so a handler added after the sync misses nothing. Returns a
   * function that unregisters them (and stops their resyncs).
   * @throws RangeError for a negative or non-finite {@link EventHandlerOptions.resyncPeriodMs}.
   */
  addEventHandler(handlers: InformerHandlers<T>, options: EventHandlerOptions = {}): () => void {
    const periodMs = options.resyncPeriodMs === undefined ? this.#resyncPeriodMs : resyncPeriod(options.resyncPeriodMs);
    const registration: Registration<T> = { handlers, resyncPeriodMs: periodMs, cancelResync: undefined };
    this.#registrations.add(registration);
    for (const object of this.#store.list()) this.#call(registration, (h) => h.onAdd?.(object));
    this.#scheduleResync(registration);
    return () => {
      this.#registrations.delete(registration);
      this.#cancelResync(registration);
    };
  }

  /**
   * Adds named indexes (before or after {@link Informer.start}; after, they are filled at once
   * from the cache). Every informer has the `namespace` index; {@link labelIndex} makes one by a
   * label. Index functions must be pure and must not throw.
   * @throws Error when an index of that name exists.
   */
  addIndexers(indexers: Indexers<T>): void {
    this.#store.addIndexers(indexers);
  }

  /**
   * The cached objects indexed under `value` by index `name`.
   * @throws Error for an index that does not exist.
   */
  byIndex(name: string, value: string): T[] {
    return this.#store.byIndex(name, value);
  }

  /**
   * The keys (`namespace/name`) of the cached objects indexed under `value` by index `name`.
   * @throws Error for an index that does not exist.
   */
  indexKeys(name: string, value: string): string[] {
    return this.#store.indexKeys(name, value);
  }

  /** True once the first list is in the cache (and from then on, through relists and restarts). */
  hasSynced(): boolean {
    return this.#synced;
  }

  /**
   * Resolves once the first list is in the cache (at once if it already is). Rejects with the
   * signal's reason when `signal` aborts first, and with an Error when the informer is stopped
   * before it synced (at once, when it is stopped now); before {@link Informer.start} it waits.
   */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.#stopped) return Promise.reject(stoppedBeforeSync());
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => waiter.reject(signal?.reason);
      const settle = () => {
        this.#syncWaiters.delete(waiter);
        signal?.removeEventListener("abort", onAbort);
      };
      const waiter: SyncWaiter = {
        resolve: () => (settle(), resolve()),
        reject: (error) => (settle(), reject(error as Error)),
      };
      this.#syncWaiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The resourceVersion of the last list, event or bookmark the informer saw; `""` before the first list. */
  lastSyncResourceVersion(): string {
    return this.#resourceVersion;
  }

  /** @deprecated The same as {@link Informer.lastSyncResourceVersion}. */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Every cached object. */
  list(): T[] {
    return this.#store.list();
  }

  /** The cached object with this key (`namespace/name`, or `name` when cluster-scoped). */
  get(key: string): T | undefined {
    return this.#store.get(key);
  }

  /** Starts listing, watching and resyncing; a second call while running does nothing. */
  start(): void {
    if (this.#isRunning()) return;
    const controller = new AbortController();
    this.#controller = controller;
    this.#stopped = false;
    this.#running = this.#run(controller.signal);
    for (const registration of this.#registrations) this.#scheduleResync(registration);
  }

  /**
   * Stops the informer, closes its watch, cancels its resyncs and rejects the waiters of a sync
   * that did not happen; resolves when the loop has ended. The cache stays readable.
   */
  async stop(): Promise<void> {
    this.#controller?.abort();
    this.#stopped = true;
    for (const registration of this.#registrations) this.#cancelResync(registration);
    if (!this.#synced) for (const waiter of [...this.#syncWaiters]) waiter.reject(stoppedBeforeSync());
    await this.#running;
  }

  #isRunning(): boolean {
    return this.#controller !== undefined && !this.#controller.signal.aborted;
  }

  #call(registration: Registration<T>, fn: (h: InformerHandlers<T>) => void): void {
    try {
      fn(registration.handlers);
    } catch (error) {
      this.#options.onError?.(error);
    }
  }

  #emit(fn: (h: InformerHandlers<T>) => void): void {
    // A snapshot: a handler may add or remove handlers; one added now was replayed the cache already.
    for (const registration of [...this.#registrations]) if (this.#registrations.has(registration)) this.#call(registration, fn);
  }

  #scheduleResync(registration: Registration<T>): void {
    if (registration.resyncPeriodMs <= 0 || registration.cancelResync || !this.#isRunning()) return;
    registration.cancelResync = this.#timers.setTimer(registration.resyncPeriodMs, () => {
      registration.cancelResync = undefined;
      if (!this.#registrations.has(registration) || !this.#isRunning()) return;
      // Before the first list the cache is not the collection yet: nothing to resync.
      if (this.#synced) for (const object of this.#store.list()) this.#call(registration, (h) => h.onUpdate?.(object, object));
      this.#scheduleResync(registration);
    });
  }

  #cancelResync(registration: Registration<T>): void {
    registration.cancelResync?.();
    registration.cancelResync = undefined;
  }

  #upsert(object: T): void {
    const old = this.#store.set(objectKey(object), object);
    if (old) this.#emit((h) => h.onUpdate?.(old, object));
    else this.#emit((h) => h.onAdd?.(object));
  }

  #remove(object: T): void {
    const old = this.#store.delete(objectKey(object));
    this.#emit((h) => h.onDelete?.(old ?? object));
  }

  #replace(items: readonly T[]): void {
    const seen = new Set<string>();
    for (const item of items) {
      const key = objectKey(item);
      seen.add(key);
      const old = this.#store.get(key);
      if (old && old.metadata.resourceVersion === item.metadata.resourceVersion) continue;
      this.#upsert(item);
    }
    for (const key of this.#store.keys()) {
      if (seen.has(key)) continue;
      const old = this.#store.delete(key);
      if (old) this.#emit((h) => h.onDelete?.(old));
    }
  }

  #selectors(): { namespace?: string; labelSelector?: string; fieldSelector?: string } {
    const s: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {};
    if (this.#options.namespace !== undefined) s.namespace = this.#options.namespace;
    if (this.#options.labelSelector !== undefined) s.labelSelector = this.#options.labelSelector;
    if (this.#options.fieldSelector !== undefined) s.fieldSelector = this.#options.fieldSelector;
    return s;
  }

  #sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        cancel();
        signal.removeEventListener("abort", done);
        resolve();
      };
      const cancel = this.#timers.setTimer(ms, done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    for (const waiter of [...this.#syncWaiters]) waiter.resolve();
  }

  async #run(signal: AbortSignal): Promise<void> {
    const initial = this.#options.initialBackoffMs ?? 1000;
    const max = this.#options.maxBackoffMs ?? 30_000;
    let backoff = initial;
    let needList = true;
    // 410s in a row with no event between them: the first relists at once, later ones back off.
    let expiredInARow = 0;
    while (!signal.aborted) {
      try {
        if (needList) {
          const list = await this.#resource.listAll({ ...this.#selectors(), limit: this.#options.pageSize ?? 500, signal });
          if (signal.aborted) break;
          this.#replace(list.items);
          this.#resourceVersion = list.metadata.resourceVersion ?? "";
          needList = false;
          this.#markSynced();
        }
        const events = await this.#watchOnce(signal);
        backoff = initial;
        expiredInARow = 0;
        // A stream that ended without any event may be a server that closes at once: pace it.
        if (events === 0 && !signal.aborted) await this.#sleep(backoff, signal);
      } catch (error) {
        if (signal.aborted) break;
        needList = true;
        if (error instanceof Expired) {
          if (error.events > 0) {
            backoff = initial;
            expiredInARow = 0;
          }
          if (++expiredInARow === 1) continue;
          this.#options.onError?.(error.error);
        } else {
          this.#options.onError?.(error);
        }
        await this.#sleep(backoff, signal);
        backoff = Math.min(backoff * 2, max);
      }
    }
  }

  /** One watch until its stream ends; returns how many events it carried. Throws {@link Expired} on a 410, a StatusError on other ERROR events. */
  async #watchOnce(signal: AbortSignal): Promise<number> {
    let count = 0;
    const watch = this.#resource.watch({ ...this.#selectors(), resourceVersion: this.#resourceVersion, allowWatchBookmarks: true, signal });
    try {
      for await (const event of watch) {
        if (event.type === "ERROR") throw statusErrorOf(event.object);
        count++;
        const object = event.object as T;
        const rv = object.metadata?.resourceVersion;
        if (rv) this.#resourceVersion = rv;
        if (event.type === "ADDED" || event.type === "MODIFIED") this.#upsert(object);
        else if (event.type === "DELETED") this.#remove(object);
      }
    } catch (error) {
      if (error instanceof StatusError && error.code === 410) throw new Expired(error, count);
      throw error;
    }
    return count;
  }
}

function stoppedBeforeSync(): Error {
  return new Error("the informer was stopped before it synced");
}
