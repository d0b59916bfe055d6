/**
 * A watch stream over the store, as the reference cacher serves one: the initial state as
 * synthetic `ADDED` events (unless the watch starts at an exact revision), then every change,
 * with predicate transitions turned into `ADDED`/`DELETED`, periodic `BOOKMARK`s on request,
 * and an `ERROR` event for a compacted start.
 * @module
 */
import { reasonOf, toStatusError, tooOldResourceVersion, type Status } from "@orch/meta";
import type { Clock, Entry, Store, StoreEvent } from "@orch/store";
import { Wakeup } from "./internal/wakeup.js";
import type { WatchPlan } from "./read-plan.js";
import { hasCachedReads } from "./watch-cache.js";

/** One event of a watch stream; the server encodes it as a `WatchEvent` line. */
export type WatchStreamEvent =
  | {
      readonly type: "ADDED" | "MODIFIED" | "DELETED";
      /** The object; for `DELETED` its last state, with `modRevision` the revision of the deletion. */
      readonly entry: Entry;
    }
  | {
      readonly type: "BOOKMARK";
      /** Every change up to this revision has been sent. */
      readonly revision: number;
    }
  | {
      readonly type: "ERROR";
      /** The failure; the stream ends after it. */
      readonly status: Status;
    };

/** Options of {@link openWatch}. */
export interface OpenWatchOptions {
  /** Keeps only entries it returns true for; an update across it becomes `ADDED` or `DELETED`. */
  predicate?: (entry: Entry) => boolean;
  /** Sends `BOOKMARK` events (`allowWatchBookmarks=true`). */
  allowBookmarks?: boolean;
  /** Milliseconds of `clock` between bookmarks; default 60 000. */
  bookmarkIntervalMs?: number;
  /** Ends the stream cleanly after this many milliseconds of `clock` (`timeoutSeconds`). */
  timeoutMs?: number;
  /** The clock of bookmarks and the timeout. */
  clock: Clock;
  /** Ends the stream (cleanly) when aborted, for instance when the client goes away. */
  signal: AbortSignal;
}

/** The default interval between bookmarks, in milliseconds: one minute, as the reference. */
export const defaultBookmarkIntervalMs = 60_000;

const noop = (): void => {};

/**
 * Opens a watch of the keys under `prefix` (a raw key prefix: end it with `/` for a collection).
 *
 * - `StartMostRecent` and `StartAny` list the matching entries at the newest revision and send
 *   each as a synthetic `ADDED`, then every change after that revision.
 * - `StartExact` sends every change after the plan's revision and nothing else; a revision the
 *   store has not reached yet simply waits for changes.
 * - With a `predicate`, a change is sent when the object matches before or after it: an update
 *   that makes it stop matching is `DELETED` (its previous state at the update's revision), one
 *   that makes it start matching is `ADDED`, as the reference cacher does.
 * - With `allowBookmarks`, a `BOOKMARK` carrying the newest revision the stream has gone through
 *   is sent every `bookmarkIntervalMs`, and once more just before the stream ends on `timeoutMs`.
 *
 * Nothing happens until the stream is iterated. The stream ends cleanly when `signal` aborts,
 * when `timeoutMs` runs out, or when the consumer stops iterating; every store watch and timer
 * it opened is released then.
 *
 * A compacted start is not thrown: the stream sends one `ERROR` event whose Status is 410
 * Expired `too old resource version: <asked> (<oldest kept>)`, then ends. Any other store
 * failure is likewise one `ERROR` event with its Status.
 */
export function openWatch(store: Store, prefix: string, plan: WatchPlan, opts: OpenWatchOptions): AsyncGenerator<WatchStreamEvent, void, undefined> {
  return run(store, prefix, plan, opts);
}

type Settled = { readonly result: IteratorResult<StoreEvent> } | { readonly error: unknown };

async function* run(store: Store, prefix: string, plan: WatchPlan, opts: OpenWatchOptions): AsyncGenerator<WatchStreamEvent, void, undefined> {
  const { clock, signal, predicate } = opts;
  if (signal.aborted) return;

  const stop = new AbortController();
  const wakeup = new Wakeup();
  let timedOut = false;
  let bookmarkDue = false;
  let settled: Settled | undefined;
  let iterator: AsyncIterator<StoreEvent> | undefined;

  const onAbort = (): void => {
    stop.abort();
    wakeup.fire();
  };
  signal.addEventListener("abort", onAbort);
  const cancelTimeout =
    opts.timeoutMs === undefined
      ? noop
      : clock.setTimer(opts.timeoutMs, () => {
          timedOut = true;
          stop.abort();
          wakeup.fire();
        });
  const interval = opts.bookmarkIntervalMs ?? defaultBookmarkIntervalMs;
  let cancelBookmark = noop;
  const armBookmark = (): void => {
    cancelBookmark = clock.setTimer(interval, () => {
      bookmarkDue = true;
      wakeup.fire();
    });
  };
  if (opts.allowBookmarks) armBookmark();

  const pull = (it: AsyncIterator<StoreEvent>): void => {
    let next: Promise<IteratorResult<StoreEvent>>;
    try {
      next = it.next();
    } catch (error) {
      settled = { error };
      return;
    }
    next.then(
      (result) => {
        settled = { result };
        wakeup.fire();
      },
      (error: unknown) => {
        settled = { error };
        wakeup.fire();
      },
    );
  };

  try {
    let revision: number;
    let initial: readonly Entry[] = [];
    if (plan.kind === "StartExact") {
      revision = plan.revision;
    } else {
      const state = plan.kind === "StartAny" && hasCachedReads(store) ? await store.listCached(prefix, {}, 0) : await store.list(prefix);
      revision = state.revision;
      initial = state.entries;
    }

    // The newest revision the stream has gone through: what a bookmark carries.
    let lastRevision = revision;

    // Open the store watch before sending the initial state, so a slow consumer cannot let
    // compaction overtake the start revision.
    try {
      iterator = store.watch(prefix, revision, stop.signal)[Symbol.asyncIterator]();
      pull(iterator);
    } catch (error) {
      settled = { error };
    }

    for (const entry of initial) {
      if (stop.signal.aborted) break;
      if (predicate === undefined || predicate(entry)) yield { type: "ADDED", entry };
    }

    for (;;) {
      if (stop.signal.aborted) break;
      const done = settled;
      if (done !== undefined) {
        settled = undefined;
        if ("error" in done) {
          yield { type: "ERROR", status: await failureStatus(store, prefix, lastRevision, done.error) };
          return;
        }
        if (done.result.done === true) return;
        const event = done.result.value;
        if (event.entry.modRevision > lastRevision) lastRevision = event.entry.modRevision;
        const out = toWatchEvent(event, predicate);
        // Ask for the next change first: the store may queue it while the consumer is busy.
        pull(iterator as AsyncIterator<StoreEvent>);
        if (out !== undefined) yield out;
        continue;
      }
      if (bookmarkDue) {
        bookmarkDue = false;
        armBookmark();
        if (lastRevision > 0) yield { type: "BOOKMARK", revision: lastRevision };
        continue;
      }
      await wakeup.wait();
    }
    if (timedOut && opts.allowBookmarks && lastRevision > 0) yield { type: "BOOKMARK", revision: lastRevision };
  } finally {
    cancelTimeout();
    cancelBookmark();
    signal.removeEventListener("abort", onAbort);
    stop.abort();
    // Not awaited: a pending next() finishes first, which the abort above brings about.
    iterator?.return?.().catch(noop);
  }
}

/** The event a store change becomes for a watcher with `predicate` (reference cacher rules). */
function toWatchEvent(event: StoreEvent, predicate: ((entry: Entry) => boolean) | undefined): WatchStreamEvent | undefined {
  const { entry, prev } = event;
  switch (event.type) {
    case "create":
      return predicate === undefined || predicate(entry) ? { type: "ADDED", entry } : undefined;
    case "delete":
      return predicate === undefined || predicate(prev ?? entry) ? { type: "DELETED", entry } : undefined;
    case "update": {
      if (predicate === undefined) return { type: "MODIFIED", entry };
      const matches = predicate(entry);
      const matched = prev !== undefined && predicate(prev);
      if (matches) return { type: matched ? "MODIFIED" : "ADDED", entry };
      if (!matched) return undefined;
      // Gone from the watcher's view: its last visible state, at the revision of the update.
      const last = prev as Entry;
      return {
        type: "DELETED",
        entry: { key: last.key, value: last.value, createRevision: last.createRevision, modRevision: entry.modRevision },
      };
    }
  }
}

/** The Status of the `ERROR` event for a failed store watch. */
async function failureStatus(store: Store, prefix: string, asked: number, error: unknown): Promise<Status> {
  if (reasonOf(error) !== "Expired") return toStatusError(error).status;
  // A store that already words it this way (MemoryStore) has said everything.
  const status = toStatusError(error).status;
  if (/^too old resource version: \d+ \(\d+\)$/.test(status.message ?? "")) return status;
  try {
    return tooOldResourceVersion(asked, await oldestRetained(store, prefix, asked)).status;
  } catch (e) {
    return toStatusError(e).status;
  }
}

/**
 * The oldest revision the store still reads at, found by bisection between a revision known to
 * be compacted and the newest one (the store port does not expose it; this runs only on the
 * error path, with single-key reads).
 */
async function oldestRetained(store: Store, prefix: string, compacted: number): Promise<number> {
  let lo = compacted + 1;
  let hi = await store.revision();
  if (hi < lo) return hi;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (await readable(store, prefix, mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

async function readable(store: Store, prefix: string, revision: number): Promise<boolean> {
  try {
    await store.list(prefix, { revision, limit: 1 });
    return true;
  } catch (e) {
    if (reasonOf(e) === "Expired") return false;
    throw e;
  }
}
