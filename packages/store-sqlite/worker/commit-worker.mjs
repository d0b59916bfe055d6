// The commit thread of `SqliteStore` (a `worker_threads` worker, plain JavaScript so that the
// same file runs from the sources and from an installed package). It owns the database's only
// writing connection: every message is one durable transaction (WAL, `synchronous = FULL`), so
// the fsync of a commit holds this thread, never the one serving requests.
//
// Messages in (on `workerData.port`), answered in the same order, each answer followed by a
// bump of `workerData.signal[0]` (so that the store's synchronous `close()` can wait for it):
//   { type: "commit", ops: [[kind, key, json, expect], ...] }
//     kind 0 create, 1 update, 2 delete; expect -1 for none. Each op is checked against the
//     state the ones before it left; one failing leaves the others alone. Answer:
//     { results: [...] } with, per op, [0, reason] for a failed precondition ("exists",
//     "missing", "conflict"), [1, revision] for a create, and
//     [1, revision, createRevision, prevRevision, prevJson] for an update or a delete;
//     or { failure: message } when the transaction could not commit (nothing was written).
//   { type: "compact", revision } -> { compacted: revision } or { failure: message }
//   { type: "close" } -> { closed: true }, then the thread ends.
import { workerData } from "node:worker_threads";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Database = require(workerData.driver);

const { port, path, signal } = workerData;
const db = new Database(path);
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = FULL");
const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");
const rollback = db.prepare("ROLLBACK");
// Rows as arrays (no object per row): [id, deleted, create_revision] and, where the previous
// value is needed (an update or a delete), [id, deleted, create_revision, value].
const latest = db.prepare("SELECT id, deleted, create_revision FROM log WHERE name = ? ORDER BY id DESC LIMIT 1").raw(true);
const latestValue = db.prepare("SELECT id, deleted, create_revision, value FROM log WHERE name = ? ORDER BY id DESC LIMIT 1").raw(true);
const insert = db.prepare("INSERT INTO log (id, name, created, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?, ?)");
const compact = db.prepare(
  "DELETE FROM log WHERE id < ?1 AND (deleted = 1 OR EXISTS (SELECT 1 FROM log n WHERE n.name = log.name AND n.id > log.id AND n.id <= ?1))",
);
const setCompacted = db.prepare("UPDATE meta SET value = ? WHERE name = 'compact_revision'");
let revision = Number(db.prepare("SELECT COALESCE(MAX(id), 0) AS n FROM log").raw(true).get()[0]);

/** One write inside the open transaction: its result row (see the header). */
function apply(kind, key, json, expect) {
  const row = (kind === 0 ? latest : latestValue).get(key);
  const live = row !== undefined && row[1] === 0;
  if (kind === 0) {
    if (live) return [0, "exists"];
    revision += 1;
    insert.run(revision, key, 1, 0, revision, row === undefined ? 0 : row[0], json);
    return [1, revision];
  }
  if (!live) return [0, "missing"];
  const [id, , createRevision, value] = row;
  if (expect !== -1 && id !== expect) return [0, "conflict"];
  revision += 1;
  insert.run(revision, key, 0, kind === 2 ? 1 : 0, createRevision, id, kind === 2 ? value : json);
  return [1, revision, createRevision, id, value];
}

/** Runs `work` in one transaction; a failure rolls it back (and the revisions it took). */
function transaction(work) {
  const start = revision;
  try {
    begin.run();
    const answer = work();
    commit.run();
    return answer;
  } catch (error) {
    if (db.inTransaction) rollback.run();
    revision = start;
    return { failure: error instanceof Error ? error.message : String(error) };
  }
}

function answer(message) {
  if (message.type === "commit") {
    return transaction(() => ({ results: message.ops.map(([kind, key, json, expect]) => apply(kind, key, json, expect)) }));
  }
  if (message.type === "compact") {
    return transaction(() => {
      compact.run(message.revision);
      setCompacted.run(message.revision);
      return { compacted: message.revision };
    });
  }
  db.close();
  return { closed: true };
}

port.on("message", (message) => {
  port.postMessage(answer(message));
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
  if (message.type === "close") port.close();
});
