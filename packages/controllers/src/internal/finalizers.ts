/**
 * Finalizer helpers of the protection loops (the reference's `pkg/util/protectionutil`), and
 * the names of their finalizers.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { serviceAccountClaimKey } from "@orch/resources";

/**
 * The finalizer of a protection loop: `<d>/pvc-protection` or `<d>/pv-protection`, `<d>` the
 * domain (`kubernetes.io` under `k8s.io`), as the StorageObjectInUseProtection admission
 * plugin adds it.
 */
export function protectionFinalizer(domain: string, kind: "pvc" | "pv"): string {
  return `${serviceAccountClaimKey(domain)}/${kind}-protection`;
}

const hasFinalizer = (object: APIObject, finalizer: string): boolean => object.metadata.finalizers?.includes(finalizer) ?? false;

/** Being deleted and still held by `finalizer` (`IsDeletionCandidate`). */
export function isDeletionCandidate(object: APIObject, finalizer: string): boolean {
  return object.metadata.deletionTimestamp !== undefined && hasFinalizer(object, finalizer);
}

/** Not being deleted and without `finalizer` (`NeedToAddFinalizer`). */
export function needToAddFinalizer(object: APIObject, finalizer: string): boolean {
  return object.metadata.deletionTimestamp === undefined && !hasFinalizer(object, finalizer);
}

/** A copy of `object` with `finalizer` added (`add`) or removed. */
export function withFinalizer(object: APIObject, finalizer: string, add: boolean): APIObject {
  const rest = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  const finalizers = add ? [...rest, finalizer] : rest;
  const copy = structuredClone(object);
  if (finalizers.length) copy.metadata.finalizers = finalizers;
  else delete copy.metadata.finalizers;
  return copy;
}
