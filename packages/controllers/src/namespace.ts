/**
 * {@link NamespaceController}: the `namespace` controller, the reference's
 * `pkg/controller/namespace`. A namespace with a `deletionTimestamp` that still carries the
 * domain's finalizer in `spec.finalizers` (`orch`, `kubernetes` under `k8s.io`) is emptied:
 * every namespaced resource the server serves with `delete` loses its objects there
 * (`deletecollection`, or list and delete each). Each pass writes the deletion conditions
 * (`NamespaceDeletionDiscoveryFailure`, `NamespaceDeletionContentFailure`,
 * `NamespaceContentRemaining`, `NamespaceFinalizersRemaining`) through `status`; once nothing
 * is left and nothing failed, the finalizer goes through `PUT .../finalize` (the other
 * finalizers stay) and the server removes the namespace when none is left. While objects remain
 * (held by their finalizers) or something failed, the namespace is tried again with the queue's
 * back-off, capped at 7.5 s (the reference re-checks content held by finalizers after half its
 * 15 s estimate).
 * @module
 */
import { namespacesRef, type ResourceClient } from "@orch/client";
import { formatTime, isNotFound, type APIObject } from "@orch/meta";
import { namespaceFinalizer, namespaceTerminating } from "@orch/resources";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { namespaceDeletionFailures, withNamespaceDeletionConditions, type NamespaceCondition } from "./internal/namespace-conditions.js";
import { deleteNamespaceContent } from "./internal/namespace-content.js";
import { QueueController, RetryQuietly } from "./internal/queue-controller.js";

type NamespaceStatus = { phase?: string; conditions?: NamespaceCondition[] } & Record<string, unknown>;

/** The namespace's own finalizers, `spec.finalizers`. */
function specFinalizers(namespace: APIObject): string[] {
  const list = (namespace["spec"] as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === "string") : [];
}

/** The namespace deletion loop; create one per term of leadership (the {@link ControllerManager} does). */
export class NamespaceController extends QueueController {
  /** `namespace`. */
  readonly name = "namespace";
  protected override readonly maxDelayMs = 7_500;

  protected watch(ctx: ControllerContext): (() => void)[] {
    return [this.follow(ctx, namespacesRef, { when: (o) => o.metadata.deletionTimestamp !== undefined }).unregister];
  }

  get #namespaces(): ResourceClient {
    return this.client.resource(namespacesRef);
  }

  protected async sync(name: string): Promise<void> {
    let namespace: APIObject;
    try {
      namespace = await this.#namespaces.get(name);
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    const finalizer = namespaceFinalizer(this.client.domain);
    if (namespace.metadata.deletionTimestamp === undefined || !specFinalizers(namespace).includes(finalizer)) return;

    const pass = await deleteNamespaceContent(this.client, name);
    const failures = namespaceDeletionFailures(pass);
    namespace = await this.#writeConditions(namespace, failures);

    const failed = [failures.NamespaceDeletionDiscoveryFailure, failures.NamespaceDeletionContentFailure].filter((f) => f !== undefined);
    if (failed.length > 0) throw new Error(`namespace ${name}: ${failed.map((f) => f.message).join("; ")}`);
    if (pass.remaining.size > 0) throw new RetryQuietly(`namespace ${name}: ${failures.NamespaceContentRemaining?.message ?? "content remains"}`);

    const spec = { ...(namespace["spec"] as Record<string, unknown> | undefined), finalizers: specFinalizers(namespace).filter((f) => f !== finalizer) };
    try {
      await this.#namespaces.update({ ...namespace, spec }, { subresource: "finalize" });
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    this.log(`namespace ${name} is empty: removed its finalizer ${finalizer}`);
  }

  /** Writes the deletion conditions (and the Terminating phase) through `status` when they changed; answers the namespace as it now is. */
  async #writeConditions(namespace: APIObject, failures: ReturnType<typeof namespaceDeletionFailures>): Promise<APIObject> {
    const status = (namespace["status"] as NamespaceStatus | undefined) ?? {};
    const { conditions, changed } = withNamespaceDeletionConditions(status.conditions ?? [], failures, formatTime(this.clock.now()));
    if (!changed && status.phase === namespaceTerminating) return namespace;
    try {
      return await this.#namespaces.updateStatus({ ...namespace, status: { ...status, phase: namespaceTerminating, conditions } });
    } catch (error) {
      // Gone meanwhile: the finalize that follows answers NotFound too.
      if (isNotFound(error)) return namespace;
      throw error;
    }
  }
}

/** The {@link ControllerDescriptor} of the namespace deletion loop: `namespace`, on by default. */
export const namespaceController: ControllerDescriptor = {
  name: "namespace",
  enabledByDefault: true,
  create: () => new NamespaceController(),
};
