/**
 * {@link TokenCleanerController}: the `tokencleaner` controller, the reference's
 * `pkg/controller/bootstrap/tokencleaner.go`. It deletes bootstrap token Secrets (type
 * `bootstrap.<domain>/token` in `<short>-system`) whose `expiration` has passed (or is
 * malformed, which counts as expired), and queues each unexpired one again for its expiration
 * time on the context's clock. Off by default, as in the reference.
 * @module
 */
import { secretsRef, type Informer } from "@orch/client";
import { isConflict, isNotFound, type APIObject } from "@orch/meta";
import { bootstrapTokenExpiration, bootstrapTokenNamespace, bootstrapTokenSecretType, isBootstrapTokenExpired } from "@orch/resources";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { QueueController } from "./internal/queue-controller.js";

/** Whether `secret` is a bootstrap token Secret of `domain`: the right type in the system namespace. */
export function isBootstrapTokenSecret(secret: APIObject, domain: string): boolean {
  return secret.metadata.namespace === bootstrapTokenNamespace(domain) && secret["type"] === bootstrapTokenSecretType(domain);
}

/** The token cleaner; create one per term of leadership (the {@link ControllerManager} does). */
export class TokenCleanerController extends QueueController {
  /** `tokencleaner`. */
  readonly name = "tokencleaner";
  #informer: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const domain = ctx.client.domain;
    const { informer, unregister } = this.follow(ctx, secretsRef, { when: (o) => isBootstrapTokenSecret(o, domain) });
    this.#informer = informer;
    return [unregister];
  }

  protected async sync(key: string): Promise<void> {
    const secret = this.#informer?.get(key);
    if (!secret || !isBootstrapTokenSecret(secret, this.client.domain)) return;
    const now = this.clock.now();
    if (!isBootstrapTokenExpired(secret, now)) {
      const expiration = bootstrapTokenExpiration(secret);
      if (expiration.kind === "at") this.queue.addAfter(key, expiration.at - now);
      return;
    }
    const { name = "", namespace, uid } = secret.metadata;
    this.log(`deleting expired bootstrap token Secret ${key}`);
    try {
      await this.client.secrets.delete(name, { ...(namespace ? { namespace } : {}), ...(uid ? { preconditions: { uid } } : {}) });
    } catch (error) {
      if (isNotFound(error) || isConflict(error)) return;
      throw error;
    }
  }
}

/** The {@link ControllerDescriptor} of the token cleaner: `tokencleaner`, off by default (name it in `--controllers`). */
export const tokenCleanerController: ControllerDescriptor = {
  name: "tokencleaner",
  enabledByDefault: false,
  create: () => new TokenCleanerController(),
};
