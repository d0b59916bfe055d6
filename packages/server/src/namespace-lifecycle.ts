/**
 * Namespaces: the ones that exist from the start (the Namespace strategy refuses their
 * deletion), the guard on writes into a missing (404) or terminating (403) namespace, and the
 * controller that empties a terminating namespace, removes its finalizer and so lets it go.
 * @module
 */
import { forbidden, formatTime, isAlreadyExists, isNotFound, notFound, type APIObject } from "@orch/meta";
import { hasCachedReads } from "@orch/list";
import { builtinNamespaces } from "@orch/resources";
import type { Clock, Store } from "@orch/store";
import type { ObjectStore, WriteOptions } from "./object-store.js";
import { collectionPrefix, wireObject, type ServedResource } from "./served-resource.js";

export { builtinNamespaces };

/** The finalizer a namespace carries in `spec.finalizers` until its content is gone. */
export function namespaceFinalizer(domain: string): string {
  return domain === "k8s.io" ? "kubernetes" : domain.split(".")[0] ?? "orch";
}

const namespaceKey = (name: string) => `/registry/core/namespaces/${name}`;

/** The options of the controller's own writes. */
const controllerWrite = (): WriteOptions => ({ dryRun: false, fieldValidation: "Ignore", warnings: [] });

/** Keeps namespaces: creation of the built-in ones, the write guard, and the deletion controller. */
export class NamespaceLifecycle {
  private readonly running = new Set<string>();
  private readonly timers = new Set<() => void>();
  private controller: AbortController | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly domain: string,
    private readonly objects: ObjectStore,
    private readonly namespaces: ServedResource,
    private readonly namespaced: () => readonly ServedResource[],
  ) {}

  /** Creates the built-in namespaces (when missing) and starts the deletion controller. */
  async start(): Promise<void> {
    for (const name of builtinNamespaces(this.domain)) {
      try {
        const object: APIObject = { apiVersion: "v1", kind: "Namespace", metadata: { name } };
        await this.objects.create(this.namespaces, "", object, controllerWrite());
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    }
    this.controller = new AbortController();
    const from = await this.store.revision();
    const { entries } = await this.store.list(collectionPrefix(this.namespaces, ""));
    for (const entry of entries) if ((entry.value as APIObject).metadata.deletionTimestamp) this.enqueue(wireObject(entry).metadata.name ?? "");
    void this.watchNamespaces(from, this.controller.signal);
  }

  /** Stops the controller and its timers. */
  stop(): void {
    this.controller?.abort();
    for (const cancel of this.timers) cancel();
    this.timers.clear();
  }

  private async watchNamespaces(from: number, signal: AbortSignal): Promise<void> {
    try {
      for await (const event of this.store.watch(collectionPrefix(this.namespaces, ""), from, signal)) {
        const object = event.entry.value as APIObject;
        if (event.type !== "delete" && object.metadata.deletionTimestamp) this.enqueue(object.metadata.name ?? "");
      }
    } catch {
      // The store went away or compacted past us: rescan from the newest state, unless stopping.
      this.restartLater(signal);
    }
  }

  private restartLater(signal: AbortSignal): void {
    if (signal.aborted) return;
    const cancel = this.clock.setTimer(1000, () => {
      this.timers.delete(cancel);
      void this.restart(signal);
    });
    this.timers.add(cancel);
  }

  private async restart(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    let from: number;
    try {
      from = await this.store.revision();
      const { entries } = await this.store.list(collectionPrefix(this.namespaces, ""));
      for (const entry of entries) if ((entry.value as APIObject).metadata.deletionTimestamp) this.enqueue(wireObject(entry).metadata.name ?? "");
    } catch {
      // The store is still away (etcd down): try again later rather than crash the process.
      this.restartLater(signal);
      return;
    }
    void this.watchNamespaces(from, signal);
  }

  /**
   * Refuses writes into a namespace that does not exist (404) or is terminating (403).
   * @throws StatusError
   */
  async guard(served: ServedResource, namespace: string, name: string): Promise<void> {
    // As the reference's admission plugin: a cached (possibly stale) read first, a consistent one
    // only when the cache does not know the namespace (it may have just been created).
    const key = namespaceKey(namespace);
    const entry = (hasCachedReads(this.store) ? await this.store.getCached(key, 0) : undefined) ?? (await this.store.get(key));
    if (!entry) throw notFound({ group: "", resource: "namespaces" }, namespace);
    const object = entry.value as APIObject;
    if (object.metadata.deletionTimestamp || (object.status as { phase?: string } | undefined)?.phase === "Terminating") {
      throw forbidden(served.qualifiedResource, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }

  private enqueue(name: string): void {
    if (this.running.has(name) || this.controller?.signal.aborted) return;
    this.running.add(name);
    void this.sweep(name).finally(() => this.running.delete(name));
  }

  /** Deletes what is in the namespace; when nothing is left, removes the finalizer. */
  private async sweep(name: string): Promise<void> {
    let remaining = 0;
    try {
      for (const served of this.namespaced()) {
        const { entries } = await this.store.list(collectionPrefix(served, name));
        for (const entry of entries) {
          const object = wireObject(entry);
          try {
            const result = await this.objects.delete(served, name, object.metadata.name ?? "", { dryRun: false });
            if (result.body.kind !== "Status") remaining++;
          } catch (error) {
            if (!isNotFound(error)) remaining++;
          }
        }
      }
      if (remaining === 0) {
        const finalizer = namespaceFinalizer(this.domain);
        await this.objects.guaranteedUpdate(this.namespaces, "", name, { dryRun: false }, async (current) => {
          const next = structuredClone(current) as APIObject;
          const spec = (next.spec ?? {}) as { finalizers?: string[] };
          spec.finalizers = (spec.finalizers ?? []).filter((f) => f !== finalizer);
          next.spec = spec;
          return { kind: "update", object: await this.objects.beforeUpdate(this.namespaces, next, current, controllerWrite()) };
        });
        return;
      }
      await this.setCondition(name, remaining);
    } catch (error) {
      // Gone already: nothing to do. Anything else (a conflict, a store hiccup): try again later.
      if (isNotFound(error)) return;
    }
    if (this.controller?.signal.aborted) return;
    const cancel = this.clock.setTimer(1000, () => {
      this.timers.delete(cancel);
      this.enqueue(name);
    });
    this.timers.add(cancel);
  }

  private async setCondition(name: string, remaining: number): Promise<void> {
    await this.objects.guaranteedUpdate(this.namespaces, "", name, { dryRun: false }, async (current) => {
      const next = structuredClone(current) as APIObject;
      const status = (next.status ?? {}) as { phase?: string; conditions?: Record<string, string>[] };
      const others = (status.conditions ?? []).filter((c) => c.type !== "NamespaceContentRemaining");
      const previous = (status.conditions ?? []).find((c) => c.type === "NamespaceContentRemaining");
      others.push({
        type: "NamespaceContentRemaining",
        status: "True",
        lastTransitionTime: previous?.lastTransitionTime ?? formatTime(this.clock.now()),
        reason: "SomeResourcesRemain",
        message: `Some resources are remaining: ${remaining} objects with finalizers`,
      });
      status.conditions = others;
      next.status = status;
      return { kind: "update", object: await this.objects.beforeUpdate(this.namespaces, next, current, controllerWrite()) };
    });
  }
}
