/**
 * Informers: a local copy of a collection, kept current by a list and then a watch, with
 * handlers for every change and indexes over the copy. `SharedInformers` hands every caller of
 * one resource the same informer, as the controllers of `@orch/controllers` share theirs.
 * @module
 */
import { Client, configMapsRef, inProcessTransport, Informer, labelIndex, SharedInformers } from "@orch/client";
import { APIServer } from "@orch/server";

/** A promise and the function that resolves it once `ready()` is true: waits on events, not on time. */
function when(ready: () => boolean): { done: Promise<void>; check: () => void } {
  let resolve = () => {};
  const done = new Promise<void>((r) => (resolve = r));
  const check = () => {
    if (ready()) resolve();
  };
  return { done, check };
}

/** What {@link informer} returns: the names under each value of the `app` index. */
export interface InformerResult {
  web: string[];
  db: string[];
  /** What a late handler of the shared informer was replayed, by name. */
  replayed: string[];
}

/** Watches the ConfigMaps of `default` with an index by label `app`, and reads it after a few creates. */
export async function informer(log: (line: string) => void = console.log): Promise<InformerResult> {
  const server = new APIServer();
  const client = new Client({ transport: inProcessTransport(server) });
  const configMaps = new Informer(client.configMaps, { namespace: "default", resyncPeriodMs: 10 * 60_000 });
  configMaps.addIndexers({ app: labelIndex("app") });
  const changes: string[] = [];
  const settled = when(() => changes.length === 4);
  configMaps.addEventHandler({
    onAdd: (cm) => (changes.push(`added ${cm.metadata.name}`), settled.check()),
    onUpdate: (old, cm) => (changes.push(`${cm.metadata.name}: app ${old.metadata.labels?.["app"]} -> ${cm.metadata.labels?.["app"]}`), settled.check()),
    onDelete: (cm) => changes.push(`deleted ${cm.metadata.name}`),
  });
  configMaps.start();
  await configMaps.waitForSync();

  const ns = { namespace: "default" };
  await client.configMaps.create({ metadata: { name: "frontend", labels: { app: "web" } } }, ns);
  await client.configMaps.create({ metadata: { name: "assets", labels: { app: "web" } } }, ns);
  await client.configMaps.create({ metadata: { name: "schema", labels: { app: "db" } } }, ns);
  await client.configMaps.patch("assets", { metadata: { labels: { app: "db" } } }, "merge", ns);
  await settled.done; // the handler has seen the three adds and the update
  log(changes.join("; "));

  const names = (app: string) =>
    configMaps
      .byIndex("app", app)
      .map((cm) => cm.metadata.name ?? "")
      .sort();
  const result: InformerResult = { web: names("web"), db: names("db"), replayed: [] };
  log(`app=web: ${result.web.join(", ")}; app=db: ${result.db.join(", ")}`);
  await configMaps.stop();

  // One informer per resource, whoever asks; a handler that joins late is replayed the cache.
  const informers = new SharedInformers(client);
  const shared = informers.informerFor(configMapsRef);
  informers.start();
  await informers.waitForSync();
  informers.addEventHandler(configMapsRef, { onAdd: (cm) => result.replayed.push(cm.metadata.name ?? "") });
  result.replayed.sort();
  log(
    `shared: ${informers.informerFor(configMapsRef) === shared ? "one informer" : "two informers"} for configmaps; a late handler was replayed ${result.replayed.length} objects`,
  );
  await informers.stop();
  await server.shutdown();
  return result;
}
