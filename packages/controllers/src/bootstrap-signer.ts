/**
 * {@link BootstrapSignerController}: the `bootstrapsigner` controller, the reference's
 * `pkg/controller/bootstrap/bootstrapsigner.go`. It keeps the signatures of the ConfigMap
 * `cluster-info` in `<short>-public` current: one `jws-kubeconfig-<token id>` entry, the
 * detached JWS of the `kubeconfig` value (`signClusterInfo` of `@orch/certificates`), per
 * unexpired bootstrap token Secret with `usage-bootstrap-signing: "true"`, and no other
 * `jws-kubeconfig-` entry. It writes only when a signature is new, changed or stale, does
 * nothing while `cluster-info` (or its `kubeconfig`) is missing, and looks again when the next
 * signing token expires. Off by default, as in the reference.
 * @module
 */
import { clusterInfoKubeconfigKey, clusterInfoName, clusterInfoSignaturePrefix, signClusterInfo, signingToken } from "@orch/certificates";
import { configMapsRef, secretsRef, type Informer, type InformerHandlers } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { bootstrapTokenExpiration, builtinNamespaces } from "@orch/resources";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { QueueController } from "./internal/queue-controller.js";
import { isBootstrapTokenSecret } from "./token-cleaner.js";

/** The namespace of `cluster-info`: `<short>-public` (`orch-public`, `kube-public` under `k8s.io`). */
const publicNamespace = (domain: string): string => builtinNamespaces(domain)[2] ?? "";

/** The one key of the queue: every event asks for the same re-signing. */
const signKey = "cluster-info";

/** The bootstrap signer; create one per term of leadership (the {@link ControllerManager} does). */
export class BootstrapSignerController extends QueueController {
  /** `bootstrapsigner`. */
  readonly name = "bootstrapsigner";
  #configMaps: Informer | undefined;
  #secrets: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    this.#configMaps = ctx.informers.informerFor(configMapsRef);
    this.#secrets = ctx.informers.informerFor(secretsRef);
    const domain = ctx.client.domain;
    const poke = (): void => this.queue.add(signKey);
    const onConfigMap = (o: APIObject): void => {
      if (o.metadata.namespace === publicNamespace(domain) && o.metadata.name === clusterInfoName) poke();
    };
    const onSecret = (o: APIObject): void => {
      if (isBootstrapTokenSecret(o, domain)) poke();
    };
    const configMapHandlers: InformerHandlers<APIObject> = { onAdd: onConfigMap, onUpdate: (_old, o) => onConfigMap(o) };
    const secretHandlers: InformerHandlers<APIObject> = { onAdd: onSecret, onUpdate: (_old, o) => onSecret(o), onDelete: onSecret };
    return [ctx.informers.addEventHandler(configMapsRef, configMapHandlers), ctx.informers.addEventHandler(secretsRef, secretHandlers)];
  }

  protected async sync(): Promise<void> {
    const domain = this.client.domain;
    const namespace = publicNamespace(domain);
    const configMap = this.#configMaps?.get(`${namespace}/${clusterInfoName}`);
    if (!configMap) return;
    const data: Record<string, unknown> =
      typeof configMap["data"] === "object" && configMap["data"] !== null ? { ...(configMap["data"] as Record<string, unknown>) } : {};
    const content = data[clusterInfoKubeconfigKey];
    if (typeof content !== "string") return;
    const now = this.clock.now();
    // Existing signatures by token id, each removed from `data` until re-signed.
    const old = new Map<string, unknown>();
    for (const key of Object.keys(data)) {
      if (!key.startsWith(clusterInfoSignaturePrefix)) continue;
      old.set(key.slice(clusterInfoSignaturePrefix.length), data[key]);
      delete data[key];
    }
    let changed = false;
    let nextExpiry = Infinity;
    for (const secret of this.#secrets?.list() ?? []) {
      if (!isBootstrapTokenSecret(secret, domain)) continue;
      const token = signingToken(secret, now);
      if (!token) continue;
      const expiration = bootstrapTokenExpiration(secret);
      if (expiration.kind === "at") nextExpiry = Math.min(nextExpiry, expiration.at);
      const signature = await signClusterInfo(content, `${token.id}.${token.secret}`);
      if (old.get(token.id) !== signature) changed = true;
      old.delete(token.id);
      data[clusterInfoSignaturePrefix + token.id] = signature;
    }
    if (old.size > 0) changed = true;
    if (changed) {
      await this.client.resource(configMapsRef).update({ ...configMap, data }, { namespace });
      this.log(`re-signed ${namespace}/${clusterInfoName}`);
    }
    // A token stops signing when it expires, which no event announces.
    if (Number.isFinite(nextExpiry)) this.queue.addAfter(signKey, nextExpiry - now);
  }
}

/** The {@link ControllerDescriptor} of the bootstrap signer: `bootstrapsigner`, off by default (name it in `--controllers`). */
export const bootstrapSignerController: ControllerDescriptor = {
  name: "bootstrapsigner",
  enabledByDefault: false,
  create: () => new BootstrapSignerController(),
};
