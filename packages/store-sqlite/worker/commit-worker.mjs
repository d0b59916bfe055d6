// The commit thread of `SqliteStore` (a `worker_threads` worker, plain JavaScript so that the
// same file runs from the sources and from an installed package). It owns the database's only
// writing connection: every message is one durable transaction (WAL, `synchronous = FULL`), so
// the fsync of a commit holds this thread, never the one serving requests.
//
// Messages in (on `workerData.port`, each followed by a bump of `workerData.inbox[0]`, which
// this thread sleeps on), answered in the same order, each answer followed by a bump of
// `workerData.signal[0]` (so that the store's synchronous `close()` can wait for it):
//   { type: "commit", ops: [[kind, key, json, expect], ...] }
//     kind 0 create, 1 update, 2 delete; expect -1 for none. Each op is checked against the
//     state the ones before it left; one failing leaves the others alone. The rows go in with
//     one INSERT per 32 writes. Answer:
//     { results: [...] } with, per op, [0, reason] for a failed precondition ("exists",
//     "missing", "conflict"), [1, revision] for a create, and
//     [1, revision, createRevision, prevRevision, prevJson] for an update or a delete;
//     or { failure: message } when the transaction could not commit (nothing was written).
//   { type: "compact", revision } -> { compacted: revision } or { failure: message }
//   { type: "close" } -> { closed: true }, then the thread ends.
import { performance } from "node:perf_hooks";
import { receiveMessageOnPort, workerData } from "node:worker_threads";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Database = require(workerData.driver);

const { port, path, signal, inbox } = workerData;
const db = new Database(path);
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = FULL");
const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");
const rollback = db.prepare("ROLLBACK");
const valueAt = db.prepare("SELECT value FROM log WHERE id = ?").raw(true);
const compact = db.prepare(
  "DELETE FROM log WHERE id < ?1 AND (deleted = 1 OR EXISTS (SELECT 1 FROM log n WHERE n.name = log.name AND n.id > log.id AND n.id <= ?1))",
);
const setCompacted = db.prepare("UPDATE meta SET value = ? WHERE name = 'compact_revision'");
let revision = Number(db.prepare("SELECT COALESCE(MAX(id), 0) AS n FROM log").raw(true).get()[0]);

/**
 * The newest row of every key, `key -> [id, deleted, createRevision]`: what a write is checked
 * against, without a query (this thread is the file's only writer, so it cannot go stale).
 * Deleted keys stay until compaction removes their last row (a new create names it as its
 * previous revision until then). SQLite returns the other columns of a MAX() group from the
 * row holding the maximum.
 */
const newest = new Map();
for (const [name, id, deleted, createRevision] of db.prepare("SELECT name, MAX(id), deleted, create_revision FROM log GROUP BY name").raw(true).iterate()) {
  newest.set(name, [Number(id), Number(deleted), Number(createRevision)]);
}

/** Rows to insert at most per statement (7 parameters each, far below SQLite's limit). */
const ROWS_PER_INSERT = 32;
/** `INSERT` statements of 1..ROWS_PER_INSERT rows, prepared on first use. */
const inserts = [];
function insertOf(rows) {
  inserts[rows] ??= db.prepare(
    "INSERT INTO log (id, name, created, deleted, create_revision, prev_revision, value) VALUES " +
      Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?, ?)").join(", "),
  );
  return inserts[rows];
}

/**
 * The writes of one commit, checked in order against `newest` (each sees the ones before it),
 * their rows inserted together. Returns the answer's results; `undo` gets each replaced entry
 * of `newest`, so that a failed transaction can put them back.
 */
function applyAll(ops, undo) {
  const results = new Array(ops.length);
  const params = [];
  /** Values of rows this commit writes, by revision: an update's previous row may be one of them. */
  let written;
  for (let i = 0; i < ops.length; i++) {
    const [kind, key, json, expect] = ops[i];
    const row = newest.get(key);
    const live = row !== undefined && row[1] === 0;
    if (kind === 0) {
      if (live) {
        results[i] = [0, "exists"];
        continue;
      }
      revision += 1;
      params.push(revision, key, 1, 0, revision, row === undefined ? 0 : row[0], json);
      undo.push(key, row);
      newest.set(key, [revision, 0, revision]);
      (written ??= new Map()).set(revision, json);
      results[i] = [1, revision];
      continue;
    }
    if (!live) {
      results[i] = [0, "missing"];
      continue;
    }
    const [id, , createRevision] = row;
    if (expect !== -1 && id !== expect) {
      results[i] = [0, "conflict"];
      continue;
    }
    const value = written?.get(id) ?? valueAt.get(id)[0];
    revision += 1;
    const stored = kind === 2 ? value : json;
    params.push(revision, key, 0, kind === 2 ? 1 : 0, createRevision, id, stored);
    undo.push(key, row);
    newest.set(key, [revision, kind === 2 ? 1 : 0, createRevision]);
    (written ??= new Map()).set(revision, stored);
    results[i] = [1, revision, createRevision, id, value];
  }
  for (let at = 0; at < params.length; at += ROWS_PER_INSERT * 7) {
    const chunk = params.length - at > ROWS_PER_INSERT * 7 ? params.slice(at, at + ROWS_PER_INSERT * 7) : at === 0 ? params : params.slice(at);
    insertOf(chunk.length / 7).run(...chunk);
  }
  return results;
}

/** Removes the entries of keys whose deletion row compaction to `to` removed. */
function forgetCompacted(to) {
  for (const [key, row] of newest) if (row[1] === 1 && row[0] < to) newest.delete(key);
}

/**
 * Runs `work` in one transaction; a failure rolls it back (and the revisions and entries it
 * took). The transaction is usually open already: {@link beginNext} opens the next one while
 * the thread would otherwise wait, so its cost is not on a write's path.
 */
function transaction(work) {
  const start = revision;
  const undo = [];
  try {
    if (!db.inTransaction) begin.run();
    const answer = work(undo);
    commit.run();
    return answer;
  } catch (error) {
    if (db.inTransaction) rollback.run();
    revision = start;
    for (let i = undo.length - 2; i >= 0; i -= 2) {
      if (undo[i + 1] === undefined) newest.delete(undo[i]);
      else newest.set(undo[i], undo[i + 1]);
    }
    return { failure: error instanceof Error ? error.message : String(error) };
  }
}

function answer(message) {
  if (message.type === "commit") {
    return transaction((undo) => ({ results: applyAll(message.ops, undo) }));
  }
  if (message.type === "compact") {
    return transaction(() => {
      compact.run(message.revision);
      setCompacted.run(message.revision);
      forgetCompacted(message.revision);
      return { compacted: message.revision };
    });
  }
  if (db.inTransaction) rollback.run();
  db.close();
  return { closed: true };
}

/**
 * Opens the transaction of the next message (this thread is the file's only writer, so an open
 * transaction holds up nobody; WAL readers never wait for it). A failure here is left for
 * {@link transaction} to meet and answer.
 */
function beginNext() {
  try {
    if (!db.inTransaction) begin.run();
  } catch {
    // answered by the next transaction's own BEGIN
  }
}

/**
 * How long the thread looks for the next message before it sleeps (ms). A busy writer's next
 * batch usually comes within this time (the store settles a batch and sends what queued
 * meanwhile), and waking a sleeping thread costs tens of microseconds on a virtual machine,
 * a good part of a commit; an idle store sleeps after it.
 */
const SPIN_MS = 0.1;

// This thread does nothing else, so it waits on `inbox` (bumped by the store after each
// message) and takes messages off the port itself: a wake-up by futex, without a turn of
// an event loop and an event dispatch per message.
for (;;) {
  const seen = Atomics.load(inbox, 0);
  const received = receiveMessageOnPort(port);
  if (received === undefined) {
    const until = performance.now() + SPIN_MS;
    while (Atomics.load(inbox, 0) === seen && performance.now() < until);
    if (Atomics.load(inbox, 0) === seen) Atomics.wait(inbox, 0, seen);
    continue;
  }
  const { message } = received;
  port.postMessage(answer(message));
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
  if (message.type === "close") {
    port.close();
    break;
  }
  beginNext();
}
