/**
 * {@link CSRCleanerController}: the `csrcleaner` controller, the reference's
 * `pkg/controller/certificates/cleaner`. It deletes a CertificateSigningRequest once
 * `csrExpiry` of `@orch/certificates` says it is garbage: 24 hours after creation while
 * pending, 1 hour after an issued, denied or failed request's condition last changed, and once
 * an issued certificate has expired. Where the reference lists every request each hour, this
 * loop follows an informer and sets a timer (on the context's clock) for each request's
 * expiry, so a request goes when it is due.
 * @module
 */
import { csrExpiry } from "@orch/certificates";
import type { Informer } from "@orch/client";
import { isConflict, isNotFound } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { QueueController } from "./internal/queue-controller.js";
import { csrRef } from "./internal/refs.js";

/** The cleaner; create one per term of leadership (the {@link ControllerManager} does). */
export class CSRCleanerController extends QueueController {
  /** `csrcleaner`. */
  readonly name = "csrcleaner";
  #informer: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const { informer, unregister } = this.follow(ctx, csrRef);
    this.#informer = informer;
    return [unregister];
  }

  protected async sync(name: string): Promise<void> {
    const csr = this.#informer?.get(name);
    if (!csr) return;
    const now = this.clock.now();
    const expiry = csrExpiry(csr, now);
    if (!expiry) return;
    // Due once the clock is strictly past the instant: look again just after it.
    if (!expiry.due) return this.queue.addAfter(name, expiry.at - now + 1);
    this.log(`deleting ${name} (${expiry.reason})`);
    try {
      await this.client.resource(csrRef).delete(name, csr.metadata.uid ? { preconditions: { uid: csr.metadata.uid } } : {});
    } catch (error) {
      // Gone already, or replaced by a new request of the same name (which has its own events).
      if (isNotFound(error) || isConflict(error)) return;
      throw error;
    }
  }
}

/** The {@link ControllerDescriptor} of the cleaner: `csrcleaner`, on by default. */
export const csrCleanerController: ControllerDescriptor = {
  name: "csrcleaner",
  enabledByDefault: true,
  create: () => new CSRCleanerController(),
};
