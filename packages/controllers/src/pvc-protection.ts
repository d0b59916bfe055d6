/**
 * {@link PVCProtectionController}: the `pvc-protection` controller, the reference's
 * `pkg/controller/volume/pvcprotection`. A PersistentVolumeClaim being deleted keeps its
 * `<d>/pvc-protection` finalizer while a Pod uses it, and loses it once none does; a claim not
 * being deleted that lacks the finalizer gets it (for claims created before the
 * StorageObjectInUseProtection admission plugin was on).
 *
 * A Pod uses a claim, as in the reference, when it is scheduled (`spec.nodeName` set) and
 * either names the claim in a `persistentVolumeClaim` volume, or has an `ephemeral` volume whose
 * claim (`<pod>-<volume>`) it controls and is not shut down (deleted with a zero grace
 * period). The informer's cache is asked first; a claim it finds unused is confirmed with a
 * live list of the namespace's Pods before the finalizer goes.
 * @module
 */
import type { Informer, InformerHandlers } from "@orch/client";
import { isNotFound, type APIObject } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { isDeletionCandidate, needToAddFinalizer, protectionFinalizer, withFinalizer } from "./internal/finalizers.js";
import { QueueController } from "./internal/queue-controller.js";
import { persistentVolumeClaimsRef, podsRef } from "./internal/refs.js";

/** The fields of a Pod the loop reads. */
interface PodView {
  name: string;
  namespace: string;
  uid: string;
  nodeName: string;
  phase: string;
  volumes: { name: string; claimName: string | undefined; ephemeral: boolean }[];
  deleting: boolean;
  shutDown: boolean;
  containersNotRunning: boolean;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const text = (value: unknown): string => (typeof value === "string" ? value : "");
const list = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.map(record) : []);

function viewPod(pod: APIObject): PodView {
  const spec = record(pod["spec"]);
  const status = record(pod["status"]);
  const statuses = [...list(status["containerStatuses"]), ...list(status["initContainerStatuses"])];
  return {
    name: pod.metadata.name ?? "",
    namespace: pod.metadata.namespace ?? "",
    uid: pod.metadata.uid ?? "",
    nodeName: text(spec["nodeName"]),
    phase: text(status["phase"]),
    volumes: list(spec["volumes"]).map((v) => {
      const claim = record(v["persistentVolumeClaim"]);
      return {
        name: text(v["name"]),
        claimName: v["persistentVolumeClaim"] === undefined ? undefined : text(claim["claimName"]),
        ephemeral: v["ephemeral"] !== undefined,
      };
    }),
    deleting: pod.metadata.deletionTimestamp !== undefined,
    shutDown: pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionGracePeriodSeconds === 0,
    containersNotRunning: statuses.every((s) => {
      const state = record(s["state"]);
      return state["terminated"] !== undefined || state["waiting"] !== undefined;
    }),
  };
}

/** The reference's `IsPodTerminated`: failed or succeeded, or being deleted with no container running. */
function isTerminated(pod: PodView): boolean {
  return pod.phase === "Failed" || pod.phase === "Succeeded" || (pod.deleting && pod.containersNotRunning);
}

/** The claim names of `pod`'s volumes: `persistentVolumeClaim.claimName`, or `<pod>-<volume>` for an ephemeral volume. */
function claimNames(pod: PodView): string[] {
  return pod.volumes.flatMap((v) => (v.claimName !== undefined ? [v.claimName] : v.ephemeral ? [`${pod.name}-${v.name}`] : []));
}

/** Whether `claim` is controlled by the Pod with uid `podUID` (`VolumeIsForPod`). */
function isControlledBy(claim: APIObject, podUID: string): boolean {
  return (claim.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === podUID);
}

/** The reference's `podUsesPVC`. */
function podUsesClaim(pod: PodView, claim: APIObject): boolean {
  if (pod.nodeName === "") return false;
  const claimName = claim.metadata.name;
  return pod.volumes.some(
    (v) =>
      (v.claimName !== undefined && v.claimName === claimName) ||
      (!pod.shutDown && v.ephemeral && `${pod.name}-${v.name}` === claimName && isControlledBy(claim, pod.uid)),
  );
}

/** The PVC protection loop; create one per term of leadership (the {@link ControllerManager} does). */
export class PVCProtectionController extends QueueController {
  /** `pvc-protection`. */
  readonly name = "pvc-protection";
  #claims: Informer | undefined;
  #pods: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    this.#claims = ctx.informers.informerFor(persistentVolumeClaimsRef);
    this.#pods = ctx.informers.informerFor(podsRef);
    const finalizer = protectionFinalizer(ctx.client.domain, "pvc");
    const onClaim = (o: APIObject): void => {
      if (needToAddFinalizer(o, finalizer) || isDeletionCandidate(o, finalizer)) this.queue.add(`${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`);
    };
    /** Queues the claims of `object`, unless it is a running scheduled Pod, which cannot free a claim. */
    const onPod = (object: APIObject, deleted: boolean): void => {
      const pod = viewPod(object);
      if (!deleted && !isTerminated(pod) && pod.nodeName !== "") return;
      for (const claim of claimNames(pod)) this.queue.add(`${pod.namespace}/${claim}`);
    };
    const claimHandlers: InformerHandlers<APIObject> = { onAdd: onClaim, onUpdate: (_old, o) => onClaim(o) };
    const podHandlers: InformerHandlers<APIObject> = {
      onAdd: (o) => onPod(o, false),
      onUpdate: (old, o) => {
        onPod(o, false);
        // A new Pod under an old name hides the deletion of the old one, which may have held a claim.
        if (old.metadata.uid !== o.metadata.uid) onPod(old, true);
      },
      onDelete: (o) => onPod(o, true),
    };
    return [ctx.informers.addEventHandler(persistentVolumeClaimsRef, claimHandlers), ctx.informers.addEventHandler(podsRef, podHandlers)];
  }

  protected async sync(key: string): Promise<void> {
    const claim = this.#claims?.get(key);
    if (!claim) return;
    const finalizer = protectionFinalizer(this.client.domain, "pvc");
    const remove = isDeletionCandidate(claim, finalizer) && !(await this.#isBeingUsed(claim));
    if (!remove && !needToAddFinalizer(claim, finalizer)) return;
    try {
      await this.client.resource(persistentVolumeClaimsRef).update(withFinalizer(claim, finalizer, !remove));
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    this.log(`${remove ? "removed" : "added"} the protection finalizer of PersistentVolumeClaim ${key}`);
  }

  /** Whether a Pod uses `claim`: in the informer's cache, else in a live list (the cache may lag). */
  async #isBeingUsed(claim: APIObject): Promise<boolean> {
    const namespace = claim.metadata.namespace ?? "";
    const cached = (this.#pods?.list() ?? []).filter((p) => p.metadata.namespace === namespace);
    if (cached.some((p) => podUsesClaim(viewPod(p), claim))) return true;
    const live = await this.client.resource(podsRef).listAll({ namespace });
    return live.items.some((p) => podUsesClaim(viewPod(p), claim));
  }
}

/** The {@link ControllerDescriptor} of the PVC protection loop: `pvc-protection`, on by default. */
export const pvcProtectionController: ControllerDescriptor = {
  name: "pvc-protection",
  enabledByDefault: true,
  create: () => new PVCProtectionController(),
};
