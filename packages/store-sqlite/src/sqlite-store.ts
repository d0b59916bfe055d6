/**
 * `SqliteStore`: the {@link Store} port over one SQLite file, with the layout of a revision log.
 *
 * One table, `log`, holds a row per revision (`id` is the revision): the key, whether the row
 * created or deleted it, the key's create revision, the revision of the key's previous row, and
 * the value as JSON (a deletion row holds the last value). The newest row of a key at or below
 * a revision is the key's state at that revision; a watch reads the rows after its start
 * revision, then takes the committed events of this process as they are written. Compaction
 * deletes rows that a later row at or below the compaction revision supersedes.
 * @module
 */
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import Database from "libsql";
import {
  StatusError,
  alreadyExists,
  badRequest,
  conflict,
  internalError,
  notFound,
  resourceVersionTooLarge,
  serviceUnavailable,
  tooOldResourceVersion,
} from "@orch/meta";
import { deepFreeze, keyResource, systemClock, Watcher, WatchHub, type Clock } from "@orch/store";
import type { Entry, GetOptions, ListOptions, ListResult, Store, StoreEvent } from "@orch/store";

/** The schema version this build writes and reads (`PRAGMA user_version`). */
export const SQLITE_SCHEMA_VERSION = 1;

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file; created (with its directory's existing parent) when missing. */
  path: string;
  /** Time source for the history window; default the system clock. Tests pass a `FakeClock`. */
  clock?: Clock;
  /**
   * How long past revisions stay readable and watchable, in milliseconds of clock time (default
   * 5 minutes, as `MemoryStore`). A sweep every tenth of the window compacts to the newest
   * revision that was already written a window ago. `Infinity` keeps history until an explicit
   * {@link SqliteStore.compact}.
   */
  historyWindowMs?: number;
}

const DEFAULT_WINDOW_MS = 5 * 60_000;

/** The system clock, with sweep timers that do not keep a Node process alive. */
const unrefSystemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Any TEXT sorts below any BLOB in SQLite: the upper bound of an unbounded key range. */
const ABOVE_ALL_TEXT = Buffer.from([0xff]);

const SCHEMA = `
CREATE TABLE log (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE INDEX log_name_id ON log (name, id);
CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO meta (name, value) VALUES ('compact_revision', 0);
`;

interface Row {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
}

interface EventRow extends Row {
  p_create: number | null;
  p_value: string | null;
}

type Op =
  | { kind: "create"; key: string; value: object; json: string }
  | { kind: "update"; key: string; value: object; json: string; expect: number }
  | { kind: "delete"; key: string; expect: number | undefined };

interface Pending {
  op: Op;
  resolve: (entry: Entry) => void;
  reject: (error: unknown) => void;
}

/** The commit thread's code, beside `src/` and `dist/` alike. */
const COMMIT_WORKER = new URL("../worker/commit-worker.mjs", import.meta.url);

/** The op codes of the commit thread's `commit` message. */
const OP_CODE = { create: 0, update: 1, delete: 2 } as const;

/**
 * One answer of the commit thread (see `worker/commit-worker.mjs`): per write of a commit,
 * `[0, reason]` for a failed precondition, `[1, revision]` for a create, and
 * `[1, revision, createRevision, prevRevision, prevJson]` for an update or a delete.
 */
type WorkerAnswer =
  | { results: ([0, "exists" | "missing" | "conflict"] | [1, number] | [1, number, number, number, string])[] }
  | { compacted: number }
  | { closed: true }
  | { failure: string };

function checkRevisionArg(revision: number, what: string): void {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw badRequest(`invalid ${what} ${String(revision)}: must be a non-negative integer`);
  }
}

/** The smallest string greater than every string that starts with `prefix`; undefined when unbounded. */
function prefixEndOf(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const c = prefix.charCodeAt(i);
    if (c < 0xffff) return prefix.slice(0, i) + String.fromCharCode(c + 1);
  }
  return undefined;
}

function encode(value: unknown): string {
  if (typeof value !== "object" || value === null) throw badRequest("store values must be objects");
  return JSON.stringify(value);
}

function makeEntry(key: string, value: object, createRevision: number, modRevision: number): Entry {
  return Object.freeze({ key, value, createRevision, modRevision });
}

function decode(key: string, json: string, createRevision: number, modRevision: number): Entry {
  return makeEntry(key, deepFreeze(JSON.parse(json) as object), createRevision, modRevision);
}

/** The StatusError of a write whose precondition failed on the commit thread. */
function preconditionFailure(key: string, reason: "exists" | "missing" | "conflict"): StatusError {
  const { resource, name } = keyResource(key);
  if (reason === "exists") return alreadyExists(resource, name);
  return reason === "missing" ? notFound(resource, name) : conflict(resource, name);
}

/** The first column of the first row of `stmt` as a number (0 when there is no row). */
function scalar(stmt: Database.Statement, ...params: unknown[]): number {
  const row = stmt.raw(true).get(...params) as unknown[] | undefined;
  return Number(row?.[0] ?? 0);
}

/**
 * Takes the lock of the store at `path`: an exclusive lock on the SQLite file `<path>.lock`,
 * held by a connection that never prepares a statement. (The data connection cannot hold it:
 * libsql keeps a connection open after `close()` while any statement prepared on it is alive,
 * so its locks would outlive the store.) The OS releases the lock when the process dies.
 * @throws StatusError 503 when another process (or store) holds it.
 */
function acquireLock(path: string): Database.Database {
  const lockPath = `${path}.lock`;
  let lock: Database.Database | undefined;
  try {
    lock = new Database(lockPath);
    lock.exec("PRAGMA locking_mode = EXCLUSIVE");
    lock.exec("BEGIN EXCLUSIVE");
    lock.exec("CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY, opened TEXT NOT NULL)");
    lock.exec(`INSERT OR REPLACE INTO holder (id, opened) VALUES (1, '${new Date().toISOString()}')`);
    lock.exec("COMMIT");
    return lock;
  } catch (error) {
    lock?.close();
    if (isBusy(error)) throw serviceUnavailable(`${path} is in use by another orch server (its lock ${lockPath} is held)`);
    throw internalError(`cannot lock ${path}: ${error instanceof Error ? error.message : String(error)}`, error);
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * A durable {@link Store} in one SQLite file (WAL mode, `synchronous = FULL`), through the
 * `libsql` driver. It passes `@orch/store/testing`.
 *
 * What a caller must know:
 * - A write's promise resolves once its transaction is committed and fsynced. Commits run on a
 *   thread of their own (a `worker_threads` worker with the only writing connection), so an
 *   fsync never holds the event loop. Writes called in the same turn of the event loop, and
 *   all those that arrive while a commit is under way, share the next transaction (group
 *   commit); each is checked against the state left by the ones before it, so one failing
 *   leaves the others alone.
 * - The driver is synchronous: a read holds the event loop for its query (never for a
 *   commit: WAL readers do not wait for writers). Put a `WatchCache` in front (the API server
 *   does for every store but `MemoryStore`) so most reads come from memory.
 * - The file is locked for the life of the store (an exclusive SQLite lock on `<path>.lock`):
 *   opening it from a second process (or a second store) fails with a 503 StatusError naming
 *   the path. The OS drops the lock when the holder dies, so a crashed server's file opens again.
 * - Values are stored as JSON and deep-frozen: the written object becomes the entry's value,
 *   frozen in place; values read back are parsed from the file, frozen.
 * - Watches are served from this process: a catch-up read of the log after `fromRevision`,
 *   then every event this store commits. Writes by another process are impossible (the lock).
 * - {@link SqliteStore.close} commits queued writes, ends watches and releases the file.
 *
 * @example
 * ```ts
 * const store = new SqliteStore({ path: "/var/lib/orch/state.db" });
 * const a = await store.create("/registry/core/configmaps/default/a", { data: { x: "1" } });
 * await store.update(a.key, { data: { x: "2" } }, a.modRevision);
 * store.close();
 * ```
 */
export class SqliteStore implements Store {
  /** The database file. */
  readonly path: string;
  readonly #db: Database.Database;
  readonly #lock: Database.Database;
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #hub = new WatchHub();
  #rev: number;
  #compacted: number;
  #pending: Pending[] = [];
  #flushScheduled = false;
  #closed = false;
  #cancelSweep: (() => void) | undefined = undefined;
  /** (time, revision) samples of the sweep: the newest revision at each time. */
  #marks: { at: number; rev: number }[] = [];

  readonly #stmt: {
    at: Database.Statement;
    listGe: Database.Statement;
    listGt: Database.Statement;
    countGe: Database.Statement;
    countGt: Database.Statement;
    events: Database.Statement;
  };
  readonly #worker: Worker;
  readonly #port: MessagePort;
  /** Bumped by the commit thread after each answer: what a synchronous wait watches. */
  readonly #answered = new Int32Array(new SharedArrayBuffer(4));
  /** Bumped by this thread after each message: what the commit thread sleeps on. */
  readonly #asked = new Int32Array(new SharedArrayBuffer(4));
  /** What to do with each answer the commit thread still owes, oldest first. */
  readonly #awaiting: ((answer: WorkerAnswer) => void)[] = [];
  #committing = false;
  /** Set when the commit thread died: every write then fails with it. */
  #broken: StatusError | undefined = undefined;

  /**
   * Opens (or creates) the database at `options.path`, checks its schema version and locks it.
   * @throws StatusError 503 ServiceUnavailable when another process (or store) holds the file;
   *   500 InternalError when the file was written by a newer schema version or is not a database.
   * @throws RangeError when `historyWindowMs` is not a positive number.
   */
  constructor(options: SqliteStoreOptions) {
    const windowMs = options.historyWindowMs ?? DEFAULT_WINDOW_MS;
    if (!(windowMs > 0)) throw new RangeError(`historyWindowMs must be positive, got ${windowMs}`);
    this.#windowMs = windowMs;
    this.#clock = options.clock === undefined || options.clock === systemClock ? unrefSystemClock : options.clock;
    this.path = options.path;
    this.#lock = acquireLock(options.path);
    let db: Database.Database | undefined;
    try {
      db = new Database(options.path);
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = FULL");
      db.exec("BEGIN IMMEDIATE");
      try {
        const version = scalar(db.prepare("PRAGMA user_version"));
        if (version > SQLITE_SCHEMA_VERSION) {
          throw internalError(`${options.path} has schema version ${version}, newer than this build's ${SQLITE_SCHEMA_VERSION}: open it with a newer orch`);
        }
        if (version === 0) {
          db.exec(SCHEMA);
          db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION}`);
        }
        db.exec("COMMIT");
      } catch (error) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw error;
      }
    } catch (error) {
      db?.close();
      this.#lock.close();
      if (error instanceof StatusError) throw error;
      throw internalError(`cannot open ${options.path}: ${error instanceof Error ? error.message : String(error)}`, error);
    }
    this.#db = db;
    this.#stmt = {
      at: db.prepare("SELECT id, deleted, create_revision, value FROM log WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1"),
      listGe: db.prepare(listSql(">=")),
      listGt: db.prepare(listSql(">")),
      countGe: db.prepare(countSql(">=")),
      countGt: db.prepare(countSql(">")),
      events: db.prepare(
        "SELECT l.id, l.name, l.created, l.deleted, l.create_revision, l.prev_revision, l.value, " +
          "p.create_revision AS p_create, p.value AS p_value FROM log l LEFT JOIN log p ON p.id = l.prev_revision " +
          "WHERE l.id > ? AND l.id <= ? AND l.name >= ? AND l.name < ? ORDER BY l.id",
      ),
    };
    this.#rev = scalar(db.prepare("SELECT COALESCE(MAX(id), 0) AS n FROM log"));
    this.#compacted = scalar(db.prepare("SELECT value FROM meta WHERE name = 'compact_revision'"));
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = new Worker(COMMIT_WORKER, {
      workerData: { port: port2, path: options.path, signal: this.#answered, inbox: this.#asked, driver: createRequire(import.meta.url).resolve("libsql") },
      transferList: [port2],
    });
    // Neither keeps a process alive on its own: the port is referenced while an answer is owed.
    this.#worker.unref();
    this.#port.on("message", (answer: WorkerAnswer) => this.#onAnswer(answer));
    this.#port.unref();
    this.#worker.on("error", (error) => this.#fail(error));
    if (Number.isFinite(this.#windowMs)) {
      this.#marks.push({ at: this.#clock.now(), rev: this.#rev });
      this.#scheduleSweep();
    }
  }

  /**
   * The entry at `key`, or undefined when absent, as of `opts.revision` when given (0: newest).
   * @throws StatusError 410 Expired for a compacted revision, 504 Timeout for a revision beyond
   *   the newest, 400 BadRequest for a negative or fractional one, 503 after close.
   */
  get(key: string, opts?: GetOptions): Promise<Entry | undefined> {
    try {
      this.#checkOpen();
      const revision = opts?.revision === undefined || opts.revision === 0 ? this.#rev : this.#readRevision(opts.revision);
      const row = this.#stmt.at.get(key, revision) as Pick<Row, "id" | "deleted" | "create_revision" | "value"> | undefined;
      if (row === undefined || row.deleted === 1) return Promise.resolve(undefined);
      return Promise.resolve(decode(key, row.value, row.create_revision, row.id));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Entries under `prefix` in key order, as of one revision, paged by `after` and `limit`, with
   * an exact `remaining` (a count over the range).
   * @throws StatusError 410 Expired for a compacted revision, 504 Timeout for a revision beyond
   *   the newest, 400 BadRequest for a negative or fractional revision or limit, 503 after close.
   */
  list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    try {
      this.#checkOpen();
      const limit = opts.limit ?? 0;
      if (!Number.isSafeInteger(limit) || limit < 0) throw badRequest(`invalid limit ${String(limit)}: must be a non-negative integer`);
      const revision = opts.revision === undefined || opts.revision === 0 ? this.#rev : this.#readRevision(opts.revision);
      const end = prefixEndOf(prefix) ?? ABOVE_ALL_TEXT;
      const afterKey = opts.after !== undefined && opts.after >= prefix ? opts.after : undefined;
      const [list, count] = afterKey === undefined ? [this.#stmt.listGe, this.#stmt.countGe] : [this.#stmt.listGt, this.#stmt.countGt];
      const low = afterKey ?? prefix;
      // One row past the page says whether more follow; how many is counted only when asked
      // (a count walks the rest of the range, and most callers page on without it).
      const rows = list.all(low, end, revision, limit === 0 ? -1 : limit + 1) as Row[];
      const more = limit !== 0 && rows.length > limit;
      if (more) rows.pop();
      const entries = rows.map((r) => decode(r.name, r.value, r.create_revision, r.id));
      if (!more) return Promise.resolve({ entries, revision, more, remaining: 0 });
      let remaining: number | undefined;
      return Promise.resolve({
        entries,
        revision,
        more,
        get remaining(): number {
          remaining ??= scalar(count, low, end, revision) - entries.length;
          return remaining;
        },
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Creates `key` with `value` (deep-frozen in place) at the next revision, durably.
   * @throws StatusError 409 AlreadyExists when the key is present; 400 BadRequest when `value`
   *   is not an object; 503 after close.
   */
  create(key: string, value: object): Promise<Entry> {
    try {
      return this.#enqueue({ kind: "create", key, value, json: encode(value) });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Replaces the value of `key` (deep-frozen in place) if its modRevision is
   * `expectModRevision`, durably; `createRevision` is kept.
   * @throws StatusError 404 NotFound when the key is absent, 409 Conflict when its modRevision
   *   differs, 400 BadRequest when `value` is not an object, 503 after close.
   */
  update(key: string, value: object, expectModRevision: number): Promise<Entry> {
    try {
      return this.#enqueue({ kind: "update", key, value, json: encode(value), expect: expectModRevision });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Deletes `key` (only if its modRevision is `expectModRevision`, when given) at the next
   * revision, durably, and returns the entry as it last was.
   * @throws StatusError 404 NotFound when the key is absent, 409 Conflict when its modRevision
   *   differs from `expectModRevision`, 503 after close.
   */
  delete(key: string, expectModRevision?: number): Promise<Entry> {
    return this.#enqueue({ kind: "delete", key, expect: expectModRevision });
  }

  /**
   * Every change under `prefix` after `fromRevision`, in revision order without gaps or
   * duplicates: the rows of the log first, then the events this store commits, until `signal`
   * aborts (the iteration then ends normally) or the store is closed. The watch starts when
   * iteration starts; a `fromRevision` beyond the newest is allowed.
   * @throws StatusError 410 Expired (from the first `next()`) when `fromRevision` is older than
   *   the compacted revision; 400 BadRequest for a negative or fractional `fromRevision`.
   */
  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<StoreEvent> {
    return { [Symbol.asyncIterator]: () => this.#openWatch(prefix, fromRevision, signal) };
  }

  /** The newest committed revision (0 for a store never written). */
  revision(): Promise<number> {
    return Promise.resolve(this.#rev);
  }

  /** {@link revision} without a promise: the newest revision a write was acknowledged at. */
  newestRevision(): number {
    return this.#rev;
  }

  /**
   * Forgets history older than `revision`, durably: reads and watches at a lower revision then
   * throw Expired; the state at `revision` and everything after it stay. At or below the
   * current compaction it is a no-op.
   * @throws StatusError 504 Timeout when `revision` is beyond the newest, 400 BadRequest when it
   *   is negative or fractional, 503 after close.
   */
  compact(revision: number): Promise<void> {
    try {
      this.#checkOpen();
      checkRevisionArg(revision, "compaction revision");
      if (revision > this.#rev) throw resourceVersionTooLarge(revision, this.#rev);
      return this.#compactTo(revision);
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
   * Commits the writes still queued (waiting for the commit thread, synchronously), ends every
   * watch, stops the compaction sweep, ends the commit thread and closes the file (releasing
   * its lock). Calls after close reject with 503 ServiceUnavailable.
   * Calling it again does nothing.
   */
  close(): void {
    if (this.#closed) return;
    this.#cancelSweep?.();
    this.#cancelSweep = undefined;
    try {
      this.#drainSync();
      this.#flush();
      this.#drainSync();
      if (this.#broken === undefined) {
        this.#ask({ type: "close" }, () => undefined);
        this.#drainSync();
      }
    } finally {
      this.#closed = true;
      for (const p of this.#pending.splice(0)) p.reject(serviceUnavailable(`the store of ${this.path} is closed`));
      this.#hub.closeAll();
      this.#db.close();
      this.#lock.close();
    }
  }

  // ---- internals ------------------------------------------------------------------------------

  #checkOpen(): void {
    if (this.#closed) throw serviceUnavailable(`the store of ${this.path} is closed`);
  }

  #readRevision(revision: number): number {
    checkRevisionArg(revision, "revision");
    if (revision > this.#rev) throw resourceVersionTooLarge(revision, this.#rev);
    if (revision < this.#compacted) throw tooOldResourceVersion(revision, this.#compacted);
    return revision;
  }

  #enqueue(op: Op): Promise<Entry> {
    if (this.#closed) return Promise.reject(serviceUnavailable(`the store of ${this.path} is closed`));
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    return new Promise<Entry>((resolve, reject) => {
      this.#pending.push({ op, resolve, reject });
      if (!this.#flushScheduled && !this.#committing) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /**
   * Sends every queued write to the commit thread as one transaction. While it commits, new
   * writes queue; its answer sends them on together (group commit).
   */
  #flush(): void {
    this.#flushScheduled = false;
    const batch = this.#pending;
    if (batch.length === 0 || this.#committing || this.#broken !== undefined) return;
    this.#pending = [];
    this.#committing = true;
    const ops = batch.map(({ op }) => [OP_CODE[op.kind], op.key, op.kind === "delete" ? null : op.json, op.kind === "create" ? -1 : (op.expect ?? -1)]);
    this.#ask({ type: "commit", ops }, (answer) => {
      this.#committing = false;
      this.#settle(batch, answer);
      if (this.#pending.length > 0 && !this.#flushScheduled) this.#flush();
    });
    // While the commit thread works: the values become the entries' (frozen in place, as
    // `EtcdStore` freezes them before its call), so settling the answer has less to do.
    for (const { op } of batch) if (op.kind !== "delete") deepFreeze(op.value);
  }

  /** Resolves or rejects each write of a committed batch, then emits their events in order. */
  #settle(batch: Pending[], answer: WorkerAnswer): void {
    if (!("results" in answer)) {
      const failure = "failure" in answer ? answer.failure : "unexpected answer";
      const error = internalError(`cannot commit to ${this.path}: ${failure}`);
      for (const p of batch) p.reject(error);
      return;
    }
    const events: StoreEvent[] = [];
    batch.forEach(({ op, resolve, reject }, i) => {
      const result = answer.results[i];
      if (result === undefined) return reject(internalError(`cannot commit to ${this.path}: no answer for ${op.key}`));
      if (result[0] === 0) return reject(preconditionFailure(op.key, result[1]));
      const revision = result[1];
      this.#rev = revision;
      if (result.length === 2) {
        // The value was frozen when the batch was sent (see #flush).
        const entry = makeEntry(op.key, (op as { value: object }).value, revision, revision);
        events.push(Object.freeze({ type: "create", entry }));
        return resolve(entry);
      }
      const [, , createRevision, prevRevision, prevJson] = result;
      const prev = decode(op.key, prevJson, createRevision, prevRevision);
      if (op.kind === "update") {
        const entry = makeEntry(op.key, op.value, createRevision, revision);
        events.push(Object.freeze({ type: "update", entry, prev }));
        return resolve(entry);
      }
      events.push(Object.freeze({ type: "delete", entry: makeEntry(op.key, prev.value, createRevision, revision), prev }));
      resolve(prev);
    });
    for (const event of events) this.#hub.publish(event, event.entry.modRevision);
  }

  /** Sends `message` to the commit thread; `then` gets its answer (answers come in order). */
  #ask(message: object, then: (answer: WorkerAnswer) => void): void {
    this.#awaiting.push(then);
    this.#port.ref();
    this.#port.postMessage(message);
    Atomics.add(this.#asked, 0, 1);
    Atomics.notify(this.#asked, 0);
  }

  #onAnswer(answer: WorkerAnswer): void {
    const then = this.#awaiting.shift();
    if (this.#awaiting.length === 0) this.#port.unref();
    then?.(answer);
  }

  /**
   * Waits, blocking this thread, until the commit thread has answered everything asked so far
   * (what `close` needs to stay synchronous): each answer is taken off the port at once.
   * @throws StatusError 500 when the commit thread stays silent for 30 seconds.
   */
  #drainSync(): void {
    let deadline = Date.now() + 30_000;
    while (this.#awaiting.length > 0 && this.#broken === undefined) {
      const seen = Atomics.load(this.#answered, 0);
      const received = receiveMessageOnPort(this.#port);
      if (received !== undefined) {
        this.#onAnswer(received.message as WorkerAnswer);
        deadline = Date.now() + 30_000;
      } else if (Date.now() > deadline) {
        throw internalError(`the commit thread of ${this.path} did not answer for 30 s`);
      } else {
        Atomics.wait(this.#answered, 0, seen, 100);
      }
    }
  }

  /** The commit thread died: what it owed and what is queued fail, and so does every later write. */
  #fail(error: unknown): void {
    this.#broken = internalError(`the commit thread of ${this.path} failed: ${error instanceof Error ? error.message : String(error)}`, error);
    const failure = { failure: this.#broken.message };
    while (this.#awaiting.length > 0) this.#onAnswer(failure);
    for (const p of this.#pending.splice(0)) p.reject(this.#broken);
  }

  #openWatch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterator<StoreEvent> {
    const w = new Watcher(prefix, fromRevision);
    try {
      checkRevisionArg(fromRevision, "watch revision");
      this.#checkOpen();
      if (fromRevision < this.#compacted && !signal.aborted) throw tooOldResourceVersion(fromRevision, this.#compacted);
    } catch (error) {
      w.fail(error);
      return w;
    }
    if (signal.aborted) {
      w.close();
      return w;
    }
    // Writes not yet answered by the commit thread come through the hub later: the catch-up
    // read stops at #rev (the commit thread may be ahead of it in the file) and happens in one
    // synchronous step with the registration, so no answer falls between them.
    if (fromRevision < this.#rev) {
      const rows = this.#stmt.events.all(fromRevision, this.#rev, prefix, prefixEndOf(prefix) ?? ABOVE_ALL_TEXT) as EventRow[];
      for (const row of rows) w.push(eventOf(row));
    }
    this.#hub.add(w, this.#rev);
    w.attach(this.#hub, signal);
    return w;
  }

  /**
   * Compacts to `revision` on the commit thread. Reads below it are refused from now on, before
   * the rows go: a read never sees a half-compacted history. A failed compaction is undone.
   */
  #compactTo(revision: number): Promise<void> {
    const before = this.#compacted;
    if (revision <= before) return Promise.resolve();
    this.#compacted = revision;
    return new Promise<void>((resolve, reject) => {
      this.#ask({ type: "compact", revision }, (answer) => {
        if ("compacted" in answer) return resolve();
        if (this.#compacted === revision) this.#compacted = before;
        reject(internalError(`cannot compact ${this.path}: ${"failure" in answer ? answer.failure : "unexpected answer"}`));
      });
    });
  }

  #scheduleSweep(): void {
    this.#cancelSweep = this.#clock.setTimer(this.#windowMs / 10, () => {
      if (this.#closed) return;
      const now = this.#clock.now();
      this.#marks.push({ at: now, rev: this.#rev });
      let target = -1;
      while (this.#marks.length > 0 && (this.#marks[0] as { at: number }).at <= now - this.#windowMs) {
        target = (this.#marks.shift() as { rev: number }).rev;
      }
      if (target > this.#compacted && this.#broken === undefined) {
        // A failed sweep leaves history in place; the next sweep tries again.
        this.#compactTo(target).catch(() => undefined);
      }
      this.#scheduleSweep();
    });
  }
}

/**
 * The newest row of each key in `(?1, ?2)` at revision `?3`, live ones only, in key order, at
 * most `?4`: a walk of the `(name, id)` index in key order that stops at the limit, each key's
 * newest row found by one index seek (a page costs what it returns, not the whole range).
 */
function listSql(op: ">=" | ">"): string {
  return (
    "SELECT l.id, l.name, l.create_revision, l.value FROM log l " +
    `WHERE l.name ${op} ?1 AND l.name < ?2 AND l.id = (SELECT MAX(m.id) FROM log m WHERE m.name = l.name AND m.id <= ?3) ` +
    "AND l.deleted = 0 ORDER BY l.name LIMIT ?4"
  );
}

/** How many live keys `(?1, ?2)` holds at revision `?3` (the same walk, counted). */
function countSql(op: ">=" | ">"): string {
  return (
    "SELECT COUNT(*) AS n FROM log l " +
    `WHERE l.name ${op} ?1 AND l.name < ?2 AND l.id = (SELECT MAX(m.id) FROM log m WHERE m.name = l.name AND m.id <= ?3) AND l.deleted = 0`
  );
}

function eventOf(row: EventRow): StoreEvent {
  const entry = decode(row.name, row.value, row.create_revision, row.id);
  if (row.created === 1) return Object.freeze({ type: "create", entry });
  const prev =
    row.p_value === null
      ? undefined
      : makeEntry(
          row.name,
          row.deleted === 1 ? entry.value : deepFreeze(JSON.parse(row.p_value) as object),
          row.p_create ?? row.create_revision,
          row.prev_revision,
        );
  const type = row.deleted === 1 ? "delete" : "update";
  return Object.freeze(prev === undefined ? { type, entry } : { type, entry, prev });
}

/**
 * Opens the store of a data directory: `<dataDir>/state.db`, creating the directory when
 * missing. What the `orch-apiserver` command uses for `--data-dir`.
 * @throws StatusError as {@link SqliteStore}'s constructor (503 when another process holds it).
 */
export function openSqliteStore(dataDir: string, options: Omit<SqliteStoreOptions, "path"> = {}): SqliteStore {
  mkdirSync(dataDir, { recursive: true });
  return new SqliteStore({ ...options, path: join(dataDir, "state.db") });
}
