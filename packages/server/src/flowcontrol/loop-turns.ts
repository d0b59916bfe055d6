/**
 * Turns of the event loop, handed out one at a time. The server runs every request on one
 * event loop: a request that executes without waiting for I/O (a LIST from memory) holds the
 * loop until its answer is written, and every request whose bytes arrived in the same turn waits
 * behind it. A wide request that takes a turn of its own starts only after the loop has read
 * what arrived meanwhile, so a GET that arrives while LISTs are dispatched is answered between
 * two of them rather than after all of them.
 * @module
 */

/** Runs `fn` on a later turn of the event loop, after the I/O that is ready now. */
export type TurnScheduler = (fn: () => void) => void;

/** `setImmediate` where the runtime has it (it runs after the pending I/O callbacks), else a zero timer. */
export const nextTurn: TurnScheduler = (fn) => {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (immediate) immediate(fn);
  else setTimeout(fn, 0);
};

/** Hands out turns of the event loop one at a time, in the order they were asked for. */
export class LoopTurns {
  readonly #schedule: TurnScheduler;
  readonly #waiting: (() => void)[] = [];
  #scheduled = false;

  /** Turns from `schedule` ({@link nextTurn} by default). */
  constructor(schedule: TurnScheduler = nextTurn) {
    this.#schedule = schedule;
  }

  /** How many callers wait for a turn now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves on a turn of the loop that no other caller of this object gets. */
  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      this.#arm();
    });
  }

  #arm(): void {
    if (this.#scheduled || this.#waiting.length === 0) return;
    this.#scheduled = true;
    this.#schedule(() => {
      this.#scheduled = false;
      const first = this.#waiting.shift();
      // The next turn is asked for before this one's work runs, so it comes after the I/O that arrives meanwhile.
      this.#arm();
      first?.();
    });
  }
}
