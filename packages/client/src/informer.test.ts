import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { Client } from "./client.js";
import { inProcessTransport } from "./in-process-transport.js";
import { Informer, type InformerTimers } from "./informer.js";
import { labelIndex, namespaceIndex, objectKey } from "./informer-indexer.js";
import { FakeServer, WatchFeed, json, failure, type Recorded } from "./internal/fake-server.js";

const cm = (name: string, rv: string): APIObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", resourceVersion: rv } });

/** Timers fired by hand. */
class ManualTimers implements InformerTimers {
  pending: { ms: number; fn: () => void }[] = [];
  setTimer(ms: number, fn: () => void): () => void {
    const t = { ms, fn };
    this.pending.push(t);
    return () => (this.pending = this.pending.filter((x) => x !== t));
  }
  fireAll(): void {
    const p = this.pending;
    this.pending = [];
    for (const t of p) t.fn();
  }
  /** Fires the pending timers of `ms` milliseconds. */
  fire(ms: number): void {
    const due = this.pending.filter((t) => t.ms === ms);
    this.pending = this.pending.filter((t) => t.ms !== ms);
    for (const t of due) t.fn();
  }
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(cond()).toBe(true);
};

function setup(state: { items: APIObject[]; rv: string }, feeds: WatchFeed[], onList?: (req: Recorded) => void) {
  const server = new FakeServer((req) => {
    if (req.query.get("watch") === "true") {
      const feed = new WatchFeed();
      feeds.push(feed);
      return feed.response(req.signal);
    }
    onList?.(req);
    return json(200, { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: state.rv }, items: state.items });
  });
  return { server, client: new Client({ transport: inProcessTransport(server) }) };
}

describe("Informer", () => {
  it("lists, syncs, then applies watch events from the list's version and reports them", async () => {
    const feeds: WatchFeed[] = [];
    const { server, client } = setup({ items: [cm("a", "5")], rv: "10" }, feeds);
    const informer = new Informer(client.configMaps, { namespace: "default", labelSelector: "x=y" });
    const log: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => log.push(`add ${objectKey(o)}`),
      onUpdate: (old, o) => log.push(`update ${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
      onDelete: (o) => log.push(`delete ${o.metadata.name}`),
    });
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    expect(log).toEqual(["add default/a"]);
    await until(() => feeds.length === 1);
    const watchReq = server.requests.find((r) => r.query.get("watch") === "true");
    expect(watchReq?.query.get("resourceVersion")).toBe("10");
    expect(watchReq?.query.get("labelSelector")).toBe("x=y");
    expect(watchReq?.query.get("allowWatchBookmarks")).toBe("true");
    feeds[0]?.push("ADDED", cm("b", "11"));
    feeds[0]?.push("MODIFIED", cm("a", "12"));
    feeds[0]?.push("DELETED", cm("b", "13"));
    feeds[0]?.push("BOOKMARK", { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: "20" } });
    await until(() => informer.lastSyncResourceVersion() === "20");
    expect(log).toEqual(["add default/a", "add default/b", "update 5->12", "delete b"]);
    expect(informer.list().map((o) => o.metadata.name)).toEqual(["a"]);
    expect(informer.get("default/a")?.metadata.resourceVersion).toBe("12");
    await informer.stop();
    expect(feeds[0]?.closed).toBe(true);
  });

  it("re-watches from the last version when the stream ends, and relists on 410 Expired with a diff", async () => {
    const feeds: WatchFeed[] = [];
    const state = { items: [cm("a", "5"), cm("b", "6")], rv: "10" };
    let lists = 0;
    const { server, client } = setup(state, feeds, () => lists++);
    const informer = new Informer(client.configMaps, { timers: new ManualTimers() });
    const log: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => log.push(`add ${o.metadata.name}`),
      onUpdate: (_, o) => log.push(`update ${o.metadata.name}`),
      onDelete: (o) => log.push(`delete ${o.metadata.name}`),
    });
    informer.start();
    await until(() => feeds.length === 1);
    feeds[0]?.push("MODIFIED", cm("a", "11"));
    feeds[0]?.end();
    await until(() => feeds.length === 2);
    expect(lists).toBe(1);
    expect(server.last.query.get("resourceVersion")).toBe("11");
    // Meanwhile b went away, c came and a changed: the relist reports exactly that.
    state.items = [cm("a", "30"), cm("c", "31")];
    state.rv = "40";
    feeds[1]?.push("ERROR", {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "Expired",
      code: 410,
      message: "too old resource version: 11 (25)",
    });
    await until(() => feeds.length === 3);
    expect(lists).toBe(2);
    expect(server.last.query.get("resourceVersion")).toBe("40");
    expect(log).toEqual(["add a", "add b", "update a", "update a", "add c", "delete b"]);
    expect(informer.list().map(objectKey).sort()).toEqual(["default/a", "default/c"]);
    await informer.stop();
  });

  it("backs off through the timer port after a failed list, reports the error, and retries", async () => {
    const timers = new ManualTimers();
    let fail = true;
    const feeds: WatchFeed[] = [];
    const server = new FakeServer((req) => {
      if (req.query.get("watch") === "true") {
        const feed = new WatchFeed();
        feeds.push(feed);
        return feed.response(req.signal);
      }
      return fail ? failure(503, "ServiceUnavailable", "not yet") : json(200, { metadata: { resourceVersion: "3" }, items: [cm("a", "2")] });
    });
    const errors: unknown[] = [];
    const informer = new Informer(new Client({ transport: inProcessTransport(server) }).configMaps, {
      timers,
      initialBackoffMs: 100,
      maxBackoffMs: 150,
      onError: (e) => errors.push(e),
    });
    informer.start();
    await until(() => timers.pending.length === 1);
    expect(timers.pending[0]?.ms).toBe(100);
    timers.fireAll();
    await until(() => timers.pending.length === 1);
    expect(timers.pending[0]?.ms).toBe(150);
    expect(errors).toHaveLength(2);
    fail = false;
    timers.fireAll();
    await informer.waitForSync();
    expect(informer.list()).toHaveLength(1);
    await informer.stop();
    expect(timers.pending).toHaveLength(0);
  });
});

const labeled = (name: string, rv: string, namespace: string, labels: Record<string, string>): APIObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, resourceVersion: rv, labels },
});
const expiredEvent = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "Expired", code: 410, message: "too old resource version" };
const names = (objects: APIObject[]) => objects.map((o) => o.metadata.name).sort();

describe("Informer resyncs", () => {
  it("calls onUpdate(old, obj) with old === obj for every cached object each period, per handler, until stopped", async () => {
    const timers = new ManualTimers();
    const feeds: WatchFeed[] = [];
    const { client } = setup({ items: [cm("a", "5"), cm("b", "6")], rv: "10" }, feeds);
    const informer = new Informer(client.configMaps, { timers, resyncPeriodMs: 5000 });
    const byDefault: string[] = [];
    const never: string[] = [];
    const slow: string[] = [];
    const record = (log: string[]) => ({ onUpdate: (old: APIObject, o: APIObject) => log.push(`${o.metadata.name ?? ""} ${String(old === o)}`) });
    const removeDefault = informer.addEventHandler(record(byDefault));
    informer.addEventHandler(record(never), { resyncPeriodMs: 0 });
    informer.addEventHandler(record(slow), { resyncPeriodMs: 7000 });
    expect(timers.pending).toHaveLength(0); // nothing runs before start
    informer.start();
    await informer.waitForSync();
    await until(() => feeds.length === 1);
    expect(timers.pending.map((t) => t.ms).sort()).toEqual([5000, 7000]);
    timers.fire(5000);
    expect(byDefault).toEqual(["a true", "b true"]);
    expect(slow).toEqual([]);
    timers.fire(7000);
    expect(slow).toEqual(["a true", "b true"]);
    // Each resync schedules the next; an event in between is an ordinary update, not a resync.
    feeds[0]?.push("MODIFIED", cm("a", "11"));
    await until(() => byDefault.length === 3);
    expect(byDefault[2]).toBe("a false");
    timers.fire(5000);
    expect(byDefault.slice(3)).toEqual(["a true", "b true"]);
    expect(never).toEqual(["a false"]);
    removeDefault();
    expect(timers.pending.map((t) => t.ms)).toEqual([7000]);
    await informer.stop();
    expect(timers.pending).toHaveLength(0);
  });

  it("rejects a negative resync period", () => {
    const { client } = setup({ items: [], rv: "1" }, []);
    expect(() => new Informer(client.configMaps, { resyncPeriodMs: -1 })).toThrow(RangeError);
    expect(() => new Informer(client.configMaps).addEventHandler({}, { resyncPeriodMs: Number.NaN })).toThrow(RangeError);
  });
});

describe("Informer indexes", () => {
  it("keeps the namespace index and added label indexes current on add, update, delete and relist", async () => {
    const feeds: WatchFeed[] = [];
    const state = { items: [labeled("a", "1", "x", { app: "web" }), labeled("b", "2", "y", { app: "db" }), labeled("c", "3", "x", {})], rv: "10" };
    const { client } = setup(state, feeds);
    const informer = new Informer(client.configMaps, { timers: new ManualTimers() });
    informer.addIndexers({ app: labelIndex("app") });
    expect(() => informer.addIndexers({ app: labelIndex("app") })).toThrow(/already exists/);
    expect(() => informer.addIndexers({ [namespaceIndex]: labelIndex("ns") })).toThrow(/already exists/);
    informer.start();
    await informer.waitForSync();
    expect(names(informer.byIndex("app", "web"))).toEqual(["a"]);
    expect(informer.indexKeys(namespaceIndex, "x").sort()).toEqual(["x/a", "x/c"]);
    expect(informer.byIndex("app", "nothing")).toEqual([]);
    expect(() => informer.byIndex("tier", "front")).toThrow(/no index named "tier"/);

    // Added after the sync: filled from the cache at once.
    informer.addIndexers({ tier: labelIndex("tier") });
    expect(informer.byIndex("tier", "front")).toEqual([]);

    await until(() => feeds.length === 1);
    feeds[0]?.push("ADDED", labeled("d", "11", "y", { app: "web", tier: "front" }));
    feeds[0]?.push("MODIFIED", labeled("a", "12", "x", { app: "db" }));
    feeds[0]?.push("DELETED", labeled("b", "13", "y", { app: "db" }));
    await until(() => informer.lastSyncResourceVersion() === "13");
    expect(names(informer.byIndex("app", "web"))).toEqual(["d"]);
    expect(names(informer.byIndex("app", "db"))).toEqual(["a"]);
    expect(informer.indexKeys("tier", "front")).toEqual(["y/d"]);
    expect(informer.indexKeys(namespaceIndex, "y")).toEqual(["y/d"]);

    // A relist after 410: d went away, c got a label, e came.
    state.items = [labeled("a", "12", "x", { app: "db" }), labeled("c", "20", "x", { app: "web" }), labeled("e", "21", "z", { tier: "front" })];
    state.rv = "30";
    feeds[0]?.push("ERROR", expiredEvent);
    await until(() => feeds.length === 2);
    expect(names(informer.byIndex("app", "web"))).toEqual(["c"]);
    expect(informer.indexKeys("tier", "front")).toEqual(["z/e"]);
    expect(informer.indexKeys(namespaceIndex, "y")).toEqual([]);
    expect(informer.indexKeys(namespaceIndex, "x").sort()).toEqual(["x/a", "x/c"]);
    await informer.stop();
  });
});

describe("Informer relists on 410", () => {
  it("relists at once after a 410, and backs off (doubling) while the watch of each fresh list expires again", async () => {
    const timers = new ManualTimers();
    const feeds: WatchFeed[] = [];
    const { server, client } = setup({ items: [cm("a", "5")], rv: "10" }, feeds);
    const errors: unknown[] = [];
    const informer = new Informer(client.configMaps, { timers, initialBackoffMs: 100, maxBackoffMs: 1000, onError: (e) => errors.push(e) });
    const calls = () => server.requests.map((r) => (r.query.get("watch") === "true" ? "watch" : "list"));
    informer.start();
    await until(() => feeds.length === 1);
    // An expiry after progress: relist at once.
    feeds[0]?.push("ERROR", expiredEvent);
    await until(() => feeds.length === 2);
    expect(calls()).toEqual(["list", "watch", "list", "watch"]);
    expect(timers.pending).toHaveLength(0);
    // The watch of that fresh list expires at once: back off before the next relist, and say why.
    feeds[1]?.push("ERROR", expiredEvent);
    await until(() => timers.pending.length === 1);
    expect(calls()).toEqual(["list", "watch", "list", "watch"]);
    expect(timers.pending[0]?.ms).toBe(100);
    expect(errors).toMatchObject([{ code: 410, reason: "Expired" }]);
    timers.fireAll();
    await until(() => feeds.length === 3);
    feeds[2]?.push("ERROR", expiredEvent);
    await until(() => timers.pending.length === 1);
    expect(timers.pending[0]?.ms).toBe(200);
    expect(calls()).toEqual(["list", "watch", "list", "watch", "list", "watch"]);
    timers.fireAll();
    await until(() => feeds.length === 4);
    // This watch makes progress before it expires: the next relist is at once again.
    feeds[3]?.push("ADDED", cm("b", "11"));
    feeds[3]?.push("ERROR", expiredEvent);
    await until(() => feeds.length === 5);
    expect(calls()).toEqual(["list", "watch", "list", "watch", "list", "watch", "list", "watch", "list", "watch"]);
    expect(timers.pending).toHaveLength(0);
    await informer.stop();
  });

  it("treats a 410 answer to the watch request like an Expired event", async () => {
    const timers = new ManualTimers();
    const log: string[] = [];
    const server = new FakeServer((req) => {
      if (req.query.get("watch") === "true") {
        log.push("watch");
        return failure(410, "Expired", "too old resource version");
      }
      log.push("list");
      return json(200, { metadata: { resourceVersion: "3" }, items: [] });
    });
    const informer = new Informer(new Client({ transport: inProcessTransport(server) }).configMaps, { timers, initialBackoffMs: 100 });
    informer.start();
    await until(() => timers.pending.length === 1);
    expect(log).toEqual(["list", "watch", "list", "watch"]);
    await informer.stop();
  });
});

describe("Informer handlers and sync", () => {
  it("replays the cache to onAdd of a handler added after the sync, then reports events to it", async () => {
    const feeds: WatchFeed[] = [];
    const { client } = setup({ items: [cm("a", "5"), cm("b", "6")], rv: "10" }, feeds);
    const informer = new Informer(client.configMaps, { timers: new ManualTimers() });
    informer.start();
    await informer.waitForSync();
    const log: string[] = [];
    informer.addEventHandler({ onAdd: (o) => log.push(`add ${o.metadata.name ?? ""}`), onUpdate: (_, o) => log.push(`update ${o.metadata.name ?? ""}`) });
    expect(log).toEqual(["add a", "add b"]);
    await until(() => feeds.length === 1);
    feeds[0]?.push("MODIFIED", cm("b", "11"));
    await until(() => log.length === 3);
    expect(log[2]).toBe("update b");
    await informer.stop();
  });

  it("rejects waitForSync when the informer stops before it synced, or the signal aborts", async () => {
    const timers = new ManualTimers();
    const server = new FakeServer(() => failure(503, "ServiceUnavailable", "not yet"));
    const informer = new Informer(new Client({ transport: inProcessTransport(server) }).configMaps, { timers });
    const beforeStart = informer.waitForSync();
    informer.start();
    const controller = new AbortController();
    const aborted = informer.waitForSync(controller.signal);
    controller.abort(new Error("gave up"));
    await expect(aborted).rejects.toThrow("gave up");
    await expect(informer.waitForSync(AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
    await until(() => timers.pending.length === 1);
    const pending = informer.waitForSync();
    await informer.stop();
    await expect(beforeStart).rejects.toThrow(/stopped before it synced/);
    await expect(pending).rejects.toThrow(/stopped before it synced/);
    await expect(informer.waitForSync()).rejects.toThrow(/stopped before it synced/);
    expect(informer.hasSynced()).toBe(false);
  });

  it("resolves waitForSync after a sync even once stopped, and reports the list's resourceVersion", async () => {
    const { client } = setup({ items: [cm("a", "5")], rv: "10" }, []);
    const informer = new Informer(client.configMaps, { timers: new ManualTimers() });
    expect(informer.lastSyncResourceVersion()).toBe("");
    informer.start();
    await informer.waitForSync(AbortSignal.timeout(5000));
    expect(informer.lastSyncResourceVersion()).toBe("10");
    await informer.stop();
    await expect(informer.waitForSync()).resolves.toBeUndefined();
    expect(informer.hasSynced()).toBe(true);
  });
});
