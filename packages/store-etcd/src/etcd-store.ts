/**
 * `EtcdStore`: the {@link Store} port over etcd v3, through the `etcd3` client's raw KV, Watch
 * and compaction calls. etcd already has the port's revision model (one global revision, MVCC
 * reads, watches from a revision, compaction), so each method is one etcd call or one
 * transaction; the store adds the key prefix, JSON at its boundary and StatusErrors.
 * @module
 */
import { circuitBreaker, ConsecutiveBreaker, handleWhen } from "cockatiel";
import { Etcd3, isRecoverableError, type IKeyValue, type IOptions, type IResponseHeader, type IWatchResponse } from "etcd3";
import { alreadyExists, badRequest, conflict, internalError, notFound, resourceVersionTooLarge, serviceUnavailable, tooOldResourceVersion } from "@orch/meta";
import { deepFreeze, keyResource, type Entry, type GetOptions, type ListOptions, type ListResult, type Store, type StoreEvent } from "@orch/store";
import { isCompactedError, isFutureRevisionError, toStoreError } from "./internal/errors.js";

/** TLS material for an etcd client connection: PEM text or bytes. */
export interface EtcdTLSOptions {
  /** The CA that signed etcd's serving certificate. */
  ca: string | Uint8Array;
  /** The client certificate, when etcd asks for one (`--client-cert-auth`). */
  cert?: string | Uint8Array;
  /** The key of `cert`. */
  key?: string | Uint8Array;
}

/** Options of {@link EtcdStore}. */
export interface EtcdStoreOptions {
  /**
   * etcd client URLs (`http://127.0.0.1:2379`, `https://etcd-0:2379`); requests go to any of
   * them and move on to another when one fails. Ignored when `client` is given.
   */
  endpoints?: readonly string[];
  /**
   * A prefix put before every store key in etcd (default `""`: store keys, which start with
   * `/registry/`, are etcd keys as they are). Lets several orch installations share one etcd.
   */
  prefix?: string;
  /** TLS to etcd; required for `https://` endpoints. Ignored when `client` is given. */
  tls?: EtcdTLSOptions;
  /**
   * Deadline of {@link EtcdStore.revision} and {@link EtcdStore.connect}, the cheap calls a
   * health check makes, in milliseconds (default 2,000): a dead etcd fails them this fast.
   */
  dialTimeoutMs?: number;
  /** Deadline of every other call, in milliseconds (default 15,000); past it: 504 Timeout. */
  requestTimeoutMs?: number;
  /** An `etcd3` client to use instead of one built from `endpoints`; {@link EtcdStore.close} leaves it open. */
  client?: Etcd3;
}

const encoder = new TextEncoder();
const ZERO = Buffer.from([0]);
/** How many recent entries an EtcdStore remembers by modRevision (see `#recent`). */
const RECENT_ENTRIES = 4096;

function checkRevisionArg(revision: number, what: string): void {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw badRequest(`invalid ${what} ${String(revision)}: must be a non-negative integer`);
  }
}

/** The end of the key range of every key that starts with `prefix` (`\0`: no end). */
function rangeEndOf(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return ZERO;
}

function toBuffer(pem: string | Uint8Array): Buffer {
  return typeof pem === "string" ? Buffer.from(pem, "utf8") : Buffer.from(pem);
}

function revisionOf(header: IResponseHeader | undefined): number {
  return Number(header?.revision ?? 0);
}

/**
 * A {@link Store} on etcd v3. It passes the `@orch/store/testing` conformance suite against a
 * real etcd.
 *
 * What a caller must know:
 * - Values are stored as JSON: what comes back is what `JSON.stringify` kept (no `undefined`
 *   properties, no functions), as a fresh deep-frozen object; the value passed to a write is not
 *   frozen or kept, and the returned entry holds the stored form.
 * - Revisions are etcd's: shared by every key of the etcd cluster, including keys outside this
 *   store's prefix, so they need not be consecutive.
 * - Every failure is a StatusError: the port's `AlreadyExists`, `NotFound`, `Conflict`,
 *   `Expired` and `Timeout` (a future revision), plus 503 `ServiceUnavailable` when etcd cannot be
 *   reached (or has no leader) and 504 `Timeout` when it does not answer within the deadline.
 * - A watch is one etcd watch stream. When etcd goes away the watch's iterator throws a 503
 *   StatusError; watch again from the last revision seen once it is back. Watches do not resume
 *   by themselves.
 * - {@link EtcdStore.compact} compacts the whole etcd keyspace, as etcd has one history.
 *
 * @example
 * ```ts
 * const store = new EtcdStore({ endpoints: ["http://127.0.0.1:2379"] });
 * const a = await store.create("/registry/core/configmaps/default/a", { data: { x: "1" } });
 * await store.update(a.key, { data: { x: "2" } }, a.modRevision);
 * store.close();
 * ```
 */
export class EtcdStore implements Store {
  /** The `etcd3` client the store talks through. */
  readonly client: Etcd3;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #prefixBytes: Buffer;
  readonly #dialTimeoutMs: number;
  readonly #requestTimeoutMs: number;
  readonly #watches = new Set<EtcdWatch>();
  /**
   * Entries written or decoded lately, by modRevision: a key's value at a revision never changes
   * in etcd, so the watch event of a write made here (and the previous value an event carries)
   * is the entry already at hand instead of a second JSON parse and freeze, and it is the same
   * object, so what readers derived from it once (the server's wire JSON) serves again.
   */
  readonly #recent = new Map<number, Entry>();
  #closed = false;

  /**
   * @throws RangeError when neither `endpoints` nor `client` is given, or a timeout is not positive.
   */
  constructor(options: EtcdStoreOptions) {
    this.#prefix = options.prefix ?? "";
    this.#prefixBytes = Buffer.from(this.#prefix, "utf8");
    this.#dialTimeoutMs = options.dialTimeoutMs ?? 2_000;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
    if (!(this.#dialTimeoutMs > 0) || !(this.#requestTimeoutMs > 0)) throw new RangeError("EtcdStore timeouts must be positive");
    if (options.client !== undefined) {
      this.client = options.client;
      this.#ownsClient = false;
    } else {
      const endpoints = options.endpoints ?? [];
      if (endpoints.length === 0) throw new RangeError("EtcdStore needs at least one endpoint");
      const clientOptions: IOptions = {
        hosts: [...endpoints],
        dialTimeout: this.#dialTimeoutMs,
        // A member that failed 3 calls in a row is skipped for 1 s (the client's default is 5 s), so
        // service resumes soon after etcd comes back.
        faultHandling: {
          host: () => circuitBreaker(handleWhen(isRecoverableError), { halfOpenAfter: 1_000, breaker: new ConsecutiveBreaker(3) }),
        },
      };
      if (options.tls !== undefined) {
        const credentials: NonNullable<IOptions["credentials"]> = { rootCertificate: toBuffer(options.tls.ca) };
        if (options.tls.cert !== undefined) credentials.certChain = toBuffer(options.tls.cert);
        if (options.tls.key !== undefined) credentials.privateKey = toBuffer(options.tls.key);
        clientOptions.credentials = credentials;
      }
      this.client = new Etcd3(clientOptions);
      this.#ownsClient = true;
    }
  }

  /** The etcd key of a store key. */
  #etcdKey(key: string): Buffer {
    return this.#prefix === "" ? Buffer.from(key, "utf8") : Buffer.concat([this.#prefixBytes, encoder.encode(key)]);
  }

  #callOptions(ms = this.#requestTimeoutMs): { deadline: number } {
    return { deadline: Date.now() + ms };
  }

  /** Decodes one etcd key-value into an entry (frozen, value deep-frozen). */
  #entry(kv: IKeyValue, modRevision = Number(kv.mod_revision)): Entry {
    const key = kv.key.toString("utf8").slice(this.#prefix.length);
    const createRevision = Number(kv.create_revision);
    const known = this.#recall(key, modRevision, createRevision);
    if (known !== undefined) return known;
    let value: unknown;
    try {
      value = JSON.parse(kv.value.toString("utf8"));
    } catch (error) {
      throw internalError(`the value of ${key} in etcd is not JSON`, error);
    }
    if (typeof value !== "object" || value === null) throw internalError(`the value of ${key} in etcd is not a JSON object`);
    return this.#remember(Object.freeze({ key, value: deepFreeze(value), createRevision, modRevision }));
  }

  /** The remembered entry of `key` at `modRevision`, if it is the one (same create revision too). */
  #recall(key: string, modRevision: number, createRevision: number): Entry | undefined {
    const known = this.#recent.get(modRevision);
    return known !== undefined && known.key === key && known.createRevision === createRevision ? known : undefined;
  }

  #remember(entry: Entry): Entry {
    // The watch event of this very write may have been decoded first: keep one entry for both.
    const known = this.#recall(entry.key, entry.modRevision, entry.createRevision);
    if (known !== undefined) return known;
    const recent = this.#recent;
    if (recent.size >= RECENT_ENTRIES) recent.delete(recent.keys().next().value as number);
    recent.set(entry.modRevision, entry);
    return entry;
  }

  // As MemoryStore, the caller's object becomes the stored value, frozen in place (no copy).
  #encode(value: object): { bytes: Buffer; value: object } {
    if (typeof value !== "object" || value === null) throw badRequest("store values must be objects");
    const bytes = Buffer.from(JSON.stringify(value), "utf8");
    return { bytes, value: deepFreeze(value) };
  }

  /**
   * Checks that etcd answers, within `dialTimeoutMs`.
   * @throws StatusError 503 ServiceUnavailable or 504 Timeout when it does not.
   */
  async connect(): Promise<void> {
    await this.revision();
  }

  /**
   * The entry at `key`, or undefined when absent, as of `opts.revision` when given (0 means the
   * newest).
   * @throws StatusError 410 Expired for a compacted revision, 504 Timeout for a revision beyond
   *   the newest, 400 BadRequest for a negative or fractional one, 503/504 when etcd fails.
   */
  async get(key: string, opts?: GetOptions): Promise<Entry | undefined> {
    const revision = opts?.revision ?? 0;
    checkRevisionArg(revision, "revision");
    try {
      const res = await this.client.kv.range({ key: this.#etcdKey(key), revision }, this.#callOptions());
      const kv = res.kvs[0];
      return kv === undefined ? undefined : this.#entry(kv);
    } catch (error) {
      throw await this.#readError(error, revision, `get ${key}`);
    }
  }

  /**
   * Entries under `prefix` in key order, read at one revision (the asked one, or the newest),
   * paged by `after` and `limit`; `remaining` comes from etcd's count of the range.
   * @throws StatusError 410 Expired for a compacted revision, 504 Timeout for a revision beyond
   *   the newest, 400 BadRequest for a bad revision or limit, 503/504 when etcd fails.
   */
  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const revision = opts.revision ?? 0;
    checkRevisionArg(revision, "revision");
    const limit = opts.limit ?? 0;
    if (!Number.isSafeInteger(limit) || limit < 0) throw badRequest(`invalid limit ${String(limit)}: must be a non-negative integer`);
    const start = this.#etcdKey(prefix);
    const end = rangeEndOf(start);
    let from = start.length === 0 ? ZERO : start;
    if (opts.after !== undefined && opts.after >= prefix) from = Buffer.concat([this.#etcdKey(opts.after), ZERO]);
    try {
      if (end !== ZERO && Buffer.compare(from, end) >= 0) {
        // Nothing can follow `after` in this range: read only the revision (checking it).
        const res = await this.client.kv.range({ key: end, revision, count_only: true }, this.#callOptions());
        return { entries: [], revision: revision === 0 ? revisionOf(res.header) : revision, more: false, remaining: 0 };
      }
      const res = await this.client.kv.range({ key: from, range_end: end, revision, limit, sort_order: "Ascend", sort_target: "Key" }, this.#callOptions());
      const entries = res.kvs.map((kv) => this.#entry(kv));
      const remaining = Math.max(0, Number(res.count) - entries.length);
      return { entries, revision: revision === 0 ? revisionOf(res.header) : revision, more: remaining > 0, remaining };
    } catch (error) {
      throw await this.#readError(error, revision, `list ${prefix}`);
    }
  }

  /**
   * Creates `key` in one transaction guarded by "create revision is 0".
   * @throws StatusError 409 AlreadyExists when the key is present, 400 BadRequest when `value`
   *   is not an object, 503/504 when etcd fails.
   */
  async create(key: string, value: object): Promise<Entry> {
    const encoded = this.#encode(value);
    const k = this.#etcdKey(key);
    let res;
    try {
      res = await this.client.kv.txn(
        {
          compare: [{ key: k, target: "Create", result: "Equal", create_revision: 0 }],
          success: [{ request_put: { key: k, value: encoded.bytes } }],
          failure: [],
        },
        this.#callOptions(),
      );
    } catch (error) {
      throw toStoreError(error, `create ${key}`);
    }
    if (!res.succeeded) {
      const { resource, name } = keyResource(key);
      throw alreadyExists(resource, name);
    }
    const revision = revisionOf(res.header);
    return this.#remember(Object.freeze({ key, value: encoded.value, createRevision: revision, modRevision: revision }));
  }

  /**
   * Replaces `key` in one transaction guarded by its mod revision; `createRevision` is kept.
   * @throws StatusError 404 NotFound when the key is absent, 409 Conflict when its modRevision
   *   differs, 400 BadRequest when `value` is not an object, 503/504 when etcd fails.
   */
  async update(key: string, value: object, expectModRevision: number): Promise<Entry> {
    const encoded = this.#encode(value);
    const k = this.#etcdKey(key);
    let res;
    try {
      res = await this.client.kv.txn(
        {
          compare: [
            { key: k, target: "Version", result: "Greater", version: 0 },
            { key: k, target: "Mod", result: "Equal", mod_revision: expectModRevision },
          ],
          success: [{ request_put: { key: k, value: encoded.bytes, prev_kv: true } }],
          failure: [{ request_range: { key: k, keys_only: true } }],
        },
        this.#callOptions(),
      );
    } catch (error) {
      throw toStoreError(error, `update ${key}`);
    }
    if (!res.succeeded) throw this.#writeRefused(key, res.responses[0]?.response_range?.kvs);
    const prev = res.responses[0]?.response_put?.prev_kv;
    const revision = revisionOf(res.header);
    return this.#remember(Object.freeze({ key, value: encoded.value, createRevision: prev ? Number(prev.create_revision) : revision, modRevision: revision }));
  }

  /**
   * Deletes `key` (in one transaction guarded by its mod revision when `expectModRevision` is
   * given) and returns the entry as it last was, with the modRevision of its last write.
   * @throws StatusError 404 NotFound when the key is absent, 409 Conflict when its modRevision
   *   differs from `expectModRevision`, 503/504 when etcd fails.
   */
  async delete(key: string, expectModRevision?: number): Promise<Entry> {
    const k = this.#etcdKey(key);
    const compare: { key: Buffer; target: "Version" | "Mod"; result: "Greater" | "Equal"; version?: number; mod_revision?: number }[] = [
      { key: k, target: "Version", result: "Greater", version: 0 },
    ];
    if (expectModRevision !== undefined) compare.push({ key: k, target: "Mod", result: "Equal", mod_revision: expectModRevision });
    let res;
    try {
      res = await this.client.kv.txn(
        {
          compare,
          success: [{ request_delete_range: { key: k, prev_kv: true } }],
          failure: [{ request_range: { key: k, keys_only: true } }],
        },
        this.#callOptions(),
      );
    } catch (error) {
      throw toStoreError(error, `delete ${key}`);
    }
    if (!res.succeeded) throw this.#writeRefused(key, res.responses[0]?.response_range?.kvs);
    const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
    if (prev === undefined) throw internalError(`etcd deleted ${key} without returning its last value`);
    return this.#entry(prev);
  }

  /**
   * Every change under `prefix` after `fromRevision`, in revision order, from one etcd watch
   * (with previous values) that starts at `fromRevision + 1`; ends normally when `signal`
   * aborts or the store is closed.
   * @throws StatusError (from `next()`) 410 Expired when `fromRevision` is compacted, 400
   *   BadRequest for a bad `fromRevision`, 503 ServiceUnavailable when etcd goes away.
   */
  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<StoreEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        const w = new EtcdWatch(
          this.client,
          (e) => this.#decodeEvent(e),
          this.#etcdKey(prefix),
          fromRevision,
          signal,
          (e) => this.#watches.delete(e),
        );
        if (this.#closed) w.end();
        else this.#watches.add(w);
        return w;
      },
    };
  }

  /**
   * The newest revision of etcd (one linearizable read of a single key; bounded by
   * `dialTimeoutMs`).
   * @throws StatusError 503 ServiceUnavailable or 504 Timeout when etcd does not answer.
   */
  async revision(): Promise<number> {
    try {
      const res = await this.client.kv.range({ key: this.#etcdKey("/"), keys_only: true, count_only: true }, this.#callOptions(this.#dialTimeoutMs));
      return revisionOf(res.header);
    } catch (error) {
      throw toStoreError(error, "read the revision");
    }
  }

  /**
   * Compacts etcd's history before `revision`. A revision at or below the current compaction
   * is a no-op.
   * @throws StatusError 504 Timeout when `revision` is beyond the newest, 400 BadRequest when it
   *   is negative or fractional, 503/504 when etcd fails.
   */
  async compact(revision: number): Promise<void> {
    checkRevisionArg(revision, "compaction revision");
    if (revision === 0) return;
    try {
      await this.client.kv.compact({ revision, physical: false }, this.#callOptions());
    } catch (error) {
      if (isCompactedError(error)) return;
      if (isFutureRevisionError(error)) throw resourceVersionTooLarge(revision, await this.revision());
      throw toStoreError(error, `compact to ${revision}`);
    }
  }

  /**
   * Ends every open watch and, when the store built its own client, closes it. Calls made
   * afterwards fail with 503 ServiceUnavailable.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of [...this.#watches]) w.end();
    this.#watches.clear();
    if (this.#ownsClient) this.client.close();
  }

  // ---- internals used by EtcdWatch ----------------------------------------------------------

  /** Decodes a watch event. */
  #decodeEvent(event: WatchEvent): StoreEvent {
    const prevKv = event.prev_kv;
    const prev = prevKv && prevKv.key && prevKv.key.length > 0 ? this.#entry(prevKv) : undefined;
    if (event.type === "Delete") {
      const modRevision = Number(event.kv.mod_revision);
      const key = event.kv.key.toString("utf8").slice(this.#prefix.length);
      const entry: Entry =
        prev === undefined
          ? Object.freeze({ key, value: Object.freeze({}), createRevision: 0, modRevision })
          : Object.freeze({ key, value: prev.value, createRevision: prev.createRevision, modRevision });
      return Object.freeze(prev === undefined ? { type: "delete" as const, entry } : { type: "delete" as const, entry, prev });
    }
    const entry = this.#entry(event.kv);
    if (entry.createRevision === entry.modRevision || prev === undefined) return Object.freeze({ type: "create" as const, entry });
    return Object.freeze({ type: "update" as const, entry, prev });
  }

  /** The StatusError of a refused update or delete: the key's current state says which. */
  #writeRefused(key: string, kvs: readonly IKeyValue[] | undefined): Error {
    const { resource, name } = keyResource(key);
    return kvs === undefined || kvs.length === 0 ? notFound(resource, name) : conflict(resource, name);
  }

  /** The StatusError of a failed read at `revision`. */
  async #readError(error: unknown, revision: number, what: string): Promise<Error> {
    if (isCompactedError(error)) return tooOldResourceVersion(revision, await this.#compactedRevision(revision + 1));
    if (isFutureRevisionError(error)) {
      let current = 0;
      try {
        current = await this.revision();
      } catch {
        // The error above is the one to report.
      }
      return resourceVersionTooLarge(revision, current);
    }
    return toStoreError(error, what);
  }

  /**
   * etcd's compacted revision: a watch from revision 1 is cancelled with it. `fallback` when etcd
   * does not say within a second.
   */
  async #compactedRevision(fallback: number): Promise<number> {
    let stream: Awaited<ReturnType<Etcd3["watchClient"]["watch"]>> | undefined;
    try {
      stream = await this.client.watchClient.watch();
      const s = stream;
      return await new Promise<number>((resolve) => {
        const timer = setTimeout(() => resolve(fallback), 1_000);
        s.on("data", (res: IWatchResponse) => {
          if (res.compact_revision !== undefined && Number(res.compact_revision) > 0) {
            clearTimeout(timer);
            resolve(Number(res.compact_revision));
          }
        });
        s.on("error", () => {
          clearTimeout(timer);
          resolve(fallback);
        });
        s.write({ create_request: { key: this.#etcdKey("/\0"), start_revision: 1 } });
      });
    } catch {
      return fallback;
    } finally {
      stream?.on("error", () => undefined);
      stream?.cancel();
    }
  }
}

/** One event of an etcd watch response, as the client decodes it. */
type WatchEvent = { type: string; kv: IKeyValue; prev_kv?: IKeyValue | null };

type WatchStream = Awaited<ReturnType<Etcd3["watchClient"]["watch"]>>;

/** One etcd watch stream as an async iterator of store events. */
class EtcdWatch implements AsyncIterator<StoreEvent> {
  readonly #client: Etcd3;
  readonly #decode: (event: WatchEvent) => StoreEvent;
  readonly #signal: AbortSignal;
  readonly #onEnd: (w: EtcdWatch) => void;
  #queue: StoreEvent[] = [];
  #head = 0;
  #waiter: { resolve: (r: IteratorResult<StoreEvent>) => void; reject: (e: unknown) => void } | undefined;
  #error: unknown = undefined;
  #failed = false;
  #ended = false;
  #stream: WatchStream | undefined;
  readonly #onAbort = (): void => this.end();

  constructor(client: Etcd3, decode: (event: WatchEvent) => StoreEvent, key: Buffer, fromRevision: number, signal: AbortSignal, onEnd: (w: EtcdWatch) => void) {
    this.#client = client;
    this.#decode = decode;
    this.#signal = signal;
    this.#onEnd = onEnd;
    if (signal.aborted) {
      this.end();
      return;
    }
    try {
      checkRevisionArg(fromRevision, "watch revision");
    } catch (error) {
      this.#fail(error);
      return;
    }
    signal.addEventListener("abort", this.#onAbort, { once: true });
    void this.#open(key, fromRevision);
  }

  async #open(key: Buffer, fromRevision: number): Promise<void> {
    let stream: WatchStream;
    try {
      stream = await this.#client.watchClient.watch();
    } catch (error) {
      this.#fail(toStoreError(error, "watch"));
      return;
    }
    this.#stream = stream;
    stream.on("error", (error: Error) => {
      if (!this.#ended) this.#fail(toStoreError(error, "watch"));
    });
    stream.on("end", () => {
      if (!this.#ended) this.#fail(serviceUnavailable("the etcd watch stream ended"));
    });
    if (this.#ended) {
      stream.cancel();
      return;
    }
    stream.on("data", (res: IWatchResponse) => this.#receive(res, fromRevision));
    stream.write({
      create_request: {
        key: key.length === 0 ? ZERO : key,
        range_end: rangeEndOf(key),
        start_revision: fromRevision + 1,
        prev_kv: true,
      },
    });
  }

  #receive(res: IWatchResponse, fromRevision: number): void {
    if (this.#ended) return;
    if (res.canceled) {
      const compacted = Number(res.compact_revision ?? 0);
      this.#fail(
        compacted > 0
          ? tooOldResourceVersion(fromRevision, compacted)
          : serviceUnavailable(`etcd cancelled the watch${res.cancel_reason ? `: ${res.cancel_reason}` : ""}`),
      );
      return;
    }
    for (const event of res.events ?? []) {
      let decoded: StoreEvent;
      try {
        decoded = this.#decode(event);
      } catch (error) {
        this.#fail(error);
        return;
      }
      const waiter = this.#waiter;
      if (waiter !== undefined) {
        this.#waiter = undefined;
        waiter.resolve({ done: false, value: decoded });
      } else {
        this.#queue.push(decoded);
      }
    }
  }

  /** Ends the watch with `error`: the next `next()` throws it, later ones are done. */
  #fail(error: unknown): void {
    if (this.#ended) return;
    this.#error = error;
    this.#failed = true;
    this.#close();
    const waiter = this.#waiter;
    if (waiter !== undefined && this.#head >= this.#queue.length) {
      this.#waiter = undefined;
      this.#failed = false;
      waiter.reject(error);
    }
  }

  /** Ends the watch normally, dropping undelivered events. */
  end(): void {
    if (this.#ended) return;
    this.#queue = [];
    this.#head = 0;
    this.#close();
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve({ done: true, value: undefined });
  }

  #close(): void {
    this.#ended = true;
    this.#signal.removeEventListener("abort", this.#onAbort);
    this.#onEnd(this);
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream !== undefined) {
      stream.on("error", () => undefined);
      stream.cancel();
    }
  }

  next(): Promise<IteratorResult<StoreEvent>> {
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head++] as StoreEvent;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.#failed) {
      this.#failed = false;
      return Promise.reject(this.#error);
    }
    if (this.#ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => (this.#waiter = { resolve, reject }));
  }

  return(): Promise<IteratorResult<StoreEvent>> {
    this.end();
    return Promise.resolve({ done: true, value: undefined });
  }
}
