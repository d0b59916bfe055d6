import { afterAll, beforeAll } from "vitest";
import { WatchCache } from "@orch/list";
import { describeStoreConformance } from "@orch/store/testing";
import { EtcdStore } from "@orch/store-etcd";
import { startEtcd, type EtcdCluster } from "@orch/store-etcd/testing";

let etcd: EtcdCluster;
let counter = 0;

beforeAll(async () => {
  etcd = await startEtcd();
});

afterAll(async () => {
  await etcd?.stop();
});

describeStoreConformance("WatchCache over EtcdStore", async () => {
  const upstream = new EtcdStore({ endpoints: etcd.endpoints, prefix: `/wc${process.pid}-${counter++}` });
  const store = new WatchCache(upstream);
  await store.start();
  return {
    store,
    cleanup: async () => {
      store.stop();
      upstream.close();
    },
  };
});
