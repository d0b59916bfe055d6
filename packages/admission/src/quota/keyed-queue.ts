/**
 * A promise queue per key: tasks of one key run one after another, tasks of different keys
 * run side by side. ResourceQuota serialises its evaluations per namespace with it, so that
 * concurrent writes in one process charge the quotas one at a time instead of fighting over
 * their compare-and-swap.
 * @module
 */

/** Runs tasks one at a time per key. */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `task` after every earlier task of `key` has settled; resolves or rejects as it does. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** How many keys have tasks queued or running. */
  get size(): number {
    return this.#tails.size;
  }
}
