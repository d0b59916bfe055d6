/**
 * The quota controller inside the server: keeps every ResourceQuota's `status` current. A new
 * quota, or one whose `spec` changed, gets `status.hard` = `spec.hard` and its usage computed
 * from the objects of its namespace; a create, update or delete of an object a namespace's
 * quotas count recomputes that namespace's usage (debounced per namespace). Admission
 * (the ResourceQuota plugin) charges creates as they happen; this loop gives usage back when
 * objects go away and corrects what admission cannot see.
 *
 * Every namespace with quotas is also recomputed every {@link quotaResyncPeriodMs}.
 *
 * Lowering usage waits one debounce period with the quota unchanged: a create that admission
 * charged but that is not stored yet must not be forgotten, or the next create could pass a
 * full quota. Raising usage (and `status.hard`) is written at once.
 * @module
 */
import { quotaResources, quotaStatus, type QuotaObjects } from "@orch/admission";
import { isNotFound, type APIObject } from "@orch/meta";
import { quantityOf } from "@orch/resources";
import type { StoreEvent } from "@orch/store";
import { ControlLoop, messageOf, type ControllerInput } from "./control-loop.js";
import type { WriteOptions } from "./object-store.js";
import { sameJSON } from "./same-json.js";
import { collectionPrefix, mutableCopy, wireObject, type ServedResource } from "./served-resource.js";

/** How long changes in a namespace gather before its usage is recomputed (ms). */
export const quotaSyncDelayMs = 50;

/**
 * How often every namespace with quotas is recomputed whatever happened (ms; the reference's
 * `--resource-quota-sync-period` default): it corrects charges for writes that failed after
 * admission (a create whose name was taken), which leave no store event behind.
 */
export const quotaResyncPeriodMs = 5 * 60_000;

/** The options of the controller's status writes. */
const statusWrite = (): WriteOptions => ({ dryRun: false, fieldValidation: "Ignore", warnings: [], fieldManager: "resourcequota-controller", subresource: "status" });

type Status = { hard?: Record<string, string>; used?: Record<string, string> } & Record<string, unknown>;

const statusOf = (object: APIObject): Status => (object["status"] as Status | undefined) ?? {};
const specHard = (object: APIObject): unknown => (object["spec"] as { hard?: unknown } | undefined)?.hard ?? {};

/** The group, resource and namespace of a namespaced key `/registry/<group|core>/<resource>/<ns>/<name>`. */
function namespacedKey(key: string): { group: string; resource: string; namespace: string } | undefined {
  const parts = key.split("/");
  if (parts.length !== 6 || parts[1] !== "registry") return undefined;
  const [, , group, resource, namespace] = parts as [string, string, string, string, string, string];
  return { group: group === "core" ? "" : group, resource, namespace };
}

/** The names whose value `next` lowers below `current`. */
function lowered(current: Record<string, string>, next: Record<string, string>): string[] {
  return Object.keys(next).filter((name) => {
    const was = quantityOf(current[name]);
    const now = quantityOf(next[name]);
    return was !== undefined && now !== undefined && now.cmp(was) < 0;
  });
}

/** Keeps the `status` of every ResourceQuota current. */
export class QuotaController {
  readonly #input: ControllerInput;
  readonly #loop: ControlLoop;
  /** The quotas, by namespace and name, as last seen. */
  readonly #quotas = new Map<string, Map<string, APIObject>>();
  /** The resources each namespace's quotas count (`<group>/<resource>`), computed on demand. */
  readonly #tracked = new Map<string, Set<string>>();
  readonly #scheduled = new Set<string>();
  readonly #syncing = new Set<string>();
  readonly #again = new Set<string>();
  /** Quotas whose usage a sync would lower, by `<ns>/<name>`: the resourceVersion the lowering was held at. */
  readonly #held = new Map<string, string>();

  constructor(input: ControllerInput) {
    this.#input = input;
    this.#loop = new ControlLoop(input, {
      reload: () => this.#load(),
      reloadFailed: (error) => input.log(`quota: relist failed: ${messageOf(error)}`),
    });
  }

  #quotaResource(): ServedResource {
    const served = this.#input.served("", "resourcequotas");
    if (!served) throw new Error("the quota controller needs the resourcequotas resource in the catalog");
    return served;
  }

  /** Lists the quotas, schedules a sync of every namespace that has some, and starts watching. */
  async start(): Promise<void> {
    await this.#load();
  }

  /** Stops watching and cancels the scheduled syncs. */
  stop(): void {
    this.#loop.stop();
    this.#scheduled.clear();
  }

  async #load(): Promise<void> {
    const signal = this.#loop.begin();
    const { store } = this.#input;
    const revision = await store.revision();
    const { entries } = await store.list(collectionPrefix(this.#quotaResource(), ""), { revision });
    this.#quotas.clear();
    this.#tracked.clear();
    for (const entry of entries) this.#remember(wireObject(entry));
    for (const namespace of this.#quotas.keys()) this.#enqueue(namespace);
    this.#loop.follow("/registry/", revision, signal, (event) => this.#observe(event), (error) => {
      // Compacted past us or the store went away: the loop starts over from a fresh list.
      this.#input.log(`quota: the watch ended (${messageOf(error)}); relisting`);
    });
    this.#resyncLater(signal);
  }

  #resyncLater(signal: AbortSignal): void {
    this.#loop.later(quotaResyncPeriodMs, () => {
      if (signal.aborted) return;
      for (const namespace of this.#quotas.keys()) this.#enqueue(namespace);
      this.#resyncLater(signal);
    });
  }

  /** Keeps `quota`; `specChanged` false (a status-only change) keeps what the namespace's quotas count. */
  #remember(quota: APIObject, specChanged = true): void {
    const namespace = quota.metadata.namespace ?? "";
    let byName = this.#quotas.get(namespace);
    if (!byName) {
      byName = new Map();
      this.#quotas.set(namespace, byName);
    }
    byName.set(quota.metadata.name ?? "", quota);
    // What a namespace's quotas count follows their `spec.hard` only.
    if (specChanged) this.#tracked.delete(namespace);
  }

  #forget(quota: APIObject): void {
    const namespace = quota.metadata.namespace ?? "";
    const byName = this.#quotas.get(namespace);
    byName?.delete(quota.metadata.name ?? "");
    if (byName?.size === 0) this.#quotas.delete(namespace);
    this.#tracked.delete(namespace);
    this.#held.delete(`${namespace}/${quota.metadata.name ?? ""}`);
  }

  #tracks(namespace: string, group: string, resource: string): boolean {
    const quotas = this.#quotas.get(namespace);
    if (!quotas) return false;
    let tracked = this.#tracked.get(namespace);
    if (!tracked) {
      tracked = new Set([...quotas.values()].flatMap((q) => quotaResources(q, this.#input.domain).map((r) => `${r.group}/${r.resource}`)));
      this.#tracked.set(namespace, tracked);
    }
    return tracked.has(`${group}/${resource}`);
  }

  #observe(event: StoreEvent): void {
    const key = namespacedKey(event.entry.key);
    if (!key) return;
    const { group, resource, namespace } = key;
    if (group === "" && resource === "resourcequotas") {
      const quota = wireObject(event.entry);
      // Status-only changes (admission's charges, this controller's writes) need nothing; a new
      // quota, a spec change or a stale status.hard need a sync, and so does a quota deleted
      // where quotas count resourcequotas.
      if (event.type === "delete") {
        const countedBefore = this.#tracks(namespace, group, resource);
        this.#forget(quota);
        if (countedBefore) this.#enqueue(namespace);
        return;
      }
      const prev = event.prev ? (event.prev.value as APIObject) : undefined;
      const specChanged = !prev || !sameJSON(prev["spec"] as never, quota["spec"] as never);
      this.#remember(quota, specChanged);
      const hardStale = !sameJSON(specHard(quota) as never, (statusOf(quota).hard ?? {}) as never);
      if (event.type === "create" || specChanged || hardStale) this.#enqueue(namespace);
      return;
    }
    if (this.#tracks(namespace, group, resource)) this.#enqueue(namespace);
  }

  #enqueue(namespace: string): void {
    if (this.#scheduled.has(namespace) || !this.#loop.running) return;
    this.#scheduled.add(namespace);
    this.#loop.later(quotaSyncDelayMs, () => {
      this.#scheduled.delete(namespace);
      void this.#run(namespace);
    });
  }

  async #run(namespace: string): Promise<void> {
    if (this.#syncing.has(namespace)) {
      this.#again.add(namespace);
      return;
    }
    this.#syncing.add(namespace);
    try {
      await this.#sync(namespace);
    } catch (error) {
      this.#input.log(`quota: syncing namespace ${namespace} failed: ${messageOf(error)}`);
      this.#enqueue(namespace);
    } finally {
      this.#syncing.delete(namespace);
      if (this.#again.delete(namespace)) this.#enqueue(namespace);
    }
  }

  /** Recomputes the status of every quota of `namespace`. */
  async #sync(namespace: string): Promise<void> {
    const { entries } = await this.#input.store.list(collectionPrefix(this.#quotaResource(), namespace));
    for (const entry of entries) {
      try {
        await this.#syncQuota(namespace, wireObject(entry).metadata.name ?? "");
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }

  /** The objects of `namespace` for the resources `quota` counts (one list each, now). */
  async #objectsFor(namespace: string, quota: APIObject): Promise<QuotaObjects> {
    const lists = new Map<string, APIObject[]>();
    for (const { group, resource } of quotaResources(quota, this.#input.domain)) {
      const served = this.#input.served(group, resource);
      if (!served?.namespaced) continue;
      const { entries } = await this.#input.store.list(collectionPrefix(served, namespace));
      lists.set(`${group}/${resource}`, entries.map(wireObject));
    }
    return (group, resource) => lists.get(`${group}/${resource}`);
  }

  async #syncQuota(namespace: string, name: string): Promise<void> {
    const served = this.#quotaResource();
    const { objects, clock, domain } = this.#input;
    const key = `${namespace}/${name}`;
    let holding = false;
    const result = await objects.guaranteedUpdate(served, namespace, name, { dryRun: false }, async (current) => {
      const computed = quotaStatus(current, await this.#objectsFor(namespace, current), { domain, now: clock.now() });
      const status = statusOf(current);
      const usedNow = status.used ?? {};
      const used = { ...computed.used };
      const lower = lowered(usedNow, used);
      holding = lower.length > 0 && this.#held.get(key) !== current.metadata.resourceVersion;
      if (holding) for (const n of lower) used[n] = usedNow[n] as string;
      if (sameJSON(computed.hard as never, (status.hard ?? {}) as never) && sameJSON(used as never, usedNow as never)) return { kind: "noop", answer: { code: 200, body: current } };
      const next = mutableCopy(current);
      next["status"] = { ...status, hard: computed.hard, used };
      return { kind: "update", object: await objects.beforeUpdate(served, objects.prepareWrite(served, "status", next, current), current, statusWrite()) };
    });
    if (!holding) {
      this.#held.delete(key);
      return;
    }
    // Lower it next time if nothing was charged meanwhile.
    this.#held.set(key, (result.body as APIObject).metadata.resourceVersion ?? "");
    this.#enqueue(namespace);
  }
}
