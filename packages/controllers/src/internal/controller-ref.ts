/**
 * Controller references (the owner reference with `controller: true`): reading and making them,
 * and finding or queueing the controller of an object an informer reports.
 * @module
 */
import type { Informer, ResourceRef, SharedInformers } from "@orch/client";
import type { APIObject, OwnerReference } from "@orch/meta";

/** The controller reference of `object`: its owner reference with `controller: true`. */
export function controllerRefOf(object: APIObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** The owner reference a controller puts on what it creates or adopts (`NewControllerRef`). */
export function newControllerRef(owner: APIObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name ?? "", uid: owner.metadata.uid ?? "", controller: true, blockOwnerDeletion: true };
}

/** True when `object`'s controller is the object of `uid`. */
export function controlledBy(object: APIObject, uid: string | undefined): boolean {
  return uid !== undefined && controllerRefOf(object)?.uid === uid;
}

/** The API group of the object `ref` names: the part of its `apiVersion` before the slash, `""` for the core group. */
export function groupOf(ref: OwnerReference): string {
  const slash = ref.apiVersion.indexOf("/");
  return slash < 0 ? "" : ref.apiVersion.slice(0, slash);
}

/**
 * The controller `ref` (of an object in `namespace`) names in `owners`, when it is of `kind` and
 * still the same object (its uid); undefined otherwise (`resolveControllerRef`).
 */
export function resolveControllerRef(
  owners: Informer | undefined,
  namespace: string | undefined,
  ref: OwnerReference | undefined,
  kind: string,
): APIObject | undefined {
  if (!ref || ref.kind !== kind) return undefined;
  const owner = owners?.get(`${namespace ?? ""}/${ref.name}`);
  return owner?.metadata.uid === ref.uid ? owner : undefined;
}

/**
 * The key (`namespace/name`) of the controller of `object` when it is of `kind` in `group`
 * (the group part of its `apiVersion`, `""` for the core group); undefined otherwise.
 */
export function ownerKey(object: APIObject, group: string, kind: string): string | undefined {
  const ref = controllerRefOf(object);
  if (!ref || ref.kind !== kind || groupOf(ref) !== group) return undefined;
  return `${object.metadata.namespace ?? ""}/${ref.name}`;
}

/**
 * Passes to `queue` the key of the controller (of `kind` in `group`, see {@link ownerKey}) of
 * every object of `dependents` added, updated or deleted; answers the unregistration.
 * @example
 * const stop = queueOwners(ctx.informers, podsRef, { group: "batch", kind: "Job" }, (key) => queue.add(key));
 */
export function queueOwners(
  informers: SharedInformers,
  dependents: ResourceRef,
  owner: { group: string; kind: string },
  queue: (key: string) => void,
): () => void {
  const enqueue = (object: APIObject): void => {
    const key = ownerKey(object, owner.group, owner.kind);
    if (key) queue(key);
  };
  return informers.addEventHandler(dependents, { onAdd: enqueue, onUpdate: (_old, object) => enqueue(object), onDelete: enqueue });
}
