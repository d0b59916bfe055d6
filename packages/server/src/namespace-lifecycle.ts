/**
 * Namespaces: the ones that exist from the start, and the controller that empties a
 * terminating namespace, removes its finalizer and so lets it go. (The guard on writes into a
 * missing or terminating namespace is the NamespaceLifecycle admission plugin's.)
 * @module
 */
import { formatTime, isAlreadyExists, isNotFound, type APIObject } from "@orch/meta";
import { builtinNamespaces } from "@orch/resources";
import { ControlLoop, type ControllerInput } from "./control-loop.js";
import type { WriteOptions } from "./object-store.js";
import { collectionPrefix, wireObject, type ServedResource } from "./served-resource.js";

export { builtinNamespaces };

/** The finalizer a namespace carries in `spec.finalizers` until its content is gone. */
export function namespaceFinalizer(domain: string): string {
  return domain === "k8s.io" ? "kubernetes" : domain.split(".")[0] ?? "orch";
}

/** The options of the controller's own writes. */
const controllerWrite = (): WriteOptions => ({ dryRun: false, fieldValidation: "Ignore", warnings: [] });

/** Keeps namespaces: creation of the built-in ones and the deletion controller. */
export class NamespaceLifecycle {
  private readonly running = new Set<string>();
  private readonly namespaces: ServedResource;
  /**
   * When the watch fails (the store went away or compacted past it), the loop rescans from the
   * newest state a second later, and again while the store is still away (etcd down) rather
   * than crash the process.
   */
  private readonly loop: ControlLoop;

  /**
   * @param namespaced the storage versions of the namespaced resources: what a terminating
   *   namespace is emptied of.
   * @param deletion run the deletion controller (true); false only creates the built-in namespaces.
   * @throws Error when `input.served` has no `namespaces`.
   */
  constructor(
    private readonly input: ControllerInput,
    private readonly namespaced: () => readonly ServedResource[],
    private readonly deletion = true,
  ) {
    const namespaces = input.served("", "namespaces");
    if (!namespaces) throw new Error("the catalog must serve namespaces");
    this.namespaces = namespaces;
    this.loop = new ControlLoop(input, { reload: () => this.load() });
  }

  /** Creates the built-in namespaces (when missing) and starts the deletion controller (when on). */
  async start(): Promise<void> {
    for (const name of builtinNamespaces(this.input.domain)) {
      try {
        const object: APIObject = { apiVersion: "v1", kind: "Namespace", metadata: { name } };
        await this.input.objects.create(this.namespaces, "", object, controllerWrite());
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    }
    if (this.deletion) await this.load();
  }

  /** Stops the controller and its timers. */
  stop(): void {
    this.loop.stop();
  }

  /** Sweeps every terminating namespace and watches for more. */
  private async load(): Promise<void> {
    const signal = this.loop.begin();
    const from = await this.input.store.revision();
    const prefix = collectionPrefix(this.namespaces, "");
    const { entries } = await this.input.store.list(prefix);
    for (const entry of entries) if ((entry.value as APIObject).metadata.deletionTimestamp) this.enqueue(wireObject(entry).metadata.name ?? "");
    this.loop.follow(prefix, from, signal, (event) => {
      const object = event.entry.value as APIObject;
      if (event.type !== "delete" && object.metadata.deletionTimestamp) this.enqueue(object.metadata.name ?? "");
    });
  }

  private enqueue(name: string): void {
    if (this.running.has(name) || !this.loop.running) return;
    this.running.add(name);
    void this.sweep(name).finally(() => this.running.delete(name));
  }

  /** Deletes what is in the namespace; when nothing is left, removes the finalizer. */
  private async sweep(name: string): Promise<void> {
    let remaining = 0;
    try {
      for (const served of this.namespaced()) {
        const { entries } = await this.input.store.list(collectionPrefix(served, name));
        for (const entry of entries) {
          const object = wireObject(entry);
          try {
            const result = await this.input.objects.delete(served, name, object.metadata.name ?? "", { dryRun: false });
            if (result.body.kind !== "Status") remaining++;
          } catch (error) {
            if (!isNotFound(error)) remaining++;
          }
        }
      }
      if (remaining === 0) {
        const finalizer = namespaceFinalizer(this.input.domain);
        await this.input.objects.guaranteedUpdate(this.namespaces, "", name, { dryRun: false }, async (current) => {
          const next = structuredClone(current) as APIObject;
          const spec = (next.spec ?? {}) as { finalizers?: string[] };
          spec.finalizers = (spec.finalizers ?? []).filter((f) => f !== finalizer);
          next.spec = spec;
          return { kind: "update", object: await this.input.objects.beforeUpdate(this.namespaces, next, current, controllerWrite()) };
        });
        return;
      }
      await this.setCondition(name, remaining);
    } catch (error) {
      // Gone already: nothing to do. Anything else (a conflict, a store hiccup): try again later.
      if (isNotFound(error)) return;
    }
    this.loop.later(1000, () => this.enqueue(name));
  }

  private async setCondition(name: string, remaining: number): Promise<void> {
    await this.input.objects.guaranteedUpdate(this.namespaces, "", name, { dryRun: false }, async (current) => {
      const next = structuredClone(current) as APIObject;
      const status = (next.status ?? {}) as { phase?: string; conditions?: Record<string, string>[] };
      const others = (status.conditions ?? []).filter((c) => c.type !== "NamespaceContentRemaining");
      const previous = (status.conditions ?? []).find((c) => c.type === "NamespaceContentRemaining");
      others.push({
        type: "NamespaceContentRemaining",
        status: "True",
        lastTransitionTime: previous?.lastTransitionTime ?? formatTime(this.input.clock.now()),
        reason: "SomeResourcesRemain",
        message: `Some resources are remaining: ${remaining} objects with finalizers`,
      });
      status.conditions = others;
      next.status = status;
      return { kind: "update", object: await this.input.objects.beforeUpdate(this.namespaces, next, current, controllerWrite()) };
    });
  }
}
