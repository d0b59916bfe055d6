/**
 * Runs every benchmark and prints its ratios against the baselines measured in the same run.
 * `--quick` shrinks sizes and rounds (CI uses it to show the figures without taking long).
 * @module
 */
import { printResults, runCase, type Result } from "./harness.js";
import { commandReadyMs, inProcessReadyMs, throughput, throughputLines, watchFanOut } from "./http.bench.js";
import { authenticationBenchmark } from "./authn.bench.js";
import { authorizationBenchmark } from "./authz.bench.js";
import { admissionBenchmark } from "./admission.bench.js";
import { controllersBenchmark } from "./controllers.bench.js";
import { operatingBenchmark } from "./operating.bench.js";
import { sqliteBenchmark } from "./sqlite.bench.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyBenchmarks } from "./apply.bench.js";
import { etcdCreateBenchmark } from "./etcd.bench.js";
import { watchCacheBenchmarks } from "./watch-cache.bench.js";
import { storeCases, storeHeap } from "./store.bench.js";
import { runValidation, validationCases } from "./validation.bench.js";

const quick = process.argv.includes("--quick");
const rounds = quick ? 3 : 7;
const sizes = quick
  ? { ops: 20_000, keys: 100_000, watchers: 1000, events: 200, heapObjects: 100_000 }
  : { ops: 100_000, keys: 100_000, watchers: 1000, events: 1000, heapObjects: 100_000 };

const results: Result[] = [];
for (const c of storeCases(sizes)) results.push(await runCase(c, rounds));
printResults(`@orch/store: MemoryStore vs baselines (${quick ? "quick" : "full"}, best of ${rounds} rounds)`, results);

const heap = await storeHeap(sizes.heapObjects);
console.log(
  `\nheap: ${sizes.heapObjects.toLocaleString("en")} objects, ${(heap.jsonBytes / 2 ** 20).toFixed(1)} MiB of JSON, ` +
    `${(heap.heapBytes / 2 ** 20).toFixed(1)} MiB of heap: ${heap.ratio.toFixed(2)}x (target ≤2x) ${heap.ratio <= 2 ? "ok" : "OVER"}`,
);

console.log(`\nvalidation plus defaulting vs JSON.parse of the same bytes (target ≤3x)`);
for (const c of validationCases()) {
  const r = runValidation(c, quick ? 1000 : 2000, quick ? 3 : 7);
  console.log(
    `${r.name.padEnd(40)} validate ${(r.validateNs / 1000).toFixed(1).padStart(7)} µs   parse ${(r.parseNs / 1000).toFixed(1).padStart(7)} µs   ${r.ratio.toFixed(2)}x ${r.ratio <= 3 ? "ok" : "OVER"}`,
  );
}

console.log(`\nserver-side apply vs update of the same change to a Pod-sized object`);
for (const line of await applyBenchmarks(quick)) console.log(line);

console.log(
  `\nHTTP and HTTPS: orch (APIServer behind @orch/node) vs a bare node:http(s) server answering the same JSON (autocannon, 16 connections), with each server's CPU time per request`,
);
for (const line of throughputLines(await throughput(quick ? 2 : 10))) console.log(line);
// The best of three runs on each side: one run takes about 130 ms, which one scheduling hiccup moves by a quarter.
const fan = { orchMs: Infinity, baselineMs: Infinity };
for (let run = 0; run < 3; run++) {
  const { orchMs, baselineMs } = await watchFanOut(1000, quick ? 5 : 10);
  fan.orchMs = Math.min(fan.orchMs, orchMs);
  fan.baselineMs = Math.min(fan.baselineMs, baselineMs);
}
console.log(
  `watch fan-out: 1000 HTTP watchers x ${quick ? 5 : 10} events (${quick ? 5000 : 10000} deliveries), best of 3: orch ${fan.orchMs.toFixed(0)} ms, ` +
    `baseline ${fan.baselineMs.toFixed(0)} ms (${(fan.orchMs / fan.baselineMs).toFixed(2)}x)`,
);
const inProcess = await inProcessReadyMs(5);
console.log(`in-process APIServer ready: ${inProcess.toFixed(1)} ms (target <20 ms) ${inProcess < 20 ? "ok" : "OVER"}`);
const dataDir = mkdtempSync(join(tmpdir(), "orch-bench-"));
try {
  const command = await commandReadyMs(dataDir);
  console.log(`orch-apiserver ready: ${command.toFixed(0)} ms (target <1000 ms) ${command < 1000 ? "ok" : "OVER"}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(`\nauthentication: GET one ConfigMap over HTTPS (16 keep-alive connections), each credential vs no credential (anonymous) on the same server`);
for (const line of await authenticationBenchmark(quick)) console.log(line);

console.log(
  `\nauthorization: GET one ConfigMap over HTTPS (16 keep-alive connections) as a token user, RBAC (1,000 ClusterRoles, 5,000 RoleBindings in 100 namespaces) vs AlwaysAllow on the same objects; and one RBAC decision in-process`,
);
for (const line of await authorizationBenchmark(quick)) console.log(line);

console.log(
  `\nadmission: Pod creates in process with the default plugins vs admission off, and the latency of one validating webhook over HTTPS vs its own round trip`,
);
for (const line of await admissionBenchmark(quick)) console.log(line);

console.log(
  `\ncontrollers: in process, every default controller running: garbage collection of an owner with ${quick ? "2,000" : "10,000"} dependents vs DELETEs of them one by one, idle CPU, and CSR approval to certificate`,
);
for (const line of await controllersBenchmark(quick)) console.log(line);

console.log(
  `\noperating: GET over HTTPS with metrics, a Metadata audit log and API priority and fairness vs none of them; and one user's GETs while another floods LISTs`,
);
for (const line of await operatingBenchmark(quick)) console.log(line);

console.log(
  `\nSQLite: durable creates through SqliteStore vs libsql's own inserts of the same bytes, reads through APIServer on SQLite vs MemoryStore, and start-up over a full state.db`,
);
for (const line of await sqliteBenchmark(quick)) console.log(line);

console.log(`\netcd: creates through APIServer on EtcdStore vs raw etcd3 puts, and the watch cache`);
for (const line of await etcdCreateBenchmark(quick)) console.log(line);
for (const line of await watchCacheBenchmarks(quick)) console.log(line);
