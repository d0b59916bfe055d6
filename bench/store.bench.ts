/**
 * MemoryStore against the minimal async Map store, a pre-sorted array and an eventemitter3
 * fan-out, plus the heap cost of 100,000 objects of 1 KiB.
 * @module
 */
import { MemoryStore } from "@orch/store";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { emitterFanOut, MapStore, slicePage } from "./baselines.js";
import type { Case } from "./harness.js";

/** Sizes of the store benchmarks; `quick` shrinks them for CI. */
export interface StoreBenchSizes {
  ops: number;
  keys: number;
  watchers: number;
  events: number;
  heapObjects: number;
}

const prefix = "/registry/core/configmaps/default/";
const keyOf = (i: number) => `${prefix}cm-${String(i).padStart(7, "0")}`;

/** A ConfigMap-shaped value of about `bytes` bytes of JSON, with strings unique to `i`. */
export function configMap(i: number, bytes = 1024): object {
  const data: Record<string, string> = {};
  const perKey = 80;
  for (let k = 0; k * (perKey + 12) < bytes - 200; k++) data[`key-${k}`] = `${i}-${k}-`.padEnd(perKey, "x");
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${i}`, namespace: "default", uid: `uid-${i}`, labels: { app: `app-${i % 10}` } },
    data,
  };
}

/** The comparison cases of the store. */
export function storeCases(sizes: StoreBenchSizes): Case[] {
  const value = configMap(0, 256);
  const listState = (() => {
    let built: { store: MemoryStore; sorted: { key: string; value: object }[]; afters: string[] } | undefined;
    return async () => {
      if (built) return built;
      const store = new MemoryStore();
      const sorted: { key: string; value: object }[] = [];
      for (let i = 0; i < sizes.keys; i++) {
        const entry = await store.create(keyOf(i), value);
        sorted.push(entry);
      }
      const afters = Array.from({ length: 100 }, (_, n) => keyOf(Math.floor((n * sizes.keys) / 100)));
      built = { store, sorted, afters };
      return built;
    };
  })();

  return [
    {
      name: `get (${sizes.ops} reads of 1,000 keys)`,
      target: 1.5,
      ops: sizes.ops,
      async setup() {
        const store = new MemoryStore();
        const base = new MapStore();
        for (let i = 0; i < 1000; i++) {
          await store.create(keyOf(i), value);
          await base.create(keyOf(i), value);
        }
        const keys = Array.from({ length: 1000 }, (_, i) => keyOf(i));
        return {
          subject: async () => {
            for (let i = 0; i < sizes.ops; i++) await store.get(keys[i % 1000] as string);
          },
          baseline: async () => {
            for (let i = 0; i < sizes.ops; i++) await base.get(keys[i % 1000] as string);
          },
          teardown: () => store.close(),
        };
      },
    },
    {
      name: `create (${sizes.ops} new keys)`,
      target: 3,
      ops: sizes.ops,
      async setup() {
        const store = new MemoryStore();
        const base = new MapStore();
        return {
          subject: async () => {
            for (let i = 0; i < sizes.ops; i++) await store.create(keyOf(i), configMap(i, 256));
          },
          baseline: async () => {
            for (let i = 0; i < sizes.ops; i++) await base.create(keyOf(i), configMap(i, 256));
          },
          teardown: () => store.close(),
        };
      },
    },
    {
      name: `update (${sizes.ops} CAS writes over 1,000 keys)`,
      target: 3,
      ops: sizes.ops,
      async setup() {
        const store = new MemoryStore();
        const base = new MapStore();
        const revs: number[] = [];
        const baseRevs: number[] = [];
        for (let i = 0; i < 1000; i++) {
          revs.push((await store.create(keyOf(i), value)).modRevision);
          baseRevs.push((await base.create(keyOf(i), value)).modRevision);
        }
        return {
          subject: async () => {
            for (let i = 0; i < sizes.ops; i++) {
              const k = i % 1000;
              revs[k] = (await store.update(keyOf(k), configMap(i, 256), revs[k] as number)).modRevision;
            }
          },
          baseline: async () => {
            for (let i = 0; i < sizes.ops; i++) {
              const k = i % 1000;
              baseRevs[k] = (await base.update(keyOf(k), configMap(i, 256), baseRevs[k] as number)).modRevision;
            }
          },
          teardown: () => store.close(),
        };
      },
    },
    {
      name: `list: 500-item page of ${sizes.keys.toLocaleString("en")} keys`,
      target: 2,
      // 10,000 pages a run (a run of 2,000 took about 4 ms, so one scavenge moved its ratio by tens of percent).
      ops: 10_000,
      async setup() {
        const { store, sorted, afters } = await listState();
        return {
          subject: async () => {
            for (let pass = 0; pass < 100; pass++) for (const after of afters) await store.list(prefix, { after, limit: 500 });
          },
          baseline: async () => {
            for (let pass = 0; pass < 100; pass++) for (const after of afters) await Promise.resolve(slicePage(sorted, after, 500));
          },
        };
      },
    },
    {
      name: `watch: ${sizes.watchers} watchers x ${sizes.events} events`,
      target: 2,
      ops: sizes.watchers * sizes.events,
      async setup() {
        const store = new MemoryStore();
        const created = await store.create(keyOf(0), value);
        const subjectRun = async () => {
          const controller = new AbortController();
          const consumers = Array.from({ length: sizes.watchers }, async () => {
            let seen = 0;
            for await (const _event of store.watch(prefix, created.modRevision + seen, controller.signal)) {
              if (++seen === sizes.events) break;
            }
          });
          let rev = created.modRevision;
          for (let i = 0; i < sizes.events; i++) rev = (await store.update(keyOf(0), value, rev)).modRevision;
          await Promise.all(consumers);
          controller.abort();
        };
        const baselineRun = async () => {
          const { emit, queues } = emitterFanOut<object>(sizes.watchers);
          const consumers = queues.map(async (queue) => {
            let seen = 0;
            for await (const _event of queue) if (++seen === sizes.events) break;
          });
          for (let i = 0; i < sizes.events; i++) {
            await Promise.resolve();
            emit({ type: "update", entry: value });
          }
          await Promise.all(consumers);
        };
        return { subject: subjectRun, baseline: baselineRun, teardown: () => store.close() };
      },
    },
  ];
}

let gcFunction: (() => void) | undefined;
function gc(): void {
  if (!gcFunction) {
    setFlagsFromString("--expose-gc");
    gcFunction = runInNewContext("gc") as () => void;
  }
  gcFunction();
  gcFunction();
}

/** Heap used by `count` 1 KiB objects held in a MemoryStore, over their total JSON size. */
export async function storeHeap(count: number): Promise<{ jsonBytes: number; heapBytes: number; ratio: number }> {
  gc();
  const before = process.memoryUsage().heapUsed;
  const store = new MemoryStore();
  let jsonBytes = 0;
  for (let i = 0; i < count; i++) {
    const v = configMap(i, 1024);
    jsonBytes += JSON.stringify(v).length;
    await store.create(keyOf(i), v);
  }
  gc();
  const heapBytes = process.memoryUsage().heapUsed - before;
  store.close();
  return { jsonBytes, heapBytes, ratio: heapBytes / jsonBytes };
}
