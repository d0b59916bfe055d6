/**
 * The bounded wait of a read that names a revision the store has not reached yet, as the
 * reference watch cache's `waitUntilFreshAndBlock` does (3 s, then 504 with Retry-After 1).
 * @module
 */
import { resourceVersionTooLarge } from "@orch/meta";
import type { Clock, Store } from "@orch/store";

/** How long a read waits for the store to reach a revision, by default: 3 s, as the reference. */
export const defaultWaitMs = 3000;

/**
 * Resolves once the store's revision is at least `revision`. While it is behind, watches the
 * whole store from its current revision and re-checks on every change, for at most `waitMs`
 * measured on `clock`; the watch and the timer are released however the wait ends.
 *
 * @throws StatusError 504 `Too large resource version` (Retry-After 1) when the wait runs out.
 */
export async function waitForRevision(store: Store, revision: number, clock: Clock, waitMs: number = defaultWaitMs): Promise<void> {
  const current = await store.revision();
  if (current >= revision) return;
  const controller = new AbortController();
  const cancelTimer = clock.setTimer(waitMs, () => controller.abort());
  try {
    for await (const event of store.watch("", current, controller.signal)) {
      if (event.entry.modRevision >= revision) return;
    }
  } catch {
    // A store that cannot watch from its own current revision: fall through to the re-check.
  } finally {
    cancelTimer();
    controller.abort();
  }
  const now = await store.revision();
  if (now >= revision) return;
  throw resourceVersionTooLarge(revision, now, 1);
}
