/**
 * The service-account controller (the reference's `serviceaccount-controller`): every namespace
 * that is not being deleted has a ServiceAccount named `default`, the account pods run as when
 * they name none. It is created at start for every namespace, then for each new namespace, and
 * again whenever it is deleted.
 * @module
 */
import { isAlreadyExists, isNotFound, StatusError, type APIObject } from "@orch/meta";
import { ControlLoop, messageOf, type ControllerInput } from "./control-loop.js";
import type { WriteOptions } from "./object-store.js";
import { collectionPrefix, objectKey, wireObject, type ServedResource } from "./served-resource.js";

/** The account every namespace has. */
const defaultAccount = "default";
/** The first pause before a failed namespace is tried again, in milliseconds; it doubles up to {@link maxRetryMs}. */
const firstRetryMs = 1000;
const maxRetryMs = 60_000;

/** The options of the controller's creates. */
const controllerWrite = (): WriteOptions => ({ dryRun: false, fieldValidation: "Ignore", warnings: [], fieldManager: "service-account-controller" });

/** True for the refusal of a create in a terminating namespace (the NamespaceLifecycle plugin's cause). */
function namespaceTerminating(error: unknown): boolean {
  return error instanceof StatusError && (error.status.details?.causes ?? []).some((c) => c.reason === "NamespaceTerminating");
}

/** True when `namespace` is being deleted. */
function terminating(namespace: APIObject): boolean {
  return Boolean(namespace.metadata.deletionTimestamp) || (namespace["status"] as { phase?: unknown } | undefined)?.phase === "Terminating";
}

/** Keeps a `default` ServiceAccount in every namespace that is not terminating. */
export class ServiceAccountController {
  readonly #input: ControllerInput;
  readonly #loop: ControlLoop;
  /** The syncs under way, by namespace. */
  readonly #running = new Map<string, Promise<void>>();
  /** Namespaces asked for again while their sync ran. */
  readonly #again = new Set<string>();
  /** The next retry pause of namespaces whose last sync failed. */
  readonly #backoff = new Map<string, number>();

  /** `input.served` must know `namespaces` and `serviceaccounts` of the core group. */
  constructor(input: ControllerInput) {
    this.#input = input;
    this.#loop = new ControlLoop(input, {
      reload: () => this.#load(),
      reloadFailed: (error) => input.log(`service accounts: relist failed (${messageOf(error)})`),
    });
  }

  #served(resource: string): ServedResource {
    const served = this.#input.served("", resource);
    if (!served) throw new Error(`the service-account controller needs the ${resource} resource in the catalog`);
    return served;
  }

  /**
   * Lists the namespaces, creates the missing `default` accounts (resolving once each namespace
   * was tried) and starts watching namespaces and service accounts.
   * @throws what the store threw when it could not list.
   */
  async start(): Promise<void> {
    await this.#load();
  }

  /** Stops the watches and the retries. */
  stop(): void {
    this.#loop.stop();
  }

  /** Lists the namespaces at one revision, watches both resources from it, and syncs every namespace. */
  async #load(): Promise<void> {
    const signal = this.#loop.begin();
    const { store } = this.#input;
    const revision = await store.revision();
    const { entries } = await store.list(collectionPrefix(this.#served("namespaces"), ""), { revision });
    this.#follow("namespaces", revision, signal, (type, object) => {
      if (type !== "delete" && !terminating(object)) void this.#enqueue(object.metadata.name ?? "");
    });
    this.#follow("serviceaccounts", revision, signal, (type, object) => {
      if (type === "delete" && object.metadata.name === defaultAccount) void this.#enqueue(object.metadata.namespace ?? "");
    });
    await Promise.all(entries.map((entry) => this.#enqueue(wireObject(entry).metadata.name ?? "")));
  }

  #follow(resource: string, from: number, signal: AbortSignal, handle: (type: string, object: APIObject) => void): void {
    this.#loop.follow(
      collectionPrefix(this.#served(resource), ""),
      from,
      signal,
      (event) => handle(event.type, wireObject(event.entry)),
      // Compacted past us or the store went away: the loop starts over from a fresh list.
      (error) => this.#input.log(`service accounts: the ${resource} watch ended (${messageOf(error)}); relisting`),
    );
  }

  /** Syncs `namespace`, once at a time: a request during a sync runs it once more after. */
  #enqueue(namespace: string): Promise<void> {
    if (!namespace || !this.#loop.running) return Promise.resolve();
    const running = this.#running.get(namespace);
    if (running) {
      this.#again.add(namespace);
      return running;
    }
    const sync = this.#sync(namespace).finally(() => {
      this.#running.delete(namespace);
      if (this.#again.delete(namespace)) void this.#enqueue(namespace);
    });
    this.#running.set(namespace, sync);
    return sync;
  }

  /** Creates `default` in `namespace` when it is missing and the namespace is not terminating. */
  async #sync(namespace: string): Promise<void> {
    const { store, objects } = this.#input;
    const accounts = this.#served("serviceaccounts");
    try {
      const entry = await store.get(objectKey(this.#served("namespaces"), "", namespace));
      if (!entry || terminating(entry.value as APIObject)) return;
      if (await store.get(objectKey(accounts, namespace, defaultAccount))) return;
      const account: APIObject = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: defaultAccount, namespace } };
      await objects.create(accounts, namespace, account, controllerWrite());
      this.#backoff.delete(namespace);
    } catch (error) {
      if (isAlreadyExists(error) || isNotFound(error) || namespaceTerminating(error)) return;
      this.#retry(namespace, error);
    }
  }

  /** Tries `namespace` again after a pause that doubles with each failure. */
  #retry(namespace: string, error: unknown): void {
    const pause = this.#backoff.get(namespace) ?? firstRetryMs;
    this.#backoff.set(namespace, Math.min(pause * 2, maxRetryMs));
    this.#input.log(`service accounts: creating ${namespace}/${defaultAccount} failed (${messageOf(error)}); trying again in ${pause} ms`);
    this.#loop.later(pause, () => void this.#enqueue(namespace));
  }
}
