/**
 * {@link ReplicaController}: the loop behind both the `replicaset` and the
 * `replicationcontroller` controllers (the reference's `pkg/controller/replicaset`, which also
 * runs ReplicationControllers). Each object keeps `spec.replicas` active Pods from its template:
 * it adopts orphans its selector matches and releases Pods it no longer selects, creates the
 * missing Pods in slow-start batches (1, 2, 4, ...), deletes the surplus in the order of
 * {@link sortPodsForDeletion}, and writes `status` (`replicas`, `fullyLabeledReplicas`,
 * `readyReplicas`, `availableReplicas`, `observedGeneration` and the `ReplicaFailure` condition
 * while creating or deleting fails). {@link Expectations} keep a sync that runs before its own
 * creations and deletions come back through the informer from acting twice.
 * @module
 */
import { namespaceIndex, objectKey, podsRef, type Informer, type ResourceClient, type ResourceRef } from "@orch/client";
import { formatTime, isConflict, isNotFound, jsonEqual, type APIObject, type LabelSelector, type OwnerReference } from "@orch/meta";
import type { ControllerContext } from "../controller.js";
import { claimObjects } from "./claim-objects.js";
import { controllerRefOf, newControllerRef, resolveControllerRef } from "./controller-ref.js";
import { Expectations } from "./expectations.js";
import { labelDomain } from "./label-domain.js";
import { messageOf } from "./message-of.js";
import { podFromTemplate } from "./pod-control.js";
import { sortPodsForDeletion } from "./pod-deletion-order.js";
import { isPodActive, isPodAvailable, isPodReady, nodeNameOf } from "./pods.js";
import { QueueController } from "./queue-controller.js";
import { refusedAsTerminating } from "./refused-as-terminating.js";

/** The most Pods one sync creates or deletes (the reference's `BurstReplicas`). */
export const burstReplicas = 500;

/** The kind a {@link ReplicaController} manages. */
export interface ReplicatedKind {
  /** The resource. */
  ref: ResourceRef;
  /** `apiVersion` of its owner references (`apps/v1`, `v1`). */
  apiVersion: string;
  /** Its kind (`ReplicaSet`, `ReplicationController`). */
  kind: string;
  /** The field manager of its writes. */
  fieldManager: string;
  /** Its selector over Pod labels; undefined when it cannot be read. */
  selectorOf(object: APIObject): LabelSelector | undefined;
}

/** A condition of a ReplicaSet or ReplicationController status. */
export interface ReplicaCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The status a {@link ReplicaController} writes. */
export interface ReplicaStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaCondition[];
}

/** The `spec` fields the loop reads. */
interface ReplicaSpec {
  replicas?: number;
  minReadySeconds?: number;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] }; spec?: unknown };
}

const specOf = (object: APIObject): ReplicaSpec => (object["spec"] as ReplicaSpec | undefined) ?? {};
const statusOf = (object: APIObject): Partial<ReplicaStatus> => (object["status"] as Partial<ReplicaStatus> | undefined) ?? {};
const replicasOf = (object: APIObject): number => specOf(object).replicas ?? 1;

/** The loop shared by ReplicaSets and ReplicationControllers; see the module comment. */
export abstract class ReplicaController extends QueueController {
  protected override readonly workers: number = 5;
  /** The kind this loop manages. */
  protected abstract readonly managed: ReplicatedKind;
  #owners: Informer | undefined;
  #pods: Informer | undefined;
  #expectations: Expectations | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    this.#expectations = new Expectations(ctx.clock);
    const owners = this.follow(ctx, this.managed.ref);
    this.#owners = owners.informer;
    const forgetDeleted = ctx.informers.addEventHandler(this.managed.ref, { onDelete: (o) => this.expectations.delete(objectKey(o)) });
    this.#pods = ctx.informers.informerFor(podsRef);
    const pods = ctx.informers.addEventHandler(podsRef, {
      onAdd: (pod) => this.#podAdded(pod),
      onUpdate: (old, pod) => this.#podUpdated(old, pod),
      onDelete: (pod) => this.#podDeleted(pod),
    });
    return [owners.unregister, forgetDeleted, pods];
  }

  /** The expectations of the running loop. */
  protected get expectations(): Expectations {
    if (!this.#expectations) throw new Error(`${this.name} is not running`);
    return this.#expectations;
  }

  /** The owner `ref` names, when it is one of ours and still the same object. */
  #resolve(namespace: string | undefined, ref: OwnerReference | undefined): APIObject | undefined {
    return resolveControllerRef(this.#owners, namespace, ref, this.managed.kind);
  }

  /** Queues every owner in the Pod's namespace whose selector matches it (for orphans). */
  #queueSelecting(pod: APIObject): void {
    for (const owner of this.#owners?.byIndex(namespaceIndex, pod.metadata.namespace ?? "") ?? []) {
      if (this.managed.selectorOf(owner)?.matches(pod.metadata.labels ?? {})) this.queue.add(objectKey(owner));
    }
  }

  #podAdded(pod: APIObject): void {
    if (pod.metadata.deletionTimestamp !== undefined) return this.#podDeleted(pod);
    const ref = controllerRefOf(pod);
    if (ref) {
      const owner = this.#resolve(pod.metadata.namespace, ref);
      if (!owner) return;
      this.expectations.creationObserved(objectKey(owner));
      this.queue.add(objectKey(owner));
      return;
    }
    this.#queueSelecting(pod);
  }

  #podUpdated(old: APIObject, pod: APIObject): void {
    if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
    const labelsChanged = !jsonEqual(old.metadata.labels ?? {}, pod.metadata.labels ?? {});
    if (pod.metadata.deletionTimestamp !== undefined) {
      this.#podDeleted(pod);
      if (labelsChanged) this.#podDeleted(old);
      return;
    }
    const ref = controllerRefOf(pod);
    const oldRef = controllerRefOf(old);
    if (oldRef && oldRef.uid !== ref?.uid) {
      const previous = this.#resolve(old.metadata.namespace, oldRef);
      if (previous) this.queue.add(objectKey(previous));
    }
    if (ref) {
      const owner = this.#resolve(pod.metadata.namespace, ref);
      if (!owner) return;
      this.queue.add(objectKey(owner));
      const minReadySeconds = specOf(owner).minReadySeconds ?? 0;
      // Availability comes minReadySeconds after readiness, and no event tells of it.
      if (!isPodReady(old) && isPodReady(pod) && minReadySeconds > 0) this.queue.addAfter(objectKey(owner), minReadySeconds * 1000);
      return;
    }
    if (labelsChanged || oldRef) this.#queueSelecting(pod);
  }

  #podDeleted(pod: APIObject): void {
    const owner = this.#resolve(pod.metadata.namespace, controllerRefOf(pod));
    if (!owner) return;
    this.expectations.deletionObserved(objectKey(owner), objectKey(pod));
    this.queue.add(objectKey(owner));
  }

  #podClient(): ResourceClient {
    return this.client.resource(podsRef);
  }

  protected async sync(key: string): Promise<void> {
    const owner = this.#owners?.get(key);
    if (!owner) {
      this.expectations.delete(key);
      return;
    }
    const selector = this.managed.selectorOf(owner);
    if (!selector) {
      this.log(`${key}: its selector cannot be read`);
      return;
    }
    const needsSync = this.expectations.satisfied(key);
    const namespace = owner.metadata.namespace ?? "";
    const active = (this.#pods?.byIndex(namespaceIndex, namespace) ?? []).filter(isPodActive);
    const ownerRef = newControllerRef(owner, this.managed.apiVersion, this.managed.kind);
    const pods = await claimObjects(active, {
      owner,
      ownerRef,
      selector,
      client: this.#podClient(),
      recheck: () => this.client.resource(this.managed.ref).get(owner.metadata.name ?? "", { namespace }),
    });
    let failure: { error: unknown; creating: boolean } | undefined;
    if (needsSync && owner.metadata.deletionTimestamp === undefined) {
      try {
        await this.#manage(key, owner, ownerRef, pods);
      } catch (error) {
        failure = { error, creating: pods.length < replicasOf(owner) };
      }
    }
    const status = this.#calculateStatus(owner, pods, failure);
    const updated = await this.#writeStatus(owner, status);
    const minReadySeconds = specOf(owner).minReadySeconds ?? 0;
    if (updated && !failure && minReadySeconds > 0 && updated.readyReplicas === replicasOf(owner) && (updated.availableReplicas ?? 0) !== replicasOf(owner)) {
      this.queue.addAfter(key, minReadySeconds * 1000);
    }
    if (failure) throw failure.error;
  }

  /** Creates or deletes Pods until `pods` (the active Pods the owner controls) number `spec.replicas`. */
  async #manage(key: string, owner: APIObject, ownerRef: OwnerReference, pods: APIObject[]): Promise<void> {
    const diff = pods.length - replicasOf(owner);
    if (diff < 0) {
      const count = Math.min(-diff, burstReplicas);
      this.expectations.expectCreations(key, count);
      const template = podFromTemplate(specOf(owner).template, owner, ownerRef);
      if (Object.keys(template.metadata.labels ?? {}).length === 0) throw new Error("unable to create pods, no labels");
      const { successes, error } = await slowStartBatch(count, async () => {
        try {
          await this.#podClient().create(structuredClone(template), { namespace: owner.metadata.namespace ?? "", fieldManager: this.managed.fieldManager });
        } catch (error) {
          // Nothing can be created in a terminating namespace: not a failure of this loop.
          if (!refusedAsTerminating(error)) throw error;
        }
      });
      // The creations never attempted are not expected; the next sync tries them again.
      for (let i = successes; i < count; i++) this.expectations.creationObserved(key);
      if (error !== undefined) throw error;
      return;
    }
    if (diff > 0) {
      const count = Math.min(diff, burstReplicas);
      const victims = this.#podsToDelete(owner, pods, count);
      this.expectations.expectDeletions(
        key,
        victims.map((p) => objectKey(p)),
      );
      const errors = await Promise.all(
        victims.map(async (pod) => {
          try {
            await this.#podClient().delete(pod.metadata.name ?? "", { namespace: pod.metadata.namespace ?? "" });
            return undefined;
          } catch (error) {
            // The informer will not see this deletion.
            this.expectations.deletionObserved(key, objectKey(pod));
            return isNotFound(error) ? undefined : error;
          }
        }),
      );
      const error = errors.find((e) => e !== undefined);
      if (error !== undefined) throw error;
    }
  }

  /**
   * The `count` Pods of `pods` to delete first, ranked by how many active Pods of the owner's
   * family (the owners sharing its controller) share their node (`getPodsToDelete`).
   */
  #podsToDelete(owner: APIObject, pods: APIObject[], count: number): APIObject[] {
    if (count >= pods.length) return pods;
    const namespace = owner.metadata.namespace ?? "";
    const family = controllerRefOf(owner);
    const relatedOwners = family ? (this.#owners?.byIndex(namespaceIndex, namespace) ?? []).filter((o) => controllerRefOf(o)?.uid === family.uid) : [owner];
    const uids = new Set(relatedOwners.map((o) => o.metadata.uid));
    const onNode = new Map<string, number>();
    for (const pod of this.#pods?.byIndex(namespaceIndex, namespace) ?? []) {
      if (!isPodActive(pod) || !uids.has(controllerRefOf(pod)?.uid)) continue;
      onNode.set(nodeNameOf(pod), (onNode.get(nodeNameOf(pod)) ?? 0) + 1);
    }
    const ranked = pods.map((pod) => ({ pod, rank: onNode.get(nodeNameOf(pod)) ?? 0 }));
    const costKey = `controller.${labelDomain(this.client.domain)}/pod-deletion-cost`;
    return sortPodsForDeletion(ranked, this.clock.now(), costKey)
      .slice(0, count)
      .map((r) => r.pod);
  }

  /** The status `pods` give, with `ReplicaFailure` set while `failure` lasts (`calculateStatus`). */
  #calculateStatus(owner: APIObject, pods: APIObject[], failure: { error: unknown; creating: boolean } | undefined): ReplicaStatus {
    const templateLabels = specOf(owner).template?.metadata?.labels ?? {};
    const minReadySeconds = specOf(owner).minReadySeconds ?? 0;
    const now = this.clock.now();
    const fully = pods.filter((p) => Object.entries(templateLabels).every(([k, v]) => p.metadata.labels?.[k] === v)).length;
    const ready = pods.filter(isPodReady).length;
    const available = pods.filter((p) => isPodAvailable(p, minReadySeconds, now)).length;
    let conditions = [...(statusOf(owner).conditions ?? [])];
    const hasFailure = conditions.some((c) => c.type === "ReplicaFailure");
    if (failure && !hasFailure) {
      conditions.push({
        type: "ReplicaFailure",
        status: "True",
        lastTransitionTime: formatTime(now),
        reason: failure.creating ? "FailedCreate" : "FailedDelete",
        message: messageOf(failure.error),
      });
    } else if (!failure && hasFailure) {
      conditions = conditions.filter((c) => c.type !== "ReplicaFailure");
    }
    const status: ReplicaStatus = { replicas: pods.length };
    if (fully) status.fullyLabeledReplicas = fully;
    if (ready) status.readyReplicas = ready;
    if (available) status.availableReplicas = available;
    if (conditions.length) status.conditions = conditions;
    return status;
  }

  /** Writes `status` with `observedGeneration` unless nothing changed; the written status, or undefined when the owner is gone. */
  async #writeStatus(owner: APIObject, status: ReplicaStatus): Promise<ReplicaStatus | undefined> {
    const generation = owner.metadata.generation ?? 1;
    const next: ReplicaStatus = { ...status, observedGeneration: generation };
    const { observedGeneration, ...current } = statusOf(owner);
    if (observedGeneration === generation && jsonEqual(current, status)) return next;
    const client = this.client.resource(this.managed.ref);
    const options = { namespace: owner.metadata.namespace ?? "", fieldManager: this.managed.fieldManager };
    try {
      try {
        await client.updateStatus({ ...owner, status: next }, options);
      } catch (error) {
        if (!isConflict(error)) throw error;
        // The cache was behind: once more on the server's copy.
        const fresh = await client.get(owner.metadata.name ?? "", options);
        await client.updateStatus({ ...fresh, status: { ...next, observedGeneration: fresh.metadata.generation ?? generation } }, options);
      }
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return next;
  }
}

/**
 * Calls `fn` `count` times in batches of 1, 2, 4, ... (the reference's `slowStartBatch`), so a
 * refusal (a quota, a missing ServiceAccount) costs one call rather than `count`; stops after
 * the first batch with a failure. Answers how many calls succeeded and the first failure.
 */
export async function slowStartBatch(count: number, fn: () => Promise<void>): Promise<{ successes: number; error: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, 1); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    successes += batch - failed.length;
    if (failed.length > 0) return { successes, error: failed[0]?.reason };
    remaining -= batch;
  }
  return { successes, error: undefined };
}
