/**
 * NamespaceExists: refuses requests in a namespace that does not exist, reading the namespace
 * from a watch-kept view and live when the view does not know it.
 * @module
 */
import { notFound } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { CachedLookup, namespacesResource, outsideNamespaces } from "../internal/namespace-cache.js";
import type { AdmissionPlugin, PluginFactory } from "../plugin.js";

/**
 * The NamespaceExists plugin (validating phase; CREATE, UPDATE, DELETE): a namespaced request
 * whose namespace does not exist is 404 `namespaces "x" not found`. Namespace objects and
 * cluster-scoped objects pass.
 */
export const namespaceExists: PluginFactory = ({ services }) => {
  const namespaces = new CachedLookup(services, "", "namespaces");
  const plugin: AdmissionPlugin = {
    name: "NamespaceExists",
    operations: ["CREATE", "UPDATE", "DELETE"],
    ready: () => namespaces.ready(),
    async validate(attrs: AdmissionAttributes) {
      if (outsideNamespaces(attrs)) return;
      if (!(await namespaces.find("", attrs.namespace))) throw notFound(namespacesResource, attrs.namespace);
    },
  };
  return plugin;
};
