/**
 * A reusable wake-up call for a loop that waits on several sources (store events, timers,
 * aborts): each source records what happened and calls {@link Wakeup.fire}; the loop checks its
 * state and, when there is nothing to do, awaits {@link Wakeup.wait}.
 * @module
 */

/** A level-triggered, single-waiter wake-up. */
export class Wakeup {
  #resolve: (() => void) | undefined;
  #pending = false;

  /** Wakes the waiter, or the next one to wait when nobody waits now. */
  fire(): void {
    const resolve = this.#resolve;
    if (resolve === undefined) {
      this.#pending = true;
      return;
    }
    this.#resolve = undefined;
    resolve();
  }

  /** Resolves at the next {@link Wakeup.fire}, or at once when one came since the last wait. */
  wait(): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }
}
