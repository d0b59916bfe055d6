/**
 * The quickstart: an in-memory store, a paged list with a label selector, and a watch that
 * starts where the list ended, all with the semantics of the reference API server.
 * Run it with `npx -y pnpm@10 start`.
 * @module
 */
import { parseLabelSelector, type APIObject } from "@orch/meta";
import { listChunk, openWatch, planRead } from "@orch/list";
import { MemoryStore, systemClock } from "@orch/store";
import { pathToFileURL } from "node:url";

const prefix = "/registry/core/configmaps/default/";

/** Writes a few ConfigMaps, lists the `tier=web` ones two per page, then watches for changes. */
export async function main(log: (line: string) => void = console.log): Promise<string[]> {
  const store = new MemoryStore();
  const clock = systemClock;
  for (const [name, tier] of [
    ["a", "web"],
    ["b", "db"],
    ["c", "web"],
    ["d", "web"],
  ] as const) {
    await store.create(prefix + name, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { tier } } });
  }

  // A paged list: every page is read at the revision of the first one.
  const selector = parseLabelSelector("tier=web");
  const predicate = (entry: { value: object }) => selector.matches((entry.value as APIObject).metadata.labels);
  const seen: string[] = [];
  let token = "";
  let listedAt: number;
  do {
    const plan = planRead("list", { limit: 2, ...(token ? { continue: token } : {}) });
    const page = await listChunk(store, prefix, plan, { limit: 2, predicate, clock });
    for (const entry of page.entries) seen.push((entry.value as APIObject).metadata.name ?? "");
    log(`page at resourceVersion ${page.resourceVersion}: ${page.entries.map((e) => e.key.slice(prefix.length)).join(", ")}`);
    token = page.continue;
    listedAt = page.resourceVersion;
  } while (token);

  // Watch from the list's resourceVersion: exactly the changes after it, nothing twice.
  const controller = new AbortController();
  const watch = openWatch(store, prefix, planRead("watch", { resourceVersion: String(listedAt) }), {
    predicate,
    clock,
    signal: controller.signal,
  });
  const current = await store.get(prefix + "b");
  if (current) await store.update(prefix + "b", { ...current.value, metadata: { name: "b", labels: { tier: "web" } } }, current.modRevision);
  for await (const event of watch) {
    if (event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED") {
      log(`watch: ${event.type} ${event.entry.key.slice(prefix.length)} at ${event.entry.modRevision}`);
      seen.push((event.entry.value as APIObject).metadata.name ?? "");
      controller.abort();
    }
  }
  store.close();
  return seen;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
