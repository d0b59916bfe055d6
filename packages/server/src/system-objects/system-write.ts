/**
 * What the server's reconcilers of its own objects share: the options of their writes, a read of
 * one stored object, and a create that leaves an object another server created first.
 * @module
 */
import { isAlreadyExists, type APIObject } from "@orch/meta";
import type { Store } from "@orch/store";
import type { ObjectStore, WriteOptions } from "../object-store.js";
import { collectionPrefix, mutableCopy, objectKey, wireObject, type ServedResource } from "../served-resource.js";

/** The field manager of the server's own writes: `kube-apiserver` under `k8s.io`, `orch-apiserver` under `orch.io`. */
export function apiserverFieldManager(domain: string): string {
  const short = domain === "k8s.io" ? "kube" : (domain.split(".")[0] ?? "orch");
  return `${short}-apiserver`;
}

/** The options of one write by the server itself (no caller, no dry run). */
export function systemWrite(domain: string): WriteOptions {
  return { dryRun: false, fieldValidation: "Ignore", warnings: [], fieldManager: apiserverFieldManager(domain) };
}

/** A mutable copy of the stored object `name` (in `namespace`), or undefined when there is none. */
export async function readStored(store: Store, served: ServedResource, namespace: string, name: string): Promise<APIObject | undefined> {
  const entry = await store.get(objectKey(served, namespace, name));
  return entry ? mutableCopy(wireObject(entry)) : undefined;
}

/** Mutable copies of the stored objects of `served` (in `namespace`, every one when `""`). */
export async function listStored(store: Store, served: ServedResource, namespace = ""): Promise<APIObject[]> {
  const { entries } = await store.list(collectionPrefix(served, namespace));
  return entries.map((e) => mutableCopy(wireObject(e)));
}

/**
 * Creates `object` through the write path (admission runs), and answers a mutable copy of the stored object; when
 * another server created it first, answers undefined.
 */
export async function createIfMissing(objects: ObjectStore, served: ServedResource, object: APIObject, domain: string): Promise<APIObject | undefined> {
  try {
    const written = await objects.create(served, object.metadata.namespace ?? "", object, systemWrite(domain));
    return mutableCopy(written.body as APIObject);
  } catch (error) {
    if (isAlreadyExists(error)) return undefined;
    throw error;
  }
}
