/**
 * What a pod references of other API objects, as far as NodeRestriction asks of a mirror pod:
 * the reference's `VisitPodSecretNames` and `VisitPodConfigmapNames` over every container
 * (init and ephemeral ones included), and its claim and cluster trust bundle volumes.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { child, record, records, str } from "./json.js";

/** The volume sources whose `secretRef` names a secret. */
const secretRefSources = ["cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"];

/** Every container of `spec`: containers, init containers and ephemeral containers. */
function containers(spec: Record<string, unknown>): Record<string, unknown>[] {
  return [...records(spec["containers"]), ...records(spec["initContainers"]), ...records(spec["ephemeralContainers"])];
}

/** True when some container's `env[].valueFrom.<key>` or `envFrom[].<fromKey>` is set. */
function containersReference(spec: Record<string, unknown>, key: string, fromKey: string): boolean {
  return containers(spec).some(
    (c) =>
      records(c["env"]).some((e) => record(child(e, "valueFrom")[key]) !== undefined) || records(c["envFrom"]).some((e) => record(e[fromKey]) !== undefined),
  );
}

/** The projected sources of the volumes of `spec`. */
function projectedSources(spec: Record<string, unknown>): Record<string, unknown>[] {
  return records(spec["volumes"]).flatMap((v) => records(child(v, "projected")["sources"]));
}

function volumeReferencesSecret(volume: Record<string, unknown>): boolean {
  if (record(volume["secret"]) || str(child(volume, "azureFile")["secretName"]) !== "") return true;
  if (record(child(volume, "csi")["nodePublishSecretRef"])) return true;
  return secretRefSources.some((source) => record(child(volume, source)["secretRef"]) !== undefined);
}

/** True when `pod` references a secret: image pull secrets, environment, or volumes. */
export function podReferencesSecrets(pod: APIObject): boolean {
  const spec = child(pod, "spec");
  if (records(spec["imagePullSecrets"]).length > 0) return true;
  if (containersReference(spec, "secretKeyRef", "secretRef")) return true;
  if (records(spec["volumes"]).some(volumeReferencesSecret)) return true;
  return projectedSources(spec).some((s) => record(s["secret"]) !== undefined);
}

/** True when `pod` references a config map: environment or volumes. */
export function podReferencesConfigMaps(pod: APIObject): boolean {
  const spec = child(pod, "spec");
  if (containersReference(spec, "configMapKeyRef", "configMapRef")) return true;
  if (records(spec["volumes"]).some((v) => record(v["configMap"]) !== undefined)) return true;
  return projectedSources(spec).some((s) => record(s["configMap"]) !== undefined);
}

/** True when a projected volume of `pod` takes a `clusterTrustBundle`. */
export function podReferencesClusterTrustBundles(pod: APIObject): boolean {
  return projectedSources(child(pod, "spec")).some((s) => record(s["clusterTrustBundle"]) !== undefined);
}

/** True when a volume of `pod` is a `persistentVolumeClaim`. */
export function podReferencesClaims(pod: APIObject): boolean {
  return records(child(pod, "spec")["volumes"]).some((v) => record(v["persistentVolumeClaim"]) !== undefined);
}
