/**
 * NamespaceAutoProvision: creates the namespace a new namespaced object names when it does not
 * exist yet (never under dry-run).
 * @module
 */
import { isAlreadyExists } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { CachedLookup, outsideNamespaces } from "../internal/namespace-cache.js";
import { admissionForbidden, type AdmissionPlugin, type PluginFactory } from "../plugin.js";

/**
 * The NamespaceAutoProvision plugin (mutating phase; CREATE): when a namespaced object is
 * created in a namespace the watch-kept view does not know, creates that Namespace as the
 * server (an existing one is fine). A failed create refuses the request with 403
 * `<resource> "<name>" is forbidden: <why>`. Under dry-run it writes nothing.
 */
export const namespaceAutoProvision: PluginFactory = ({ services }) => {
  const namespaces = new CachedLookup(services, "", "namespaces");
  const plugin: AdmissionPlugin = {
    name: "NamespaceAutoProvision",
    operations: ["CREATE"],
    ready: () => namespaces.ready(),
    async admit(attrs: AdmissionAttributes) {
      if (attrs.dryRun || outsideNamespaces(attrs)) return;
      if (namespaces.cached("", attrs.namespace)) return;
      try {
        await services.create("", "namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: attrs.namespace } });
      } catch (error) {
        if (!isAlreadyExists(error)) throw admissionForbidden(attrs, error instanceof Error ? error.message : String(error));
      }
    },
  };
  return plugin;
};
