/**
 * {@link SharedInformers}: one {@link Informer} per resource, shared by every controller that
 * asks for it, so that N controllers watching ConfigMaps cost one list and one watch.
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { Client } from "./client.js";
import { Informer, type EventHandlerOptions, type InformerHandlers, type InformerOptions, type InformerTimers } from "./informer.js";
import { resolveGroup, type ResourceRef } from "./resource-ref.js";

/** Options of {@link SharedInformers}. */
export interface SharedInformersOptions {
  /** Timers of the informers' back-off and resyncs (a `Clock` of `@orch/store` fits); the informer's default otherwise. */
  timers?: InformerTimers;
  /**
   * The resync period of every informer, in ms: the default of each handler, which may set its
   * own in {@link SharedInformers.addEventHandler} (see {@link InformerOptions.resyncPeriodMs}).
   * 0 (the default) for none.
   */
  defaultResyncPeriodMs?: number;
  /** Told about every failed list or watch of any informer, and about handlers that throw. */
  onError?(resource: ResourceRef, error: unknown): void;
}

/**
 * A factory of shared informers over one {@link Client}. {@link SharedInformers.informerFor}
 * returns the same informer for the same group, version and resource (every namespace, no
 * selectors); informers asked for after {@link SharedInformers.start} start at once.
 *
 * @example
 * const informers = new SharedInformers(client, { defaultResyncPeriodMs: 10 * 60_000 });
 * const configMaps = informers.informerFor(configMapsRef);
 * informers.addEventHandler(configMapsRef, { onAdd: (cm) => queue.add(objectKey(cm)) });
 * informers.start();
 * await informers.waitForSync(AbortSignal.timeout(30_000));
 */
export class SharedInformers {
  /** The client the informers list and watch through. */
  readonly client: Client;
  readonly #options: SharedInformersOptions;
  readonly #informers = new Map<string, Informer>();
  #started = false;

  constructor(client: Client, options: SharedInformersOptions = {}) {
    this.client = client;
    this.#options = options;
  }

  /** The key informers are shared by: `group/version/resource`, with the domain resolved. */
  keyOf(ref: ResourceRef): string {
    return `${resolveGroup(ref.group, this.client.domain)}/${ref.version}/${ref.resource}`;
  }

  /**
   * The shared informer of `ref` (every namespace, no selectors), created on first use. `T` is
   * the object type the caller expects; every caller of one resource must agree on it.
   * @throws RangeError for a negative or non-finite {@link SharedInformersOptions.defaultResyncPeriodMs}.
   */
  informerFor<T extends APIObject = APIObject>(ref: ResourceRef): Informer<T> {
    const key = this.keyOf(ref);
    let informer = this.#informers.get(key);
    if (!informer) {
      const options: InformerOptions = { onError: (error: unknown) => this.#options.onError?.(ref, error) };
      if (this.#options.timers) options.timers = this.#options.timers;
      if (this.#options.defaultResyncPeriodMs !== undefined) options.resyncPeriodMs = this.#options.defaultResyncPeriodMs;
      informer = new Informer(this.client.resource(ref), options);
      this.#informers.set(key, informer);
      if (this.#started) informer.start();
    }
    return informer as unknown as Informer<T>;
  }

  /**
   * Registers `handlers` on the shared informer of `ref`; the objects already in its cache are
   * replayed to `onAdd` at once (a controller that joins late sees what the others have seen).
   * Returns a function that unregisters them.
   */
  addEventHandler<T extends APIObject = APIObject>(ref: ResourceRef, handlers: InformerHandlers<T>, options?: EventHandlerOptions): () => void {
    return this.informerFor<T>(ref).addEventHandler(handlers, options);
  }

  /** How many informers exist. */
  get size(): number {
    return this.#informers.size;
  }

  /** True when every informer that exists now has synced. */
  hasSynced(): boolean {
    for (const informer of this.#informers.values()) if (!informer.hasSynced()) return false;
    return true;
  }

  /** Starts every informer, and those created later. */
  start(): void {
    this.#started = true;
    for (const informer of this.#informers.values()) informer.start();
  }

  /**
   * Resolves once every informer that exists now has synced. Rejects when `signal` aborts first
   * or one of them is stopped before its sync (see {@link Informer.waitForSync}).
   */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.waitForSync(signal)));
  }

  /** Stops every informer; resolves when their loops have ended. */
  async stop(): Promise<void> {
    this.#started = false;
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }
}
