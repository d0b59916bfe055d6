/**
 * The watch cache on a real etcd: a `resourceVersion=0` list of 10,000 objects from the warm
 * cache against a direct etcd range of the same prefix, and the fan-out of 1,000 watchers
 * through the cache. One local etcd is started for the run and stopped after.
 * @module
 */
import { WatchCache } from "@orch/list";
import type { StoreEvent } from "@orch/store";
import { EtcdStore } from "@orch/store-etcd";
import { startEtcd } from "@orch/store-etcd/testing";
import { setMaxListeners } from "node:events";
import { configMap } from "./store.bench.js";

const prefix = "/registry/core/configmaps/bench/";
const keyOf = (i: number): string => `${prefix}cm-${String(i).padStart(7, "0")}`;

/** Median of the per-call times of `fn` over `rounds` runs, in ms. */
async function medianMs(rounds: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/**
 * Runs the watch-cache benchmarks and returns the lines to print: the list ratio (cache versus
 * etcd range; target at least 10x) and the fan-out rate in delivered events per second.
 * `quick` shrinks the fan-out and the rounds; the list always has 10,000 objects.
 */
export async function watchCacheBenchmarks(quick: boolean): Promise<string[]> {
  const objects = 10_000;
  const watchers = 1_000;
  const events = quick ? 100 : 1_000;
  const rounds = quick ? 5 : 15;
  const etcd = await startEtcd();
  const upstream = new EtcdStore({ endpoints: etcd.endpoints, prefix: "/bench" });
  const cache = new WatchCache(upstream);
  const lines: string[] = [];
  try {
    const value = configMap(0, 512);
    for (let i = 0; i < objects; i += 200) {
      await Promise.all(Array.from({ length: Math.min(200, objects - i) }, (_, j) => upstream.create(keyOf(i + j), value)));
    }
    await cache.start();
    // One unpaged range of 10,000 such objects exceeds the etcd client's 4 MiB message limit, so
    // the direct read pages as a server without a cache must: 2,000 keys at a time at one revision.
    const direct = await medianMs(rounds, async () => {
      let page = await upstream.list(prefix, { limit: 2_000 });
      let count = page.entries.length;
      const revision = page.revision;
      while (page.more) {
        const after = (page.entries[page.entries.length - 1] as { key: string }).key;
        page = await upstream.list(prefix, { revision, after, limit: 2_000 });
        count += page.entries.length;
      }
      if (count !== objects) throw new Error(`etcd listed ${count}`);
    });
    const cached = await medianMs(rounds * 4, async () => {
      const r = await cache.listCached(prefix, {}, 0);
      if (r.entries.length !== objects) throw new Error(`cache listed ${r.entries.length}`);
    });
    lines.push(
      `watch cache: rv=0 list of ${objects} objects ${cached.toFixed(3)} ms vs etcd range (paged by 2,000) ${direct.toFixed(1)} ms: ${(direct / cached).toFixed(0)}x faster (target >= 10x)`,
    );

    // Fan-out: every watcher reads every event.
    const controller = new AbortController();
    setMaxListeners(0, controller.signal); // one signal for the 1,000 watchers
    const from = await cache.revision();
    const readers = Array.from({ length: watchers }, async () => {
      const it: AsyncIterator<StoreEvent> = cache.watch(prefix, from, controller.signal)[Symbol.asyncIterator]();
      for (let n = 0; n < events; n++) {
        const r = await it.next();
        if (r.done === true) throw new Error("watch ended early");
      }
    });
    const t0 = performance.now();
    let cur = await upstream.get(keyOf(0));
    for (let i = 0; i < events && cur !== undefined; i++) cur = await upstream.update(cur.key, { ...value, n: i }, cur.modRevision);
    await Promise.all(readers);
    const seconds = (performance.now() - t0) / 1000;
    controller.abort();
    lines.push(
      `watch cache: fan-out of ${events} etcd writes to ${watchers} watchers in ${(seconds * 1000).toFixed(0)} ms: ${((events * watchers) / seconds).toFixed(0)} events/s delivered (${(events / seconds).toFixed(0)} writes/s end to end)`,
    );
  } finally {
    cache.stop();
    upstream.close();
    await etcd.stop();
  }
  return lines;
}
