/**
 * {@link DeploymentController}: the `deployment` controller, the reference's
 * `pkg/controller/deployment`. A Deployment owns ReplicaSets named
 * `<deployment>-<pod-template-hash>`, one per template it has had (the hash is also a label of
 * the ReplicaSet, its selector and its template), and moves replicas from the old ones to the
 * new one: `RollingUpdate` within `maxSurge` and `maxUnavailable`, `Recreate` by scaling the old
 * ones to zero first. It numbers them with the `deployment.<domain>/revision` annotation
 * (`deployment.kubernetes.io/...` under `k8s.io`, which `kubectl rollout undo` reads), scales
 * them proportionally when the Deployment is scaled mid-rollout, does nothing but scale while
 * `paused`, deletes old empty ones beyond `revisionHistoryLimit`, and writes `status` with the
 * conditions `Available` and `Progressing` (and `ReplicaFailure` from its ReplicaSets).
 * @module
 */
import { deploymentsRef, namespaceIndex, objectKey, podsRef, replicaSetsRef, type Informer, type ResourceClient } from "@orch/client";
import { isAlreadyExists, isNotFound, jsonEqual, labelSelectorFromObject, type APIObject, type LabelSelectorObject } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { claimObjects } from "./internal/claim-objects.js";
import { controllerRefOf, newControllerRef, resolveControllerRef } from "./internal/controller-ref.js";
import {
  activeReplicaSets,
  byCreation,
  byRevision,
  bySizeNewer,
  bySizeOlder,
  conditionOf,
  deploymentAnnotations,
  deploymentComplete,
  deploymentProgressing,
  deploymentSpecOf,
  deploymentStatusOf,
  deploymentTimedOut,
  equalIgnoreHash,
  hasProgressDeadline,
  intAnnotation,
  isRollingUpdate,
  isSaturated,
  maxSurge,
  maxUnavailable,
  newCondition,
  newReplicaSetReplicas,
  podTemplateHash,
  podTemplateHashLabel,
  proportionOf,
  removeCondition,
  replicasAnnotationsNeedUpdate,
  revisionOf,
  rsSpecOf,
  rsStatusOf,
  setCondition,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  specReplicaCount,
  specReplicas,
  splitReplicaSets,
  statusReplicaCount,
  type DeploymentAnnotations,
  type DeploymentStatus,
} from "./internal/deployment-util.js";
import { messageOf } from "./internal/message-of.js";
import { QueueController, RetryQuietly } from "./internal/queue-controller.js";
import { refusedAsTerminating } from "./internal/refused-as-terminating.js";

const fieldManager = "deployment-controller";
const controllerKind = { apiVersion: "apps/v1", kind: "Deployment" };

/** The Deployment loop; create one per term of leadership (the {@link ControllerManager} does). */
export class DeploymentController extends QueueController {
  /** `deployment`. */
  readonly name = "deployment";
  protected override readonly workers: number = 5;
  #deployments: Informer | undefined;
  #replicaSets: Informer | undefined;
  #pods: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const deployments = this.follow(ctx, deploymentsRef, { deletes: true });
    this.#deployments = deployments.informer;
    this.#replicaSets = ctx.informers.informerFor(replicaSetsRef);
    this.#pods = ctx.informers.informerFor(podsRef);
    const sets = ctx.informers.addEventHandler(replicaSetsRef, {
      onAdd: (rs) => this.#replicaSetChanged(rs),
      onUpdate: (old, rs) => {
        if (old.metadata.resourceVersion === rs.metadata.resourceVersion) return;
        const oldRef = controllerRefOf(old);
        if (oldRef && oldRef.uid !== controllerRefOf(rs)?.uid) this.#queueOwner(old);
        this.#replicaSetChanged(rs);
      },
      onDelete: (rs) => this.#queueOwner(rs),
    });
    const pods = ctx.informers.addEventHandler(podsRef, {
      // Recreate waits for the old Pods to be gone, and only their deletion says so.
      onDelete: (pod) => {
        const rs = this.#ownerIn(this.#replicaSets, pod, "ReplicaSet");
        const d = rs && this.#ownerIn(this.#deployments, rs, "Deployment");
        if (d && !isRollingUpdate(d)) this.queue.add(objectKey(d));
      },
    });
    return [deployments.unregister, sets, pods];
  }

  /** The controller of `object` of `kind` in `informer`, when it is still the same object. */
  #ownerIn(informer: Informer | undefined, object: APIObject, kind: string): APIObject | undefined {
    return resolveControllerRef(informer, object.metadata.namespace, controllerRefOf(object), kind);
  }

  #queueOwner(rs: APIObject): void {
    const d = this.#ownerIn(this.#deployments, rs, "Deployment");
    if (d) this.queue.add(objectKey(d));
  }

  /** Queues the ReplicaSet's Deployment, or for an orphan every Deployment selecting it. */
  #replicaSetChanged(rs: APIObject): void {
    if (controllerRefOf(rs)) return this.#queueOwner(rs);
    if (rs.metadata.deletionTimestamp !== undefined) return;
    for (const d of this.#deployments?.byIndex(namespaceIndex, rs.metadata.namespace ?? "") ?? []) {
      const selector = labelSelectorFromObject(deploymentSpecOf(d).selector as LabelSelectorObject | undefined);
      if (selector.ok && !selector.selector.isEmpty() && selector.selector.matches(rs.metadata.labels ?? {})) this.queue.add(objectKey(d));
    }
  }

  get #names(): DeploymentAnnotations {
    return deploymentAnnotations(this.client.domain);
  }

  get #rsClient(): ResourceClient {
    return this.client.resource(replicaSetsRef);
  }

  get #deploymentClient(): ResourceClient {
    return this.client.resource(deploymentsRef);
  }

  protected async sync(key: string): Promise<void> {
    const cached = this.#deployments?.get(key);
    if (!cached) return;
    const d = structuredClone(cached);
    const selectorObject = deploymentSpecOf(d).selector;
    if (selectorObject !== undefined && jsonEqual(selectorObject, {})) {
      // Selecting everything would fight every other controller: only observe the generation.
      const status = deploymentStatusOf(d);
      if ((status.observedGeneration ?? 0) < (d.metadata.generation ?? 1))
        await this.#writeStatus(d, { ...status, observedGeneration: d.metadata.generation ?? 1 });
      return;
    }
    const selector = labelSelectorFromObject(selectorObject as LabelSelectorObject | undefined);
    if (!selector.ok) {
      this.log(`${key}: its selector cannot be read`);
      return;
    }
    const namespace = d.metadata.namespace ?? "";
    const rsList = await claimObjects(this.#replicaSets?.byIndex(namespaceIndex, namespace) ?? [], {
      owner: d,
      ownerRef: newControllerRef(d, controllerKind.apiVersion, controllerKind.kind),
      selector: selector.selector,
      client: this.#rsClient,
      recheck: () => this.#deploymentClient.get(d.metadata.name ?? "", { namespace }),
    });
    if (d.metadata.deletionTimestamp !== undefined) {
      const { newRS, oldRSs } = await this.#replicaSetsAndRevision(d, rsList, false);
      return this.#syncStatus(d, [...oldRSs, newRS], newRS);
    }
    await this.#checkPausedConditions(d);
    const spec = deploymentSpecOf(d);
    if (spec.paused) return this.#syncScale(d, rsList);
    if (await this.#isScalingEvent(d, rsList)) return this.#syncScale(d, rsList);
    if (isRollingUpdate(d)) return this.#rolloutRolling(d, rsList);
    return this.#rolloutRecreate(d, rsList, selector.selector.matches.bind(selector.selector));
  }

  /** Writes `status` (with the resourceVersion of `d`), and keeps `d` in step with what was written. */
  async #writeStatus(d: APIObject, status: DeploymentStatus): Promise<void> {
    d["status"] = withoutZeros(status);
    try {
      const written = await this.#deploymentClient.updateStatus(d, { namespace: d.metadata.namespace ?? "", fieldManager });
      d.metadata.resourceVersion = written.metadata.resourceVersion as string;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Sets the Deployment's revision annotation to `revision` (`SetDeploymentRevision`), through the main resource. */
  async #setRevision(d: APIObject, revision: string): Promise<void> {
    if (d.metadata.annotations?.[this.#names.revision] === revision) return;
    const patch = { metadata: { annotations: { [this.#names.revision]: revision }, resourceVersion: d.metadata.resourceVersion } };
    const written = await this.#deploymentClient.patch(d.metadata.name ?? "", patch, "merge", { namespace: d.metadata.namespace ?? "", fieldManager });
    d.metadata.annotations = written.metadata.annotations ?? {};
    d.metadata.resourceVersion = written.metadata.resourceVersion as string;
  }

  /** Sets `Progressing` Unknown `DeploymentPaused` / `DeploymentResumed` when `paused` changes (`checkPausedConditions`). */
  async #checkPausedConditions(d: APIObject): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const status = structuredClone(deploymentStatusOf(d));
    const condition = conditionOf(status, "Progressing");
    if (condition?.reason === "ProgressDeadlineExceeded") return;
    const pausedNoted = condition?.reason === "DeploymentPaused";
    const now = this.clock.now();
    if (deploymentSpecOf(d).paused && !pausedNoted)
      setCondition(status, newCondition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", now));
    else if (!deploymentSpecOf(d).paused && pausedNoted)
      setCondition(status, newCondition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed", now));
    else return;
    await this.#writeStatus(d, status);
  }

  /**
   * The new ReplicaSet (created when `create` and missing) and the old ones, with the revision
   * annotations brought up to date (`getAllReplicaSetsAndSyncRevision`).
   */
  async #replicaSetsAndRevision(d: APIObject, rsList: APIObject[], create: boolean): Promise<{ newRS: APIObject | undefined; oldRSs: APIObject[] }> {
    const { newRS: existing, oldRSs } = splitReplicaSets(d, rsList);
    const names = this.#names;
    const newRevision = Math.max(0, ...oldRSs.map((rs) => revisionOf(rs, names))) + 1;
    const namespace = d.metadata.namespace ?? "";
    const hasDeadline = hasProgressDeadline(d);
    if (existing) {
      const copy = structuredClone(existing);
      const annotated = setNewReplicaSetAnnotations(d, copy, newRevision, true, names);
      const minReadySeconds = deploymentSpecOf(d).minReadySeconds ?? 0;
      if (annotated || (rsSpecOf(copy).minReadySeconds ?? 0) !== minReadySeconds) {
        (copy["spec"] as { minReadySeconds?: number }).minReadySeconds = minReadySeconds;
        return { newRS: await this.#rsClient.update(copy, { namespace, fieldManager }), oldRSs };
      }
      await this.#setRevision(d, copy.metadata.annotations?.[names.revision] ?? "");
      const status = structuredClone(deploymentStatusOf(d));
      if (hasDeadline && !conditionOf(status, "Progressing")) {
        setCondition(
          status,
          newCondition("Progressing", "True", "FoundNewReplicaSet", `Found new replica set "${copy.metadata.name ?? ""}"`, this.clock.now()),
        );
        await this.#writeStatus(d, status);
      }
      return { newRS: copy, oldRSs };
    }
    if (!create) return { newRS: undefined, oldRSs };

    const spec = deploymentSpecOf(d);
    const status = structuredClone(deploymentStatusOf(d));
    const template = structuredClone(spec.template ?? {});
    const hash = podTemplateHash(template, status.collisionCount);
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [podTemplateHashLabel]: hash } };
    const selector = structuredClone((spec.selector ?? {}) as LabelSelectorObject);
    const rsSelector = { ...selector, matchLabels: { ...selector.matchLabels, [podTemplateHashLabel]: hash } };
    const rs: APIObject = {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name: `${d.metadata.name ?? ""}-${hash}`,
        namespace,
        ownerReferences: [newControllerRef(d, controllerKind.apiVersion, controllerKind.kind)],
        labels: { ...template.metadata.labels },
      },
      spec: { replicas: 0, minReadySeconds: spec.minReadySeconds ?? 0, selector: rsSelector, template },
    };
    const replicas = newReplicaSetReplicas(d, [...oldRSs, rs], rs);
    (rs["spec"] as { replicas: number }).replicas = replicas;
    setNewReplicaSetAnnotations(d, rs, newRevision, false, names);
    let created: APIObject;
    let alreadyExisted = false;
    try {
      created = await this.#rsClient.create(rs, { namespace, fieldManager });
    } catch (error) {
      if (isAlreadyExists(error)) {
        const found = this.#replicaSets?.get(`${namespace}/${rs.metadata.name ?? ""}`);
        // Our own create of a moment ago, not seen yet: look again once it is.
        if (!found) throw new RetryQuietly(`replica set ${namespace}/${rs.metadata.name ?? ""} exists but is not cached yet`);
        if (controllerRefOf(found)?.uid === d.metadata.uid && equalIgnoreHash(spec.template, rsSpecOf(found).template)) {
          created = found;
          alreadyExisted = true;
        } else {
          // Another object has the name: the next hash comes from a higher collision count.
          await this.#writeStatus(d, { ...status, collisionCount: (status.collisionCount ?? 0) + 1 });
          throw error;
        }
      } else {
        if (!refusedAsTerminating(error) && hasDeadline) {
          const message = `Failed to create new replica set "${rs.metadata.name ?? ""}": ${messageOf(error)}`;
          setCondition(status, newCondition("Progressing", "False", "ReplicaSetCreateError", message, this.clock.now()));
          await this.#writeStatus(d, status);
        }
        throw error;
      }
    }
    await this.#setRevision(d, String(newRevision));
    if (!alreadyExisted && hasDeadline) {
      const next = structuredClone(deploymentStatusOf(d));
      setCondition(
        next,
        newCondition("Progressing", "True", "NewReplicaSetCreated", `Created new replica set "${created.metadata.name ?? ""}"`, this.clock.now()),
      );
      await this.#writeStatus(d, next);
    }
    return { newRS: created, oldRSs };
  }

  /**
   * Scales `rs` to `replicas` and stamps its replicas annotations (`scaleReplicaSet`); answers
   * whether its size changed and the ReplicaSet as written.
   */
  async #scale(rs: APIObject, replicas: number, d: APIObject): Promise<{ scaled: boolean; rs: APIObject }> {
    const names = this.#names;
    const desired = specReplicas(d);
    const max = desired + maxSurge(d);
    const sizeChanges = specReplicas(rs) !== replicas;
    if (!sizeChanges && !replicasAnnotationsNeedUpdate(rs, desired, max, names)) return { scaled: false, rs };
    const copy = structuredClone(rs);
    (copy["spec"] as { replicas: number }).replicas = replicas;
    setReplicasAnnotations(copy, desired, max, names);
    const written = await this.#rsClient.update(copy, { namespace: rs.metadata.namespace ?? "", fieldManager });
    return { scaled: sizeChanges, rs: written };
  }

  /** {@link DeploymentController.#scale} unless the size is already `replicas` (`scaleReplicaSetAndRecordEvent`). */
  async #scaleTo(rs: APIObject, replicas: number, d: APIObject): Promise<{ scaled: boolean; rs: APIObject }> {
    if (specReplicas(rs) === replicas) return { scaled: false, rs };
    return this.#scale(rs, replicas, d);
  }

  /** Whether an active ReplicaSet was last scaled for another `spec.replicas` (`isScalingEvent`). */
  async #isScalingEvent(d: APIObject, rsList: APIObject[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.#replicaSetsAndRevision(d, rsList, false);
    return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
      const desired = intAnnotation(rs, this.#names.desiredReplicas);
      return desired !== undefined && desired !== specReplicas(d);
    });
  }

  /** Scaling only, for a paused Deployment or a change of `spec.replicas` (`sync`). */
  async #syncScale(d: APIObject, rsList: APIObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.#replicaSetsAndRevision(d, rsList, false);
    await this.#proportionalScale(d, newRS, oldRSs);
    if (deploymentSpecOf(d).paused) await this.#cleanup(d, oldRSs);
    await this.#syncStatus(d, [...oldRSs, newRS], newRS);
  }

  /** Brings the ReplicaSets to `spec.replicas` in all, in proportion to their sizes (`scale`). */
  async #proportionalScale(d: APIObject, newRS: APIObject | undefined, oldRSs: APIObject[]): Promise<void> {
    const replicas = specReplicas(d);
    const activeOrLatest = this.#activeOrLatest(newRS, oldRSs);
    if (activeOrLatest) {
      if (specReplicas(activeOrLatest) !== replicas) await this.#scaleTo(activeOrLatest, replicas, d);
      return;
    }
    if (isSaturated(d, newRS, this.#names)) {
      for (const old of activeReplicaSets(oldRSs)) await this.#scaleTo(old, 0, d);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const all = activeReplicaSets([...oldRSs, newRS]);
    const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
    const toAdd = allowed - specReplicaCount(all);
    if (toAdd > 0) all.sort(bySizeNewer);
    else if (toAdd < 0) all.sort(bySizeOlder);
    let added = 0;
    const sizes = new Map<APIObject, number>();
    for (const rs of all) {
      const share = toAdd === 0 ? 0 : proportionOf(rs, d, toAdd, added, this.#names);
      sizes.set(rs, specReplicas(rs) + share);
      added += share;
    }
    for (const [i, rs] of all.entries()) {
      let size = sizes.get(rs) ?? 0;
      // The leftover goes to the largest.
      if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
      await this.#scale(rs, size, d);
    }
  }

  /** The only active ReplicaSet, or the newest when none is active (`FindActiveOrLatest`). */
  #activeOrLatest(newRS: APIObject | undefined, oldRSs: APIObject[]): APIObject | undefined {
    if (!newRS && oldRSs.length === 0) return undefined;
    const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
    const active = activeReplicaSets([...newestFirst, newRS]);
    if (active.length === 0) return newRS ?? newestFirst[0];
    return active.length === 1 ? active[0] : undefined;
  }

  /** One step of a rolling update (`rolloutRolling`). */
  async #rolloutRolling(d: APIObject, rsList: APIObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.#replicaSetsAndRevision(d, rsList, true);
    if (!newRS) return;
    let all = [...oldRSs, newRS];
    const up = await this.#reconcileNewReplicaSet(d, all, newRS);
    if (up.scaled) return this.#syncRolloutStatus(d, [...oldRSs, up.rs], up.rs);
    all = [...oldRSs, up.rs];
    const scaledDown = await this.#reconcileOldReplicaSets(d, all, activeReplicaSets(oldRSs), up.rs);
    if (scaledDown.scaled) return this.#syncRolloutStatus(d, [...scaledDown.oldRSs, up.rs], up.rs);
    if (deploymentComplete(d, deploymentStatusOf(d))) await this.#cleanup(d, oldRSs);
    return this.#syncRolloutStatus(d, all, up.rs);
  }

  /** Scales the new ReplicaSet up as far as the surge allows, or down to `spec.replicas` (`reconcileNewReplicaSet`). */
  async #reconcileNewReplicaSet(d: APIObject, all: APIObject[], newRS: APIObject): Promise<{ scaled: boolean; rs: APIObject }> {
    const replicas = specReplicas(d);
    if (specReplicas(newRS) === replicas) return { scaled: false, rs: newRS };
    if (specReplicas(newRS) > replicas) return this.#scaleTo(newRS, replicas, d);
    return this.#scaleTo(newRS, newReplicaSetReplicas(d, all, newRS), d);
  }

  /**
   * Scales the old ReplicaSets down as far as `maxUnavailable` allows, unhealthy replicas first
   * (`reconcileOldReplicaSets`).
   */
  async #reconcileOldReplicaSets(d: APIObject, all: APIObject[], oldRSs: APIObject[], newRS: APIObject): Promise<{ scaled: boolean; oldRSs: APIObject[] }> {
    if (specReplicaCount(oldRSs) === 0) return { scaled: false, oldRSs };
    const minAvailable = specReplicas(d) - maxUnavailable(d);
    const newUnavailable = specReplicas(newRS) - (rsStatusOf(newRS).availableReplicas ?? 0);
    const maxScaledDown = specReplicaCount(all) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return { scaled: false, oldRSs };
    // Replicas that are not available anyway go first.
    const olds = [...oldRSs].sort(byCreation);
    let cleaned = 0;
    for (const [i, rs] of olds.entries()) {
      if (cleaned >= maxScaledDown) break;
      const available = rsStatusOf(rs).availableReplicas ?? 0;
      if (specReplicas(rs) === 0 || specReplicas(rs) === available) continue;
      const down = Math.min(maxScaledDown - cleaned, specReplicas(rs) - available);
      olds[i] = (await this.#scaleTo(rs, specReplicas(rs) - down, d)).rs;
      cleaned += down;
    }
    // Then available ones, down to the minimum availability.
    const availableNow = statusReplicaCount([...olds, newRS], "availableReplicas");
    let scaled = 0;
    if (availableNow > minAvailable) {
      const total = availableNow - minAvailable;
      for (const [i, rs] of olds.entries()) {
        if (scaled >= total) break;
        if (specReplicas(rs) === 0) continue;
        const down = Math.min(specReplicas(rs), total - scaled);
        olds[i] = (await this.#scaleTo(rs, specReplicas(rs) - down, d)).rs;
        scaled += down;
      }
    }
    return { scaled: cleaned + scaled > 0, oldRSs: olds };
  }

  /** One step of a Recreate rollout (`rolloutRecreate`). */
  async #rolloutRecreate(d: APIObject, rsList: APIObject[], selects: (labels: Record<string, string>) => boolean): Promise<void> {
    let { newRS, oldRSs } = await this.#replicaSetsAndRevision(d, rsList, false);
    let scaledDown = false;
    for (const [i, rs] of oldRSs.entries()) {
      if (specReplicas(rs) === 0) continue;
      const result = await this.#scaleTo(rs, 0, d);
      oldRSs[i] = result.rs;
      scaledDown ||= result.scaled;
    }
    if (scaledDown || this.#oldPodsRunning(d, newRS, oldRSs, selects)) return this.#syncRolloutStatus(d, [...oldRSs, newRS], newRS);
    if (!newRS) ({ newRS, oldRSs } = await this.#replicaSetsAndRevision(d, rsList, true));
    if (newRS) newRS = (await this.#scaleTo(newRS, specReplicas(d), d)).rs;
    if (deploymentComplete(d, deploymentStatusOf(d))) await this.#cleanup(d, oldRSs);
    return this.#syncRolloutStatus(d, [...oldRSs, newRS], newRS);
  }

  /** Old ReplicaSets still report Pods, or Pods of theirs that have not finished still exist (`oldPodsRunning`). */
  #oldPodsRunning(d: APIObject, newRS: APIObject | undefined, oldRSs: APIObject[], selects: (labels: Record<string, string>) => boolean): boolean {
    if (statusReplicaCount(oldRSs, "replicas") > 0) return true;
    const oldUids = new Set(oldRSs.map((rs) => rs.metadata.uid));
    return (this.#pods?.byIndex(namespaceIndex, d.metadata.namespace ?? "") ?? []).some((pod) => {
      const uid = controllerRefOf(pod)?.uid;
      if (!uid || uid === newRS?.metadata.uid || !oldUids.has(uid) || !selects(pod.metadata.labels ?? {})) return false;
      const phase = (pod["status"] as { phase?: string } | undefined)?.phase;
      return phase !== "Failed" && phase !== "Succeeded";
    });
  }

  /** Deletes the oldest empty old ReplicaSets beyond `revisionHistoryLimit` (`cleanupDeployment`). */
  async #cleanup(d: APIObject, oldRSs: APIObject[]): Promise<void> {
    const limit = deploymentSpecOf(d).revisionHistoryLimit;
    if (limit === undefined) return;
    const cleanable = oldRSs.filter((rs) => rs.metadata.deletionTimestamp === undefined).sort(byRevision(this.#names));
    const diff = cleanable.length - limit;
    for (const rs of cleanable.slice(0, Math.max(0, diff))) {
      const status = rsStatusOf(rs);
      if ((status.replicas ?? 0) !== 0 || specReplicas(rs) !== 0 || (rs.metadata.generation ?? 1) > (status.observedGeneration ?? 0)) continue;
      try {
        await this.#rsClient.delete(rs.metadata.name ?? "", { namespace: rs.metadata.namespace ?? "" });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }

  /** The status the ReplicaSets give, with `Available` (`calculateStatus`). */
  #calculateStatus(d: APIObject, all: (APIObject | undefined)[], newRS: APIObject | undefined): DeploymentStatus {
    const current = deploymentStatusOf(d);
    const available = statusReplicaCount(all, "availableReplicas");
    const status: DeploymentStatus = {
      observedGeneration: d.metadata.generation ?? 1,
      replicas: statusReplicaCount(all, "replicas"),
      updatedReplicas: statusReplicaCount([newRS], "replicas"),
      readyReplicas: statusReplicaCount(all, "readyReplicas"),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, specReplicaCount(all) - available),
    };
    if (current.collisionCount !== undefined) status.collisionCount = current.collisionCount;
    if (current.conditions) status.conditions = structuredClone(current.conditions);
    const now = this.clock.now();
    if (available >= specReplicas(d) - maxUnavailable(d)) {
      setCondition(status, newCondition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", now));
    } else {
      setCondition(status, newCondition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", now));
    }
    return status;
  }

  /** Writes the status unless it is unchanged (`syncDeploymentStatus`). */
  async #syncStatus(d: APIObject, all: (APIObject | undefined)[], newRS: APIObject | undefined): Promise<void> {
    const status = this.#calculateStatus(d, all, newRS);
    if (!jsonEqual(withoutZeros(deploymentStatusOf(d)), withoutZeros(status))) await this.#writeStatus(d, status);
  }

  /** The status with the `Progressing` and `ReplicaFailure` conditions of a rollout (`syncRolloutStatus`). */
  async #syncRolloutStatus(d: APIObject, all: (APIObject | undefined)[], newRS: APIObject | undefined): Promise<void> {
    const status = this.#calculateStatus(d, all, newRS);
    const name = d.metadata.name ?? "";
    const now = this.clock.now();
    if (!hasProgressDeadline(d)) removeCondition(status, "Progressing");
    const current = conditionOf(deploymentStatusOf(d), "Progressing");
    const complete = status.replicas === status.updatedReplicas && current?.reason === "NewReplicaSetAvailable";
    if (hasProgressDeadline(d) && !complete) {
      const subject = newRS ? `ReplicaSet "${newRS.metadata.name ?? ""}"` : `Deployment "${name}"`;
      if (deploymentComplete(d, status)) {
        setCondition(status, newCondition("Progressing", "True", "NewReplicaSetAvailable", `${subject} has successfully progressed.`, now));
      } else if (deploymentProgressing(d, status)) {
        const condition = newCondition("Progressing", "True", "ReplicaSetUpdated", `${subject} is progressing.`, now);
        // Progress moves lastUpdateTime even with the same reason; the transition time stays while True.
        if (current) {
          if (current.status === "True" && current.lastTransitionTime) condition.lastTransitionTime = current.lastTransitionTime;
          removeCondition(status, "Progressing");
        }
        setCondition(status, condition);
      } else if (deploymentTimedOut(d, status, now)) {
        setCondition(status, newCondition("Progressing", "False", "ProgressDeadlineExceeded", `${subject} has timed out progressing.`, now));
      }
    }
    const failure = replicaFailure(all, newRS);
    if (failure) setCondition(status, failure);
    else removeCondition(status, "ReplicaFailure");
    if (jsonEqual(withoutZeros(deploymentStatusOf(d)), withoutZeros(status))) {
      this.#requeueStuck(d, status);
      return;
    }
    await this.#writeStatus(d, status);
  }

  /** Checks again when the progress deadline would pass without news (`requeueStuckDeployment`). */
  #requeueStuck(d: APIObject, status: DeploymentStatus): void {
    const current = conditionOf(deploymentStatusOf(d), "Progressing");
    if (!hasProgressDeadline(d) || !current) return;
    if (deploymentComplete(d, status) || current.reason === "ProgressDeadlineExceeded") return;
    const seconds = deploymentSpecOf(d).progressDeadlineSeconds ?? 0;
    const updated = current.lastUpdateTime ? Date.parse(current.lastUpdateTime) : 0;
    const after = updated + seconds * 1000 - this.clock.now();
    const key = objectKey(d);
    if (after < 1000) this.queue.addRateLimited(key);
    else this.queue.addAfter(key, after);
  }
}

/** The ReplicaFailure condition of the new ReplicaSet, else of any old one, as a Deployment condition (`getReplicaFailures`). */
function replicaFailure(all: (APIObject | undefined)[], newRS: APIObject | undefined) {
  for (const rs of [newRS, ...all]) {
    const c = rs && rsStatusOf(rs).conditions?.find((x) => x.type === "ReplicaFailure");
    if (c) {
      const condition = { type: c.type, status: c.status, reason: c.reason ?? "", message: c.message ?? "" };
      return c.lastTransitionTime ? { ...condition, lastUpdateTime: c.lastTransitionTime, lastTransitionTime: c.lastTransitionTime } : condition;
    }
  }
  return undefined;
}

/** The status without zero counts (the reference omits them), so statuses compare as served. */
function withoutZeros(status: DeploymentStatus): DeploymentStatus {
  return Object.fromEntries(Object.entries(status).filter(([, v]) => v !== 0 && v !== undefined)) as DeploymentStatus;
}

/** The {@link ControllerDescriptor} of the Deployment loop: `deployment`, on by default. */
export const deploymentController: ControllerDescriptor = {
  name: "deployment",
  enabledByDefault: true,
  create: () => new DeploymentController(),
};
