/**
 * The read of a get: one key, with the resourceVersion semantics of the reference's get table.
 * @module
 */
import type { Clock, Entry, Store } from "@orch/store";
import { waitForRevision } from "./internal/wait-for-revision.js";
import type { GetPlan } from "./read-plan.js";
import { hasCachedReads } from "./watch-cache.js";

/** Options of {@link readOne}. */
export interface ReadOneOptions {
  /** How long to wait for a revision the store has not reached, in ms of `clock`; default 3000. */
  waitMs?: number;
  /** The clock the wait is measured on. */
  clock: Clock;
}

/**
 * Reads the entry at `key` as a get `plan` says: `MostRecent` and `Any` read the newest
 * revision; `NotOlderThan` first waits (bounded by `waitMs` on `clock`) until the store has
 * reached the plan's revision, then reads the newest.
 *
 * @returns the entry, or undefined when the key is absent (the caller's 404).
 * @throws StatusError 504 `Too large resource version` (Retry-After 1) when the store does not
 *   reach the revision in time; store errors pass through.
 */
export function readOne(store: Store, key: string, plan: GetPlan, opts: ReadOneOptions): Promise<Entry | undefined> {
  if (plan.kind === "NotOlderThan") return waitForRevision(store, plan.revision, opts.clock, opts.waitMs).then(() => readNewest(store, key, plan));
  // Not an async function: the store's promise is handed back as it is, without the turns of
  // the microtask queue an async function takes to adopt it (a GET's read is most of its awaits).
  try {
    return readNewest(store, key, plan);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** The newest revision of `key`: from a watch cache when the store has one and `plan` allows a stale read. */
function readNewest(store: Store, key: string, plan: GetPlan): Promise<Entry | undefined> {
  // Reads that may be stale come from a watch cache when the store has one.
  if (plan.kind !== "MostRecent" && hasCachedReads(store)) return store.getCached(key, plan.kind === "NotOlderThan" ? plan.revision : 0);
  return store.get(key);
}
