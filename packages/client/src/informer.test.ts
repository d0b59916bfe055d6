import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { Client } from "./client.js";
import { inProcessTransport } from "./in-process-transport.js";
import { Informer, objectKey, type InformerTimers } from "./informer.js";
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
    await until(() => informer.resourceVersion === "20");
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
    informer.addEventHandler({ onAdd: (o) => log.push(`add ${o.metadata.name}`), onUpdate: (_, o) => log.push(`update ${o.metadata.name}`), onDelete: (o) => log.push(`delete ${o.metadata.name}`) });
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
    feeds[1]?.push("ERROR", { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "Expired", code: 410, message: "too old resource version: 11 (25)" });
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
