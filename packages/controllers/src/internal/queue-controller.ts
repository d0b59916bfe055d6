/**
 * {@link QueueController}: the skeleton of a controller that feeds keys from informer events to
 * a `WorkQueue` and syncs each key, as most of the reference's loops do.
 * @module
 */
import { objectKey, type Client, type Informer, type ResourceRef } from "@orch/client";
import { isConflict, type APIObject } from "@orch/meta";
import type { Clock } from "@orch/store";
import type { Controller, ControllerContext } from "../controller.js";
import { messageOf } from "./message-of.js";
import { processQueue, WorkQueue } from "../work-queue.js";

/**
 * An error a sync throws to be retried with back-off without a log line (the reference's
 * `IgnorableError`): the key is not done, but nothing went wrong.
 */
export class RetryQuietly extends Error {
  override readonly name = "RetryQuietly";
}

/**
 * A controller whose informer handlers queue keys and whose workers call
 * `sync` with each. Subclasses register their handlers in
 * `watch`; a sync that throws is retried with the queue's back-off and
 * logged, unless it threw `RetryQuietly` or a 409 Conflict (the informer's copy was older
 * than the server's: routine when two writers race, and the retry reads the newer copy).
 */
export abstract class QueueController implements Controller {
  abstract readonly name: string;
  /** Workers of the queue. */
  protected readonly workers: number = 1;
  /** The first back-off of a failing key, in ms. */
  protected readonly baseDelayMs: number = 5;
  /** The longest back-off of a failing key, in ms (the queue's default, 1000 s, unless overridden). */
  protected readonly maxDelayMs: number | undefined = undefined;
  #ctx: ControllerContext | undefined;
  #queue: WorkQueue | undefined;
  readonly #unregister: (() => void)[] = [];
  #workersDone: Promise<void> | undefined;
  #stopped = false;
  #onStop: (() => void) | undefined;

  /**
   * Queues the key (`namespace/name`, or the name of a cluster-scoped object) of every object
   * of `ref` that is added or updated, and deleted too with `deletes`, when `when` lets it
   * through; for `watch`. Returns the shared informer (for `sync` to read from) and the function
   * that unregisters the handlers.
   */
  protected follow(
    ctx: ControllerContext,
    ref: ResourceRef,
    options: { when?: (object: APIObject) => boolean; deletes?: boolean } = {},
  ): { informer: Informer; unregister: () => void } {
    const enqueue = (object: APIObject): void => {
      if (!options.when || options.when(object)) this.queue.add(objectKey(object));
    };
    const unregister = ctx.informers.addEventHandler(ref, {
      onAdd: enqueue,
      onUpdate: (_old, object) => enqueue(object),
      ...(options.deletes ? { onDelete: enqueue } : {}),
    });
    return { informer: ctx.informers.informerFor(ref), unregister };
  }

  /** The context of the running controller. @throws Error before `run`. */
  protected get ctx(): ControllerContext {
    if (!this.#ctx) throw new Error(`${this.name} is not running`);
    return this.#ctx;
  }

  /** The client of the running controller. */
  protected get client(): Client {
    return this.ctx.client;
  }

  /** The clock of the running controller. */
  protected get clock(): Clock {
    return this.ctx.clock;
  }

  /** The work queue. @throws Error before `run`. */
  protected get queue(): WorkQueue {
    if (!this.#queue) throw new Error(`${this.name} is not running`);
    return this.#queue;
  }

  /** Logs `message` prefixed with the controller's name. */
  protected log(message: string): void {
    this.#ctx?.log(`${this.name}: ${message}`);
  }

  /**
   * Whether the controller can run with `ctx` (a signer without a CA cannot); when it answers a
   * reason, that is logged and the controller stays idle. Runs before `watch`.
   */
  protected unableToRun(_ctx: ControllerContext): string | undefined {
    return undefined;
  }

  /** Registers the informer handlers that queue keys; answers the functions that unregister them. */
  protected abstract watch(ctx: ControllerContext): (() => void)[];

  /** Brings the world in line for `key`; throws to be retried. */
  protected abstract sync(key: string): Promise<void>;

  /** Registers the handlers, waits for the informers to sync, then starts the workers. */
  async run(ctx: ControllerContext): Promise<void> {
    if (this.#ctx) throw new Error(`a ${this.name} controller runs once`);
    this.#ctx = ctx;
    const queue = new WorkQueue({ clock: ctx.clock, baseDelayMs: this.baseDelayMs, ...(this.maxDelayMs === undefined ? {} : { maxDelayMs: this.maxDelayMs }) });
    this.#queue = queue;
    const reason = this.unableToRun(ctx);
    if (reason !== undefined) return this.log(reason);
    this.#unregister.push(...this.watch(ctx));
    const stopped = new Promise<void>((resolve) => (this.#onStop = resolve));
    await Promise.race([ctx.informers.waitForSync(), stopped]);
    if (this.#stopped) return;
    this.#workersDone = processQueue(queue, (key) => this.sync(key), {
      workers: this.workers,
      onError: (key, error) => {
        if (!(error instanceof RetryQuietly) && !isConflict(error)) this.log(`${key}: ${messageOf(error)}`);
      },
    });
  }

  /** Stops the workers and leaves the informers; resolves when no key is in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#onStop?.();
    for (const unregister of this.#unregister.splice(0)) unregister();
    this.#queue?.shutDown();
    await this.#workersDone;
  }
}
