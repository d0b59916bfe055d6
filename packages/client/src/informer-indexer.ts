/**
 * {@link Indexer}: the object cache of an `Informer`, by key and by any number of named
 * indexes (client-go's `cache.Indexer`), with the built-in {@link namespaceIndex} and the
 * {@link labelIndex} helper.
 * @module
 */
import type { APIObject } from "@orch/meta";

/**
 * The values an object is indexed under (none, one or many). It must be pure and must not
 * throw: it runs on every change of the cache, and again on the old state to unindex it.
 */
export type IndexFunc<T extends APIObject = APIObject> = (object: T) => readonly string[];

/** Named index functions, as {@link Indexer.addIndexers} takes them. */
export type Indexers<T extends APIObject = APIObject> = Record<string, IndexFunc<T>>;

/** The name of the built-in index by `metadata.namespace` (`""` for a cluster-scoped object). */
export const namespaceIndex = "namespace";

/** The index function of {@link namespaceIndex}: the object's namespace, `""` when it has none. */
export function indexByNamespace(object: APIObject): readonly string[] {
  return [object.metadata.namespace ?? ""];
}

/**
 * An index function by the value of label `key`; an object without the label is in no bucket.
 *
 * @example
 * informer.addIndexers({ app: labelIndex("app") });
 * const web = informer.byIndex("app", "web");
 */
export function labelIndex(key: string): IndexFunc {
  return (object) => {
    const value = object.metadata.labels?.[key];
    return value === undefined ? [] : [value];
  };
}

/** The cache key of an object: `namespace/name`, or `name` for a cluster-scoped one. */
export function objectKey(object: APIObject): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name ?? ""}` : (name ?? "");
}

interface Index<T extends APIObject> {
  fn: IndexFunc<T>;
  /** index value → keys of the objects under it; a bucket is dropped when it empties. */
  buckets: Map<string, Set<string>>;
}

/**
 * Objects by key, with named indexes kept current on every {@link Indexer.set} and
 * {@link Indexer.delete}: each costs O(k) in the values of the object's old and new state, never
 * a scan of the cache. Every indexer has {@link namespaceIndex}.
 */
export class Indexer<T extends APIObject = APIObject> {
  readonly #objects = new Map<string, T>();
  readonly #indexes = new Map<string, Index<T>>([[namespaceIndex, { fn: indexByNamespace, buckets: new Map() }]]);

  /**
   * Adds indexes, filled at once from the objects already cached.
   * @throws Error when an index of that name exists (built-in ones included).
   */
  addIndexers(indexers: Indexers<T>): void {
    const names = Object.keys(indexers);
    for (const name of names) if (this.#indexes.has(name)) throw new Error(`an index named "${name}" already exists`);
    for (const name of names) {
      const fn = indexers[name];
      if (!fn) continue;
      const index: Index<T> = { fn, buckets: new Map() };
      this.#indexes.set(name, index);
      for (const [key, object] of this.#objects) for (const value of fn(object)) bucket(index, value).add(key);
    }
  }

  /** The names of the indexes. */
  indexNames(): string[] {
    return [...this.#indexes.keys()];
  }

  /** The object with this key. */
  get(key: string): T | undefined {
    return this.#objects.get(key);
  }

  /** Every object, in insertion order. */
  list(): T[] {
    return [...this.#objects.values()];
  }

  /** Every key, in insertion order. */
  keys(): string[] {
    return [...this.#objects.keys()];
  }

  /** The key-object pairs (a live view: do not change the indexer while iterating it). */
  entries(): IterableIterator<[string, T]> {
    return this.#objects.entries();
  }

  /** How many objects are cached. */
  get size(): number {
    return this.#objects.size;
  }

  /** Stores `object` under `key` and re-indexes it; returns the state it replaced. */
  set(key: string, object: T): T | undefined {
    const old = this.#objects.get(key);
    this.#objects.set(key, object);
    for (const index of this.#indexes.values()) {
      const before = old ? index.fn(old) : [];
      const after = index.fn(object);
      for (const value of before) if (!after.includes(value)) unbucket(index, value, key);
      for (const value of after) bucket(index, value).add(key);
    }
    return old;
  }

  /** Removes the object with `key` from the cache and every index; returns it. */
  delete(key: string): T | undefined {
    const old = this.#objects.get(key);
    if (!old) return undefined;
    this.#objects.delete(key);
    for (const index of this.#indexes.values()) for (const value of index.fn(old)) unbucket(index, value, key);
    return old;
  }

  /**
   * The keys of the objects indexed under `value` by index `name` (empty for an unknown value).
   * @throws Error for an index that does not exist.
   */
  indexKeys(name: string, value: string): string[] {
    return [...(this.#index(name).buckets.get(value) ?? [])];
  }

  /**
   * The objects indexed under `value` by index `name`.
   * @throws Error for an index that does not exist.
   */
  byIndex(name: string, value: string): T[] {
    const keys = this.#index(name).buckets.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) {
      const object = this.#objects.get(key);
      if (object) out.push(object);
    }
    return out;
  }

  /**
   * The values index `name` has objects under.
   * @throws Error for an index that does not exist.
   */
  indexValues(name: string): string[] {
    return [...this.#index(name).buckets.keys()];
  }

  #index(name: string): Index<T> {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`no index named "${name}"`);
    return index;
  }
}

function bucket<T extends APIObject>(index: Index<T>, value: string): Set<string> {
  let keys = index.buckets.get(value);
  if (!keys) index.buckets.set(value, (keys = new Set()));
  return keys;
}

function unbucket<T extends APIObject>(index: Index<T>, value: string, key: string): void {
  const keys = index.buckets.get(value);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) index.buckets.delete(value);
}
