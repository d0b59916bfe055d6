/**
 * {@link SharedInformers}: one {@link Informer} per resource, shared by every controller that
 * asks for it, so that N controllers watching ConfigMaps cost one list and one watch.
 * @module
 */
import { Informer, resolveGroup, type Client, type InformerHandlers, type InformerTimers, type ResourceRef } from "@orch/client";
import type { APIObject } from "@orch/meta";

/** Options of {@link SharedInformers}. */
export interface SharedInformersOptions {
  /** Timers of the informers' back-off (a `Clock` of `@orch/store` fits); the informer's default otherwise. */
  timers?: InformerTimers;
  /** Told about every failed list or watch of any informer. */
  onError?(resource: ResourceRef, error: unknown): void;
}

/**
 * A factory of shared informers over one {@link Client}. {@link SharedInformers.informerFor}
 * returns the same informer for the same group, version and resource; informers asked for after
 * {@link SharedInformers.start} start at once.
 *
 * @example
 * const informers = new SharedInformers(client);
 * const configMaps = informers.informerFor(configMapsRef);
 * informers.start();
 * await informers.waitForSync();
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
   */
  informerFor<T extends APIObject = APIObject>(ref: ResourceRef): Informer<T> {
    const key = this.keyOf(ref);
    let informer = this.#informers.get(key);
    if (!informer) {
      const options: ConstructorParameters<typeof Informer>[1] = {
        onError: (error: unknown) => this.#options.onError?.(ref, error),
      };
      if (this.#options.timers) options.timers = this.#options.timers;
      informer = new Informer(this.client.resource(ref), options);
      this.#informers.set(key, informer);
      if (this.#started) informer.start();
    }
    return informer as unknown as Informer<T>;
  }

  /**
   * Registers `handlers` on the shared informer of `ref` and replays the objects already in its
   * cache to `onAdd` (a controller that joins late sees what the others have seen). Returns a
   * function that unregisters them.
   */
  addEventHandler<T extends APIObject = APIObject>(ref: ResourceRef, handlers: InformerHandlers<T>): () => void {
    const informer = this.informerFor<T>(ref);
    const remove = informer.addEventHandler(handlers);
    for (const object of informer.list()) handlers.onAdd?.(object);
    return remove;
  }

  /** How many informers exist. */
  get size(): number {
    return this.#informers.size;
  }

  /** Starts every informer, and those created later. */
  start(): void {
    this.#started = true;
    for (const informer of this.#informers.values()) informer.start();
  }

  /** Resolves once every informer that exists now has synced (never, for one stopped before its sync). */
  async waitForSync(): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.waitForSync()));
  }

  /** Stops every informer; resolves when their loops have ended. */
  async stop(): Promise<void> {
    this.#started = false;
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }
}
