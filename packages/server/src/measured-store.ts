/**
 * A {@link Store} decorator that times every call into the store it wraps
 * (`etcd_request_duration_seconds{operation,type}`).
 * @module
 */
import type { Store } from "@orch/store";
import type { MetricsRecorder } from "./metrics.js";

const registryPrefix = "/registry/";

/**
 * The `type` label of a store key or prefix: `<resource>.<group>` for
 * `/registry/<group>/<resource>/...` (`<resource>` for the core group), else the key itself.
 */
export function storeKeyType(key: string): string {
  // Read in place rather than split: every call into the store is labelled, and a GET's key is long.
  if (!key.startsWith(registryPrefix)) return key;
  const groupEnd = key.indexOf("/", registryPrefix.length);
  if (groupEnd <= registryPrefix.length) return key;
  const resourceEnd = key.indexOf("/", groupEnd + 1);
  const resource = resourceEnd === -1 ? key.slice(groupEnd + 1) : key.slice(groupEnd + 1, resourceEnd);
  if (resource === "") return key;
  const group = key.slice(registryPrefix.length, groupEnd);
  return group === "core" ? resource : `${resource}.${group}`;
}

/**
 * `store`, with the time of each call (`get`, `list`, `create`, `update`, `delete`, `revision`,
 * `compact`; for `watch`, the time to open it) handed to `recorder.storageRequest` in seconds,
 * whether the call succeeded or not. `now` is a monotonic clock in milliseconds
 * (`performance.now()` by default).
 */
export function measuredStore(store: Store, recorder: MetricsRecorder, now: () => number = () => performance.now()): Store {
  // No async frame: a call into the store costs one reaction more, not an await's turns.
  const timed = <T>(operation: string, type: string, call: () => Promise<T>): Promise<T> => {
    const started = now();
    const record = () => recorder.storageRequest(operation, type, Math.max(0, now() - started) / 1000);
    let pending: Promise<T>;
    try {
      pending = call();
    } catch (error) {
      record();
      return Promise.reject(error as Error);
    }
    return pending.then(
      (value) => {
        record();
        return value;
      },
      (error: unknown) => {
        record();
        throw error;
      },
    );
  };
  return {
    get: (key, opts) => timed("get", storeKeyType(key), () => store.get(key, opts)),
    list: (prefix, opts) => timed("list", storeKeyType(prefix), () => store.list(prefix, opts)),
    create: (key, value) => timed("create", storeKeyType(key), () => store.create(key, value)),
    update: (key, value, expect) => timed("update", storeKeyType(key), () => store.update(key, value, expect)),
    delete: (key, expect) => timed("delete", storeKeyType(key), () => store.delete(key, expect)),
    watch: (prefix, fromRevision, signal) => {
      const started = now();
      const events = store.watch(prefix, fromRevision, signal);
      recorder.storageRequest("watch", storeKeyType(prefix), Math.max(0, now() - started) / 1000);
      return events;
    },
    revision: () => timed("revision", "", () => store.revision()),
    compact: (revision) => timed("compact", "", () => store.compact(revision)),
    // Read in this process, without a request: not a storage request to measure.
    ...(store.newestRevision ? { newestRevision: () => (store.newestRevision as () => number)() } : {}),
  };
}
