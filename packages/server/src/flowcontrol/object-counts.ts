/**
 * The number of stored objects of each resource, for the work estimate of a LIST: counted from
 * the store when a resource is first asked for and again once the last count is older than the
 * refresh period (in the background: the request that finds a count old is estimated with it).
 * Until its first count arrives a resource's count is unknown.
 * @module
 */
import type { Clock } from "@orch/store";

/** Counts the stored objects of a resource; undefined when it is not one this server stores. */
export type ObjectCounter = (group: string, resource: string) => Promise<number | undefined>;

/** How old a count may be before it is counted again: 10 seconds. */
export const defaultCountRefreshMs = 10_000;

/** The most resources remembered at once. */
const maxEntries = 1024;

interface Entry {
  count: number | undefined;
  countedAt: number;
  counting: boolean;
}

/** The stored-object counts of the resources, counted on demand (see the module). */
export class ObjectCounts {
  readonly #counter: ObjectCounter;
  readonly #clock: Clock;
  readonly #refreshMs: number;
  readonly #entries = new Map<string, Entry>();

  /** Counts with `counter`, again once a count is `refreshMs` old. */
  constructor(counter: ObjectCounter, clock: Clock, refreshMs = defaultCountRefreshMs) {
    this.#counter = counter;
    this.#clock = clock;
    this.#refreshMs = refreshMs;
  }

  /**
   * The last count of `resource` in `group` (`""` for core), or undefined before the first; starts
   * a count when there is none yet or the last is old. A count that fails keeps the last one.
   */
  get(group: string, resource: string): number | undefined {
    const key = `${resource}.${group}`;
    let entry = this.#entries.get(key);
    if (!entry) {
      // A request may name a resource nobody serves: the memory of them is bounded.
      if (this.#entries.size >= maxEntries) this.#entries.clear();
      entry = { count: undefined, countedAt: -Infinity, counting: false };
      this.#entries.set(key, entry);
    }
    const now = this.#clock.now();
    if (!entry.counting && now - entry.countedAt >= this.#refreshMs) {
      const counted = entry;
      counted.counting = true;
      this.#counter(group, resource).then(
        (count) => {
          counted.count = count;
          counted.countedAt = this.#clock.now();
          counted.counting = false;
        },
        () => {
          counted.countedAt = this.#clock.now();
          counted.counting = false;
        },
      );
    }
    return entry.count;
  }
}
