/**
 * What the server's watch-driven controllers share: the input they are built from, and
 * {@link ControlLoop}, the plumbing of a loop that lists, then watches from the listed revision,
 * and lists again when a watch fails.
 * @module
 */
import type { Clock, Store, StoreEvent } from "@orch/store";
import type { ObjectStore } from "./object-store.js";
import type { ServedResource } from "./served-resource.js";

/** What the server's controllers need of the server. */
export interface ControllerInput {
  /** The product domain. */
  domain: string;
  /** The server's store: controllers list and watch it. */
  store: Store;
  /** The server's clock: controllers' delays and retries run on it. */
  clock: Clock;
  /** The server's write path (admission runs on the controllers' writes). */
  objects: ObjectStore;
  /** The served storage version of `group`/`resource`, `undefined` when the server does not serve it. */
  served(group: string, resource: string): ServedResource | undefined;
  /** Receives the controllers' log lines. */
  log: (message: string) => void;
}

/** The message of what was thrown, for a log line. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** How long after a failed watch, or a failed reload, the loop reloads (ms). */
const reloadDelayMs = 1000;

/** How a {@link ControlLoop} starts over. */
export interface ControlLoopOptions {
  /**
   * Lists again and follows again from that list. It calls {@link ControlLoop.begin} before it
   * first awaits, so that what it follows replaces what the previous load followed.
   */
  reload(): Promise<void>;
  /** Told of a reload that failed (the store is still away); it is tried again a second later. */
  reloadFailed?(error: unknown): void;
}

/**
 * The plumbing of a controller kept by store watches, used by composition. Each load of the
 * controller is a generation: {@link ControlLoop.begin} starts one and aborts the one before,
 * so the watches of a stale list end. When a watch fails (compacted past it, the store went
 * away) and the loop was neither stopped nor reloaded meanwhile, the loop reloads a second
 * later, and again a second after each reload that fails. {@link ControlLoop.stop} ends the
 * generation and cancels every timer of the loop, for good.
 *
 * @example
 * const loop = new ControlLoop(input, { reload: () => load() });
 * async function load() {
 *   const signal = loop.begin();
 *   const { entries, revision } = await input.store.list(prefix);
 *   // ...take in entries...
 *   loop.follow(prefix, revision, signal, (event) => apply(event));
 * }
 */
export class ControlLoop {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #options: ControlLoopOptions;
  readonly #timers = new Set<() => void>();
  /** The current generation; `undefined` before the first {@link begin}. */
  #generation: AbortController | undefined;
  #stopped = false;

  /** A loop on `on`'s store and clock, starting over with `options.reload`. */
  constructor(on: { store: Store; clock: Clock }, options: ControlLoopOptions) {
    this.#store = on.store;
    this.#clock = on.clock;
    this.#options = options;
  }

  /** True from the first {@link begin} until {@link stop}. */
  get running(): boolean {
    return this.#generation !== undefined && !this.#stopped;
  }

  /**
   * Starts a new generation, aborting the previous one, and returns the signal that ends it
   * (aborted already once the loop has stopped: what a late load follows ends at once).
   */
  begin(): AbortSignal {
    this.#generation?.abort();
    this.#generation = new AbortController();
    if (this.#stopped) this.#generation.abort();
    return this.#generation.signal;
  }

  /** Runs `fn` on the clock after `ms` milliseconds, unless the loop stops first; nothing when it is not running. */
  later(ms: number, fn: () => void): void {
    if (!this.running) return;
    const cancel = this.#clock.setTimer(ms, () => {
      this.#timers.delete(cancel);
      fn();
    });
    this.#timers.add(cancel);
  }

  /**
   * Watches `prefix` from revision `from` (events after it) until `signal` aborts, handing each
   * event to `onEvent`. When the watch fails, or `onEvent` throws, and `signal` is not aborted,
   * `ended` is told and the loop reloads a second later, unless `signal`'s generation ended
   * meanwhile.
   */
  follow(prefix: string, from: number, signal: AbortSignal, onEvent: (event: StoreEvent) => void, ended?: (error: unknown) => void): void {
    void this.#follow(prefix, from, signal, onEvent, ended);
  }

  /** Stops for good: aborts the generation and cancels every timer. */
  stop(): void {
    this.#stopped = true;
    this.#generation?.abort();
    for (const cancel of this.#timers) cancel();
    this.#timers.clear();
  }

  async #follow(prefix: string, from: number, signal: AbortSignal, onEvent: (event: StoreEvent) => void, ended?: (error: unknown) => void): Promise<void> {
    try {
      for await (const event of this.#store.watch(prefix, from, signal)) onEvent(event);
    } catch (error) {
      if (signal.aborted) return;
      ended?.(error);
      this.#reloadAfter(signal);
    }
  }

  /** Reloads a second from now unless `signal`'s generation ends first; a failed reload is tried again. */
  #reloadAfter(signal: AbortSignal): void {
    this.later(reloadDelayMs, () => {
      if (signal.aborted) return;
      this.#options.reload().catch((error: unknown) => {
        this.#options.reloadFailed?.(error);
        // The failed reload began a generation: retry unless it ends (a stop, another reload).
        if (this.#generation) this.#reloadAfter(this.#generation.signal);
      });
    });
  }
}
