/**
 * The adoption and release of dependents by their controller (the reference's
 * `ControllerRefManager`): an orphan matching the controller's selector is adopted, an object it
 * controls that no longer matches is released, objects controlled by others are left alone.
 * @module
 */
import type { ResourceClient } from "@orch/client";
import { isInvalid, isNotFound, type APIObject, type LabelSelector, type OwnerReference } from "@orch/meta";
import { controllerRefOf } from "./controller-ref.js";

/** What {@link claimObjects} works with. */
export interface ClaimOptions {
  /** The controller, as cached. */
  owner: APIObject;
  /** Its controller reference (`newControllerRef`). */
  ownerRef: OwnerReference;
  /** Its selector over the candidates' labels. */
  selector: LabelSelector;
  /** The client of the candidates' resource, to patch their ownerReferences. */
  client: ResourceClient;
  /**
   * Reads the controller afresh from the server; adoption stops when it is gone, has another
   * uid, or is being deleted (the reference's `RecheckDeletionTimestamp`). Called at most once.
   */
  recheck: () => Promise<APIObject>;
}

/**
 * The candidates `options.owner` controls once adoption and release are done: those it already
 * controls and still selects, and the orphans it selects and adopts (unless it or they are being
 * deleted). Those it controls and no longer selects are released (unless it is being deleted).
 * Adopting or releasing something that is gone is not an error.
 * @throws the first failure of an adoption or release, after trying them all.
 */
export async function claimObjects(candidates: readonly APIObject[], options: ClaimOptions): Promise<APIObject[]> {
  const { owner, ownerRef, selector, client } = options;
  const namespace = owner.metadata.namespace;
  const ownerDeleting = owner.metadata.deletionTimestamp !== undefined;
  let recheck: Promise<void> | undefined;
  const canAdopt = (): Promise<void> =>
    (recheck ??= options.recheck().then((fresh) => {
      if (fresh.metadata.uid !== owner.metadata.uid) {
        throw new Error(`original ${ownerRef.kind} ${namespace ?? ""}/${ownerRef.name} is gone: got uid ${fresh.metadata.uid ?? ""}, wanted ${ownerRef.uid}`);
      }
      if (fresh.metadata.deletionTimestamp !== undefined) {
        throw new Error(`${namespace ?? ""}/${ownerRef.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
      }
    }));
  const claimed: APIObject[] = [];
  const errors: unknown[] = [];
  for (const object of candidates) {
    const ref = controllerRefOf(object);
    const matches = selector.matches(object.metadata.labels ?? {});
    const name = object.metadata.name ?? "";
    const ns = object.metadata.namespace ? { namespace: object.metadata.namespace } : {};
    try {
      if (ref) {
        if (ref.uid !== ownerRef.uid) continue;
        if (matches) {
          claimed.push(object);
          continue;
        }
        if (ownerDeleting) continue;
        const release = { metadata: { ownerReferences: [{ $patch: "delete", uid: ownerRef.uid }], uid: object.metadata.uid } };
        await client.patch(name, release, "strategic", ns);
        continue;
      }
      if (ownerDeleting || !matches || object.metadata.deletionTimestamp !== undefined) continue;
      if (namespace && namespace !== object.metadata.namespace) continue;
      await canAdopt();
      const adopt = { metadata: { ownerReferences: [ownerRef], uid: object.metadata.uid } };
      claimed.push(await client.patch(name, adopt, "strategic", ns));
    } catch (error) {
      // Gone, or (for a release) no longer ours: either way nothing to claim.
      if (isNotFound(error) || (ref && isInvalid(error))) continue;
      errors.push(error);
    }
  }
  if (errors.length > 0) throw errors[0];
  return claimed;
}
