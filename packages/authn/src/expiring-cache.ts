/**
 * The decision cache of the webhooks (the token webhook here, the authorization webhook of
 * `@orch/authz`): entries that expire by the clock, at most so many, the oldest dropped first.
 * @module
 */
import type { Clock } from "@orch/store";

/** A bounded map whose entries expire `ttl` milliseconds (by `clock`) after they were set. */
export class ExpiringCache<K, V> {
  readonly #entries = new Map<K, { value: V; expiresAt: number }>();
  readonly #clock: Pick<Clock, "now">;
  readonly #maxEntries: number;

  /** A cache of at most `maxEntries` entries, timed by `clock`. */
  constructor(clock: Pick<Clock, "now">, maxEntries: number) {
    this.#clock = clock;
    this.#maxEntries = maxEntries;
  }

  /** The value of `key`, unless it is missing or expired (an expired entry is dropped). */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /**
   * Sets `key` for `ttlMs` (nothing when `ttlMs` is 0 or less). When full, expired entries go
   * first, then the oldest.
   */
  set(key: K, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    const now = this.#clock.now();
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      for (const [k, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(k);
    }
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt: now + ttlMs });
  }

  /** Removes `key`. */
  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** How many entries are live (not expired); counts them all, for statistics, not hot paths. */
  get size(): number {
    const now = this.#clock.now();
    let live = 0;
    for (const entry of this.#entries.values()) if (entry.expiresAt > now) live++;
    return live;
  }
}
