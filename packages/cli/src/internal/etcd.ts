/**
 * The etcd side of `orch-apiserver`: an `EtcdStore` from the `--etcd-*` flags, checked to answer
 * before the server starts (unless `--etcd-wait-at-start`), and the compaction timer of
 * `--etcd-compaction-interval`.
 * @module
 */
import { readFile } from "node:fs/promises";
import { EtcdStore, type EtcdStoreOptions } from "@orch/store-etcd";
import type { Flags } from "../flags.js";

/** How long start-up waits for etcd to answer before giving up. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * An `EtcdStore` for the flags, once etcd has answered; with `--etcd-wait-at-start` at once,
 * whether etcd answers or not.
 * @throws Error with a message naming the endpoints when a TLS file cannot be read or (without
 *   `--etcd-wait-at-start`) etcd does not answer within 5 seconds.
 */
export async function openEtcdStore(flags: Flags): Promise<EtcdStore> {
  const options: EtcdStoreOptions = { endpoints: flags.etcdServers, prefix: flags.etcdPrefix };
  if (flags.etcdCAFile !== undefined) {
    const read = (path: string, flag: string) =>
      readFile(path).catch((error: unknown) => {
        throw new Error(`cannot read --${flag} ${path}: ${(error as Error).message}`, { cause: error });
      });
    options.tls = { ca: await read(flags.etcdCAFile, "etcd-cafile") };
    if (flags.etcdCertFile !== undefined) options.tls.cert = await read(flags.etcdCertFile, "etcd-certfile");
    if (flags.etcdKeyFile !== undefined) options.tls.key = await read(flags.etcdKeyFile, "etcd-keyfile");
  }
  if (!flags.etcdWaitAtStart) {
    const store = new EtcdStore({ ...options, dialTimeoutMs: CONNECT_TIMEOUT_MS });
    try {
      await store.connect();
    } catch (error) {
      throw unreachable(flags, error);
    } finally {
      store.close();
    }
  }
  // The serving store bounds its health probe (`/readyz` check `etcd`) tighter than start-up.
  return new EtcdStore({ ...options, dialTimeoutMs: 2_000 });
}

/**
 * The error of an etcd that did not answer: it names the endpoints, and the TLS flags when TLS
 * is what failed (etcd refused the client certificate, or its own did not verify).
 */
export function unreachable(flags: Flags, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const hint = /certificate/i.test(message) ? " (check --etcd-cafile, --etcd-certfile and --etcd-keyfile)" : "";
  return new Error(`cannot reach etcd at ${flags.etcdServers.join(",")}: ${message}${hint}`, { cause: error });
}

/**
 * Compacts etcd every `intervalMs`: each tick compacts to the revision read at the tick before,
 * so history older than one interval goes (as the reference server's compactor does). Several
 * servers over one etcd may each run it: compacting to an already compacted revision is a no-op.
 * Failures are reported to `onError` and retried on the next tick. Returns the stop function.
 */
export function startCompactor(store: EtcdStore, intervalMs: number, onError: (error: unknown) => void): () => void {
  if (!(intervalMs > 0)) return () => undefined;
  let last = 0;
  let busy = false;
  const tick = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      const now = await store.revision();
      if (last > 0) await store.compact(last);
      last = now;
    } catch (error) {
      onError(error);
    } finally {
      busy = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
