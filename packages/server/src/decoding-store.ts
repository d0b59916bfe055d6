/**
 * Objects stored in a version that is no longer the storage version of their kind (written by an
 * older server, or before the kind's storage version moved) are converted where they leave the
 * store, as the reference's storage codec decodes whatever version etcd holds: every reader (the
 * REST handlers, the watch cache, admission, authorization, the controllers) sees the storage
 * version, and the next write stores it. Versions that are no longer served still convert.
 * @module
 */
import { cloneJSON, type APIObject } from "@orch/meta";
import type { ResourceVersion } from "@orch/resources";
import { deepFreeze, type Entry, type GetOptions, type ListOptions, type ListResult, type Store, type StoreEvent } from "@orch/store";

/** How the objects of one kind are brought to its storage version. */
export interface StoredVersions {
  /** The `apiVersion` objects of the kind are stored in now (`admissionregistration.orch.io/v1`). */
  storageAPIVersion: string;
  /** The conversion to the storage version of every other version, by `apiVersion`. */
  toStorage: ReadonlyMap<string, NonNullable<ResourceVersion["toStorage"]>>;
}

/** Entries this module converted (their stored bytes carry an older version). */
const convertedEntries = new WeakSet<Entry>();
/** The converted form of a stored entry, computed once per entry. */
const convertedCache = new WeakMap<Entry, Entry>();

/**
 * True when `entry` was read in another version than it is stored in: its value is the
 * conversion, the stored bytes still carry the older version. A write of the same content must
 * still go to the store (it is what moves the object to the storage version).
 */
export function storedInOtherVersion(entry: Entry): boolean {
  return convertedEntries.has(entry);
}

/** `/registry/<group>/<resource>/` of a key or prefix, or undefined when it is shorter than that. */
function kindPrefixOf(key: string): string | undefined {
  const first = key.indexOf("/", 10);
  if (first < 0) return undefined;
  const second = key.indexOf("/", first + 1);
  return second < 0 ? undefined : key.slice(0, second + 1);
}

/**
 * A {@link Store} that converts what it reads to the storage version of each kind. Objects
 * already in the storage version cost one string comparison and come back as the same entry;
 * kinds with a single version are not looked at at all. Writes pass through unchanged.
 */
export class DecodingStore implements Store {
  readonly #inner: Store;
  readonly #kinds: ReadonlyMap<string, StoredVersions>;
  /** {@inheritDoc Store.newestRevision} (the inner store's, when it has one). */
  readonly newestRevision?: () => number;

  /**
   * @param inner the store objects live in.
   * @param kinds the kinds with more than one version, by store prefix
   *   (`/registry/<group or core>/<resource>/`); read on every call, so it may be filled later.
   */
  constructor(inner: Store, kinds: ReadonlyMap<string, StoredVersions>) {
    this.#inner = inner;
    this.#kinds = kinds;
    if (inner.newestRevision) this.newestRevision = () => (inner.newestRevision as () => number)();
  }

  /** The versions of the kind under `key`, when it has more than one. */
  #kindOf(key: string): StoredVersions | undefined {
    if (this.#kinds.size === 0) return undefined;
    const prefix = kindPrefixOf(key);
    return prefix === undefined ? undefined : this.#kinds.get(prefix);
  }

  /** `entry` in the storage version of `kind` (resolved from its key when not given). */
  #decode(entry: Entry, kind: StoredVersions | undefined = this.#kindOf(entry.key)): Entry {
    if (!kind) return entry;
    const apiVersion = (entry.value as APIObject).apiVersion;
    if (apiVersion === kind.storageAPIVersion) return entry;
    const cached = convertedCache.get(entry);
    if (cached) return cached;
    const convert = apiVersion === undefined ? undefined : kind.toStorage.get(apiVersion);
    if (!convert) return entry;
    let value: APIObject;
    try {
      value = convert(cloneJSON(entry.value) as APIObject);
    } catch {
      // An object its old version cannot convert is served as stored rather than failing every read.
      return entry;
    }
    const decoded: Entry = { key: entry.key, value: deepFreeze(value), createRevision: entry.createRevision, modRevision: entry.modRevision };
    convertedCache.set(entry, decoded);
    convertedEntries.add(decoded);
    return decoded;
  }

  #decodeAll(prefix: string, entries: Entry[]): Entry[] {
    const kind = this.#kindOf(prefix);
    const whole = kindPrefixOf(prefix) !== undefined;
    if (whole && !kind) return entries;
    let out: Entry[] | undefined;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as Entry;
      const decoded = whole ? this.#decode(entry, kind) : this.#decode(entry);
      if (decoded !== entry) (out ??= entries.slice())[i] = decoded;
    }
    return out ?? entries;
  }

  /** {@inheritDoc Store.get} */
  get(key: string, opts?: GetOptions): Promise<Entry | undefined> {
    const kind = this.#kindOf(key);
    const read = this.#inner.get(key, opts);
    return kind ? read.then((entry) => entry && this.#decode(entry, kind)) : read;
  }

  /** {@inheritDoc Store.list} */
  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const read = this.#inner.list(prefix, opts);
    if (kindPrefixOf(prefix) !== undefined && !this.#kindOf(prefix)) return read;
    return read.then((result) => {
      const entries = this.#decodeAll(prefix, result.entries);
      return entries === result.entries ? result : { ...result, entries };
    });
  }

  /** {@inheritDoc Store.create} */
  create(key: string, value: object): Promise<Entry> {
    return this.#inner.create(key, value);
  }

  /** {@inheritDoc Store.update} */
  update(key: string, value: object, expectModRevision: number): Promise<Entry> {
    return this.#inner.update(key, value, expectModRevision);
  }

  /** {@inheritDoc Store.delete} */
  delete(key: string, expectModRevision?: number): Promise<Entry> {
    const kind = this.#kindOf(key);
    const deleted = this.#inner.delete(key, expectModRevision);
    return kind ? deleted.then((entry) => this.#decode(entry, kind)) : deleted;
  }

  /** {@inheritDoc Store.watch} */
  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<StoreEvent> {
    const events = this.#inner.watch(prefix, fromRevision, signal);
    if (kindPrefixOf(prefix) !== undefined && !this.#kindOf(prefix)) return events;
    const decode = (entry: Entry): Entry => this.#decode(entry);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const event of events) {
          const entry = decode(event.entry);
          const prev = event.prev && decode(event.prev);
          if (entry === event.entry && prev === event.prev) yield event;
          else yield { type: event.type, entry, ...(prev ? { prev } : {}) };
        }
      },
    };
  }

  /** {@inheritDoc Store.revision} */
  revision(): Promise<number> {
    return this.#inner.revision();
  }

  /** {@inheritDoc Store.compact} */
  compact(revision: number): Promise<void> {
    return this.#inner.compact(revision);
  }
}
