/**
 * Whether a pod uses a service-account token audience, as NodeRestriction's node audience
 * restriction asks (the reference's `podReferencesAudience`): a projected
 * `serviceAccountToken` source for it, or a CSI volume (inline, ephemeral, or behind a claim
 * and its volume) whose CSIDriver asks for tokens of it.
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { AdmissionServices } from "../services.js";
import { child, record, records, str } from "./json.js";

/** The CSI driver of the volume bound to claim `namespace`/`name`, `""` when none is known. */
async function driverOfClaim(services: AdmissionServices, namespace: string, name: string): Promise<string> {
  const claim = await services.get("", "persistentvolumeclaims", namespace, name);
  const volumeName = str(child(claim, "spec")["volumeName"]);
  if (volumeName === "") return "";
  const volume = await services.get("", "persistentvolumes", "", volumeName);
  return str(child(child(volume, "spec"), "csi")["driver"]);
}

/** The CSI driver `volume` of `pod` mounts through, `""` for other volumes. */
async function driverOf(services: AdmissionServices, pod: APIObject, volume: Record<string, unknown>): Promise<string> {
  const namespace = pod.metadata.namespace ?? "";
  if (record(child(volume, "ephemeral")["volumeClaimTemplate"]) !== undefined) {
    return driverOfClaim(services, namespace, `${pod.metadata.name ?? ""}-${str(volume["name"])}`);
  }
  const claim = str(child(volume, "persistentVolumeClaim")["claimName"]);
  if (claim !== "") return driverOfClaim(services, namespace, claim);
  return str(child(volume, "csi")["driver"]);
}

/** True when the CSIDriver `driver` requests tokens for `audience`. */
async function driverRequests(services: AdmissionServices, driver: string, audience: string): Promise<boolean> {
  const object = await services.get(`storage.${services.domain}`, "csidrivers", "", driver);
  return records(child(object, "spec")["tokenRequests"]).some((r) => str(r["audience"]) === audience);
}

/**
 * True when `pod` uses tokens of `audience` (`""`: the server's default audiences): a projected
 * `serviceAccountToken` source with that audience, or a CSI driver of one of its volumes that
 * requests it. Missing claims, volumes and drivers count as not using it.
 */
export async function podUsesAudience(services: AdmissionServices, pod: APIObject, audience: string): Promise<boolean> {
  for (const volume of records(child(pod, "spec")["volumes"])) {
    const sources = records(child(volume, "projected")["sources"]);
    if (sources.some((s) => s["serviceAccountToken"] !== undefined && str(child(s, "serviceAccountToken")["audience"]) === audience)) return true;
    const driver = await driverOf(services, pod, volume);
    if (driver !== "" && (await driverRequests(services, driver, audience))) return true;
  }
  return false;
}
