/**
 * {@link ResourceQuotaController}: the `resourcequota` controller, the reference's
 * `pkg/controller/resourcequota`. It keeps every ResourceQuota's `status.hard` equal to its
 * `spec.hard` and `status.used` computed from the objects of its namespace with the evaluators
 * of `@orch/admission` (`quotaStatus`), read from shared informers over the resources the
 * namespace's quotas count (`quotaResources`; served ones only, found through discovery).
 *
 * A namespace is recomputed (debounced by {@link quotaSyncDelayMs}) when one of its quotas is
 * added, deleted or changes its `spec` (or has a stale `status.hard`), when an object its
 * quotas count is added, changed or deleted, at start, and every {@link quotaResyncPeriodMs}.
 * Changes of `status` alone (admission's charges, this loop's writes) are not followed.
 *
 * Lowering usage waits one debounce period with the quota unchanged: the ResourceQuota
 * admission plugin charges a create before the object is stored, and forgetting that charge
 * could let the next create pass a full quota. Raising usage (and `status.hard`) is written at
 * once.
 * @module
 */
import { namespaceIndex, type Informer } from "@orch/client";
import { quotaResources, quotaStatus, type QuotaObjects } from "@orch/admission";
import { isConflict, isNotFound, jsonEqual, type APIObject } from "@orch/meta";
import { quantityOf } from "@orch/resources";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { discoverResources, type DiscoveredResource } from "./discovery.js";
import { messageOf } from "./internal/message-of.js";
import { QueueController, RetryQuietly } from "./internal/queue-controller.js";
import { resourceQuotasRef } from "./internal/refs.js";

/** How long changes in a namespace gather before its quotas are recomputed (ms). */
export const quotaSyncDelayMs = 50;

/**
 * How often every namespace with quotas is recomputed whatever happened (ms; the reference's
 * `--resource-quota-sync-period` default): it corrects charges for writes that failed after
 * admission (a create whose name was taken), which leave no event behind.
 */
export const quotaResyncPeriodMs = 5 * 60_000;

/** The pause before a failed discovery is tried again (ms). */
const rediscoveryDelayMs = 1000;

type ResourceList = Record<string, string>;
type QuotaStatus = { hard?: ResourceList; used?: ResourceList } & Record<string, unknown>;

const statusOf = (quota: APIObject): QuotaStatus => (quota["status"] as QuotaStatus | undefined) ?? {};
const specOf = (quota: APIObject): { hard?: ResourceList } => (quota["spec"] as { hard?: ResourceList } | undefined) ?? {};
const resourceKey = (group: string, resource: string): string => `${group}/${resource}`;

/** True when both lists name the same resources with the same text. */
function sameList(a: ResourceList = {}, b: ResourceList = {}): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/** The names whose quantity `next` lowers below `current`. */
function lowered(current: ResourceList, next: ResourceList): string[] {
  return Object.keys(next).filter((name) => {
    const was = quantityOf(current[name]);
    const now = quantityOf(next[name]);
    return was !== undefined && now !== undefined && now.cmp(was) < 0;
  });
}

/** The quota loop; create one per term of leadership (the {@link ControllerManager} does). */
export class ResourceQuotaController extends QueueController {
  /** `resourcequota`. */
  readonly name = "resourcequota";
  #quotas: Informer | undefined;
  /** The served resources, by `<group>/<resource>`; undefined until the first discovery. */
  #served: Map<string, DiscoveredResource> | undefined;
  #discovering = false;
  /** Counted resources discovery did not know, tried once each until the next resync. */
  readonly #unknown = new Set<string>();
  /** The informers of the counted resources followed, by `<group>/<resource>`. */
  readonly #counted = new Map<string, Informer>();
  /** What each namespace's quotas count (`<group>/<resource>`), computed on demand. */
  readonly #tracked = new Map<string, Set<string>>();
  /** Namespaces whose debounced sync is scheduled. */
  readonly #pending = new Set<string>();
  /** Quotas whose usage a sync would lower, by `<ns>/<name>`: the resourceVersion the lowering was held at. */
  readonly #held = new Map<string, string>();
  /** Unregisters handlers and cancels timers. */
  readonly #cleanup = new Set<() => void>();
  #stopped = false;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const quotas = ctx.informers.informerFor(resourceQuotasRef);
    this.#quotas = quotas;
    this.#cleanup.add(
      ctx.informers.addEventHandler(resourceQuotasRef, {
        onAdd: (quota) => this.#quotaChanged(quota, true),
        onUpdate: (old, quota) => {
          const specChanged = !jsonEqual(old["spec"], quota["spec"]);
          if (specChanged || !sameList(specOf(quota).hard, statusOf(quota).hard)) this.#quotaChanged(quota, specChanged);
        },
        onDelete: (quota) => {
          const namespace = quota.metadata.namespace ?? "";
          this.#held.delete(`${namespace}/${quota.metadata.name ?? ""}`);
          this.#tracked.delete(namespace);
          // The other quotas may count resourcequotas.
          this.#schedule(namespace);
        },
      }),
    );
    this.#discover();
    this.#resyncLater();
    return [
      () => {
        this.#stopped = true;
        for (const cleanup of this.#cleanup) cleanup();
        this.#cleanup.clear();
      },
    ];
  }

  /** A quota was added or its spec changed (`specChanged`), or its `status.hard` is stale. */
  #quotaChanged(quota: APIObject, specChanged: boolean): void {
    const namespace = quota.metadata.namespace ?? "";
    if (specChanged) {
      this.#tracked.delete(namespace);
      this.#follow(quota);
    }
    this.#schedule(namespace);
  }

  /** Runs `fn` after `ms` on the clock, unless stopped first. */
  #later(ms: number, fn: () => void): void {
    if (this.#stopped) return;
    const cancel = this.clock.setTimer(ms, () => {
      this.#cleanup.delete(cancel);
      fn();
    });
    this.#cleanup.add(cancel);
  }

  #resyncLater(): void {
    this.#later(quotaResyncPeriodMs, () => {
      this.#unknown.clear();
      for (const namespace of this.#namespacesWithQuotas()) this.queue.add(namespace);
      this.#resyncLater();
    });
  }

  #namespacesWithQuotas(): Set<string> {
    return new Set((this.#quotas?.list() ?? []).map((q) => q.metadata.namespace ?? ""));
  }

  #quotasIn(namespace: string): APIObject[] {
    return this.#quotas?.byIndex(namespaceIndex, namespace) ?? [];
  }

  /** Reads the served resources, then follows what every quota counts; a failure is tried again a second later. */
  #discover(): void {
    if (this.#discovering || this.#stopped) return;
    this.#discovering = true;
    discoverResources(this.client).then(
      (resources) => {
        this.#discovering = false;
        if (this.#stopped) return;
        this.#served = new Map(resources.map((r) => [resourceKey(r.group, r.resource), r]));
        for (const quota of this.#quotas?.list() ?? []) this.#follow(quota);
      },
      (error: unknown) => {
        this.#discovering = false;
        this.log(`discovery failed: ${messageOf(error)}; trying again in ${rediscoveryDelayMs} ms`);
        this.#later(rediscoveryDelayMs, () => this.#discover());
      },
    );
  }

  /** Follows, with a shared informer, every served namespaced resource `quota` counts that is not followed yet. */
  #follow(quota: APIObject): void {
    const served = this.#served;
    if (!served || this.#stopped) return;
    for (const { group, resource } of quotaResources(quota, this.client.domain)) {
      const key = resourceKey(group, resource);
      if (this.#counted.has(key)) continue;
      const ref = served.get(key);
      if (!ref) {
        // Perhaps served since the last discovery (a custom resource): look once more.
        if (!this.#unknown.has(key)) {
          this.#unknown.add(key);
          this.#discover();
        }
        continue;
      }
      if (!ref.namespaced || !ref.verbs.includes("list") || !ref.verbs.includes("watch")) continue;
      const changed = (object: APIObject): void => {
        const namespace = object.metadata.namespace;
        if (namespace && this.#tracks(namespace, key)) this.#schedule(namespace);
      };
      this.#counted.set(key, this.ctx.informers.informerFor(ref));
      this.#cleanup.add(this.ctx.informers.addEventHandler(ref, { onAdd: changed, onUpdate: (_old, o) => changed(o), onDelete: changed }));
    }
  }

  /** Whether the quotas of `namespace` count the resource `key`. */
  #tracks(namespace: string, key: string): boolean {
    let tracked = this.#tracked.get(namespace);
    if (!tracked) {
      tracked = new Set(this.#quotasIn(namespace).flatMap((q) => quotaResources(q, this.client.domain).map((r) => resourceKey(r.group, r.resource))));
      this.#tracked.set(namespace, tracked);
    }
    return tracked.has(key);
  }

  /** Queues `namespace` after the debounce period, once however many changes come meanwhile. */
  #schedule(namespace: string): void {
    if (this.#pending.has(namespace) || this.#stopped) return;
    this.#pending.add(namespace);
    this.queue.addAfter(namespace, quotaSyncDelayMs);
  }

  /** Recomputes the status of every quota of `namespace`. */
  protected async sync(namespace: string): Promise<void> {
    this.#pending.delete(namespace);
    if (!this.#served) throw new RetryQuietly("the served resources are not known yet");
    for (const quota of this.#quotasIn(namespace)) {
      try {
        await this.#syncQuota(namespace, quota.metadata.name ?? "");
      } catch (error) {
        if (isNotFound(error)) continue;
        if (isConflict(error)) throw new RetryQuietly(messageOf(error));
        throw error;
      }
    }
  }

  /** The objects of `namespace` for the resources `quota` counts, from the informers' caches. */
  #objectsFor(namespace: string, quota: APIObject): QuotaObjects {
    const lists = new Map<string, APIObject[]>();
    for (const { group, resource } of quotaResources(quota, this.client.domain)) {
      const key = resourceKey(group, resource);
      const informer = this.#counted.get(key);
      if (!informer) continue;
      if (!informer.hasSynced()) throw new RetryQuietly(`the informer of ${key} has not synced yet`);
      lists.set(key, informer.byIndex(namespaceIndex, namespace));
    }
    return (group, resource) => lists.get(resourceKey(group, resource));
  }

  async #syncQuota(namespace: string, name: string): Promise<void> {
    const quotas = this.client.resource(resourceQuotasRef);
    const current = await quotas.get(name, { namespace });
    const computed = quotaStatus(current, this.#objectsFor(namespace, current), { domain: this.client.domain, now: this.clock.now() });
    const status = statusOf(current);
    const usedNow = status.used ?? {};
    const used = { ...computed.used };
    const key = `${namespace}/${name}`;
    const lower = lowered(usedNow, used);
    const holding = lower.length > 0 && this.#held.get(key) !== current.metadata.resourceVersion;
    if (holding) for (const n of lower) used[n] = usedNow[n] as string;
    let resourceVersion = current.metadata.resourceVersion ?? "";
    if (!sameList(computed.hard, status.hard) || !sameList(used, usedNow)) {
      const written = await quotas.updateStatus({ ...current, status: { ...status, hard: computed.hard, used } }, { fieldManager: "resourcequota-controller" });
      resourceVersion = written.metadata.resourceVersion ?? "";
    }
    if (!holding) {
      this.#held.delete(key);
      return;
    }
    // Lower it next time if nothing was charged meanwhile.
    this.#held.set(key, resourceVersion);
    this.#schedule(namespace);
  }
}

/** The {@link ControllerDescriptor} of the quota loop: `resourcequota`, on by default. */
export const resourceQuotaController: ControllerDescriptor = {
  name: "resourcequota",
  enabledByDefault: true,
  create: () => new ResourceQuotaController(),
};
