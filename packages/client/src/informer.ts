/**
 * {@link Informer}: a local, eventually consistent copy of a collection, kept by a list and
 * then a watch from the list's resourceVersion, with a relist when the watch falls too far
 * behind (410 `Expired`) or fails.
 * @module
 */
import { isFailureStatus, StatusError, type APIObject, type Status } from "@orch/meta";
import { responseError } from "./client.js";
import type { ResourceClient } from "./client.js";

/** The timer port the informer backs off with (the `setTimer` of `@orch/store`'s `Clock` fits). */
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
  /** An object appeared (from the initial list, a relist, or an `ADDED` event). */
  onAdd?(object: T): void;
  /** An object changed; `old` is the cached state before. */
  onUpdate?(old: T, object: T): void;
  /** An object went away; its last known state. */
  onDelete?(object: T): void;
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
  /** Timers for the back-off; {@link systemTimers} by default. */
  timers?: InformerTimers;
  /** Told about every failed list or watch before the informer backs off and retries. */
  onError?(error: unknown): void;
}

/** The cache key of an object: `namespace/name`, or `name` for a cluster-scoped one. */
export function objectKey(object: APIObject): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name ?? ""}` : (name ?? "");
}

class Relist extends Error {}

/**
 * Lists a collection, then watches it from the list's resourceVersion, keeping a cache by
 * `namespace/name` and calling handlers on every change. When the stream ends the watch is
 * re-opened from the last resourceVersion seen; on a 410 `Expired` ERROR event it relists at
 * once; after any other failure it backs off (doubling, capped) and relists. A relist diffs the
 * new state against the cache, so handlers see adds, updates and deletes missed meanwhile.
 *
 * @example
 * const informer = new Informer(client.configMaps, { namespace: "default" });
 * informer.addEventHandler({ onAdd: (cm) => console.log("added", cm.metadata.name) });
 * informer.start();
 * await informer.waitForSync();
 * informer.stop();
 */
export class Informer<T extends APIObject = APIObject> {
  readonly #resource: ResourceClient<T>;
  readonly #options: InformerOptions;
  readonly #timers: InformerTimers;
  readonly #cache = new Map<string, T>();
  readonly #handlers = new Set<InformerHandlers<T>>();
  #controller: AbortController | undefined;
  #synced = false;
  #syncWaiters: (() => void)[] = [];
  #resourceVersion = "";
  #running: Promise<void> | undefined;

  constructor(resource: ResourceClient<T>, options: InformerOptions = {}) {
    this.#resource = resource;
    this.#options = options;
    this.#timers = options.timers ?? systemTimers;
  }

  /** Registers handlers; returns a function that unregisters them. */
  addEventHandler(handlers: InformerHandlers<T>): () => void {
    this.#handlers.add(handlers);
    return () => this.#handlers.delete(handlers);
  }

  /** True once the first list is in the cache. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once the first list is in the cache (at once if it already is, never after `stop()` without a sync). */
  waitForSync(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  /** The last resourceVersion the informer saw (of a list, an event or a bookmark). */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Every cached object. */
  list(): T[] {
    return [...this.#cache.values()];
  }

  /** The cached object with this key (`namespace/name`, or `name` when cluster-scoped). */
  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  /** Starts listing and watching; a second call while running does nothing. */
  start(): void {
    if (this.#controller && !this.#controller.signal.aborted) return;
    const controller = new AbortController();
    this.#controller = controller;
    this.#running = this.#run(controller.signal);
  }

  /** Stops the informer and closes its watch; resolves when the loop has ended. The cache stays readable. */
  async stop(): Promise<void> {
    this.#controller?.abort();
    await this.#running;
  }

  #emit(fn: (h: InformerHandlers<T>) => void): void {
    for (const h of this.#handlers) {
      try {
        fn(h);
      } catch (error) {
        this.#options.onError?.(error);
      }
    }
  }

  #upsert(object: T): void {
    const key = objectKey(object);
    const old = this.#cache.get(key);
    this.#cache.set(key, object);
    if (old) this.#emit((h) => h.onUpdate?.(old, object));
    else this.#emit((h) => h.onAdd?.(object));
  }

  #remove(object: T): void {
    const key = objectKey(object);
    const old = this.#cache.get(key);
    this.#cache.delete(key);
    this.#emit((h) => h.onDelete?.(old ?? object));
  }

  #replace(items: readonly T[]): void {
    const seen = new Set<string>();
    for (const item of items) {
      const key = objectKey(item);
      seen.add(key);
      const old = this.#cache.get(key);
      if (old && old.metadata.resourceVersion === item.metadata.resourceVersion) continue;
      this.#upsert(item);
    }
    for (const [key, old] of [...this.#cache]) {
      if (seen.has(key)) continue;
      this.#cache.delete(key);
      this.#emit((h) => h.onDelete?.(old));
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

  async #run(signal: AbortSignal): Promise<void> {
    const initial = this.#options.initialBackoffMs ?? 1000;
    const max = this.#options.maxBackoffMs ?? 30_000;
    let backoff = initial;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          const list = await this.#resource.listAll({ ...this.#selectors(), limit: this.#options.pageSize ?? 500, signal });
          if (signal.aborted) break;
          this.#replace(list.items);
          this.#resourceVersion = list.metadata.resourceVersion ?? "";
          needList = false;
          if (!this.#synced) {
            this.#synced = true;
            for (const resolve of this.#syncWaiters.splice(0)) resolve();
          }
        }
        const events = await this.#watchOnce(signal);
        backoff = initial;
        // A stream that ended without any event may be a server that closes at once: pace it.
        if (events === 0 && !signal.aborted) await this.#sleep(backoff, signal);
      } catch (error) {
        if (signal.aborted) break;
        needList = true;
        if (error instanceof Relist) continue;
        this.#options.onError?.(error);
        await this.#sleep(backoff, signal);
        backoff = Math.min(backoff * 2, max);
      }
    }
  }

  /** One watch until its stream ends; throws {@link Relist} on 410 and a StatusError on other ERROR events. */
  async #watchOnce(signal: AbortSignal): Promise<number> {
    let count = 0;
    const watch = this.#resource.watch({ ...this.#selectors(), resourceVersion: this.#resourceVersion, allowWatchBookmarks: true, signal });
    for await (const event of watch) {
      count++;
      if (event.type === "ERROR") {
        const status: unknown = event.object;
        const code = (status as Partial<Status> | null)?.code;
        if (code === 410) throw new Relist();
        throw isFailureStatus(status) ? new StatusError(status) : responseError(code ?? 500, JSON.stringify(status));
      }
      const object = event.object as T;
      const rv = object.metadata?.resourceVersion;
      if (rv) this.#resourceVersion = rv;
      if (event.type === "ADDED" || event.type === "MODIFIED") this.#upsert(object);
      else if (event.type === "DELETED") this.#remove(object);
    }
    return count;
  }
}
