/**
 * `WatchCache`: a {@link Store} decorator that keeps the current state and a window of recent
 * events of some key prefixes in memory, from one upstream watch per prefix, as the reference
 * server's cacher does. It serves the reads that may be stale (`resourceVersion=0`,
 * `NotOlderThan`), reads at the revision it has reached, and consistent reads from memory, fans
 * watches out to any number of watchers, and relays writes to the upstream store.
 *
 * Decision on how `@orch/list` asks for a cached read: the Store port has no way to say "any
 * revision will do" (`list(prefix)` without a revision means the newest, a consistent read), so
 * the cache also implements the small {@link CachedReads} interface; `listChunk`, `readOne` and
 * `openWatch` use it for `Any`/`NotOlderThan`/`StartAny` plans when the store has it, and plain
 * `Store` calls otherwise.
 *
 * Consistent reads (no revision, `MostRecent`) are served from memory as the reference's
 * consistent lists from the cache are: the cache asks upstream for its newest revision (one
 * cheap call; none when upstream knows it in this process, `Store.newestRevision`), waits until
 * its watch has delivered up to it, then answers from memory. The answer
 * is as fresh as upstream's own, and the value is not read or decoded again. Should the cache not
 * get there within {@link WatchCacheOptions.freshnessWaitMs} (writes outside the cached
 * prefixes, a watch far behind), the read goes upstream, and so do consistent reads of the next
 * few seconds.
 * @module
 */
import { badRequest, reasonOf, tooOldResourceVersion } from "@orch/meta";
import { systemClock, type Clock, type Entry, type GetOptions, type ListOptions, type ListResult, type Store, type StoreEvent } from "@orch/store";

/**
 * Reads that need not be the newest: what a store with a cache can answer from memory. A read
 * returns data at a revision of at least `minRevision` (0: any), possibly older than the store's
 * newest revision.
 */
export interface CachedReads {
  /** Entries under `prefix` at some revision `>= minRevision`, paged by `after` and `limit`. */
  listCached(prefix: string, opts: Omit<ListOptions, "revision">, minRevision: number): Promise<ListResult>;
  /** The entry at `key` at some revision `>= minRevision`, or undefined when absent there. */
  getCached(key: string, minRevision: number): Promise<Entry | undefined>;
}

/** True when `store` can serve stale-allowed reads from a cache ({@link CachedReads}). */
export function hasCachedReads(store: Store): store is Store & CachedReads {
  const s = store as Partial<CachedReads>;
  return typeof s.listCached === "function" && typeof s.getCached === "function";
}

/** Options of {@link WatchCache}. */
export interface WatchCacheOptions {
  /**
   * The key prefixes to cache, one upstream watch each; they must not overlap. Reads and watches
   * outside them go to the upstream store. Default `["/registry/"]`.
   */
  prefixes?: readonly string[];
  /** How many recent events each prefix keeps for watch replay; default 10 000. */
  windowEvents?: number;
  /** The clock of retry delays; default the system clock. */
  clock?: Clock;
  /** The first delay before re-opening a broken upstream watch, in ms (doubling to 5 s); default 100. */
  retryMs?: number;
  /**
   * How long a consistent read waits for the cache to reach upstream's newest revision before it
   * goes upstream instead, in ms; default 1000. 0 sends every consistent read upstream.
   */
  freshnessWaitMs?: number;
}

const DEFAULT_WINDOW = 10_000;
const DEFAULT_FRESHNESS_WAIT_MS = 1_000;
/** After a consistent read waited in vain, consistent reads go upstream for this long (ms). */
const UPSTREAM_AFTER_STALL_MS = 5_000;
const MAX_RETRY_MS = 5_000;
// Pages of the initial list: 10,000 objects of 0.5 KiB would exceed the etcd client's 4 MiB message limit.
const INITIAL_PAGE = 1_000;

/** The smallest string greater than every string that starts with `prefix`; undefined when unbounded. */
function prefixEndOf(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const c = prefix.charCodeAt(i);
    if (c < 0xffff) return prefix.slice(0, i) + String.fromCharCode(c + 1);
  }
  return undefined;
}

/** The first index of `sorted` whose key is `>= key` (or `> key` when `strict`). */
function bound(sorted: readonly Entry[], key: string, strict: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = (sorted[mid] as Entry).key;
    if (k < key || (strict && k === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function checkRevision(revision: number, what: string): void {
  if (!Number.isSafeInteger(revision) || revision < 0) throw badRequest(`invalid ${what} ${String(revision)}: must be a non-negative integer`);
}

function checkLimit(limit: number | undefined): number {
  const l = limit ?? 0;
  if (!Number.isSafeInteger(l) || l < 0) throw badRequest(`invalid limit ${String(l)}: must be a non-negative integer`);
  return l;
}

const doneResult: IteratorResult<StoreEvent> = Object.freeze({ done: true, value: undefined });

/** One watcher of the cache: an unbounded queue of shared events, read as an async iterator. */
class CacheWatcher implements AsyncIterator<StoreEvent> {
  readonly prefix: string;
  /** Only events after this revision are for this watcher. */
  readonly from: number;
  #queue: StoreEvent[] = [];
  #head = 0;
  #resolve: ((r: IteratorResult<StoreEvent>) => void) | undefined;
  #reject: ((e: unknown) => void) | undefined;
  #error: unknown;
  #failed = false;
  #done = false;
  #detach: (() => void) | undefined;
  #signal: AbortSignal | undefined;
  readonly #onAbort = (): void => this.close();

  constructor(prefix: string, from: number) {
    this.prefix = prefix;
    this.from = from;
  }

  attach(signal: AbortSignal, detach: () => void): void {
    this.#detach = detach;
    this.#signal = signal;
    signal.addEventListener("abort", this.#onAbort);
  }

  push(event: StoreEvent): void {
    const resolve = this.#resolve;
    if (resolve !== undefined) {
      this.#resolve = undefined;
      this.#reject = undefined;
      resolve({ done: false, value: event });
      return;
    }
    this.#queue.push(event);
  }

  /** Ends the watch after its queued events with `error` thrown from `next()`. */
  fail(error: unknown): void {
    if (this.#done) return;
    this.#error = error;
    this.#failed = true;
    this.#finish();
    const reject = this.#reject;
    if (reject !== undefined && this.#head >= this.#queue.length) {
      this.#resolve = undefined;
      this.#reject = undefined;
      this.#failed = false;
      reject(error);
    }
  }

  /** Ends the watch at once (queued events are dropped). */
  close(): void {
    this.#queue = [];
    this.#head = 0;
    this.#failed = false;
    this.#finish();
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#reject = undefined;
    resolve?.(doneResult);
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#detach?.();
  }

  next(): Promise<IteratorResult<StoreEvent>> {
    const queue = this.#queue;
    if (this.#head < queue.length) {
      const value = queue[this.#head++] as StoreEvent;
      if (this.#head === queue.length) {
        this.#queue = [];
        this.#head = 0;
      } else if (this.#head > 1024 && this.#head * 2 > queue.length) {
        this.#queue = queue.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.#failed) {
      this.#failed = false;
      return Promise.reject(this.#error);
    }
    if (this.#done) return Promise.resolve(doneResult);
    return new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  return(): Promise<IteratorResult<StoreEvent>> {
    this.close();
    return Promise.resolve(doneResult);
  }
}

/** The cached state of one prefix. */
class PrefixCache {
  readonly prefix: string;
  /** The revision the state is at: every upstream change under the prefix up to it is applied. */
  rev = 0;
  /** Watches from at least this revision can be served from the window. */
  floor = 0;
  /** True once the initial list is in. */
  loaded = false;
  /**
   * False while the upstream watch is broken: the cache cannot promise its watchers the events
   * they would miss, so new watches go upstream until it is re-established.
   */
  live = true;
  readonly map = new Map<string, Entry>();
  /** The entries in key order, as of the last {@link PrefixCache.settle}. */
  #sorted: Entry[] = [];
  /**
   * Changes since then, by key (undefined: deleted), merged in by the next read in key order:
   * a write costs a map update, not an insertion into the middle of a large array.
   */
  readonly #pending = new Map<string, Entry | undefined>();
  /** Recent events in revision order, from `windowHead`. */
  window: StoreEvent[] = [];
  windowHead = 0;
  readonly watchers = new Set<CacheWatcher>();
  /** Consistent reads waiting for the state to reach a revision, resolved true when it does. */
  readonly #waiters = new Set<{ revision: number; done: (reached: boolean) => void }>();
  readonly #capacity: number;

  constructor(prefix: string, capacity: number) {
    this.prefix = prefix;
    this.#capacity = capacity;
  }

  /** Replaces the state with a fresh list at `revision`; the window starts empty there. */
  load(entries: Entry[], revision: number): void {
    this.#loadState(entries, revision);
    if (this.#waiters.size !== 0) this.#wake();
  }

  #loadState(entries: Entry[], revision: number): void {
    this.map.clear();
    for (const e of entries) this.map.set(e.key, e);
    this.#sorted = entries;
    this.#pending.clear();
    this.rev = revision;
    this.floor = revision;
    this.window = [];
    this.windowHead = 0;
    this.loaded = true;
  }

  apply(event: StoreEvent): void {
    const entry = event.entry;
    const revision = entry.modRevision;
    if (revision <= this.rev) return; // Already in the state (a resumed watch may repeat it).
    const key = entry.key;
    if (event.type === "delete") {
      if (this.map.delete(key)) this.#pending.set(key, undefined);
    } else {
      this.map.set(key, entry);
      this.#pending.set(key, entry);
    }
    this.rev = revision;
    const window = this.window;
    window.push(event);
    if (window.length - this.windowHead > this.#capacity) {
      this.floor = (window[this.windowHead] as StoreEvent).entry.modRevision;
      // Release the event now: the array is only compacted once the head has passed half of it,
      // and until then it would keep up to another window's worth of events alive.
      (window as (StoreEvent | undefined)[])[this.windowHead] = undefined;
      this.windowHead++;
      if (this.windowHead >= 4096 && this.windowHead * 2 > window.length) {
        this.window = window.slice(this.windowHead);
        this.windowHead = 0;
      }
    }
    for (const w of this.watchers) if (revision > w.from && key.startsWith(w.prefix)) w.push(event);
    if (this.#waiters.size !== 0) this.#wake();
  }

  /**
   * Resolves true once the state is at `revision` or later, false when `clock` says `timeoutMs`
   * passed first or {@link PrefixCache.releaseWaiters} gives up on it.
   */
  waitFor(revision: number, timeoutMs: number, clock: Clock): Promise<boolean> {
    if (this.rev >= revision) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        revision,
        done: (reached: boolean): void => {
          this.#waiters.delete(waiter);
          cancel();
          resolve(reached);
        },
      };
      const cancel = clock.setTimer(timeoutMs, () => waiter.done(false));
      this.#waiters.add(waiter);
    });
  }

  /** Tells every waiting read that the state will not get there (the watch broke, the cache stopped). */
  releaseWaiters(): void {
    for (const w of [...this.#waiters]) w.done(false);
  }

  #wake(): void {
    for (const w of [...this.#waiters]) if (w.revision <= this.rev) w.done(true);
  }

  /** Index in the window of the first event after `revision`. */
  firstAfter(revision: number): number {
    const window = this.window;
    let lo = this.windowHead;
    let hi = window.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((window[mid] as StoreEvent).entry.modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The entries in key order, with every change merged in (one pass over both). */
  settle(): Entry[] {
    const pending = this.#pending;
    if (pending.size === 0) return this.#sorted;
    const changes = [...pending.keys()].sort();
    const old = this.#sorted;
    const merged: Entry[] = [];
    let i = 0;
    for (const key of changes) {
      while (i < old.length && (old[i] as Entry).key < key) merged.push(old[i++] as Entry);
      if (i < old.length && (old[i] as Entry).key === key) i++;
      const entry = pending.get(key);
      if (entry !== undefined) merged.push(entry);
    }
    while (i < old.length) merged.push(old[i++] as Entry);
    pending.clear();
    this.#sorted = merged;
    return merged;
  }

  list(prefix: string, after: string | undefined, limit: number): ListResult {
    const sorted = this.settle();
    let lo = bound(sorted, prefix, false);
    if (after !== undefined && after >= prefix) lo = Math.max(lo, bound(sorted, after, true));
    const end = prefixEndOf(prefix);
    const hi = end === undefined ? sorted.length : Math.max(lo, bound(sorted, end, false));
    const n = hi - lo;
    const take = limit > 0 && limit < n ? limit : n;
    const remaining = n - take;
    return { entries: sorted.slice(lo, lo + take), revision: this.rev, more: remaining > 0, remaining };
  }

  /** The entry at `key` as of `revision` (between `floor` and `rev`), from the window. */
  getAt(key: string, revision: number): Entry | undefined {
    const window = this.window;
    for (let i = this.firstAfter(revision); i < window.length; i++) {
      const event = window[i] as StoreEvent;
      if (event.entry.key === key) return event.type === "create" ? undefined : event.prev;
    }
    return this.map.get(key);
  }

  endWatchers(error: unknown): void {
    for (const w of [...this.watchers]) {
      if (error === undefined) w.close();
      else w.fail(error);
    }
    this.watchers.clear();
  }
}

/**
 * A {@link Store} decorator that serves reads and fans out watches from memory.
 *
 * - {@link WatchCache.start} lists each prefix from upstream and watches it from the list's
 *   revision; until then (and after {@link WatchCache.stop}) every call goes to upstream.
 * - Writes and `compact` go to upstream and do not wait for the watch to see them.
 * - `get`/`list` without a revision are consistent reads: upstream. With a revision the cache
 *   has reached exactly, they are answered from memory (a `get` also at any revision inside the
 *   event window); other revisions go upstream, which may answer `Expired`.
 * - {@link CachedReads} (`listCached`/`getCached`) answer from memory at the cache's revision
 *   when it is at least the asked one: what `resourceVersion=0` and `NotOlderThan` reads use.
 * - `watch` under a cached prefix replays from the window and goes live from memory, for any
 *   number of watchers; a start older than the window is relayed to an upstream watch (which
 *   answers `Expired` when compacted), one before a compaction made through the cache is
 *   `Expired` (`too old resource version`).
 * - When the upstream watch breaks (upstream lost), the cache ends its watchers with the error
 *   (the watch stream's ERROR event), sends new watches upstream, and once upstream answers
 *   again re-watches from its revision (nothing lost or repeated in the cache) and serves
 *   watches from memory again; when that revision was compacted, it relists and ends its
 *   watchers with `Expired`, as it cannot bridge the gap.
 * - `revision()` is the cache's revision once it has seen every write made through it; until
 *   then it asks upstream.
 *
 * Entries and events are the upstream's own objects, shared with every reader and never copied
 * (upstream stores hand out frozen values).
 *
 * @example
 * ```ts
 * const cache = new WatchCache(new EtcdStore({ endpoints }));
 * await cache.start();
 * const page = await cache.listCached("/registry/core/configmaps/", { limit: 500 }, 0);
 * ```
 */
export class WatchCache implements Store, CachedReads {
  /** The decorated store. */
  readonly upstream: Store;
  readonly #caches: PrefixCache[];
  readonly #clock: Clock;
  readonly #retryMs: number;
  readonly #freshnessWaitMs: number;
  /** Until this time (clock ms) consistent reads go upstream: a wait for freshness failed. */
  #upstreamUntil = 0;
  #ready = false;
  #stopped = false;
  #starting: Promise<void> | undefined;
  #stop = new AbortController();
  /** The newest revision of a write made through the cache (Infinity: a delete, revision unknown). */
  #floor = 0;
  #deletes = 0;
  #compacted = 0;

  /**
   * @throws RangeError when prefixes overlap or are empty, or `windowEvents` is not a positive integer.
   */
  constructor(upstream: Store, options: WatchCacheOptions = {}) {
    this.upstream = upstream;
    this.#clock = options.clock ?? systemClock;
    this.#retryMs = options.retryMs ?? 100;
    this.#freshnessWaitMs = options.freshnessWaitMs ?? DEFAULT_FRESHNESS_WAIT_MS;
    const window = options.windowEvents ?? DEFAULT_WINDOW;
    if (!Number.isSafeInteger(window) || window < 1) throw new RangeError(`windowEvents must be a positive integer, got ${window}`);
    const prefixes = options.prefixes ?? ["/registry/"];
    if (prefixes.length === 0) throw new RangeError("WatchCache needs at least one prefix");
    for (const a of prefixes) {
      for (const b of prefixes) if (a !== b && b.startsWith(a)) throw new RangeError(`prefixes overlap: ${a} and ${b}`);
    }
    this.#caches = [...new Set(prefixes)].map((p) => new PrefixCache(p, window));
  }

  /** True between a successful {@link WatchCache.start} and {@link WatchCache.stop}. */
  get ready(): boolean {
    return this.#ready;
  }

  /**
   * Lists every prefix from upstream and opens its upstream watch; resolves when all are loaded.
   * Calling it again returns the same promise, unless that one failed: then it starts over (so a
   * server can start once an unreachable upstream comes).
   * @throws what the upstream list throws (the cache then stays not ready).
   */
  start(): Promise<void> {
    this.#starting ??= this.#start().catch((error: unknown) => {
      this.#starting = undefined;
      throw error;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    await Promise.all(this.#caches.map((pc) => this.#load(pc)));
    if (this.#stopped) return;
    this.#ready = true;
    for (const pc of this.#caches) void this.#run(pc);
  }

  /** Ends the upstream watches and every watcher (cleanly); later calls all go upstream. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#ready = false;
    this.#stop.abort();
    for (const pc of this.#caches) {
      pc.endWatchers(undefined);
      pc.releaseWaiters();
    }
  }

  /** The cache's revision for the prefix holding `key`, or undefined when it is not cached. */
  revisionOf(key: string): number | undefined {
    const pc = this.#cacheFor(key);
    return pc === undefined ? undefined : pc.rev;
  }

  /** How many watchers the cache serves from memory; for diagnostics and tests. */
  get watcherCount(): number {
    let n = 0;
    for (const pc of this.#caches) n += pc.watchers.size;
    return n;
  }

  // ---- Store ----------------------------------------------------------------------------------

  /** A consistent read without a revision, from memory once fresh; from memory at a revision the cache holds. */
  get(key: string, opts?: GetOptions): Promise<Entry | undefined> {
    const revision = opts?.revision;
    if (revision === undefined || revision === 0) {
      const pc = this.#freshCandidate(key);
      return pc === undefined ? this.upstream.get(key, opts) : this.#freshGet(pc, key);
    }
    const pc = this.#cacheFor(key);
    if (pc !== undefined && Number.isSafeInteger(revision) && revision >= this.#compacted && revision >= pc.floor && revision <= pc.rev) {
      return Promise.resolve(pc.getAt(key, revision));
    }
    return this.upstream.get(key, opts);
  }

  /** A consistent read without a revision, from memory once fresh; from memory at exactly the cache's revision. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const revision = opts?.revision;
    if (revision === undefined || revision === 0) {
      const pc = this.#freshCandidate(prefix);
      if (pc !== undefined) return this.#freshList(pc, prefix, opts);
    } else {
      const pc = this.#cacheFor(prefix);
      if (pc !== undefined && revision === pc.rev && revision >= this.#compacted) {
        try {
          return Promise.resolve(pc.list(prefix, opts?.after, checkLimit(opts?.limit)));
        } catch (error) {
          return Promise.reject(error);
        }
      }
    }
    return this.upstream.list(prefix, opts);
  }

  /** Entries under `prefix` at a revision `>= minRevision`: from memory when the cache has reached it, else upstream's newest. */
  listCached(prefix: string, opts: Omit<ListOptions, "revision">, minRevision: number): Promise<ListResult> {
    const pc = this.#cacheFor(prefix);
    if (pc !== undefined && pc.rev >= minRevision) {
      try {
        return Promise.resolve(pc.list(prefix, opts.after, checkLimit(opts.limit)));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.upstream.list(prefix, opts);
  }

  /** The entry at `key` at a revision `>= minRevision`: from memory when the cache has reached it, else upstream's newest. */
  getCached(key: string, minRevision: number): Promise<Entry | undefined> {
    const pc = this.#cacheFor(key);
    if (pc !== undefined && pc.rev >= minRevision) return Promise.resolve(pc.map.get(key));
    return this.upstream.get(key);
  }

  /** Upstream's create; the cache learns of it from its watch. */
  async create(key: string, value: object): Promise<Entry> {
    const entry = await this.upstream.create(key, value);
    this.#wrote(entry.modRevision);
    return entry;
  }

  /** Upstream's update; the cache learns of it from its watch. */
  async update(key: string, value: object, expectModRevision: number): Promise<Entry> {
    const entry = await this.upstream.update(key, value, expectModRevision);
    this.#wrote(entry.modRevision);
    return entry;
  }

  /** Upstream's delete; the cache learns of it from its watch. */
  async delete(key: string, expectModRevision?: number): Promise<Entry> {
    this.#deletes++;
    try {
      return await this.upstream.delete(key, expectModRevision);
    } finally {
      // The deletion's revision is not returned: until upstream is asked, it is unknown.
      this.#deletes++;
      this.#floor = Infinity;
    }
  }

  /**
   * Every change under `prefix` after `fromRevision`, from memory when the prefix is cached and
   * the window reaches back to `fromRevision`, else from an upstream watch.
   */
  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<StoreEvent> {
    return { [Symbol.asyncIterator]: () => this.#openWatch(prefix, fromRevision, signal) };
  }

  /** The cache's revision once it has seen every write made through it, else upstream's. */
  async revision(): Promise<number> {
    let cached = 0;
    if (this.#ready) {
      for (const pc of this.#caches) if (pc.rev > cached) cached = pc.rev;
      if (this.#floor <= cached) return cached;
    }
    const deletes = this.#deletes;
    const upstream = await this.upstream.revision();
    if (this.#floor === Infinity && deletes === this.#deletes && deletes % 2 === 0) this.#floor = upstream;
    return Math.max(upstream, cached);
  }

  /** Upstream's compaction; reads and watches from memory before `revision` then throw Expired. */
  async compact(revision: number): Promise<void> {
    await this.upstream.compact(revision);
    if (revision > this.#compacted) this.#compacted = revision;
  }

  // ---- internals ------------------------------------------------------------------------------

  /** The cache of `key` when a consistent read of it may be served from memory. */
  #freshCandidate(key: string): PrefixCache | undefined {
    if (this.#freshnessWaitMs <= 0) return undefined;
    const pc = this.#cacheFor(key);
    if (pc === undefined || !pc.live || (this.#upstreamUntil !== 0 && this.#clock.now() < this.#upstreamUntil)) return undefined;
    return pc;
  }

  /**
   * True once `pc` holds every change up to upstream's newest revision as of now. A wait in vain
   * sends the consistent reads of the next few seconds upstream.
   */
  async #fresh(pc: PrefixCache): Promise<boolean> {
    const target = await this.upstream.revision();
    if (pc.rev >= target) return true;
    const reached = await pc.waitFor(target, this.#freshnessWaitMs, this.#clock);
    if (!reached && !this.#stopped) this.#upstreamUntil = this.#clock.now() + UPSTREAM_AFTER_STALL_MS;
    return reached;
  }

  /**
   * True when `pc` already holds upstream's newest revision as upstream knows it without a round
   * trip (`Store.newestRevision`, a store of this process): a consistent read is then answered
   * from memory at once, with no promise to wait for.
   */
  #freshNow(pc: PrefixCache): boolean {
    const newest = this.upstream.newestRevision?.();
    return newest !== undefined && pc.rev >= newest;
  }

  #freshGet(pc: PrefixCache, key: string): Promise<Entry | undefined> {
    return this.#freshNow(pc) ? Promise.resolve(pc.map.get(key)) : this.#freshGetLater(pc, key);
  }

  async #freshGetLater(pc: PrefixCache, key: string): Promise<Entry | undefined> {
    return (await this.#fresh(pc)) ? pc.map.get(key) : this.upstream.get(key);
  }

  #freshList(pc: PrefixCache, prefix: string, opts: ListOptions | undefined): Promise<ListResult> {
    if (!this.#freshNow(pc)) return this.#freshListLater(pc, prefix, opts);
    try {
      return Promise.resolve(pc.list(prefix, opts?.after, checkLimit(opts?.limit)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async #freshListLater(pc: PrefixCache, prefix: string, opts: ListOptions | undefined): Promise<ListResult> {
    const limit = checkLimit(opts?.limit);
    return (await this.#fresh(pc)) ? pc.list(prefix, opts?.after, limit) : this.upstream.list(prefix, opts);
  }

  #wrote(revision: number): void {
    if (revision > this.#floor) this.#floor = revision;
  }

  #cacheFor(key: string): PrefixCache | undefined {
    if (!this.#ready) return undefined;
    for (const pc of this.#caches) if (key.startsWith(pc.prefix)) return pc.loaded ? pc : undefined;
    return undefined;
  }

  #openWatch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterator<StoreEvent> {
    const pc = this.#cacheFor(prefix);
    if (pc === undefined || signal.aborted) return this.upstream.watch(prefix, fromRevision, signal)[Symbol.asyncIterator]();
    const w = new CacheWatcher(prefix, fromRevision);
    try {
      checkRevision(fromRevision, "watch revision");
    } catch (error) {
      w.fail(error);
      return w;
    }
    if (fromRevision < this.#compacted) {
      w.fail(tooOldResourceVersion(fromRevision, this.#compacted));
      return w;
    }
    if (fromRevision < pc.floor || !pc.live) return this.upstream.watch(prefix, fromRevision, signal)[Symbol.asyncIterator]();
    // Replay and registration in one synchronous step, so no event falls between them.
    const window = pc.window;
    for (let i = pc.firstAfter(fromRevision); i < window.length; i++) {
      const event = window[i] as StoreEvent;
      if (event.entry.key.startsWith(prefix)) w.push(event);
    }
    pc.watchers.add(w);
    w.attach(signal, () => pc.watchers.delete(w));
    return w;
  }

  async #load(pc: PrefixCache): Promise<void> {
    const first = await this.upstream.list(pc.prefix, { limit: INITIAL_PAGE });
    let entries = first.entries;
    let page = first;
    while (page.more) {
      const last = page.entries[page.entries.length - 1] as Entry;
      page = await this.upstream.list(pc.prefix, { revision: first.revision, after: last.key, limit: INITIAL_PAGE });
      entries = entries.concat(page.entries);
    }
    if (entries === first.entries) entries = entries.slice();
    pc.load(entries, first.revision);
  }

  /** Keeps the upstream watch of `pc` going: re-watch from the cache's revision, relist when compacted. */
  async #run(pc: PrefixCache): Promise<void> {
    const signal = this.#stop.signal;
    let delay = 0;
    while (!signal.aborted) {
      try {
        // After a break, re-watch only once upstream answers again (then new watches are served
        // from memory again; a watch that breaks at once below ends them as before).
        if (!pc.live) await this.upstream.revision();
        pc.live = true;
        for await (const event of this.upstream.watch(pc.prefix, pc.rev, signal)) {
          pc.apply(event);
          delay = 0;
        }
      } catch (error) {
        if (signal.aborted) return;
        pc.live = false;
        pc.releaseWaiters();
        if (reasonOf(error) === "Expired") {
          try {
            const before = pc.rev;
            await this.#load(pc);
            pc.endWatchers(tooOldResourceVersion(before, pc.rev));
            delay = 0;
            continue;
          } catch (relistError) {
            pc.endWatchers(relistError);
          }
        } else {
          // Upstream lost (etcd down): the watchers would wait for events nobody can promise, so
          // they end with the error (an ERROR event of its Status), as the reference's cacher
          // ends its watchers when its reflector breaks; they resume from their last revision.
          pc.endWatchers(error);
        }
      }
      if (signal.aborted) return;
      await this.#sleep(delay, signal);
      delay = delay === 0 ? this.#retryMs : Math.min(delay * 2, MAX_RETRY_MS);
    }
  }

  #sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const onAbort = (): void => {
        cancel();
        resolve();
      };
      const cancel = this.#clock.setTimer(ms, () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
