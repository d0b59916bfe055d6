import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Etcd3 } from "etcd3";
import { reasonOf, StatusError } from "@orch/meta";
import type { StoreEvent } from "@orch/store";
import { describeStoreConformance } from "@orch/store/testing";
import { EtcdStore } from "./etcd-store.js";
import { startEtcd, type EtcdCluster } from "./testing/etcd-server.js";

let etcd: EtcdCluster;
let counter = 0;

beforeAll(async () => {
  etcd = await startEtcd();
});

afterAll(async () => {
  await etcd?.stop();
});

/** A store under a prefix of its own, so tests never see each other's keys. */
function freshStore(): EtcdStore {
  return new EtcdStore({ endpoints: etcd.endpoints, prefix: `/t${process.pid}-${counter++}` });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the operation to fail, but it succeeded");
}

describeStoreConformance("EtcdStore", async () => {
  const store = freshStore();
  return { store, cleanup: async () => store.close() };
});

describe("EtcdStore on etcd", () => {
  it("puts the prefix before every key in etcd, and keeps prefixes apart", async () => {
    const a = new EtcdStore({ endpoints: etcd.endpoints, prefix: "/tenant-a" });
    const b = new EtcdStore({ endpoints: etcd.endpoints, prefix: "/tenant-b" });
    const raw = new Etcd3({ hosts: [...etcd.endpoints] });
    try {
      const key = `/registry/core/configmaps/default/cm-${counter++}`;
      await a.create(key, { data: { x: "1" } });
      expect(await b.get(key)).toBeUndefined();
      expect((await b.list("/registry/core/configmaps/")).entries).toEqual([]);
      expect(JSON.parse((await raw.get(`/tenant-a${key}`).string()) ?? "null")).toEqual({ data: { x: "1" } });
    } finally {
      a.close();
      b.close();
      raw.close();
    }
  });

  it("stores the written object frozen in place, as MemoryStore does, and returns deep-frozen values", async () => {
    const prefix = `/t${process.pid}-${counter++}`;
    const store = new EtcdStore({ endpoints: etcd.endpoints, prefix });
    try {
      const value = { spec: { items: [{ a: 1 }] }, gone: undefined };
      const created = await store.create("/registry/core/configmaps/default/frozen", value);
      expect(created.value).toBe(value);
      expect(Object.isFrozen(value.spec.items[0])).toBe(true);
      // A read or watch event of a revision this store wrote or decoded lately is that entry.
      const got = await store.get(created.key);
      expect(got).toBe(created);
      const controller = new AbortController();
      for await (const event of store.watch(created.key, created.modRevision - 1, controller.signal)) {
        expect(event.entry).toBe(created);
        break;
      }
      controller.abort();
      // Elsewhere (another store, another process) it is the value's JSON, frozen.
      const other = new EtcdStore({ endpoints: etcd.endpoints, prefix });
      const read = await other.get(created.key).finally(() => other.close());
      expect(Object.keys(read?.value ?? {})).toEqual(["spec"]);
      expect(Object.isFrozen((read?.value as { spec: { items: object[] } }).spec.items[0])).toBe(true);
      expect(Object.isFrozen(got)).toBe(true);
      expect(Object.isFrozen((got?.value as { spec: { items: object[] } }).spec.items[0])).toBe(true);
    } finally {
      store.close();
    }
  });

  it("expires a read and a watch from before a compaction with the compacted revision in the message", async () => {
    const store = freshStore();
    try {
      const a1 = await store.create("/registry/core/configmaps/default/a", { v: 1 });
      const a2 = await store.update(a1.key, { v: 2 }, a1.modRevision);
      await store.update(a1.key, { v: 3 }, a2.modRevision);
      const at = await store.revision();
      await store.compact(at);
      const read = await rejection(store.get(a1.key, { revision: a1.modRevision }));
      expect(read).toBeInstanceOf(StatusError);
      expect((read as StatusError).code).toBe(410);
      expect((read as StatusError).message).toBe(`too old resource version: ${a1.modRevision} (${at})`);
      const watched = await rejection(store.watch("/registry/", a1.modRevision, new AbortController().signal)[Symbol.asyncIterator]().next());
      expect(reasonOf(watched)).toBe("Expired");
      expect((watched as StatusError).message).toBe(`too old resource version: ${a1.modRevision} (${at})`);
    } finally {
      store.close();
    }
  });

  it("rejects a read at a revision etcd has not reached with 504 Timeout", async () => {
    const store = freshStore();
    try {
      const now = await store.revision();
      const error = await rejection(store.get("/registry/core/configmaps/default/x", { revision: now + 1000 }));
      expect(reasonOf(error)).toBe("Timeout");
      expect((error as StatusError).code).toBe(504);
    } finally {
      store.close();
    }
  });

  it("fails every call with a 503 or 504 StatusError when etcd cannot be reached", async () => {
    // A port nothing listens on: etcd's own client port, once that etcd is gone, is not needed.
    const store = new EtcdStore({ endpoints: ["http://127.0.0.1:1"], dialTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
    try {
      const started = Date.now();
      const calls: Promise<unknown>[] = [
        store.revision(),
        store.get("/registry/core/configmaps/default/a"),
        store.list("/registry/"),
        store.create("/registry/core/configmaps/default/a", {}),
        store.update("/registry/core/configmaps/default/a", {}, 1),
        store.delete("/registry/core/configmaps/default/a"),
        store.compact(1),
        store.watch("/registry/", 0, new AbortController().signal)[Symbol.asyncIterator]().next(),
      ].map(rejection);
      for (const call of calls) {
        const error = await call;
        expect(error).toBeInstanceOf(StatusError);
        expect([503, 504]).toContain((error as StatusError).code);
      }
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      store.close();
    }
  });

  describe("when etcd goes away while serving", () => {
    let own: EtcdCluster;

    beforeAll(async () => {
      own = await startEtcd();
    });

    afterAll(async () => {
      await own?.stop();
    });

    it("fails requests with 503/504, ends watches with an error, and serves again once etcd is back", async () => {
      const store = new EtcdStore({ endpoints: own.endpoints, dialTimeoutMs: 1_000, requestTimeoutMs: 3_000 });
      try {
        const a = await store.create("/registry/core/configmaps/default/a", { v: 1 });
        const it = store.watch("/registry/", a.modRevision, new AbortController().signal)[Symbol.asyncIterator]();
        const pending = rejection(it.next());
        const member = own.members[0]!;
        await member.stop();

        const watchError = await pending;
        expect(reasonOf(watchError)).toBe("ServiceUnavailable");
        expect(await it.next()).toMatchObject({ done: true });
        for (const call of [store.get(a.key), store.update(a.key, { v: 2 }, a.modRevision), store.revision()]) {
          const error = await rejection(call);
          expect([503, 504]).toContain((error as StatusError).code);
        }

        await member.start();
        // The client's circuit breaker may hold the host back for a few seconds: retry, bounded.
        let got;
        for (let i = 0; ; i++) {
          try {
            got = await store.get(a.key);
            break;
          } catch (error) {
            if (i > 100) throw error;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        expect(got).toEqual(a);
        const a2 = await store.update(a.key, { v: 2 }, a.modRevision);
        const events: StoreEvent[] = [];
        for await (const e of store.watch("/registry/", a.modRevision, new AbortController().signal)) {
          events.push(e);
          break;
        }
        expect(events[0]?.entry).toEqual(a2);
      } finally {
        store.close();
      }
    });
  });
});
