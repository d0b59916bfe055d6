/**
 * Compares the SQLite drivers this package could use, on what `SqliteStore` does: durable
 * single-row inserts (WAL, `synchronous = FULL`, one transaction per insert, as a write that is
 * alone in its tick commits) and point reads by primary key.
 *
 * Then `SqliteStore` itself: creates one at a time and in bursts of concurrent creates (group
 * commit), with the event loop's delay meanwhile (its commits run on a thread of their own).
 * Last, the same durable inserts made by a `worker_threads` worker against the same inserts on
 * the main thread (what a commit thread costs and saves at the driver level), with how long the
 * main thread is busy per commit.
 *
 * Run: `npx tsx --conditions=@orch/source packages/store-sqlite/src/sqlite-driver.bench.ts [module-or-path ...]`. Each
 * argument is resolved with `require` (default: `libsql`, the driver the package depends on);
 * pass the path of a `better-sqlite3` install to compare it in the same run. A benchmark, not
 * a test: it prints figures and the ratio against the first driver, and fails on nothing.
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import type Database from "libsql";
import { SqliteStore } from "./sqlite-store.js";

type Open = new (path: string) => Database.Database;

interface Figures {
  driver: string;
  insertsPerSec: number;
  insertP50Ms: number;
  insertP99Ms: number;
  readsPerSec: number;
  batchPerSec: number;
}

const INSERTS = 2_000;
const READS = 200_000;
const BATCH = 100;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

function measure(name: string, Driver: Open): Figures {
  const dir = mkdtempSync(join(tmpdir(), "orch-sqlite-bench-"));
  try {
    const db = new Driver(join(dir, "bench.db"));
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
    db.exec("CREATE TABLE log (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value TEXT NOT NULL)");
    const insert = db.prepare("INSERT INTO log (id, name, value) VALUES (?, ?, ?)");
    const value = JSON.stringify({ metadata: { name: "x", namespace: "default", labels: { app: "bench" } }, data: { k: "v".repeat(200) } });
    const begin = db.prepare("BEGIN IMMEDIATE");
    const commit = db.prepare("COMMIT");

    const times: number[] = [];
    const start = performance.now();
    for (let i = 1; i <= INSERTS; i++) {
      const t = performance.now();
      begin.run();
      insert.run(i, `/registry/core/configmaps/default/k${i}`, value);
      commit.run();
      times.push(performance.now() - t);
    }
    const insertsPerSec = INSERTS / ((performance.now() - start) / 1000);
    times.sort((a, b) => a - b);

    // Group commit: BATCH rows per durable transaction.
    let id = INSERTS;
    const batchStart = performance.now();
    for (let b = 0; b < 20; b++) {
      begin.run();
      for (let i = 0; i < BATCH; i++) insert.run(++id, `/registry/core/configmaps/default/k${id}`, value);
      commit.run();
    }
    const batchPerSec = (20 * BATCH) / ((performance.now() - batchStart) / 1000);

    const read = db.prepare("SELECT name, value FROM log WHERE id = ?");
    const readStart = performance.now();
    let bytes = 0;
    for (let i = 0; i < READS; i++) bytes += (read.get((i % id) + 1) as { value: string }).value.length;
    const readsPerSec = READS / ((performance.now() - readStart) / 1000);
    if (bytes === 0) throw new Error("read nothing");
    db.close();
    return { driver: name, insertsPerSec, insertP50Ms: percentile(times, 0.5), insertP99Ms: percentile(times, 0.99), readsPerSec, batchPerSec };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const require = createRequire(import.meta.url);
const drivers = process.argv.slice(2);
const results: Figures[] = [];
for (const spec of drivers.length > 0 ? drivers : ["libsql"]) {
  const Driver = require(spec) as Open;
  results.push(measure(spec, Driver));
}
const base = results[0];
console.log(`durable single-row inserts (WAL, synchronous=FULL): ${INSERTS} commits; point reads: ${READS}`);
for (const r of results) {
  console.log(
    `${r.driver}: ${r.insertsPerSec.toFixed(0)} commits/s (p50 ${r.insertP50Ms.toFixed(2)} ms, p99 ${r.insertP99Ms.toFixed(2)} ms), ` +
      `${r.batchPerSec.toFixed(0)} rows/s in ${BATCH}-row commits, ${r.readsPerSec.toFixed(0)} point reads/s` +
      (base !== undefined && r !== base
        ? ` — vs ${base.driver}: commits ${(r.insertsPerSec / base.insertsPerSec).toFixed(2)}x, reads ${(r.readsPerSec / base.readsPerSec).toFixed(2)}x`
        : ""),
  );
}

/** Creates through `SqliteStore` `total` keys in bursts of `burst` concurrent writes. */
async function storeRun(burst: number, total: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "orch-sqlite-bench-"));
  const store = new SqliteStore({ path: join(dir, "state.db") });
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  try {
    const value = { metadata: { name: "x", namespace: "default", labels: { app: "bench" } }, data: { k: "v".repeat(200) } };
    histogram.enable();
    const start = performance.now();
    for (let i = 0; i < total; i += burst) {
      await Promise.all(Array.from({ length: burst }, (_, j) => store.create(`/registry/core/configmaps/default/k${i + j}`, { ...value })));
    }
    const seconds = (performance.now() - start) / 1000;
    histogram.disable();
    return (
      `SqliteStore, bursts of ${burst}: ${(total / seconds).toFixed(0)} creates/s; event-loop delay ` +
      `p50 ${(histogram.percentile(50) / 1e6).toFixed(2)} ms, p99 ${(histogram.percentile(99) / 1e6).toFixed(2)} ms, max ${(histogram.max / 1e6).toFixed(2)} ms`
    );
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const burst of [1, 10, 100]) console.log(await storeRun(burst, burst === 1 ? 2_000 : 10_000));

/** The worker of {@link workerRun}: one durable transaction per message of rows, then a reply. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = FULL");
db.exec("CREATE TABLE log (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value TEXT NOT NULL)");
const insert = db.prepare("INSERT INTO log (id, name, value) VALUES (?, ?, ?)");
parentPort.on("message", (rows) => {
  db.exec("BEGIN IMMEDIATE");
  for (const [id, name, value] of rows) insert.run(id, name, value);
  db.exec("COMMIT");
  parentPort.postMessage(rows.length);
});
`;

/** `total` durable inserts in bursts of `burst` rows, on the main thread or in a worker. */
async function workerRun(where: "main" | "worker", burst: number, total: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "orch-sqlite-bench-"));
  const path = join(dir, "bench.db");
  const value = JSON.stringify({ data: { k: "v".repeat(200) } });
  let commit: (rows: [number, string, string][]) => Promise<void>;
  let stop: () => Promise<unknown>;
  if (where === "worker") {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver: require.resolve("libsql"), path } });
    const replies: (() => void)[] = [];
    worker.on("message", () => replies.shift()?.());
    commit = (rows) => new Promise<void>((resolve) => (replies.push(resolve), worker.postMessage(rows)));
    stop = () => worker.terminate();
  } else {
    const Driver = require("libsql") as Open;
    const db = new Driver(path);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
    db.exec("CREATE TABLE log (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value TEXT NOT NULL)");
    const insert = db.prepare("INSERT INTO log (id, name, value) VALUES (?, ?, ?)");
    commit = (rows) => {
      db.exec("BEGIN IMMEDIATE");
      for (const [id, name, v] of rows) insert.run(id, name, v);
      db.exec("COMMIT");
      return new Promise<void>((resolve) => setImmediate(resolve));
    };
    stop = () => Promise.resolve(db.close());
  }
  try {
    const elu0 = performance.eventLoopUtilization();
    const start = performance.now();
    for (let i = 0; i < total; i += burst) {
      await commit(Array.from({ length: burst }, (_, j): [number, string, string] => [i + j + 1, `/registry/k${i + j}`, value]));
    }
    const seconds = (performance.now() - start) / 1000;
    const elu = performance.eventLoopUtilization(elu0);
    return (
      `commits on the ${where} thread, ${burst} row(s) each: ${(total / seconds).toFixed(0)} rows/s; main thread busy ` +
      `${((elu.active * 1000) / (total / burst)).toFixed(1)} µs a commit (${(elu.utilization * 100).toFixed(0)} % of the time)`
    );
  } finally {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const burst of [1, 100]) {
  console.log(await workerRun("main", burst, burst === 1 ? 2_000 : 10_000));
  console.log(await workerRun("worker", burst, burst === 1 ? 2_000 : 10_000));
}
