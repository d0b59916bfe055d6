/**
 * PersistentVolumeLabel (deprecated, off by default): on a PersistentVolume CREATE, the
 * reference labels the volume with the zone and region its cloud provider reports and pins it
 * there with a node-affinity requirement. This server links no cloud provider, so it does what
 * the reference does without one:
 *
 * - a dynamically provisioned volume (annotation `pv.<prefix>/provisioned-by`) that already
 *   carries both zone and region labels (`topology.<prefix>/zone` and `/region`, else the beta
 *   `failure-domain.beta.<prefix>/` pair) is trusted: the labels are kept and a node-affinity
 *   requirement per label is added (zones split on `__`);
 * - any other volume of a cloud source (AWS EBS, GCE PD, Azure Disk, Cinder, vSphere) is refused,
 *   as no provider can be built to look it up (`error querying GCE PD volume <name>: unable to
 *   build GCE cloud provider for PD`), except the provisioners' placeholder volumes;
 * - every other volume passes untouched.
 *
 * The deprecation warning is logged once, when the plugin is built.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { labelDomain } from "../internal/domain.js";
import { child, list, record, records, str } from "../internal/json.js";
import { admissionForbidden, type AdmissionPlugin, type PluginFactory } from "../plugin.js";

/** The warning the reference logs when the plugin is built. */
const deprecationWarning = "PersistentVolumeLabel admission controller is deprecated. Please remove this controller from your configuration files and scripts.";

/** The volume name provisioners use before the real volume exists (the reference's `ProvisionedVolumeName`). */
const provisioningPlaceholder = "placeholder-for-provisioning";

/** The separator of zones in a multi-zone label value (the reference's `LabelMultiZoneDelimiter`). */
const zoneDelimiter = "__";

/** A cloud volume source: its field, the field naming the volume, and the reference's wording. */
interface CloudSource {
  field: string;
  id: string;
  what: string;
  provider: string;
  /** Whether the provisioners' placeholder name skips the lookup (not for vSphere). */
  placeholder: boolean;
}

const cloudSources: readonly CloudSource[] = [
  { field: "awsElasticBlockStore", id: "volumeID", what: "AWS EBS volume", provider: "AWS cloud provider for EBS", placeholder: true },
  { field: "gcePersistentDisk", id: "pdName", what: "GCE PD volume", provider: "GCE cloud provider for PD", placeholder: true },
  { field: "azureDisk", id: "diskName", what: "AzureDisk volume", provider: "Azure cloud provider for AzureDisk", placeholder: true },
  { field: "cinder", id: "volumeID", what: "Cinder volume", provider: "OpenStack cloud provider for Cinder disk", placeholder: true },
  { field: "vsphereVolume", id: "volumePath", what: "vSphere Volume", provider: "vSphere cloud provider", placeholder: false },
];

/** The topology label keys of one domain. */
interface TopologyKeys {
  zone: string;
  region: string;
  betaZone: string;
  betaRegion: string;
  provisionedBy: string;
}

function topologyKeys(domain: string): TopologyKeys {
  const p = labelDomain(domain);
  return {
    zone: `topology.${p}/zone`,
    region: `topology.${p}/region`,
    betaZone: `failure-domain.beta.${p}/zone`,
    betaRegion: `failure-domain.beta.${p}/region`,
    provisionedBy: `pv.${p}/provisioned-by`,
  };
}

/**
 * The labels the plugin sets on `volume` (the reference's `findVolumeLabels` without a cloud
 * provider), in the order zone, region.
 * @throws Error the reference's message for a cloud volume no provider can look up.
 */
function findVolumeLabels(volume: APIObject, keys: TopologyKeys): [string, string][] {
  const labels = volume.metadata.labels ?? {};
  const ga = keys.zone in labels && keys.region in labels;
  const [zoneKey, regionKey] = ga ? [keys.zone, keys.region] : [keys.betaZone, keys.betaRegion];
  const zone = labels[zoneKey];
  const region = labels[regionKey];
  const provisioned = volume.metadata.annotations?.[keys.provisionedBy] !== undefined;
  if (provisioned && zone !== undefined && region !== undefined) {
    return [
      [zoneKey, zone],
      [regionKey, region],
    ];
  }
  const spec = child(volume, "spec");
  const source = cloudSources.find((s) => record(spec[s.field]) !== undefined);
  if (!source) return [];
  const id = str(child(spec, source.field)[source.id]);
  if (source.placeholder && id === provisioningPlaceholder) return [];
  throw new Error(`error querying ${source.what} ${id}: unable to build ${source.provider}`);
}

/** The zones of a zone label value, sorted. */
function zonesOf(value: string): string[] {
  const zones = value.split(zoneDelimiter).map((z) => z.trim());
  if (zones.some((z) => z === "")) throw new Error(`failed to convert label string for Zone: ${value} to a Set`);
  return [...new Set(zones)].sort();
}

/**
 * Adds one `In` requirement per label to every required node-selector term of `volume`
 * (creating one empty term when there is none), unless a term already has a requirement on one
 * of the keys.
 */
function addNodeAffinity(volume: APIObject, requirements: Record<string, unknown>[]): void {
  const spec = (volume["spec"] = record(volume["spec"]) ?? {});
  const affinity = (spec["nodeAffinity"] = record(spec["nodeAffinity"]) ?? {});
  const required = (affinity["required"] = record(affinity["required"]) ?? {});
  const terms = records(required["nodeSelectorTerms"]);
  if (terms.length === 0) terms.push({});
  required["nodeSelectorTerms"] = terms;
  const keys = new Set(requirements.map((r) => r["key"]));
  const taken = terms.some((term) => records(term["matchExpressions"]).some((e) => keys.has(e["key"])));
  if (taken) return;
  for (const term of terms) term["matchExpressions"] = [...list(term["matchExpressions"]), ...requirements.map((r) => structuredClone(r))];
}

/**
 * The PersistentVolumeLabel plugin (mutating phase; CREATE of persistentvolumes). Logs the
 * reference's deprecation warning when built.
 */
export const persistentVolumeLabel: PluginFactory = ({ services }) => {
  services.log(deprecationWarning);
  const keys = topologyKeys(services.domain);
  const plugin: AdmissionPlugin = {
    name: "PersistentVolumeLabel",
    operations: ["CREATE"],
    admit(attrs: AdmissionAttributes) {
      const volume = attrs.object;
      if (!volume || !isResource(attrs, "", "persistentvolumes")) return;
      let requirements: Record<string, unknown>[];
      try {
        const labels = findVolumeLabels(volume, keys);
        if (labels.length === 0) return;
        requirements = labels.map(([key, value]) => ({
          key,
          operator: "In",
          values: key === keys.zone || key === keys.betaZone ? zonesOf(value) : [value],
        }));
        volume.metadata.labels = { ...volume.metadata.labels, ...Object.fromEntries(labels) };
      } catch (error) {
        throw admissionForbidden(attrs, error instanceof Error ? error.message : String(error));
      }
      addNodeAffinity(volume, requirements);
    },
  };
  return plugin;
};
