/**
 * The namespaces a server has from the start (`default`, `<short>-system`, `<short>-public`,
 * `<short>-node-lease`), created at start as the reference's system-namespaces hook creates
 * them. (Emptying a terminating namespace is the `namespace` controller's job, in
 * `@orch/controllers`; refusing writes into a missing or terminating one is the
 * NamespaceLifecycle admission plugin's.)
 * @module
 */
import { isAlreadyExists, type APIObject } from "@orch/meta";
import { builtinNamespaces } from "@orch/resources";
import type { ObjectStore } from "./object-store.js";
import type { ServedResource } from "./served-resource.js";

/** Creates the built-in namespaces of `domain` through `objects` (admission runs), leaving those that exist. */
export async function createBuiltinNamespaces(objects: ObjectStore, namespaces: ServedResource, domain: string): Promise<void> {
  for (const name of builtinNamespaces(domain)) {
    try {
      const object: APIObject = { apiVersion: "v1", kind: "Namespace", metadata: { name } };
      await objects.create(namespaces, "", object, { dryRun: false, fieldValidation: "Ignore", warnings: [] });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
}
