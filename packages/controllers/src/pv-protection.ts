/**
 * {@link PVProtectionController}: the `pv-protection` controller, the reference's
 * `pkg/controller/volume/pvprotection`. A PersistentVolume being deleted keeps its
 * `<d>/pv-protection` finalizer while it is bound (`status.phase` `Bound`), and loses it once
 * it is not; a volume not being deleted that lacks the finalizer gets it (for volumes created
 * before the StorageObjectInUseProtection admission plugin was on).
 * @module
 */
import type { Informer } from "@orch/client";
import { isNotFound, type APIObject } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { isDeletionCandidate, needToAddFinalizer, protectionFinalizer, withFinalizer } from "./internal/finalizers.js";
import { QueueController } from "./internal/queue-controller.js";
import { persistentVolumesRef } from "./internal/refs.js";

/** Whether the volume is in use: bound to a claim, as its status says (the reference's `isBeingUsed`). */
function isBound(volume: APIObject): boolean {
  const status = volume["status"];
  return typeof status === "object" && status !== null && (status as { phase?: unknown }).phase === "Bound";
}

/** The PV protection loop; create one per term of leadership (the {@link ControllerManager} does). */
export class PVProtectionController extends QueueController {
  /** `pv-protection`. */
  readonly name = "pv-protection";
  #informer: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const finalizer = protectionFinalizer(ctx.client.domain, "pv");
    const { informer, unregister } = this.follow(ctx, persistentVolumesRef, {
      when: (o) => needToAddFinalizer(o, finalizer) || isDeletionCandidate(o, finalizer),
    });
    this.#informer = informer;
    return [unregister];
  }

  protected async sync(name: string): Promise<void> {
    const volume = this.#informer?.get(name);
    if (!volume) return;
    const finalizer = protectionFinalizer(this.client.domain, "pv");
    const remove = isDeletionCandidate(volume, finalizer) && !isBound(volume);
    if (!remove && !needToAddFinalizer(volume, finalizer)) return;
    try {
      await this.client.resource(persistentVolumesRef).update(withFinalizer(volume, finalizer, !remove));
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    this.log(`${remove ? "removed" : "added"} the protection finalizer of PersistentVolume ${name}`);
  }
}

/** The {@link ControllerDescriptor} of the PV protection loop: `pv-protection`, on by default. */
export const pvProtectionController: ControllerDescriptor = {
  name: "pv-protection",
  enabledByDefault: true,
  create: () => new PVProtectionController(),
};
