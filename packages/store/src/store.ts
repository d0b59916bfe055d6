/**
 * The `Store` port: a revisioned key-value store in the shape of etcd v3. Every write bumps one
 * global revision shared by all keys; reads can be made at a past revision while it is retained;
 * watches replay from a retained revision and then go live.
 * @module
 */

/**
 * One stored value. `value` is immutable: a store may hand the same frozen object to every
 * reader, so callers must never mutate it.
 */
export interface Entry {
  /** `/registry/<group>/<resource>/[<namespace>/]<name>`. */
  readonly key: string;
  readonly value: object;
  /** The revision of the write that created this key (since its last deletion). */
  readonly createRevision: number;
  /** The revision of the last write to this key; a resourceVersion is its decimal string. */
  readonly modRevision: number;
}

/** What a write did. */
export type StoreEventType = "create" | "update" | "delete";

/** One change seen by a watch, in revision order. */
export interface StoreEvent {
  readonly type: StoreEventType;
  /**
   * The key after the change. For `delete` it holds the last value, and `modRevision` is the
   * revision of the deletion itself.
   */
  readonly entry: Entry;
  /** The key before the change, for `update` and `delete`. */
  readonly prev?: Entry;
}

/** Options of {@link Store.get}. */
export interface GetOptions {
  /** Read as of this revision instead of the newest; a compacted revision throws `Expired`. */
  revision?: number;
}

/** Options of {@link Store.list}. */
export interface ListOptions {
  /** Read as of this revision instead of the newest; a compacted revision throws `Expired`. */
  revision?: number;
  /** Start strictly after this key (a page's last key). */
  after?: string;
  /** At most this many entries; 0 or absent means all. */
  limit?: number;
}

/** The answer of {@link Store.list}. */
export interface ListResult {
  /** Entries under the prefix, in ascending key order. */
  entries: Entry[];
  /** The revision the list was read at: the asked one, or the store's newest. */
  revision: number;
  /** True when entries beyond `limit` exist. */
  more: boolean;
  /** How many entries beyond the returned ones exist (0 when `more` is false). */
  remaining: number;
}

/**
 * The storage port of orch. Implementations: `MemoryStore` here, `EtcdStore` in
 * `@orch/store-etcd`; every implementation passes `@orch/store/testing`.
 *
 * Errors are StatusErrors: `AlreadyExists` (create of a present key), `NotFound` (update or
 * delete of a missing key), `Conflict` (a modRevision that is not the current one), `Expired`
 * (a compacted revision), `Timeout` (a revision the store has not reached).
 */
export interface Store {
  /** The entry at `key`, or undefined when absent (at the given revision). */
  get(key: string, opts?: GetOptions): Promise<Entry | undefined>;
  /** Entries whose key starts with `prefix`, in key order, read at one revision. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /**
   * Creates `key`; throws `AlreadyExists` when it is present. `value` (here and in `update`)
   * becomes the stored value: a store may deep-freeze it in place instead of copying it
   * (MemoryStore and EtcdStore do), so callers hand over an object they no longer change.
   */
  create(key: string, value: object): Promise<Entry>;
  /** Replaces `key` if its modRevision is `expectModRevision`; else `Conflict` (or `NotFound`). */
  update(key: string, value: object, expectModRevision: number): Promise<Entry>;
  /** Deletes `key` (if its modRevision is `expectModRevision`, when given); returns the last entry. */
  delete(key: string, expectModRevision?: number): Promise<Entry>;
  /**
   * Every change under `prefix` with a revision greater than `fromRevision`, in revision order,
   * without gaps or duplicates: first the retained history, then live changes, until `signal`
   * aborts (the iteration then ends normally). A compacted `fromRevision` throws `Expired`.
   */
  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<StoreEvent>;
  /** The newest revision (0 for an empty store that was never written). */
  revision(): Promise<number>;
  /**
   * The newest revision, when the store knows it without a round trip (a store whose writes are
   * acknowledged in this process): a `WatchCache` in front compares its own revision with it to
   * answer a consistent read at once. Absent on a store that must ask a server (etcd); the cache
   * then asks {@link Store.revision}.
   */
  newestRevision?(): number;
  /** Forgets history older than `revision`; reads and watches before it then throw `Expired`. */
  compact(revision: number): Promise<void>;
}
