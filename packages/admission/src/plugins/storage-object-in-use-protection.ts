/**
 * StorageObjectInUseProtection: every new PersistentVolumeClaim gets the finalizer
 * `<prefix>/pvc-protection` and every new PersistentVolume `<prefix>/pv-protection` (the prefix
 * is `kubernetes.io` under domain `k8s.io`, the domain otherwise), so the protection controllers
 * can hold their deletion while a pod uses the claim or a claim is bound to the volume.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { labelDomain } from "../internal/domain.js";
import type { AdmissionPlugin, PluginFactory } from "../plugin.js";

/** Adds `finalizer` to `object` unless it is there already. */
function addFinalizer(object: APIObject, finalizer: string): void {
  const finalizers = object.metadata.finalizers ?? [];
  if (finalizers.includes(finalizer)) return;
  object.metadata.finalizers = [...finalizers, finalizer];
}

/**
 * The StorageObjectInUseProtection plugin (mutating phase; CREATE of persistentvolumeclaims and
 * persistentvolumes, not their sub-resources): appends the protection finalizer once.
 */
export const storageObjectInUseProtection: PluginFactory = ({ services }) => {
  const prefix = labelDomain(services.domain);
  const pvcFinalizer = `${prefix}/pvc-protection`;
  const pvFinalizer = `${prefix}/pv-protection`;
  const plugin: AdmissionPlugin = {
    name: "StorageObjectInUseProtection",
    operations: ["CREATE"],
    handlesResource: (group, resource) => group === "" && (resource === "persistentvolumeclaims" || resource === "persistentvolumes"),
    admit(attrs: AdmissionAttributes) {
      if (!attrs.object) return;
      if (isResource(attrs, "", "persistentvolumeclaims")) addFinalizer(attrs.object, pvcFinalizer);
      else if (isResource(attrs, "", "persistentvolumes")) addFinalizer(attrs.object, pvFinalizer);
    },
  };
  return plugin;
};
