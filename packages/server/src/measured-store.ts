/**
 * A {@link Store} decorator that times every call into the store it wraps
 * (`etcd_request_duration_seconds{operation,type}`).
 * @module
 */
import type { Store } from "@orch/store";
import type { MetricsRecorder } from "./metrics.js";

/**
 * The `type` label of a store key or prefix: `<resource>.<group>` for
 * `/registry/<group>/<resource>/...` (`<resource>` for the core group), else the key itself.
 */
export function storeKeyType(key: string): string {
  const parts = key.split("/");
  if (parts.length >= 4 && parts[0] === "" && parts[1] === "registry" && parts[2] && parts[3]) {
    return parts[2] === "core" ? parts[3] : `${parts[3]}.${parts[2]}`;
  }
  return key;
}

/**
 * `store`, with the time of each call (`get`, `list`, `create`, `update`, `delete`, `revision`,
 * `compact`; for `watch`, the time to open it) handed to `recorder.storageRequest` in seconds,
 * whether the call succeeded or not. `now` is a monotonic clock in milliseconds
 * (`performance.now()` by default).
 */
export function measuredStore(store: Store, recorder: MetricsRecorder, now: () => number = () => performance.now()): Store {
  const timed = async <T>(operation: string, type: string, call: () => Promise<T>): Promise<T> => {
    const started = now();
    try {
      return await call();
    } finally {
      recorder.storageRequest(operation, type, Math.max(0, now() - started) / 1000);
    }
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
  };
}
