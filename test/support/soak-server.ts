/**
 * The server process of the soak test: runs the `orch-apiserver` command (its SQLite store, its
 * in-process controllers, HTTPS on a free loopback port) with the data dir given as the first
 * argument, forked with an IPC channel and `--expose-gc`, and answers the test's questions about
 * itself over that channel.
 *
 * Messages from the parent: `{ type: "probe", id }` answers `{ type: "probe", id, probe }` (a
 * {@link SoakProbe}, taken after a forced collection); `{ type: "stop" }` stops the server,
 * then the process says `{ type: "exited", code }` and leaves. When ready it says
 * `{ type: "ready", url }`; a failed start says `{ type: "exited", code }` with stderr written.
 * @module
 */
import { readFileSync } from "node:fs";
import { runAPIServer } from "@orch/cli";
import { APIServer } from "@orch/server";
import type { Store } from "@orch/store";

/** What the server process reports about itself. */
export interface SoakProbe {
  /** Resident set size, in bytes. */
  rss: number;
  /** V8 heap in use after a forced collection, in bytes. */
  heapUsed: number;
  /** V8 heap committed, in bytes. */
  heapTotal: number;
  /** Memory of buffers and other objects outside the V8 heap, in bytes. */
  external: number;
  /**
   * Resident memory by kind, in bytes, from `/proc/self/status` (Linux; absent elsewhere):
   * anonymous (heaps, malloc), file-backed, and shared (SQLite's WAL index).
   */
  rssParts?: { anon: number; file: number; shmem: number };
  /** `process.getActiveResourcesInfo()` counted by type (`Timeout`, `TCPSocketWrap`, ...). */
  resources: Record<string, number>;
  /** Watchers the server's watch cache serves (0 when it has none). */
  cacheWatchers: number;
  /** The revision the watch cache has reached (-1 when the server has none). */
  cacheRevision: number;
  /** The newest revision of the store under the cache. */
  storeRevision: number;
}

/** A message of the server process to the test. */
export type SoakServerMessage = { type: "ready"; url: string } | { type: "probe"; id: number; probe: SoakProbe } | { type: "exited"; code: number };

/** A message of the test to the server process. */
export type SoakParentMessage = { type: "probe"; id: number } | { type: "stop" };

const dataDir = process.argv[2];
if (dataDir === undefined || process.send === undefined) throw new Error("usage: fork soak-server.ts <data-dir> with an IPC channel");
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("soak-server.ts needs --expose-gc");
const send = (message: SoakServerMessage): void => void process.send?.(message);

let server: APIServer | undefined;
const abort = new AbortController();

/** `RssAnon`, `RssFile` and `RssShmem` of `/proc/self/status`, when there is one. */
function rssParts(): { rssParts: NonNullable<SoakProbe["rssParts"]> } | Record<string, never> {
  let status: string;
  try {
    status = readFileSync("/proc/self/status", "utf8");
  } catch {
    return {};
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { rssParts: { anon: kib("RssAnon"), file: kib("RssFile"), shmem: kib("RssShmem") } };
}

async function probe(): Promise<SoakProbe> {
  const cache = server?.store as { watcherCount?: unknown; revisionOf?: (key: string) => number | undefined; upstream?: Store } | undefined;
  const storeRevision = (await (cache?.upstream ?? server?.store)?.revision()) ?? 0;
  gc!();
  const resources: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) resources[type] = (resources[type] ?? 0) + 1;
  const memory = process.memoryUsage();
  return {
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    ...rssParts(),
    resources,
    cacheWatchers: typeof cache?.watcherCount === "number" ? cache.watcherCount : 0,
    cacheRevision: cache?.revisionOf?.("/registry/") ?? -1,
    storeRevision,
  };
}

process.on("message", (message: SoakParentMessage) => {
  if (message.type === "probe") void probe().then((answer) => send({ type: "probe", id: message.id, probe: answer }));
  else abort.abort();
});
// The parent went away without a stop: do not outlive it.
process.on("disconnect", () => abort.abort());

const code = await runAPIServer(["--secure-port", "0", "--bind-address", "127.0.0.1", "--data-dir", dataDir], {
  stdout: { write: () => true },
  stderr: process.stderr,
  signal: abort.signal,
  createServer: (options) => (server = new APIServer(options)),
  onReady: ({ url }) => send({ type: "ready", url }),
});
// Whatever the server leaves running (it should be nothing) must not keep the process alive.
if (process.connected) process.send({ type: "exited", code } satisfies SoakServerMessage, () => process.exit(code));
else process.exit(code);
