/**
 * {@link ServiceAccountController}: the `serviceaccount` controller, the reference's
 * `pkg/controller/serviceaccount` (`serviceaccounts_controller.go`). Every namespace that is not
 * terminating has a ServiceAccount `default`, the account pods run as when they name none: it
 * is created when a namespace is added or changes without one, and again when it is deleted.
 * A create refused because the namespace is terminating (a Status cause `NamespaceTerminating`)
 * or gone, or answered `AlreadyExists`, is fine; any other failure is retried with back-off.
 * @module
 */
import { namespacesRef, type Informer } from "@orch/client";
import { isAlreadyExists, isNotFound, type APIObject } from "@orch/meta";
import { namespaceTerminating } from "@orch/resources";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { QueueController } from "./internal/queue-controller.js";
import { serviceAccountsRef } from "./internal/refs.js";
import { refusedAsTerminating } from "./internal/refused-as-terminating.js";

/** The account every namespace has. */
const defaultAccount = "default";

/** True when `namespace` is being deleted. */
function terminating(namespace: APIObject): boolean {
  return namespace.metadata.deletionTimestamp !== undefined || (namespace["status"] as { phase?: unknown } | undefined)?.phase === namespaceTerminating;
}

/** The default ServiceAccount loop; create one per term of leadership (the {@link ControllerManager} does). */
export class ServiceAccountController extends QueueController {
  /** `serviceaccount`. */
  readonly name = "serviceaccount";
  #namespaces: Informer | undefined;
  #accounts: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const namespaces = this.follow(ctx, namespacesRef, { when: (o) => !terminating(o) });
    this.#namespaces = namespaces.informer;
    this.#accounts = ctx.informers.informerFor(serviceAccountsRef);
    const accounts = ctx.informers.addEventHandler(serviceAccountsRef, {
      onDelete: (account) => {
        const namespace = account.metadata.namespace;
        if (account.metadata.name === defaultAccount && namespace) this.queue.add(namespace);
      },
    });
    return [namespaces.unregister, accounts];
  }

  protected async sync(name: string): Promise<void> {
    const namespace = this.#namespaces?.get(name);
    if (!namespace || terminating(namespace)) return;
    if (this.#accounts?.get(`${name}/${defaultAccount}`)) return;
    try {
      await this.client
        .resource(serviceAccountsRef)
        .create({ metadata: { name: defaultAccount, namespace: name } }, { fieldManager: "service-account-controller" });
    } catch (error) {
      if (isAlreadyExists(error) || isNotFound(error) || refusedAsTerminating(error)) return;
      throw error;
    }
    // Quiet when it works: every namespace gets one, and the log is for what an operator must look at.
  }
}

/** The {@link ControllerDescriptor} of the default ServiceAccount loop: `serviceaccount`, on by default. */
export const serviceAccountController: ControllerDescriptor = {
  name: "serviceaccount",
  enabledByDefault: true,
  create: () => new ServiceAccountController(),
};
