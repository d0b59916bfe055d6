/**
 * Creates per second through an in-process `APIServer` on `EtcdStore` versus raw `etcd3` puts of
 * the same bytes, at the same concurrency, against one local etcd started for the run. Rounds are interleaved and the best of each side is kept; figures are printed,
 * never asserted.
 * @module
 */
import { APIServer } from "@orch/server";
import { EtcdStore } from "@orch/store-etcd";
import { startEtcd } from "@orch/store-etcd/testing";

const concurrency = 32;
const target = 0.7;
const data = { key: "value".repeat(20) };

/** Runs `count` jobs, `concurrency` at a time; resolves with the elapsed milliseconds. */
async function timed(count: number, job: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
  return performance.now() - start;
}

/**
 * Measures creates/s through `APIServer.handle` (POST of a ConfigMap, 201 expected) on an
 * `EtcdStore` and raw puts of the bytes that create stores, both at concurrency 32, and returns
 * the lines to print: both rates and their ratio against the target (≥0.7 of raw).
 * @param quick fewer creates and rounds (CI).
 */
export async function etcdCreateBenchmark(quick: boolean): Promise<string[]> {
  const perRound = quick ? 2_000 : 10_000;
  const rounds = quick ? 3 : 5;
  const etcd = await startEtcd();
  const store = new EtcdStore({ endpoints: etcd.endpoints });
  const api = new APIServer({ store });
  try {
    await api.ready();
    const headers = new Headers({ "content-type": "application/json" });
    const create = async (name: string): Promise<void> => {
      const res = await api.handle({
        method: "POST",
        url: "/api/v1/namespaces/default/configmaps",
        headers,
        body: new TextEncoder().encode(JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data })),
      });
      if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${String(res.body)}`);
    };
    // The bytes one create stores in etcd: what the raw side puts.
    await create("sample");
    const key = (await store.client.getAll().prefix("/registry/").keys()).find((k) => k.endsWith("/configmaps/default/sample"));
    const bytes = key === undefined ? null : await store.client.get(key).buffer();
    if (bytes === null) throw new Error("the sample ConfigMap is not in etcd");
    const raw = async (k: string): Promise<void> => {
      await store.client.put(k).value(bytes);
    };

    // For attribution only: the store's own create (one guarded txn) of the same object.
    const value = JSON.parse(bytes.toString("utf8")) as object;
    const storeCreate = async (k: string): Promise<void> => {
      await store.create(k, value);
    };

    const best = { api: Infinity, raw: Infinity, store: Infinity };
    // This process's CPU per operation in each side's best round: where the time goes.
    const cpu = { api: 0, raw: 0, store: 0 };
    for (let round = 0; round <= rounds; round++) {
      const sides = {
        api: () => timed(perRound, (i) => create(`bench-${round}-${i}`)),
        raw: () => timed(perRound, (i) => raw(`/bench-raw/configmaps/default/bench-${round}-${i}`)),
        store: () => timed(perRound, (i) => storeCreate(`/bench-store/configmaps/default/bench-${round}-${i}`)),
      };
      const order = (["api", "raw", "store"] as const).map((_, j, all) => all[(j + round) % all.length]!);
      for (const side of order) {
        const before = process.cpuUsage();
        const ms = await sides[side]();
        const used = process.cpuUsage(before);
        if (round > 0 && ms < best[side]) {
          // round 0 warms up
          best[side] = ms;
          cpu[side] = (used.user + used.system) / perRound;
        }
      }
    }
    const apiRate = (perRound * 1000) / best.api;
    const rawRate = (perRound * 1000) / best.raw;
    const storeRate = (perRound * 1000) / best.store;
    const ratio = apiRate / rawRate;
    return [
      `etcd creates (${bytes.length} B ConfigMaps, concurrency ${concurrency}, ${perRound} per round, best of ${rounds}):`,
      `  APIServer on EtcdStore ${apiRate.toFixed(0).padStart(7)} creates/s   raw etcd3 put ${rawRate.toFixed(0).padStart(7)} puts/s   ` +
        `${ratio.toFixed(2)} of raw (target ≥${target}) ${ratio >= target ? "ok" : "UNDER"}`,
      `  (for attribution: EtcdStore.create alone ${storeRate.toFixed(0)} creates/s, ${(storeRate / rawRate).toFixed(2)} of raw; ` +
        `this process's CPU per operation: APIServer ${cpu.api.toFixed(0)} µs, EtcdStore.create ${cpu.store.toFixed(0)} µs, raw put ${cpu.raw.toFixed(0)} µs)`,
    ];
  } finally {
    await api.shutdown().catch(() => undefined);
    store.close();
    await etcd.stop();
  }
}
