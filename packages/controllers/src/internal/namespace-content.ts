/**
 * {@link deleteNamespaceContent}: one pass of emptying a namespace, the reference's
 * `namespacedResourcesDeleter.deleteAllContent`. Every namespaced resource the server serves
 * with `delete` is emptied in the namespace (`deletecollection` when it has the verb, else list
 * and delete each, in the background), then listed again to count what is left and the
 * finalizers that keep it.
 * @module
 */
import type { Client } from "@orch/client";
import { isMethodNotAllowed, isNotFound, type APIObject } from "@orch/meta";
import { discoverResources, type DiscoveredResource } from "../discovery.js";
import { messageOf } from "./message-of.js";

/** What one pass over a namespace found. */
export interface NamespaceContentPass {
  /** Why discovery failed as a whole (reading `/apis`), when it did. */
  discoveryError?: string;
  /** The group versions whose discovery document could not be read, as `<group/version>: <error>`. */
  failedGroups: string[];
  /** One message per resource whose content could not be deleted. */
  deleteErrors: string[];
  /** The objects left, by `<resource>.<group>` (`pods.` for the core group, as the reference prints it). */
  remaining: Map<string, number>;
  /** The objects left, by finalizer that holds them. */
  finalizers: Map<string, number>;
}

const background = { propagationPolicy: "Background" } as const;

/** The reference's printing of a group, version and resource: `/v1, Resource=pods`. */
const gvrText = (r: DiscoveredResource): string => `${r.group}/${r.version}, Resource=${r.resource}`;

/** Counts one more of `key` in `counts`. */
function count(counts: Map<string, number>, key: string, n = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/** Deletes the objects of `resource` in `namespace`: with `deletecollection` when it has the verb, else one by one. */
async function deleteAll(client: Client, resource: DiscoveredResource, namespace: string): Promise<void> {
  const objects = client.resource(resource);
  if (resource.verbs.includes("deletecollection")) {
    try {
      await objects.deleteCollection({ namespace, ...background });
      return;
    } catch (error) {
      // The reference falls back to deleting each object on both answers.
      if (!isMethodNotAllowed(error) && !isNotFound(error)) throw error;
    }
  }
  if (!resource.verbs.includes("list")) return;
  for (const object of (await objects.listAll({ namespace })).items) {
    try {
      await objects.delete(object.metadata.name ?? "", { namespace, ...background });
    } catch (error) {
      if (!isMethodNotAllowed(error) && !isNotFound(error)) throw error;
    }
  }
}

/** What is left of `resource` in `namespace` (nothing known without `list`). */
async function leftOver(client: Client, resource: DiscoveredResource, namespace: string): Promise<APIObject[]> {
  if (!resource.verbs.includes("list")) return [];
  return (await client.resource(resource).listAll({ namespace })).items;
}

/**
 * Deletes everything in `namespace` and counts what remains. Never throws for a failed
 * discovery or delete: those are reported in the answer, the rest of the namespace is still
 * emptied. Objects left without a finalizer count as a delete error (`unexpected items still
 * remain`), as in the reference.
 */
export async function deleteNamespaceContent(client: Client, namespace: string): Promise<NamespaceContentPass> {
  const pass: NamespaceContentPass = { failedGroups: [], deleteErrors: [], remaining: new Map(), finalizers: new Map() };
  let resources: DiscoveredResource[] = [];
  try {
    resources = await discoverResources(client, undefined, (groupVersion, error) => pass.failedGroups.push(`${groupVersion}: ${messageOf(error)}`));
  } catch (error) {
    pass.discoveryError = messageOf(error);
  }
  for (const resource of resources) {
    if (!resource.namespaced || !resource.verbs.includes("delete")) continue;
    try {
      await deleteAll(client, resource, namespace);
      const left = await leftOver(client, resource, namespace);
      if (left.length === 0) continue;
      count(pass.remaining, `${resource.resource}.${resource.group}`, left.length);
      let held = false;
      for (const object of left) {
        for (const finalizer of object.metadata.finalizers ?? []) {
          count(pass.finalizers, finalizer);
          held = true;
        }
      }
      if (!held) pass.deleteErrors.push(`unexpected items still remain in namespace: ${namespace} for gvr: ${gvrText(resource)}`);
    } catch (error) {
      pass.deleteErrors.push(messageOf(error));
    }
  }
  return pass;
}
