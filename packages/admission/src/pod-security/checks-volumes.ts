/**
 * The volume checks: no hostPath volumes (baseline), and only the inline volume sources the
 * restricted level allows (configMap, csi, downwardAPI, emptyDir, ephemeral, image,
 * persistentVolumeClaim, projected, secret), which replaces the hostPath check there.
 * @module
 */
import { isSet, type JSONRecord, list, record, str } from "../internal/json.js";
import { joinQuote, pluralize, sortedSet, type Check, type PodView, type Violation } from "./check.js";

const hostPathVolumesID = "hostPathVolumes";

function volumesOf(pod: PodView): JSONRecord[] {
  return list(pod.spec["volumes"]).flatMap((v): JSONRecord[] => {
    const volume = record(v);
    return volume ? [volume] : [];
  });
}

function hostPathVolumes(pod: PodView): Violation | undefined {
  const bad = volumesOf(pod)
    .filter((v) => isSet(v["hostPath"]))
    .map((v) => str(v["name"]));
  return bad.length ? { reason: "hostPath volumes", detail: `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)}` } : undefined;
}

/** The volume sources the restricted level allows. */
const allowedSources = ["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image", "persistentVolumeClaim", "projected", "secret"];

/** The restricted sources, in the order the reference names the first one a volume sets. */
const restrictedSources = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "nfs",
  "iscsi",
  "glusterfs",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "fc",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "storageos",
];

function restrictedVolumes(pod: PodView): Violation | undefined {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const volume of volumesOf(pod)) {
    if (allowedSources.some((s) => isSet(volume[s]))) continue;
    bad.push(str(volume["name"]));
    types.add(restrictedSources.find((s) => isSet(volume[s])) ?? "unknown");
  }
  if (!bad.length) return undefined;
  const list = sortedSet(types);
  return {
    reason: "restricted volume types",
    detail: `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("restricted volume type", "restricted volume types", list.length)} ${joinQuote(list)}`,
  };
}

/** The volume checks. */
export const volumeChecks: readonly Check[] = [
  { id: hostPathVolumesID, level: "baseline", versions: [{ since: 0, check: hostPathVolumes }] },
  { id: "restrictedVolumes", level: "restricted", versions: [{ since: 0, check: restrictedVolumes, overrides: [hostPathVolumesID] }] },
];
