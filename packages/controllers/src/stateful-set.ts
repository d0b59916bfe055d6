/**
 * {@link StatefulSetController}: the `statefulset` controller, the reference's
 * `pkg/controller/statefulset`. A StatefulSet of `replicas` runs Pods `<set>-<ordinal>` for the
 * ordinals `start..start+replicas-1` (`spec.ordinals.start`, 0 by default), each with the labels
 * `statefulset.<domain>/pod-name`, `apps.<domain>/pod-index` and `controller-revision-hash`, the
 * hostname of its name and the subdomain of `serviceName`, and a PersistentVolumeClaim
 * `<template>-<set>-<ordinal>` per `volumeClaimTemplates` entry mounted as the volume of the
 * template's name (claims are made before the Pod and kept after it; with
 * `persistentVolumeClaimRetentionPolicy.whenDeleted: Delete` they are owned by the set, with
 * `whenScaled: Delete` a scale-down makes them owned by the Pods it removes).
 *
 * With `podManagementPolicy: OrderedReady` (the default) Pods are made one at a time in ordinal
 * order, each once its predecessors are running and ready, and removed one at a time from the
 * highest ordinal; with `Parallel` all at once. A failed or succeeded Pod is deleted and made
 * again.
 *
 * Every template is kept as a ControllerRevision; `status.updateRevision` is the current
 * template's, `status.currentRevision` the one the Pods below the update run. With the
 * `RollingUpdate` strategy, Pods whose ordinal index is at least `partition` and which run
 * another revision are deleted, from the highest, one at a time, each once all Pods are running
 * and ready, and made again from the update revision; the current revision follows once every
 * Pod runs the update and is ready. With `OnDelete` only deleted Pods are made again (from the
 * update revision). The oldest revisions beyond `revisionHistoryLimit` that no Pod uses are
 * deleted. Orphaned Pods are not adopted.
 * @module
 */
import { persistentVolumeClaimsRef, podsRef, statefulSetsRef, type Informer } from "@orch/client";
import { isAlreadyExists, isNotFound, jsonEqual, type APIObject } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { controlledBy, newControllerRef, queueOwners } from "./internal/controller-ref.js";
import { labelDomain } from "./internal/label-domain.js";
import { arr, int, rec, specOf, statusOf } from "./internal/object-fields.js";
import { deletePod, podFromTemplate } from "./internal/pod-control.js";
import { isPodAvailable, isPodReady, isPodTerminal, podPhase, podReadyTime } from "./internal/pods.js";
import { QueueController } from "./internal/queue-controller.js";
import { controllerRevisionHashLabel, ensureRevision, listRevisions, templateOfRevision, truncateHistory } from "./internal/revisions.js";

/** The label of a StatefulSet Pod that carries its name: `statefulset.<domain>/pod-name`. */
export function statefulSetPodNameLabel(domain: string): string {
  return `statefulset.${labelDomain(domain)}/pod-name`;
}

/** The label of a StatefulSet Pod that carries its ordinal: `apps.<domain>/pod-index`. */
export function podIndexLabel(domain: string): string {
  return `apps.${labelDomain(domain)}/pod-index`;
}

export { controllerRevisionHashLabel } from "./internal/revisions.js";

/** True for a Pod that is Running, Ready and not being deleted (the reference's `isRunningAndReady`). */
function runningAndReady(pod: APIObject): boolean {
  return podPhase(pod) === "Running" && isPodReady(pod) && pod.metadata.deletionTimestamp === undefined;
}

/** The StatefulSet loop; create one per term of leadership (the {@link ControllerManager} does). */
export class StatefulSetController extends QueueController {
  /** `statefulset`. */
  readonly name = "statefulset";
  #sets: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const sets = this.follow(ctx, statefulSetsRef);
    this.#sets = sets.informer;
    const pods = queueOwners(ctx.informers, podsRef, { group: "apps", kind: "StatefulSet" }, (key) => this.queue.add(key));
    return [sets.unregister, pods];
  }

  protected async sync(key: string): Promise<void> {
    const cached = this.#sets?.get(key);
    if (!cached || cached.metadata.deletionTimestamp) return;
    const set = structuredClone(cached);
    const name = set.metadata.name ?? "";
    const namespace = set.metadata.namespace ?? "";
    const spec = specOf(set);
    const old = statusOf(cached);
    const replicas = int(spec["replicas"], 1);
    const start = int(rec(spec["ordinals"])?.["start"], 0);
    const monotonic = spec["podManagementPolicy"] !== "Parallel";
    const strategy = rec(spec["updateStrategy"]) ?? {};
    const rolling = (strategy["type"] ?? "RollingUpdate") === "RollingUpdate";
    const ref = newControllerRef(set, "apps/v1", "StatefulSet");

    const listed = await listRevisions(this.client, set);
    const { revision: update, revisions } = await ensureRevision(this.client, set, ref, listed);
    const updateName = update.metadata.name ?? "";
    const currentName =
      typeof old["currentRevision"] === "string" && revisions.some((r) => r.metadata.name === old["currentRevision"]) ? old["currentRevision"] : updateName;
    const current = revisions.find((r) => r.metadata.name === currentName) ?? update;

    const pods = (await this.client.resource(podsRef).list({ namespace })).items.filter((p) => controlledBy(p, set.metadata.uid));
    const ordinalPattern = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-(\\d+)$`);
    const byOrdinal = new Map<number, APIObject>();
    for (const pod of pods) {
      const m = ordinalPattern.exec(pod.metadata.name ?? "");
      if (m) byOrdinal.set(Number(m[1]), pod);
    }
    const inRange = (ordinal: number) => ordinal >= start && ordinal < start + replicas;
    const condemned = [...byOrdinal.entries()].filter(([o]) => !inRange(o)).sort(([a], [b]) => b - a);
    const revisionOf = (pod: APIObject) => pod.metadata.labels?.[controllerRevisionHashLabel];
    const partition = rolling ? int(rec(strategy["rollingUpdate"])?.["partition"], 0) : 0;

    const status: Record<string, unknown> = { ...old, observedGeneration: set.metadata.generation ?? 0 };
    const now = this.clock.now();
    const minReady = int(spec["minReadySeconds"], 0);
    let counted = { replicas: 0, ready: 0, available: 0, current: 0, updated: 0 };
    for (const pod of pods) {
      counted = {
        replicas: counted.replicas + 1,
        ready: counted.ready + Number(runningAndReady(pod)),
        available: counted.available + Number(runningAndReady(pod) && isPodAvailable(pod, minReady, now)),
        current: counted.current + Number(revisionOf(pod) === currentName),
        updated: counted.updated + Number(revisionOf(pod) === updateName),
      };
      if (minReady > 0 && runningAndReady(pod) && !isPodAvailable(pod, minReady, now)) {
        const since = podReadyTime(pod);
        if (since !== 0) this.queue.addAfter(key, since + minReady * 1000 - now + 1);
      }
    }

    await this.#manage(set, { byOrdinal, condemned, start, replicas, monotonic, rolling, partition, current, update, revisionOf });

    Object.assign(status, {
      replicas: counted.replicas,
      readyReplicas: counted.ready,
      availableReplicas: counted.available,
      currentReplicas: counted.current,
      updatedReplicas: counted.updated,
      currentRevision: currentName,
      updateRevision: updateName,
    });
    if (rolling && counted.updated === counted.replicas && counted.ready === counted.replicas && counted.replicas === replicas) {
      status["currentRevision"] = updateName;
      status["currentReplicas"] = counted.updated;
    }
    const live = new Set<string>([String(status["currentRevision"]), updateName]);
    for (const pod of pods) live.add(revisionOf(pod) ?? "");
    await truncateHistory(this.client, revisions, live, int(spec["revisionHistoryLimit"], 10));
    if (!jsonEqual(status, old)) await this.client.resource(statefulSetsRef).updateStatus({ ...set, status }, { namespace });
  }

  async #manage(
    set: APIObject,
    s: {
      byOrdinal: Map<number, APIObject>;
      condemned: [number, APIObject][];
      start: number;
      replicas: number;
      monotonic: boolean;
      rolling: boolean;
      partition: number;
      current: APIObject;
      update: APIObject;
      revisionOf: (pod: APIObject) => string | undefined;
    },
  ): Promise<void> {
    // Make missing Pods and replace finished ones, in ordinal order.
    let healthy = true;
    for (let i = 0; i < s.replicas; i++) {
      const ordinal = s.start + i;
      const pod = s.byOrdinal.get(ordinal);
      if (pod && isPodTerminal(pod) && !pod.metadata.deletionTimestamp) {
        await deletePod(this.client, pod);
        s.byOrdinal.delete(ordinal);
        healthy = false;
        if (s.monotonic) return;
        continue;
      }
      if (!pod) {
        // Below the partition a Pod is made from the current revision, from the update one above.
        const revision = s.rolling && i < s.partition ? s.current : s.update;
        await this.#createPod(set, ordinal, revision);
        healthy = false;
        if (s.monotonic) return;
        continue;
      }
      if (!runningAndReady(pod)) {
        healthy = false;
        if (s.monotonic) return;
      }
    }
    // Remove Pods beyond the replicas, from the highest ordinal.
    for (const [ordinal, pod] of s.condemned) {
      if (pod.metadata.deletionTimestamp) {
        if (s.monotonic) return;
        continue;
      }
      if (s.monotonic && !healthy) return;
      await this.#releaseClaims(set, ordinal, pod);
      await deletePod(this.client, pod);
      if (s.monotonic) return;
    }
    if (!s.rolling || s.condemned.length > 0) return;
    // Roll the Pods at or above the partition to the update revision, one at a time from the highest.
    const updateName = s.update.metadata.name;
    for (let i = s.replicas - 1; i >= s.partition; i--) {
      const pod = s.byOrdinal.get(s.start + i);
      if (!pod) return;
      if (s.revisionOf(pod) !== updateName && !pod.metadata.deletionTimestamp) {
        if (!healthy) return;
        await deletePod(this.client, pod);
        return;
      }
      if (!runningAndReady(pod)) return;
    }
  }

  async #createPod(set: APIObject, ordinal: number, revision: APIObject): Promise<void> {
    const setName = set.metadata.name ?? "";
    const namespace = set.metadata.namespace ?? "";
    const spec = specOf(set);
    const domain = this.client.domain;
    const podName = `${setName}-${ordinal}`;
    const claims: { volume: string; claim: string }[] = [];
    const retention = rec(spec["persistentVolumeClaimRetentionPolicy"]);
    for (const t of arr(spec["volumeClaimTemplates"])) {
      const template = rec(t);
      const templateName = String(rec(template?.["metadata"])?.["name"] ?? "");
      if (!template || !templateName) continue;
      const claimName = `${templateName}-${setName}-${ordinal}`;
      claims.push({ volume: templateName, claim: claimName });
      const labels = {
        ...((rec(rec(template["metadata"])?.["labels"]) ?? {}) as Record<string, string>),
        ...((rec(rec(spec["selector"])?.["matchLabels"]) ?? {}) as Record<string, string>),
      };
      const ownerReferences =
        retention?.["whenDeleted"] === "Delete" ? [{ apiVersion: "apps/v1", kind: "StatefulSet", name: setName, uid: set.metadata.uid ?? "" }] : undefined;
      const claim: APIObject = {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: claimName, namespace, labels, ...(ownerReferences ? { ownerReferences } : {}) },
        spec: structuredClone(rec(template["spec"]) ?? {}),
      };
      try {
        await this.client.resource(persistentVolumeClaimsRef).create(claim, { namespace });
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    }
    const pod = podFromTemplate(templateOfRevision(revision), set, newControllerRef(set, "apps/v1", "StatefulSet"), {
      name: podName,
      labels: {
        [statefulSetPodNameLabel(domain)]: podName,
        [podIndexLabel(domain)]: String(ordinal),
        [controllerRevisionHashLabel]: revision.metadata.name ?? "",
      },
    });
    const podSpec = specOf(pod);
    podSpec["hostname"] = podName;
    if (typeof spec["serviceName"] === "string" && spec["serviceName"] !== "") podSpec["subdomain"] = spec["serviceName"];
    if (claims.length > 0) {
      const volumes = arr(podSpec["volumes"]).filter((v) => !claims.some((c) => c.volume === rec(v)?.["name"]));
      podSpec["volumes"] = [...volumes, ...claims.map((c) => ({ name: c.volume, persistentVolumeClaim: { claimName: c.claim } }))];
    }
    try {
      await this.client.resource(podsRef).create(pod, { namespace });
    } catch (error) {
      // A Pod of that name still being deleted: its deletion queues the set again.
      if (!isAlreadyExists(error)) throw error;
    }
  }

  /**
   * With `persistentVolumeClaimRetentionPolicy.whenScaled: Delete`, makes the claims of the Pod at
   * `ordinal`, removed by a scale-down, owned by the Pod, so they go with it.
   */
  async #releaseClaims(set: APIObject, ordinal: number, pod: APIObject): Promise<void> {
    const spec = specOf(set);
    if (rec(spec["persistentVolumeClaimRetentionPolicy"])?.["whenScaled"] !== "Delete") return;
    const claims = this.client.resource(persistentVolumeClaimsRef);
    const namespace = set.metadata.namespace ?? "";
    for (const t of arr(spec["volumeClaimTemplates"])) {
      const templateName = String(rec(rec(t)?.["metadata"])?.["name"] ?? "");
      if (!templateName) continue;
      try {
        const claim = await claims.get(`${templateName}-${set.metadata.name ?? ""}-${ordinal}`, { namespace });
        const refs = claim.metadata.ownerReferences ?? [];
        if (refs.some((r) => r.uid === pod.metadata.uid)) continue;
        const podRef = { apiVersion: "v1", kind: "Pod", name: pod.metadata.name ?? "", uid: pod.metadata.uid ?? "" };
        await claims.update({ ...claim, metadata: { ...claim.metadata, ownerReferences: [...refs, podRef] } }, { namespace });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }
}

/** The {@link ControllerDescriptor} of the StatefulSet loop: `statefulset`, on by default. */
export const statefulSetController: ControllerDescriptor = {
  name: "statefulset",
  enabledByDefault: true,
  create: () => new StatefulSetController(),
};
