import { Client, inProcessTransport, Informer } from "@orch/client";
import { startInProcessControllers } from "@orch/controllers";
import { conflict, isConflict, isExpired, isInternalError, isNotFound, isServiceUnavailable, isTooManyRequests, serviceUnavailable } from "@orch/meta";
import { APIServer } from "@orch/server";
import { FakeClock, MemoryStore } from "@orch/store";
import { describeStoreConformance } from "@orch/store/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventually, FaultyStore, FaultyTransport, freshServer, main, type TestServer } from "./main.js";

const ns = { namespace: "default" };

describe("testing example", () => {
  it("retries a patch past a store conflict and hands a store 503 to the caller", async () => {
    const lines: string[] = [];
    expect(await main((l) => lines.push(l))).toEqual({ data: { mode: "safe" }, updates: 2 });
    expect(lines).toEqual(["patched after 2 store updates: mode=safe", "patch refused: 503 ServiceUnavailable"]);
  });
});

// #region fresh-server
describe("a fresh server per test", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await freshServer();
  });
  afterEach(() => t.close());

  it("starts empty, so this test sees only its own objects", async () => {
    await t.client.configMaps.create({ metadata: { name: "settings" }, data: { mode: "fast" } }, ns);
    const page = await t.client.configMaps.list(ns);
    expect(page.items.map((cm) => cm.metadata.name)).toEqual(["settings"]);
  });

  it("answers a missing object with a 404 Status error", async () => {
    const error = await t.client.configMaps.get("missing", ns).catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
  });

  it("refuses an update from a stale read with a 409 Conflict", async () => {
    const created = await t.client.configMaps.create({ metadata: { name: "settings" }, data: { mode: "fast" } }, ns);
    await t.client.configMaps.patch("settings", { data: { mode: "safe" } }, "merge", ns);
    const error = await t.client.configMaps.update({ ...created, data: { mode: "stale" } }).catch((e: unknown) => e);
    expect(isConflict(error)).toBe(true);
  });
});
// #endregion fresh-server

// #region fake-clock
describe("time from a FakeClock", () => {
  it("forgets history older than the five-minute window once the clock has moved", async () => {
    const clock = new FakeClock();
    const t = await freshServer({ clock }); // the server's MemoryStore runs on the same clock
    const created = await t.client.configMaps.create({ metadata: { name: "settings" } }, ns);
    await t.client.configMaps.patch("settings", { data: { mode: "safe" } }, "merge", ns);
    const old = { ...ns, resourceVersion: created.metadata.resourceVersion ?? "", resourceVersionMatch: "Exact" as const };
    expect((await t.client.configMaps.list(old)).items).toHaveLength(1); // still in the window

    clock.advance(6 * 60_000); // fires the store's compaction: no sleeping
    const error = await t.client.configMaps.list(old).catch((e: unknown) => e);
    expect(isExpired(error)).toBe(true); // 410: the client must list again
    await t.close();
  });
});
// #endregion fake-clock

// #region controllers
describe("the control loops beside the server", () => {
  let t: TestServer;
  let controllers: ReturnType<typeof startInProcessControllers>;
  beforeEach(async () => {
    t = await freshServer();
    controllers = startInProcessControllers(t.server);
  });
  afterEach(async () => {
    await controllers.stop();
    await t.close();
  });

  it("gives a new namespace its default ServiceAccount, and empties and removes a deleted one", async () => {
    await t.client.namespaces.create({ metadata: { name: "team-a" } });
    await eventually(() =>
      t.client.serviceAccounts.get("default", { namespace: "team-a" }).then(
        () => true,
        () => false,
      ),
    );
    await t.client.configMaps.create({ metadata: { name: "settings" } }, { namespace: "team-a" });

    await t.client.namespaces.delete("team-a");
    await eventually(() =>
      t.client.namespaces.get("team-a").then(
        () => false,
        (e: unknown) => isNotFound(e),
      ),
    );
    const error = await t.client.configMaps.get("settings", { namespace: "team-a" }).catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
  });
});
// #endregion controllers

// #region faulty-store
describe("faults from the store", () => {
  let store: FaultyStore;
  let t: TestServer;
  beforeEach(async () => {
    store = new FaultyStore(new MemoryStore());
    t = await freshServer({ store, watchCache: false }); // a store that is not a MemoryStore would get a watch cache
    await t.client.configMaps.create({ metadata: { name: "settings" }, data: { mode: "fast" } }, ns);
  });
  afterEach(() => t.close());

  it("retries a patch whose store update lost a race", async () => {
    store.failNext("update", conflict({ group: "", resource: "configmaps" }, "settings"));
    const patched = await t.client.configMaps.patch("settings", { data: { mode: "safe" } }, "merge", ns);
    expect(patched.data).toEqual({ mode: "safe" });
  });

  it("answers 503 while the store cannot be reached, and serves again after", async () => {
    store.failNext("update", serviceUnavailable("etcd is unreachable"));
    const error = await t.client.configMaps.patch("settings", { data: { mode: "safe" } }, "merge", ns).catch((e: unknown) => e);
    expect(isServiceUnavailable(error)).toBe(true);
    expect((await t.client.configMaps.patch("settings", { data: { mode: "safe" } }, "merge", ns)).data).toEqual({ mode: "safe" });
  });
});
// #endregion faulty-store

// #region faulty-transport
describe("faults between client and server", () => {
  let server: APIServer;
  let transport: FaultyTransport;
  let client: Client;
  beforeEach(() => {
    server = new APIServer();
    transport = new FaultyTransport(inProcessTransport(server));
    client = new Client({ transport });
  });
  afterEach(() => server.shutdown());

  it("throws the Status of a 500 and of a 429, with its Retry-After", async () => {
    transport.answerNext(500, "InternalError", "Internal error occurred: boom");
    expect(isInternalError(await client.configMaps.list(ns).catch((e: unknown) => e))).toBe(true);

    transport.answerNext(429, "TooManyRequests", "slow down", 2);
    const error = await client.configMaps.list(ns).catch((e: unknown) => e);
    expect(isTooManyRequests(error)).toBe(true);
    expect(isTooManyRequests(error) && error.status.details?.retryAfterSeconds).toBe(2);
  });

  it("keeps an informer current across a dropped watch", async () => {
    transport.dropNextWatch();
    const informer = new Informer(client.configMaps, { ...ns, initialBackoffMs: 1 });
    informer.start();
    await informer.waitForSync();
    await client.configMaps.create({ metadata: { name: "late" } }, ns);
    await eventually(async () => informer.list().some((cm) => cm.metadata.name === "late"));
    const watches = transport.requests.filter((r) => r.query?.get("watch") === "true");
    expect(watches.length).toBeGreaterThanOrEqual(2); // the informer watched again
    await informer.stop();
  });
});
// #endregion faulty-transport

// #region conformance
// A Store of your own passes the suite every store passes; here, the FaultyStore above.
describeStoreConformance("FaultyStore", async () => {
  const inner = new MemoryStore();
  return { store: new FaultyStore(inner), cleanup: async () => inner.close() };
});
// #endregion conformance
