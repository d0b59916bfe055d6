/**
 * PersistentVolumeClaimResize: a claim may only grow when it is bound and its StorageClass
 * (`storage.<domain>` storageclasses) sets `allowVolumeExpansion: true` (the reference's
 * `persistentvolume/resize` plugin).
 * @module
 */
import { parseQuantity, type APIObject, type Quantity } from "@orch/meta";
import { storageClassOf } from "@orch/resources";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { CachedLookup } from "../internal/namespace-cache.js";
import { child, str } from "../internal/json.js";
import { admissionForbidden, type AdmissionPlugin, type PluginFactory } from "../plugin.js";

/** The refusal of a claim whose class does not allow expansion (the reference's wording). */
const resizeNotAllowedMessage = "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize";

/** The refusal of a claim that is not bound yet. */
const resizeUnboundMessage = "Only bound persistent volume claims can be expanded";

/** `spec.resources.requests.storage` of a claim; zero when unset or unreadable. */
function requestedStorage(claim: APIObject): Quantity {
  const value = child(child(claim["spec"], "resources"), "requests")["storage"];
  try {
    return parseQuantity(typeof value === "number" ? String(value) : str(value) || "0");
  } catch {
    return parseQuantity("0");
  }
}

/**
 * The PersistentVolumeClaimResize plugin (validating phase; UPDATE of persistentvolumeclaims).
 * When `spec.resources.requests.storage` grows: 403 `Only bound persistent volume claims can be
 * expanded` unless the stored claim is `Bound`, then 403 `only dynamically provisioned pvc can
 * be resized and the storageclass that provisions the pvc must support resize` unless the old
 * and new claim name the same class (beta annotation first, then `spec.storageClassName`) and
 * that StorageClass exists with `allowVolumeExpansion: true`. Shrinking or keeping the size is
 * left to validation.
 */
export const persistentVolumeClaimResize: PluginFactory = ({ services }) => {
  const classes = new CachedLookup(services, `storage.${services.domain}`, "storageclasses");

  async function expansionAllowed(claim: APIObject, old: APIObject): Promise<boolean> {
    const name = storageClassOf(claim);
    if (name === "" || name !== storageClassOf(old)) return false;
    try {
      const storageClass = await classes.find("", name);
      return storageClass?.["allowVolumeExpansion"] === true;
    } catch {
      return false;
    }
  }

  const plugin: AdmissionPlugin = {
    name: "PersistentVolumeClaimResize",
    operations: ["UPDATE"],
    handlesResource: (group, resource) => group === "" && resource === "persistentvolumeclaims",
    ready: () => classes.ready(),
    async validate(attrs: AdmissionAttributes) {
      if (!isResource(attrs, "", "persistentvolumeclaims")) return;
      const claim = attrs.object;
      const old = attrs.oldObject;
      if (!claim || !old) return;
      if (requestedStorage(claim).cmp(requestedStorage(old)) <= 0) return;
      if (str(child(old, "status")["phase"]) !== "Bound") throw admissionForbidden(attrs, resizeUnboundMessage);
      if (!(await expansionAllowed(claim, old))) throw admissionForbidden(attrs, resizeNotAllowedMessage);
    },
  };
  return plugin;
};
