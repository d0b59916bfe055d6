/**
 * The Pod writes of the loops that own Pods (the reference's `PodControl`): the Pod an owner's
 * template makes (`GetPodFromTemplate`), and the deletion of one of its Pods.
 * @module
 */
import { podsRef, type Client } from "@orch/client";
import { isNotFound, type APIObject, type OwnerReference } from "@orch/meta";
import { rec } from "./object-fields.js";

/** How {@link podFromTemplate} names the Pod, and what it adds to the template's metadata. */
export interface PodFromTemplateOptions {
  /** The Pod's name; without it the server names it from {@link generateName}. */
  name?: string;
  /** The prefix of a generated name; `<owner>-` by default. */
  generateName?: string;
  /** Labels added to (and overriding) the template's. */
  labels?: Record<string, string>;
  /** Annotations added to (and overriding) the template's. */
  annotations?: Record<string, string>;
}

/**
 * A Pod made from `template` (a `PodTemplateSpec`) for `owner`, controlled by `ref`: the
 * template's labels, annotations and finalizers (plus those of `options`), a copy of its spec, in
 * the owner's namespace, named `options.name` or generated from `options.generateName`
 * (`<owner>-` by default). Empty label and annotation maps are left out.
 */
export function podFromTemplate(template: unknown, owner: APIObject, ref: OwnerReference, options: PodFromTemplateOptions = {}): APIObject {
  const meta = rec(rec(template)?.["metadata"]) ?? {};
  const labels = { ...((rec(meta["labels"]) ?? {}) as Record<string, string>), ...options.labels };
  const annotations = { ...((rec(meta["annotations"]) ?? {}) as Record<string, string>), ...options.annotations };
  const metadata: APIObject["metadata"] =
    options.name !== undefined ? { name: options.name } : { generateName: options.generateName ?? `${owner.metadata.name ?? ""}-` };
  if (owner.metadata.namespace) metadata.namespace = owner.metadata.namespace;
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  metadata.ownerReferences = [ref];
  const finalizers = meta["finalizers"];
  if (Array.isArray(finalizers) && finalizers.length > 0) metadata.finalizers = [...(finalizers as string[])];
  return { apiVersion: "v1", kind: "Pod", metadata, spec: structuredClone(rec(rec(template)?.["spec"]) ?? {}) };
}

/**
 * Deletes `pod` with its uid as precondition, so a Pod of the same name made since is spared; a
 * Pod already gone is not an error.
 */
export async function deletePod(client: Client, pod: APIObject): Promise<void> {
  try {
    await client.resource(podsRef).delete(pod.metadata.name ?? "", { namespace: pod.metadata.namespace ?? "", preconditions: { uid: pod.metadata.uid ?? "" } });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
