/**
 * Testing with orch: the helpers a test suite of an orch user needs, and a short tour of them.
 * `main.test.ts` beside this file is the suite the testing guide quotes: a fresh in-process
 * server per test, a `FakeClock` driving time, the control loops beside the server, faults
 * injected through a `Store` wrapper and through a client `Transport` wrapper.
 * @module
 */
import { Client, inProcessTransport, type Transport, type TransportRequest, type TransportResponse } from "@orch/client";
import { conflict, isServiceUnavailable, serviceUnavailable, type StatusError } from "@orch/meta";
import { APIServer, type APIServerOptions } from "@orch/server";
import { MemoryStore, type Entry, type GetOptions, type ListOptions, type ListResult, type Store, type StoreEvent } from "@orch/store";
import { pathToFileURL } from "node:url";

/** A server and a client on it, for one test; `close()` shuts the server down. */
export interface TestServer {
  server: APIServer;
  client: Client;
  close(): Promise<void>;
}

/**
 * A new `APIServer` (a fresh `MemoryStore` unless `options.store` says otherwise) and a client
 * talking to it in-process, with no socket: one per test, so tests share no state.
 */
export async function freshServer(options: APIServerOptions = {}): Promise<TestServer> {
  const server = new APIServer(options);
  await server.ready();
  const client = new Client({ transport: inProcessTransport(server) });
  return { server, client, close: () => server.shutdown() };
}

/** The `Store` methods a {@link FaultyStore} can make fail. */
export type StoreOperation = "get" | "list" | "create" | "update" | "delete";

/**
 * A `Store` that passes every call to `inner`, except that the next call of an operation fails
 * with the error {@link FaultyStore.failNext} armed it with: a `Conflict` as a concurrent writer
 * would cause, a 503 as a lost etcd would. `calls` counts the calls of each operation.
 */
export class FaultyStore implements Store {
  readonly calls: Record<StoreOperation, number> = { get: 0, list: 0, create: 0, update: 0, delete: 0 };
  readonly #faults = new Map<StoreOperation, StatusError[]>();

  constructor(readonly inner: Store = new MemoryStore()) {}

  /** Makes the next call of `operation` throw `error` (once per call of this method). */
  failNext(operation: StoreOperation, error: StatusError): void {
    this.#faults.set(operation, [...(this.#faults.get(operation) ?? []), error]);
  }

  #enter(operation: StoreOperation): void {
    this.calls[operation]++;
    const error = this.#faults.get(operation)?.shift();
    if (error) throw error;
  }

  async get(key: string, opts?: GetOptions): Promise<Entry | undefined> {
    this.#enter("get");
    return this.inner.get(key, opts);
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    this.#enter("list");
    return this.inner.list(prefix, opts);
  }

  async create(key: string, value: object): Promise<Entry> {
    this.#enter("create");
    return this.inner.create(key, value);
  }

  async update(key: string, value: object, expectModRevision: number): Promise<Entry> {
    this.#enter("update");
    return this.inner.update(key, value, expectModRevision);
  }

  async delete(key: string, expectModRevision?: number): Promise<Entry> {
    this.#enter("delete");
    return this.inner.delete(key, expectModRevision);
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<StoreEvent> {
    return this.inner.watch(prefix, fromRevision, signal);
  }

  revision(): Promise<number> {
    return this.inner.revision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
}

/**
 * A client `Transport` that passes every request to `inner`, except the faults armed: answer
 * the next request with an error Status (a 500, a 429 with `Retry-After`), or cut the next watch
 * stream short, as a proxy or a restarted server would. `requests` records what was sent.
 */
export class FaultyTransport implements Transport {
  readonly requests: TransportRequest[] = [];
  readonly #answers: { code: number; reason: string; message: string; retryAfterSeconds?: number }[] = [];
  #dropWatches = 0;

  constructor(readonly inner: Transport) {}

  /** Answers the next request with a Failure Status of `code` and `reason`, without sending it. */
  answerNext(code: number, reason: string, message: string, retryAfterSeconds?: number): void {
    this.#answers.push({ code, reason, message, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) });
  }

  /** Ends the next watch stream at once, before its first event, as a dropped connection does. */
  dropNextWatch(): void {
    this.#dropWatches++;
  }

  async request(request: TransportRequest): Promise<TransportResponse> {
    this.requests.push(request);
    const answer = this.#answers.shift();
    if (answer) {
      const { code, reason, message, retryAfterSeconds } = answer;
      const details = retryAfterSeconds === undefined ? {} : { details: { retryAfterSeconds } };
      const body = JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code, ...details });
      const headers = new Headers({ "content-type": "application/json" });
      if (retryAfterSeconds !== undefined) headers.set("retry-after", String(retryAfterSeconds));
      return {
        status: code,
        headers,
        text: async () => body,
        lines: async function* () {
          yield body;
        },
      };
    }
    const response = await this.inner.request(request);
    if (request.query?.get("watch") !== "true" || this.#dropWatches === 0) return response;
    this.#dropWatches--;
    return { status: response.status, headers: response.headers, text: async () => "", lines: async function* () {} };
  }
}

/**
 * Polls `check` every `intervalMs` until it returns true, or fails after `timeoutMs`: for what
 * the control loops do after a request has been answered (they run on real timers).
 */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * A short tour: a store that refuses one update with a conflict, which the server retries, and
 * one with a 503, which reaches the caller.
 */
export async function main(log: (line: string) => void = console.log): Promise<{ data: Record<string, string>; updates: number }> {
  const store = new FaultyStore();
  const { client, close } = await freshServer({ store, watchCache: false });
  const ns = { namespace: "default" };
  await client.configMaps.create({ metadata: { name: "settings" }, data: { mode: "fast" } }, ns);

  // A concurrent writer got there first: the server reads the object again and retries a patch.
  store.failNext("update", conflict({ group: "", resource: "configmaps" }, "settings"));
  const before = store.calls.update;
  const patched = await client.configMaps.patch("settings", { data: { mode: "safe" } }, "merge", ns);
  const updates = store.calls.update - before;
  log(`patched after ${updates} store updates: mode=${patched.data?.["mode"]}`);

  // A store that cannot answer (etcd lost, say) is a 503 the caller can tell from the others.
  store.failNext("update", serviceUnavailable("etcd is unreachable"));
  try {
    await client.configMaps.patch("settings", { data: { mode: "lost" } }, "merge", ns);
  } catch (error) {
    if (!isServiceUnavailable(error)) throw error;
    log(`patch refused: ${error.code} ${error.reason}`);
  }
  await close();
  return { data: (patched.data ?? {}) as Record<string, string>, updates };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
