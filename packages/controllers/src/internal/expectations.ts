/**
 * {@link Expectations}: the creations and deletions a controller has asked for and not yet seen
 * come back through its informer (the reference's `UIDTrackingControllerExpectations`), so that
 * a sync running before its own writes are observed does not create or delete again.
 * @module
 */
import type { Clock } from "@orch/store";

/** How long expectations hold before they are taken as met anyway (ms; the reference's 5 minutes). */
export const expectationsTimeoutMs = 5 * 60_000;

interface Expected {
  adds: number;
  /** The keys (`namespace/name`) of the objects whose deletion is awaited. */
  deletes: Set<string>;
  /** When they were set, on the clock. */
  at: number;
}

/** Expected creations and deletions per controller key. */
export class Expectations {
  readonly #clock: Clock;
  readonly #byKey = new Map<string, Expected>();

  /** Expectations timed on `clock`. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Expects `count` creations for `key`, replacing what was expected. */
  expectCreations(key: string, count: number): void {
    this.#byKey.set(key, { adds: count, deletes: new Set(), at: this.#clock.now() });
  }

  /** Expects the deletion of the objects `objectKeys` for `key`, replacing what was expected. */
  expectDeletions(key: string, objectKeys: readonly string[]): void {
    this.#byKey.set(key, { adds: 0, deletes: new Set(objectKeys), at: this.#clock.now() });
  }

  /** One expected creation for `key` was seen (or will never happen). */
  creationObserved(key: string): void {
    const expected = this.#byKey.get(key);
    if (expected && expected.adds > 0) expected.adds -= 1;
  }

  /** The deletion of `objectKey` for `key` was seen (or will never happen); others are ignored. */
  deletionObserved(key: string, objectKey: string): void {
    this.#byKey.get(key)?.deletes.delete(objectKey);
  }

  /** Forgets `key` (its controller is gone). */
  delete(key: string): void {
    this.#byKey.delete(key);
  }

  /**
   * True when `key` may act again: nothing is expected, everything expected was seen, or the
   * expectations are older than {@link expectationsTimeoutMs}.
   */
  satisfied(key: string): boolean {
    const expected = this.#byKey.get(key);
    if (!expected) return true;
    if (expected.adds <= 0 && expected.deletes.size === 0) return true;
    return this.#clock.now() - expected.at > expectationsTimeoutMs;
  }
}
