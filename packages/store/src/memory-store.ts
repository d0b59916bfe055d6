/**
 * `MemoryStore`: the in-memory {@link Store}, with etcd's revision model (one global counter,
 * MVCC reads at past revisions, watches that replay history, compaction).
 *
 * Layout: a `Map` from key to `KeyRecord` (current entry plus retained older versions) answers
 * `get` with one lookup; a B+tree with live counts (`KeyIndex`) orders the same records for
 * `list` (O(log n) seek and `remaining`, pages sliced from the leaves' entry arrays); an
 * `EventLog` holds one event per retained revision for watch replay and drives compaction, which
 * visits only the keys written in the compacted span.
 * @module
 */
import { alreadyExists, badRequest, conflict, notFound, resourceVersionTooLarge, tooOldResourceVersion } from "@orch/meta";
import { systemClock, type Clock } from "./clock.js";
import { deepFreeze } from "./deep-freeze.js";
import { EventLog } from "./internal/event-log.js";
import { KeyIndex, lowerBound, type Cursor, type Leaf } from "./internal/key-index.js";
import { KeyRecord } from "./internal/key-record.js";
import { keyResource } from "./key-resource.js";
import { Watcher, WatchHub } from "./internal/watcher.js";
import type { Entry, GetOptions, ListOptions, ListResult, Store, StoreEvent } from "./store.js";

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** Time source for the history window; default the system clock. Tests pass a `FakeClock`. */
  clock?: Clock;
  /**
   * How long past versions and events stay readable and watchable, in milliseconds of clock
   * time (default 5 minutes, the reference system's watch history window). History becomes
   * eligible once older than this and is compacted by a sweep that runs every tenth of the
   * window, so it is gone at most 1.1 windows after it was written. `Infinity` keeps history
   * until an explicit {@link MemoryStore.compact}.
   */
  historyWindowMs?: number;
}

const DEFAULT_WINDOW_MS = 5 * 60_000;

/** The system clock, with sweep timers that do not keep a Node process alive. */
const unrefSystemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const timer: unknown = setTimeout(fn, ms);
    (timer as { unref?: () => void }).unref?.();
    return () => clearTimeout(timer as Parameters<typeof clearTimeout>[0]);
  },
};

function makeEntry(key: string, value: object, createRevision: number, modRevision: number): Entry {
  return Object.freeze({ key, value, createRevision, modRevision });
}

/** The smallest string greater than every string that starts with `prefix`; undefined when unbounded. */
function prefixEndOf(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const c = prefix.charCodeAt(i);
    if (c < 0xffff) return prefix.slice(0, i) + String.fromCharCode(c + 1);
  }
  return undefined;
}

/**
 * Joins the chunks of a page into one array (each chunk is a fresh slice or copy, never a
 * leaf's own array); `Array.prototype.concat` copies each chunk once, in bounded batches so no call
 * gets too many arguments.
 */
function join(chunks: Entry[][]): Entry[] {
  if (chunks.length === 0) return [];
  if (chunks.length === 1) return chunks[0] as Entry[];
  if (chunks.length <= 4096) return ([] as Entry[]).concat(...chunks);
  let out: Entry[] = [];
  for (let i = 0; i < chunks.length; i += 4096) out = out.concat(...chunks.slice(i, i + 4096));
  return out;
}

function checkValue(value: unknown): void {
  if (typeof value !== "object" || value === null) throw badRequest("store values must be objects");
}

function checkRevisionArg(revision: number, what: string): void {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw badRequest(`invalid ${what} ${String(revision)}: must be a non-negative integer`);
  }
}

/**
 * An in-memory {@link Store} with the semantics of etcd: one global revision (the first write
 * is revision 1), reads at any retained past revision, watches that replay retained history and
 * then go live, compare-and-swap writes, and compaction both explicit and automatic (history
 * older than `historyWindowMs` of clock time).
 *
 * What a caller must know:
 * - Values are deep-frozen in place on write (a subtree already frozen is skipped) and never
 *   copied: `get` returns the same frozen {@link Entry} every time while a key is unchanged.
 *   Do not pass an object you still mean to mutate.
 * - `revision: 0` (or absent) in {@link GetOptions} and {@link ListOptions} means the newest
 *   revision, as in etcd.
 * - Each watcher has an unbounded queue: writers never wait for consumers, and an event sits
 *   in memory until every watcher that matched it has read it (or stopped). Abort the signal
 *   of watches you no longer read.
 * - The automatic compaction sweep runs on `clock` timers; {@link MemoryStore.close} stops it.
 *   With the default clock the sweep timer does not keep a Node process alive.
 *
 * @example
 * ```ts
 * const store = new MemoryStore();
 * const a = await store.create("/registry/core/configmaps/default/a", { data: { x: "1" } });
 * await store.update(a.key, { data: { x: "2" } }, a.modRevision);
 * (await store.get(a.key, { revision: a.modRevision }))?.value; // { data: { x: "1" } }
 * ```
 */
export class MemoryStore implements Store {
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #records = new Map<string, KeyRecord>();
  readonly #index = new KeyIndex();
  readonly #log = new EventLog();
  readonly #hub = new WatchHub();
  #rev = 0;
  #compacted = 0;
  // A one-prefix cache for `list` (a client pages through one prefix at a time): the end of
  // the prefix's key range and how many live keys sort before it, kept exact by every write
  // that turns a key live or dead, so a page at the newest revision needs one tree descent.
  #rangePrefix: string | undefined = undefined;
  #rangeEnd: string | undefined = undefined;
  #liveBeforeEnd = 0;
  #cancelSweep: (() => void) | undefined = undefined;
  #closed = false;

  /**
   * @throws RangeError when `historyWindowMs` is not a positive number.
   */
  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = options.clock === undefined || options.clock === systemClock ? unrefSystemClock : options.clock;
    const windowMs = options.historyWindowMs ?? DEFAULT_WINDOW_MS;
    if (!(windowMs > 0)) throw new RangeError(`historyWindowMs must be positive, got ${windowMs}`);
    this.#windowMs = windowMs;
  }

  /**
   * The entry at `key`, or undefined when absent, as of `opts.revision` when given.
   * @throws StatusError 410 Expired for a compacted revision, 504 Timeout (`Too large resource
   *   version`) for a revision beyond the newest, 400 BadRequest for a negative or fractional one.
   */
  get(key: string, opts?: GetOptions): Promise<Entry | undefined> {
    if (opts === undefined || opts.revision === undefined || opts.revision === 0) {
      const rec = this.#records.get(key);
      return Promise.resolve(rec === undefined ? undefined : rec.cur);
    }
    try {
      const revision = this.#readRevision(opts.revision);
      const rec = this.#records.get(key);
      return Promise.resolve(rec === undefined ? undefined : rec.at(revision));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Entries under `prefix` in key order, as of one revision, paged by `after` and `limit`.
   * `remaining` is exact; at the newest revision it costs O(log n) whatever the collection size.
   * @throws StatusError 410 Expired for a compacted revision, 504 Timeout for a revision beyond
   *   the newest, 400 BadRequest for a negative or fractional revision or limit.
   */
  list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    try {
      return Promise.resolve(this.#list(prefix, opts));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Creates `key` with `value` (deep-frozen in place) at the next revision.
   * @throws StatusError 409 AlreadyExists when the key is present; 400 BadRequest when `value`
   *   is not an object.
   */
  create(key: string, value: object): Promise<Entry> {
    try {
      let rec = this.#records.get(key);
      if (rec !== undefined && rec.cur !== undefined) {
        const { resource, name } = keyResource(key);
        throw alreadyExists(resource, name);
      }
      checkValue(value);
      deepFreeze(value);
      const revision = ++this.#rev;
      const entry = makeEntry(key, value, revision, revision);
      if (rec === undefined) {
        rec = new KeyRecord(key, entry, revision);
        this.#records.set(key, rec);
        this.#index.insert(rec, revision);
      } else {
        rec.write(entry);
        this.#index.set(rec, 1, revision);
      }
      this.#countLive(key, 1);
      this.#emit(Object.freeze({ type: "create", entry }), revision);
      return Promise.resolve(entry);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Replaces the value of `key` (deep-frozen in place) if its modRevision is
   * `expectModRevision`; `createRevision` is kept.
   * @throws StatusError 404 NotFound when the key is absent, 409 Conflict when its modRevision
   *   differs, 400 BadRequest when `value` is not an object.
   */
  update(key: string, value: object, expectModRevision: number): Promise<Entry> {
    try {
      const rec = this.#records.get(key);
      const prev = rec?.cur;
      if (rec === undefined || prev === undefined) {
        const { resource, name } = keyResource(key);
        throw notFound(resource, name);
      }
      if (prev.modRevision !== expectModRevision) {
        const { resource, name } = keyResource(key);
        throw conflict(resource, name);
      }
      checkValue(value);
      deepFreeze(value);
      const revision = ++this.#rev;
      const entry = makeEntry(key, value, prev.createRevision, revision);
      rec.write(entry);
      this.#index.set(rec, 0, revision);
      this.#emit(Object.freeze({ type: "update", entry, prev }), revision);
      return Promise.resolve(entry);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Deletes `key` (only if its modRevision is `expectModRevision`, when given) at the next
   * revision and returns the entry as it last was (its `modRevision` is the last write's, not
   * the deletion's; the deletion's revision is the store's newest and is on the watch event).
   * @throws StatusError 404 NotFound when the key is absent, 409 Conflict when its modRevision
   *   differs from `expectModRevision`.
   */
  delete(key: string, expectModRevision?: number): Promise<Entry> {
    try {
      const rec = this.#records.get(key);
      const prev = rec?.cur;
      if (rec === undefined || prev === undefined) {
        const { resource, name } = keyResource(key);
        throw notFound(resource, name);
      }
      if (expectModRevision !== undefined && prev.modRevision !== expectModRevision) {
        const { resource, name } = keyResource(key);
        throw conflict(resource, name);
      }
      const revision = ++this.#rev;
      rec.remove(revision);
      this.#index.set(rec, -1, revision);
      this.#countLive(key, -1);
      const last = makeEntry(key, prev.value, prev.createRevision, revision);
      this.#emit(Object.freeze({ type: "delete", entry: last, prev }), revision);
      return Promise.resolve(prev);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Every change under `prefix` after `fromRevision`, in revision order without gaps or
   * duplicates: the retained history first, then live changes, until `signal` aborts (the
   * iteration then ends normally, a pending `next()` included) or the store is closed.
   *
   * The watch starts when iteration starts (each `for await` over the returned iterable is its
   * own watch). A `fromRevision` beyond the newest revision is allowed: events arrive once the
   * store gets there. Events are shared, frozen objects.
   * @throws StatusError 410 Expired (from the first `next()`) when `fromRevision` is older than
   *   the compacted revision; 400 BadRequest for a negative or fractional `fromRevision`.
   */
  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<StoreEvent> {
    return { [Symbol.asyncIterator]: () => this.#openWatch(prefix, fromRevision, signal) };
  }

  /** The newest revision (0 before the first write). */
  revision(): Promise<number> {
    return Promise.resolve(this.#rev);
  }

  /**
   * Forgets history older than `revision`: reads at a lower revision and watches from a lower
   * revision then throw Expired; the state at `revision` and everything after it stay. A
   * revision at or below the current compacted revision is a no-op.
   * @throws StatusError 504 Timeout when `revision` is beyond the newest revision, 400
   *   BadRequest when it is negative or fractional.
   */
  compact(revision: number): Promise<void> {
    try {
      checkRevisionArg(revision, "compaction revision");
      if (revision > this.#rev) throw resourceVersionTooLarge(revision, this.#rev);
      this.#compactTo(revision);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The revision history has been compacted to (0 when never compacted). */
  get compactedRevision(): number {
    return this.#compacted;
  }

  /** How many watches are open; for diagnostics and leak checks in tests. */
  get watcherCount(): number {
    return this.#hub.count;
  }

  /**
   * Stops the compaction timer and ends every open watch. The store still serves reads and
   * writes afterwards, but no longer compacts by itself and ends new watches at once.
   */
  close(): void {
    this.#closed = true;
    this.#cancelSweep?.();
    this.#cancelSweep = undefined;
    this.#hub.closeAll();
  }

  // ---- internals ------------------------------------------------------------------------------

  /** Validates a read revision (non-zero) and returns it. */
  #readRevision(revision: number): number {
    checkRevisionArg(revision, "revision");
    if (revision > this.#rev) throw resourceVersionTooLarge(revision, this.#rev);
    if (revision < this.#compacted) throw tooOldResourceVersion(revision, this.#compacted);
    return revision;
  }

  #list(prefix: string, opts: ListOptions): ListResult {
    const limit = opts.limit ?? 0;
    if (!Number.isSafeInteger(limit) || limit < 0) throw badRequest(`invalid limit ${String(limit)}: must be a non-negative integer`);
    const revision = opts.revision === undefined || opts.revision === 0 ? this.#rev : this.#readRevision(opts.revision);
    const after = opts.after;
    const cursor = after !== undefined && after >= prefix ? this.#index.seek(after, true) : this.#index.seek(prefix, false);
    if (revision === this.#rev) return this.#listNewest(prefix, cursor, limit);
    return this.#listAt(prefix, cursor, limit, revision);
  }

  /** A page at the newest revision: counts say how many live entries to take, so no key compares. */
  #listNewest(prefix: string, cursor: Cursor, limit: number): ListResult {
    const index = this.#index;
    let inRange: number;
    if (prefix === "") {
      inRange = index.live - cursor.rank;
    } else {
      if (prefix !== this.#rangePrefix) {
        this.#rangePrefix = prefix;
        this.#rangeEnd = prefixEndOf(prefix);
        this.#liveBeforeEnd = this.#rangeEnd === undefined ? 0 : index.liveBelow(this.#rangeEnd, false);
      }
      inRange = (this.#rangeEnd === undefined ? index.live : this.#liveBeforeEnd) - cursor.rank;
    }
    if (inRange < 0) inRange = 0;
    const want = limit > 0 && limit < inRange ? limit : inRange;

    // The first leaf's part is one slice; later leaves append to it in place, so every entry of
    // the page is copied exactly once (a concat of slices would copy twice).
    let out: Entry[] | undefined;
    let count = 0;
    let leaf: Leaf | undefined = cursor.leaf;
    let i = cursor.pos;
    while (count < want && leaf !== undefined) {
      const ents = leaf.ents;
      if (out === undefined && leaf.live === ents.length) {
        const stop = ents.length - i > want ? i + want : ents.length;
        out = ents.slice(i, stop) as Entry[];
        count = stop - i;
      } else {
        out ??= [];
        for (; i < ents.length && count < want; i++) {
          const e = ents[i];
          if (e !== undefined) {
            out.push(e);
            count++;
          }
        }
      }
      leaf = leaf.next;
      i = 0;
    }
    const remaining = inRange - want;
    return { entries: out ?? [], revision: this.#rev, more: remaining > 0, remaining };
  }

  /** A page at a past revision. */
  #listAt(prefix: string, cursor: Cursor, limit: number, revision: number): ListResult {
    const end = prefixEndOf(prefix);
    const chunks: Entry[][] = [];
    let count = 0;
    let leaf: Leaf | undefined = cursor.leaf;
    let i = cursor.pos;
    while (leaf !== undefined) {
      const keys = leaf.keys;
      let stop = keys.length;
      let atEnd = false;
      if (end !== undefined && stop > 0 && (keys[stop - 1] as string) >= end) {
        stop = lowerBound(keys, end, i);
        atEnd = true;
      }
      if (limit > 0 && stop - i > limit - count) {
        stop = i + (limit - count);
        atEnd = false;
      }
      const chunk: Entry[] = [];
      if (leaf.maxRev <= revision) {
        // No key of this leaf changed after `revision`: its current entries are the answer.
        const ents = leaf.ents;
        for (; i < stop; i++) {
          const e = ents[i];
          if (e !== undefined) chunk.push(e);
        }
      } else {
        const recs = leaf.recs;
        for (; i < stop; i++) {
          const e = (recs[i] as KeyRecord).at(revision);
          if (e !== undefined) chunk.push(e);
        }
      }
      if (chunk.length > 0) {
        chunks.push(chunk);
        count += chunk.length;
      }
      if ((limit > 0 && count === limit) || atEnd) break;
      // The limit cut this leaf short but dead keys left room in the page: go on in this leaf.
      if (i < keys.length) continue;
      leaf = leaf.next;
      i = 0;
    }
    const entries = join(chunks);
    const remaining = limit > 0 && count === limit ? this.#remainingAt(revision, (entries[count - 1] as Entry).key, end) : 0;
    return { entries, revision, more: remaining > 0, remaining };
  }

  /** Keeps the `list` range cache exact when `key` turns live (+1) or dead (-1). */
  #countLive(key: string, delta: number): void {
    const end = this.#rangeEnd;
    if (end !== undefined && key < end) this.#liveBeforeEnd += delta;
  }

  /** Live keys at past `revision` in `(after, end)`. */
  #remainingAt(revision: number, after: string, end: string | undefined): number {
    const liveNow = this.#index.liveBetween(after, end);
    const log = this.#log;
    const changes = this.#rev - revision;
    if (changes <= liveNow) {
      // Fewer writes since `revision` than keys in range: start from today's count and undo
      // the effect of each key written since.
      let count = liveNow;
      const seen = new Set<string>();
      for (let r = revision + 1; r <= this.#rev; r++) {
        const key = log.at(r).entry.key;
        if (key <= after || (end !== undefined && key >= end) || seen.has(key)) continue;
        seen.add(key);
        const rec = this.#records.get(key);
        if (rec === undefined) continue;
        count += (rec.at(revision) === undefined ? 0 : 1) - (rec.cur === undefined ? 0 : 1);
      }
      return count;
    }
    let count = 0;
    const cursor = this.#index.seek(after, true);
    let i = cursor.pos;
    for (let leaf: Leaf | undefined = cursor.leaf; leaf !== undefined; leaf = leaf.next, i = 0) {
      const keys = leaf.keys;
      const recs = leaf.recs;
      for (; i < keys.length; i++) {
        if (end !== undefined && (keys[i] as string) >= end) return count;
        if ((recs[i] as KeyRecord).at(revision) !== undefined) count++;
      }
    }
    return count;
  }

  #emit(event: StoreEvent, revision: number): void {
    this.#log.append(event, this.#clock.now());
    this.#hub.publish(event, revision);
    if (this.#cancelSweep === undefined && !this.#closed) this.#armSweep();
  }

  #armSweep(): void {
    if (!Number.isFinite(this.#windowMs)) return;
    this.#cancelSweep = this.#clock.setTimer(this.#windowMs / 10, () => {
      this.#cancelSweep = undefined;
      if (this.#closed) return;
      this.#sweep();
      if (this.#log.length > 0) this.#armSweep();
    });
  }

  /** Compacts to the newest revision written at least one window ago. */
  #sweep(): void {
    const target = this.#log.revisionAtOrBefore(this.#clock.now() - this.#windowMs);
    if (target > this.#compacted) this.#compactTo(target);
  }

  #compactTo(revision: number): void {
    if (revision <= this.#compacted) return;
    const log = this.#log;
    const records = this.#records;
    // Only keys written in (compacted, revision] can hold history that is now unreachable.
    for (let r = log.first; r <= revision; r++) {
      const key = log.at(r).entry.key;
      const rec = records.get(key);
      if (rec !== undefined && rec.trim(revision)) {
        records.delete(key);
        this.#index.remove(rec);
      }
    }
    log.dropThrough(revision);
    this.#compacted = revision;
  }

  #openWatch(prefix: string, fromRevision: number, signal: AbortSignal): Watcher {
    const w = new Watcher(prefix, fromRevision);
    if (signal.aborted || this.#closed) {
      w.close();
      return w;
    }
    try {
      checkRevisionArg(fromRevision, "watch revision");
    } catch (error) {
      w.fail(error);
      return w;
    }
    if (fromRevision < this.#compacted) {
      w.fail(tooOldResourceVersion(fromRevision, this.#compacted));
      return w;
    }
    // Replay and registration happen in one synchronous step, so no write falls between them.
    const log = this.#log;
    for (let r = fromRevision + 1; r <= this.#rev; r++) {
      const event = log.at(r);
      if (event.entry.key.startsWith(prefix)) w.push(event);
    }
    this.#hub.add(w, this.#rev);
    w.attach(this.#hub, signal);
    return w;
  }
}
