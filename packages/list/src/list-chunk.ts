/**
 * One chunk of a list, read from the store as the reference storage layer does: one revision
 * for every chunk of a paged list (carried by the continue token), predicate filtering that keeps
 * reading until the chunk is full, `remainingItemCount` when it is known, and the 410 of an
 * expired token with a fresh token to go on inconsistently.
 * @module
 */
import { expired, reasonOf } from "@orch/meta";
import type { Clock, Entry, ListResult, Store } from "@orch/store";
import { encodeContinueToken } from "./continue-token.js";
import { waitForRevision } from "./internal/wait-for-revision.js";
import type { ListPlan } from "./read-plan.js";
import { hasCachedReads } from "./watch-cache.js";

/** Options of {@link listChunk}. */
export interface ListChunkOptions {
  /** At most this many items; 0 or absent lists everything left (no paging). */
  limit?: number;
  /** Keeps only the entries it returns true for (label and field selectors, for instance). */
  predicate?: (entry: Entry) => boolean;
  /**
   * True when the request carries a label or field selector, so the number of remaining items
   * is unknown and `remainingItemCount` is left out. Defaults to `predicate !== undefined`.
   */
  hasSelector?: boolean;
  /** The product domain continue tokens are versioned with; default `orch.io`. */
  domain?: string;
  /** How long to wait for a revision the store has not reached, in ms of `clock`; default 3000. */
  waitMs?: number;
  /** The clock the wait is measured on. */
  clock: Clock;
}

/** One chunk of a list. */
export interface ListChunk {
  /** The entries of this chunk, in key order; the caller must not mutate them. */
  entries: Entry[];
  /** The revision the chunk was read at: the collection's `metadata.resourceVersion`. */
  resourceVersion: number;
  /** The token for the next chunk; `""` on the last chunk. */
  continue: string;
  /** How many items follow this chunk; only when paging, without a selector, and more remain. */
  remainingItemCount?: number;
}

/** The message of an expired continue token (reference `inconsistentContinue`). */
export const inconsistentContinueMessage =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list " +
  "without the continue parameter, or use the continue token in this response to retrieve the remainder of the " +
  "results. Continuing with the provided token results in an inconsistent list - objects that were created, " +
  "modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/** The message of a list at a compacted exact revision (reference `expired`). */
export const expiredListMessage = "The resourceVersion for the provided list is too old.";

/** The store reads at most this many keys at once while a predicate drops items. */
const maxStorePage = 10_000;

/**
 * Reads one chunk of the collection under `prefix` as `plan` says.
 *
 * - `MostRecent`/`Any` read the newest revision; `NotOlderThan` and `Exact` first wait until
 *   the store has reached their revision (bounded by `waitMs` on `clock`); `Exact` and
 *   `Continue` read at their revision; `ContinueLatest` reads the rest at the newest revision.
 * - With `limit`, the chunk holds at most `limit` entries and `continue` is a token for the rest
 *   at the same revision; with a `predicate`, store pages are read (doubling in size) until
 *   `limit` entries match or the collection ends, so a chunk may be short or even empty and still
 *   carry a token.
 *
 * - On a store with `CachedReads` (a `WatchCache`), `Any` and `NotOlderThan` chunks are read
 *   from its memory at the cache's revision; other plans use the plain `Store` calls.
 *
 * A `prefix` without a trailing `/` gets one, as the reference does for collections, so that
 * `/registry/pods/ns` never lists `/registry/pods/ns2/...`.
 *
 * @throws StatusError 410 Expired when the revision was compacted: for a token the message is
 *   {@link inconsistentContinueMessage} and `metadata.continue` of the Status holds a token with
 *   rv -1 at the same start key; otherwise {@link expiredListMessage}.
 * @throws StatusError 504 `Too large resource version` when the store does not reach the
 *   revision of a `NotOlderThan`, `Exact` or `Continue` plan within `waitMs`.
 */
export async function listChunk(store: Store, prefix: string, plan: ListPlan, opts: ListChunkOptions): Promise<ListChunk> {
  const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
  const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : 0;
  let revision: number | undefined;
  let start: string | undefined;
  // Reads that may be stale (`Any`, `NotOlderThan`) come from a watch cache when the store has one.
  const minRevision = plan.kind === "Any" ? 0 : plan.kind === "NotOlderThan" ? plan.revision : undefined;
  switch (plan.kind) {
    case "MostRecent":
    case "Any":
      break;
    case "NotOlderThan":
      await waitForRevision(store, plan.revision, opts.clock, opts.waitMs);
      break;
    case "Exact":
      await waitForRevision(store, plan.revision, opts.clock, opts.waitMs);
      revision = plan.revision;
      break;
    case "Continue":
      await waitForRevision(store, plan.revision, opts.clock, opts.waitMs);
      revision = plan.revision;
      start = absoluteKey(base, plan.startKey);
      break;
    case "ContinueLatest":
      start = absoluteKey(base, plan.startKey);
      break;
  }

  const read = async (after: string | undefined, pageLimit: number): Promise<ListResult> => {
    try {
      if (revision === undefined && minRevision !== undefined && hasCachedReads(store)) {
        return await store.listCached(base, { ...(after === undefined ? {} : { after }), ...(pageLimit > 0 ? { limit: pageLimit } : {}) }, minRevision);
      }
      return await store.list(base, {
        ...(revision === undefined ? {} : { revision }),
        ...(after === undefined ? {} : { after }),
        ...(pageLimit > 0 ? { limit: pageLimit } : {}),
      });
    } catch (e) {
      if (reasonOf(e) !== "Expired") throw e;
      if (start !== undefined) {
        const token = encodeContinueToken({ revision: -1, startKey: start.slice(base.length) }, domainOf(opts));
        throw expired(inconsistentContinueMessage, { continue: token });
      }
      throw expired(expiredListMessage);
    }
  };

  // The store lists strictly after a key. A start key of our own making is `<last key>\0`, and
  // nothing sorts between `k` and `k\0`; any other start key is honoured by skipping the keys
  // below it that follow its parent string.
  let after: string | undefined;
  let skipBelow: string | undefined;
  if (start !== undefined) {
    after = start.slice(0, -1);
    if (!start.endsWith("\u0000")) skipBelow = start;
  }

  const predicate = opts.predicate;
  const result = await read(after, limit);
  revision = result.revision;

  if (predicate === undefined && skipBelow === undefined) {
    // The common case: one store page is the chunk, no copy.
    return finish(result.entries, revision, limit > 0 && result.more, result.remaining, base, opts);
  }

  const entries: Entry[] = [];
  let page = result;
  let pageSize = limit;
  for (;;) {
    const kvs = page.entries;
    let consumed = 0;
    for (; consumed < kvs.length; consumed++) {
      if (limit > 0 && entries.length >= limit) break;
      const entry = kvs[consumed] as Entry;
      if (skipBelow !== undefined && entry.key < skipBelow) continue;
      if (predicate === undefined || predicate(entry)) entries.push(entry);
    }
    const full = limit > 0 && entries.length >= limit;
    if (full && consumed < kvs.length) {
      // Stopped inside the page: what is left of it also remains.
      return finish(entries, revision, true, page.remaining + (kvs.length - consumed), base, opts);
    }
    if (!page.more || limit === 0 || full) {
      return finish(entries, revision, limit > 0 && page.more, page.remaining, base, opts);
    }
    skipBelow = undefined;
    pageSize = Math.min(pageSize * 2, Math.max(maxStorePage, limit));
    const last = kvs[kvs.length - 1];
    page = await read(last === undefined ? after : last.key, pageSize);
  }
}

function finish(entries: Entry[], revision: number, more: boolean, remaining: number, base: string, opts: ListChunkOptions): ListChunk {
  const chunk: ListChunk = { entries, resourceVersion: revision, continue: "" };
  const last = entries[entries.length - 1];
  if (!more) return chunk;
  if (last === undefined) {
    // Cannot happen with a positive limit and a full chunk; a short chunk ends its store pages.
    return chunk;
  }
  chunk.continue = encodeContinueToken({ revision, startKey: `${last.key.slice(base.length)}\u0000` }, domainOf(opts));
  const hasSelector = opts.hasSelector ?? opts.predicate !== undefined;
  if (!hasSelector) chunk.remainingItemCount = remaining;
  return chunk;
}

/** The key a token's relative start key names: the reference's `prefix + clean("/" + start)[1:]`. */
function absoluteKey(base: string, startKey: string): string {
  return base + (startKey.startsWith("/") ? startKey.slice(1) : startKey);
}

function domainOf(opts: ListChunkOptions): { domain?: string } {
  return opts.domain === undefined ? {} : { domain: opts.domain };
}
