/**
 * Runs every benchmark and prints its ratios against the baselines measured in the same run.
 * `--quick` shrinks sizes and rounds (CI uses it to show the figures without taking long).
 * @module
 */
import { printResults, runCase, type Result } from "./harness.js";
import { storeCases, storeHeap } from "./store.bench.js";

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
