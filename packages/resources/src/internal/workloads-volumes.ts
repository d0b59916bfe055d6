/**
 * Pod volumes: the schema of every volume source of the reference's `v1.VolumeSource`, their
 * defaults (`SetDefaults_*` of the reference) and their validation, with the reference's field
 * paths and messages.
 * @module
 */
import type { FieldPath } from "@orch/meta";
import {
  duplicateField,
  forbiddenField,
  invalidField,
  listType,
  notSupportedField,
  requiredField,
  tooLongField,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { int32, int64, named, optionalBoolean, optionalString, stringMap } from "../schema/fields.js";
import { persistentVolumeClaimSpecSchema } from "../persistent-volume-claim.js";
import { objectMetaSchema } from "../schema/object-meta.js";
import { record, str } from "./rules.js";
import {
  inclusiveRangeError,
  list,
  localObjectReferenceSchema,
  quantity,
  validateFileMode,
  validateLocalDescendingPath,
  validateLocalNonReservedPath,
  validatePathNoBacksteps,
} from "./workloads-common.js";

function obj<S extends z.core.$ZodLooseShape>(shape: S, description: string, name: string, required?: string[]) {
  return named(z.object(shape).meta(required ? { description, required } : { description }), `api.core.v1.${name}`);
}

const fsType = () => optionalString("Filesystem type to mount (ext4, xfs, ntfs, ...).");
const readOnly = () => optionalBoolean("Forces the volume to be mounted read-only.");
const secretRef = () => localObjectReferenceSchema.optional().describe("Reference to the secret holding authentication data.");

/** `KeyToPath`: a key of a config map or secret projected to a relative path. */
export const keyToPathSchema = obj(
  {
    key: optionalString("The key to project."),
    mode: int32().optional().describe("Mode bits of the file: 0000 to 0777 (0 to 511 in JSON)."),
    path: optionalString("The relative path of the file; may not contain '..' nor start with '..'."),
  },
  "Maps a string key to a path within a volume.",
  "KeyToPath",
  ["key", "path"],
);

const items = () => listType(z.array(keyToPathSchema), "atomic").optional().describe("Keys to project; without it every key becomes a file.");

/** `ObjectFieldSelector`: a field of the pod (`metadata.name`, `metadata.labels['x']`, ...). */
export const objectFieldSelectorSchema = named(
  z
    .object({
      apiVersion: optionalString("Version of the schema the FieldPath is written in terms of, defaults to v1."),
      fieldPath: optionalString("Path of the field to select in the specified API version."),
    })
    .meta({ description: "ObjectFieldSelector selects an APIVersioned field of an object.", required: ["fieldPath"] }),
  "api.core.v1.ObjectFieldSelector",
);

/** `ResourceFieldSelector`: a container's limit or request (`limits.cpu`, `requests.memory`, ...). */
export const resourceFieldSelectorSchema = obj(
  {
    containerName: optionalString("Container name: required for volumes, optional for env vars."),
    divisor: quantity().optional().describe("Output format of the exposed resources, defaults to 1."),
    resource: optionalString("Required: resource to select."),
  },
  "ResourceFieldSelector represents container resources (cpu, memory) and their output format.",
  "ResourceFieldSelector",
  ["resource"],
);

/** `DownwardAPIVolumeFile`: one file of a downward API volume. */
export const downwardAPIVolumeFileSchema = obj(
  {
    fieldRef: objectFieldSelectorSchema.optional().describe("Selects a field of the pod: annotations, labels, name, namespace and uid."),
    mode: int32().optional().describe("Mode bits of the file: 0000 to 0777 (0 to 511 in JSON)."),
    path: optionalString("Relative path name of the file to be created; must not contain '..'."),
    resourceFieldRef: resourceFieldSelectorSchema.optional().describe("Selects a resource of the container: limits and requests of cpu and memory."),
  },
  "DownwardAPIVolumeFile represents information to create the file containing the pod field.",
  "DownwardAPIVolumeFile",
  ["path"],
);

const downwardItems = () => listType(z.array(downwardAPIVolumeFileSchema), "atomic").optional().describe("The list of downward API volume files.");

/** `ServiceAccountTokenProjection`. */
export const serviceAccountTokenProjectionSchema = obj(
  {
    audience: optionalString("Intended audience of the token; defaults to the identifier of the API server."),
    expirationSeconds: int64().optional().describe("Requested duration of validity of the token: at least 600, default 3600."),
    path: optionalString("Path, relative to the mount point, of the file to project the token into."),
  },
  "ServiceAccountTokenProjection represents a projected service account token volume.",
  "ServiceAccountTokenProjection",
  ["path"],
);

/** `VolumeProjection`: exactly one of configMap, secret, downwardAPI, serviceAccountToken. */
export const volumeProjectionSchema = obj(
  {
    configMap: obj(
      { items: items(), name: optionalString("Name of the referent."), optional: optionalBoolean("Whether the ConfigMap or its keys must be defined.") },
      "Adapts a ConfigMap into a projected volume.",
      "ConfigMapProjection",
    ).optional(),
    downwardAPI: obj({ items: downwardItems() }, "Represents downward API info for projecting into a projected volume.", "DownwardAPIProjection").optional(),
    secret: obj(
      { items: items(), name: optionalString("Name of the referent."), optional: optionalBoolean("Whether the Secret or its key must be defined.") },
      "Adapts a secret into a projected volume.",
      "SecretProjection",
    ).optional(),
    serviceAccountToken: serviceAccountTokenProjectionSchema.optional(),
  },
  "Projection that may be projected along with other supported volume types.",
  "VolumeProjection",
);

/** The volume sources, in the order the reference checks them (the second one found is refused). */
export const volumeSourceNames = [
  "hostPath",
  "emptyDir",
  "gitRepo",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "flocker",
  "persistentVolumeClaim",
  "rbd",
  "cinder",
  "cephfs",
  "quobyte",
  "downwardAPI",
  "fc",
  "flexVolume",
  "configMap",
  "azureFile",
  "vsphereVolume",
  "photonPersistentDisk",
  "portworxVolume",
  "azureDisk",
  "storageos",
  "projected",
  "scaleIO",
  "csi",
  "ephemeral",
  "image",
] as const;

const sourceShape = {
  awsElasticBlockStore: obj(
    {
      fsType: fsType(),
      partition: int32().optional().describe("The partition to mount (0 for none)."),
      readOnly: readOnly(),
      volumeID: optionalString("Unique ID of the EBS volume."),
    },
    "Represents a Persistent Disk resource in AWS.",
    "AWSElasticBlockStoreVolumeSource",
    ["volumeID"],
  ),
  azureDisk: obj(
    {
      cachingMode: optionalString("Host caching mode: None, ReadOnly or ReadWrite (default)."),
      diskName: optionalString("The name of the data disk in the blob storage."),
      diskURI: optionalString("The URI of the data disk in the blob storage."),
      fsType: optionalString("Filesystem type to mount, default ext4."),
      kind: optionalString("Shared (default), Dedicated or Managed."),
      readOnly: optionalBoolean("Defaults to false (read/write)."),
    },
    "AzureDisk represents an Azure Data Disk mount on the host and bind mount to the pod.",
    "AzureDiskVolumeSource",
    ["diskName", "diskURI"],
  ),
  azureFile: obj(
    {
      readOnly: readOnly(),
      secretName: optionalString("The name of secret that contains Azure Storage Account Name and Key."),
      shareName: optionalString("The azure share Name."),
    },
    "AzureFile represents an Azure File Service mount on the host and bind mount to the pod.",
    "AzureFileVolumeSource",
    ["secretName", "shareName"],
  ),
  cephfs: obj(
    {
      monitors: listType(z.array(z.string()), "atomic").optional().describe("Ceph monitors."),
      path: optionalString("Used as the mounted root, rather than the full Ceph tree, default is /."),
      readOnly: readOnly(),
      secretFile: optionalString("The path to key ring for User."),
      secretRef: secretRef(),
      user: optionalString("The rados user name."),
    },
    "Represents a Ceph Filesystem mount that lasts the lifetime of a pod.",
    "CephFSVolumeSource",
    ["monitors"],
  ),
  cinder: obj(
    {
      fsType: optionalString("Filesystem type to mount; ext4 when unspecified."),
      readOnly: readOnly(),
      secretRef: secretRef(),
      volumeID: optionalString("The cinder volume id."),
    },
    "Represents a cinder volume resource in Openstack.",
    "CinderVolumeSource",
    ["volumeID"],
  ),
  configMap: obj(
    {
      defaultMode: int32().optional().describe("Mode bits of created files by default, 0644 when unset."),
      items: items(),
      name: optionalString("Name of the referent."),
      optional: optionalBoolean("Whether the ConfigMap or its keys must be defined."),
    },
    "Adapts a ConfigMap into a volume.",
    "ConfigMapVolumeSource",
  ),
  csi: obj(
    {
      driver: optionalString("The name of the CSI driver that handles this volume."),
      fsType: fsType(),
      nodePublishSecretRef: localObjectReferenceSchema.optional().describe("The secret passed to the CSI driver for NodePublishVolume."),
      readOnly: optionalBoolean("Read-only configuration for the volume, default false."),
      volumeAttributes: stringMap().optional().describe("Driver-specific properties passed to the CSI driver."),
    },
    "Represents a source location of a volume to mount, managed by an external CSI driver.",
    "CSIVolumeSource",
    ["driver"],
  ),
  downwardAPI: obj(
    { defaultMode: int32().optional().describe("Mode bits of created files by default, 0644 when unset."), items: downwardItems() },
    "DownwardAPIVolumeSource represents a volume containing downward API info.",
    "DownwardAPIVolumeSource",
  ),
  emptyDir: obj(
    {
      medium: optionalString('What type of storage medium should back this directory: "" or Memory.'),
      sizeLimit: quantity().optional().describe("Total amount of local storage required."),
    },
    "Represents an empty directory for a pod.",
    "EmptyDirVolumeSource",
  ),
  ephemeral: obj(
    {
      volumeClaimTemplate: z
        .object({
          metadata: objectMetaSchema.optional().describe("Labels and annotations copied into the claim."),
          spec: persistentVolumeClaimSpecSchema.optional().describe("The spec of the claim, copied verbatim."),
        })
        .meta({ required: ["spec"] })
        .optional()
        .describe("Used to create a stand-alone claim named <pod name>-<volume name>, owned by the pod."),
    },
    "Represents an ephemeral volume that is handled by a normal storage driver.",
    "EphemeralVolumeSource",
  ),
  fc: obj(
    {
      fsType: fsType(),
      lun: int32().optional().describe("Target lun number."),
      readOnly: readOnly(),
      targetWWNs: listType(z.array(z.string()), "atomic").optional().describe("Fibre Channel target worldwide names (WWNs)."),
      wwids: listType(z.array(z.string()), "atomic").optional().describe("Volume world wide identifiers; either wwids or targetWWNs with lun, not both."),
    },
    "Represents a Fibre Channel volume.",
    "FCVolumeSource",
  ),
  flexVolume: obj(
    {
      driver: optionalString("The name of the driver to use for this volume."),
      fsType: fsType(),
      options: stringMap().optional().describe("Extra command options."),
      readOnly: readOnly(),
      secretRef: secretRef(),
    },
    "FlexVolume represents a generic volume resource that is provisioned/attached using an exec based plugin.",
    "FlexVolumeSource",
    ["driver"],
  ),
  flocker: obj(
    { datasetName: optionalString("Name of the dataset (deprecated)."), datasetUUID: optionalString("UUID of the dataset.") },
    "Represents a Flocker volume mounted by the Flocker agent; exactly one of datasetName and datasetUUID.",
    "FlockerVolumeSource",
  ),
  gcePersistentDisk: obj(
    { fsType: fsType(), partition: int32().optional(), pdName: optionalString("Unique name of the PD resource in GCE."), readOnly: readOnly() },
    "Represents a Persistent Disk resource in Google Compute Engine.",
    "GCEPersistentDiskVolumeSource",
    ["pdName"],
  ),
  gitRepo: obj(
    {
      directory: optionalString("Target directory name; must not contain or start with '..'."),
      repository: optionalString("The repository URL."),
      revision: optionalString("The commit hash."),
    },
    "Represents a volume that is populated with the contents of a git repository (deprecated).",
    "GitRepoVolumeSource",
    ["repository"],
  ),
  glusterfs: obj(
    {
      endpoints: optionalString("The endpoint name that details Glusterfs topology."),
      path: optionalString("The Glusterfs volume path."),
      readOnly: readOnly(),
    },
    "Represents a Glusterfs mount that lasts the lifetime of a pod.",
    "GlusterfsVolumeSource",
    ["endpoints", "path"],
  ),
  hostPath: obj(
    { path: optionalString("Path of the directory on the host."), type: optionalString('Type for HostPath Volume, defaults to "".') },
    "Represents a host path mapped into a pod.",
    "HostPathVolumeSource",
    ["path"],
  ),
  image: obj(
    { pullPolicy: optionalString("Always, Never or IfNotPresent."), reference: optionalString("Image or artifact reference to be used.") },
    "ImageVolumeSource represents a image volume resource.",
    "ImageVolumeSource",
  ),
  iscsi: obj(
    {
      chapAuthDiscovery: optionalBoolean("Whether iSCSI Discovery CHAP authentication is supported."),
      chapAuthSession: optionalBoolean("Whether iSCSI Session CHAP authentication is supported."),
      fsType: fsType(),
      initiatorName: optionalString("Custom iSCSI Initiator Name."),
      iqn: optionalString("Target iSCSI Qualified Name."),
      iscsiInterface: optionalString("iSCSI Interface Name that uses an iSCSI transport, default 'default' (tcp)."),
      lun: int32().optional().describe("iSCSI Target Lun number."),
      portals: listType(z.array(z.string()), "atomic").optional().describe("iSCSI Target Portal List."),
      readOnly: readOnly(),
      secretRef: secretRef(),
      targetPortal: optionalString("iSCSI Target Portal: IP or ip_addr:port."),
    },
    "Represents an ISCSI disk.",
    "ISCSIVolumeSource",
    ["targetPortal", "iqn", "lun"],
  ),
  nfs: obj(
    {
      path: optionalString("Path that is exported by the NFS server."),
      readOnly: readOnly(),
      server: optionalString("Hostname or IP address of the NFS server."),
    },
    "Represents an NFS mount that lasts the lifetime of a pod.",
    "NFSVolumeSource",
    ["server", "path"],
  ),
  persistentVolumeClaim: obj(
    { claimName: optionalString("The name of a PersistentVolumeClaim in the same namespace."), readOnly: readOnly() },
    "PersistentVolumeClaimVolumeSource references the user's PVC in the same namespace.",
    "PersistentVolumeClaimVolumeSource",
    ["claimName"],
  ),
  photonPersistentDisk: obj(
    { fsType: fsType(), pdID: optionalString("ID that identifies Photon Controller persistent disk.") },
    "Represents a Photon Controller persistent disk resource.",
    "PhotonPersistentDiskVolumeSource",
    ["pdID"],
  ),
  portworxVolume: obj(
    { fsType: fsType(), readOnly: readOnly(), volumeID: optionalString("Uniquely identifies a Portworx volume.") },
    "PortworxVolumeSource represents a Portworx volume resource.",
    "PortworxVolumeSource",
    ["volumeID"],
  ),
  projected: obj(
    {
      defaultMode: int32().optional().describe("Mode bits of created files by default, 0644 when unset."),
      sources: listType(z.array(volumeProjectionSchema), "atomic").optional().describe("The list of volume projections."),
    },
    "Represents a projected volume source.",
    "ProjectedVolumeSource",
  ),
  quobyte: obj(
    {
      group: optionalString("Group to map volume access to."),
      readOnly: readOnly(),
      registry: optionalString("One or more Quobyte Registry services as host:port pairs separated by commas."),
      tenant: optionalString("Tenant owning the given Quobyte volume."),
      user: optionalString("User to map volume access to."),
      volume: optionalString("The name of an existing Quobyte volume."),
    },
    "Represents a Quobyte mount that lasts the lifetime of a pod.",
    "QuobyteVolumeSource",
    ["registry", "volume"],
  ),
  rbd: obj(
    {
      fsType: fsType(),
      image: optionalString("The rados image name."),
      keyring: optionalString("Path to key ring for RBDUser, default /etc/ceph/keyring."),
      monitors: listType(z.array(z.string()), "atomic").optional().describe("A collection of Ceph monitors."),
      pool: optionalString("The rados pool name, default rbd."),
      readOnly: readOnly(),
      secretRef: secretRef(),
      user: optionalString("The rados user name, default admin."),
    },
    "Represents a Rados Block Device mount that lasts the lifetime of a pod.",
    "RBDVolumeSource",
    ["monitors", "image"],
  ),
  scaleIO: obj(
    {
      fsType: optionalString("Filesystem type to mount, default xfs."),
      gateway: optionalString("The host address of the ScaleIO API Gateway."),
      protectionDomain: optionalString("The name of the ScaleIO Protection Domain for the configured storage."),
      readOnly: readOnly(),
      secretRef: secretRef(),
      sslEnabled: optionalBoolean("Enable/disable SSL communication with Gateway, default false."),
      storageMode: optionalString("ThickProvisioned or ThinProvisioned (default)."),
      storagePool: optionalString("The ScaleIO Storage Pool associated with the protection domain."),
      system: optionalString("The name of the storage system as configured in ScaleIO."),
      volumeName: optionalString("The name of a volume already created in the ScaleIO system."),
    },
    "ScaleIOVolumeSource represents a persistent ScaleIO volume.",
    "ScaleIOVolumeSource",
    ["gateway", "system", "secretRef"],
  ),
  secret: obj(
    {
      defaultMode: int32().optional().describe("Mode bits of created files by default, 0644 when unset."),
      items: items(),
      optional: optionalBoolean("Whether the Secret or its keys must be defined."),
      secretName: optionalString("Name of the secret in the pod's namespace."),
    },
    "Adapts a Secret into a volume.",
    "SecretVolumeSource",
  ),
  storageos: obj(
    {
      fsType: fsType(),
      readOnly: readOnly(),
      secretRef: secretRef(),
      volumeName: optionalString("The human-readable name of the StorageOS volume."),
      volumeNamespace: optionalString("The scope of the volume within StorageOS."),
    },
    "Represents a StorageOS persistent volume resource.",
    "StorageOSVolumeSource",
  ),
  vsphereVolume: obj(
    {
      fsType: fsType(),
      storagePolicyID: optionalString("The storage Policy Based Management (SPBM) profile ID."),
      storagePolicyName: optionalString("The storage Policy Based Management (SPBM) profile name."),
      volumePath: optionalString("The path that identifies vSphere volume vmdk."),
    },
    "Represents a vSphere volume resource.",
    "VsphereVirtualDiskVolumeSource",
    ["volumePath"],
  ),
};

/** `Volume`: a named volume of a pod, with exactly one source (none defaults to `emptyDir`). */
export const volumeSchema = named(
  z
    .object({
      name: optionalString("Name of the volume: a DNS label, unique within the pod."),
      ...Object.fromEntries(Object.entries(sourceShape).map(([k, s]) => [k, s.optional()])),
    } as { name: z.ZodOptional<z.ZodString> } & { [K in keyof typeof sourceShape]: z.ZodOptional<(typeof sourceShape)[K]> })
    .meta({ description: "Volume represents a named volume in a pod that may be accessed by any container in the pod.", required: ["name"] }),
  "api.core.v1.Volume",
);

/** The default mode of configMap, secret, downwardAPI and projected volumes: 0644. */
export const defaultVolumeMode = 0o644;
/** The default validity of a projected service account token, in seconds (one hour). */
export const defaultTokenExpirationSeconds = 3600;

function setDefault(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === undefined) target[key] = value;
}

/** Defaults of a downward API field reference (`apiVersion` v1). */
export function defaultFieldRef(ref: Record<string, unknown> | undefined): void {
  if (ref) setDefault(ref, "apiVersion", "v1");
}

function defaultDownwardItems(items: unknown): void {
  for (const item of list(items)) defaultFieldRef(record(record(item)?.["fieldRef"]));
}

/**
 * The reference's volume defaults, in place: a volume without a source becomes `emptyDir: {}`;
 * `defaultMode` 0644 for configMap, secret, downwardAPI and projected; a projected token's
 * `expirationSeconds` 3600; azureDisk `cachingMode` ReadWrite, `fsType` ext4, `readOnly` false,
 * `kind` Shared; iscsi `iscsiInterface` default; rbd `pool` rbd, `user` admin, `keyring`
 * /etc/ceph/keyring; scaleIO `storageMode` ThinProvisioned, `fsType` xfs; hostPath `type` "".
 */
export function defaultVolumes(volumes: unknown): void {
  for (const item of list(volumes)) {
    const v = record(item);
    if (!v) continue;
    if (!volumeSourceNames.some((s) => v[s] !== undefined && v[s] !== null)) v["emptyDir"] = {};
    for (const s of ["configMap", "secret", "downwardAPI", "projected"]) {
      const src = record(v[s]);
      if (src) setDefault(src, "defaultMode", defaultVolumeMode);
    }
    defaultDownwardItems(record(v["downwardAPI"])?.["items"]);
    for (const p of list(record(v["projected"])?.["sources"])) {
      const proj = record(p);
      const token = record(proj?.["serviceAccountToken"]);
      if (token) setDefault(token, "expirationSeconds", defaultTokenExpirationSeconds);
      defaultDownwardItems(record(proj?.["downwardAPI"])?.["items"]);
    }
    const azure = record(v["azureDisk"]);
    if (azure) {
      setDefault(azure, "cachingMode", "ReadWrite");
      setDefault(azure, "kind", "Shared");
      setDefault(azure, "fsType", "ext4");
      setDefault(azure, "readOnly", false);
    }
    const iscsi = record(v["iscsi"]);
    if (iscsi) setDefault(iscsi, "iscsiInterface", "default");
    const rbd = record(v["rbd"]);
    if (rbd) {
      setDefault(rbd, "pool", "rbd");
      setDefault(rbd, "user", "admin");
      setDefault(rbd, "keyring", "/etc/ceph/keyring");
    }
    const scaleIO = record(v["scaleIO"]);
    if (scaleIO) {
      setDefault(scaleIO, "storageMode", "ThinProvisioned");
      setDefault(scaleIO, "fsType", "xfs");
    }
    const hostPath = record(v["hostPath"]);
    if (hostPath) setDefault(hostPath, "type", "");
  }
}

function required(src: Record<string, unknown>, field: string, path: FieldPath, detail = ""): FieldError[] {
  return str(src[field]) === "" ? [requiredField(path.child(field), detail)] : [];
}

function validateKeyToPath(item: unknown, path: FieldPath): FieldError[] {
  const kp = record(item) ?? {};
  const errors: FieldError[] = [];
  errors.push(...required(kp, "key", path));
  const p = str(kp["path"]);
  if (p === "") errors.push(requiredField(path.child("path")));
  errors.push(...validateLocalNonReservedPath(p, path.child("path")));
  errors.push(...validateFileMode(kp["mode"], path.child("mode")));
  return errors;
}

function validateItems(src: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  list(src["items"]).forEach((item, i) => errors.push(...validateKeyToPath(item, path.child("items").index(i))));
  return errors;
}

const downwardFieldPaths = ["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"];
const downwardResources = ["limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"];

/** An `ObjectFieldSelector` of the downward API (`fieldRef`), with `supported` field paths. */
export function validateObjectFieldSelector(ref: Record<string, unknown>, supported: readonly string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = str(ref["apiVersion"]);
  const fieldPath = str(ref["fieldPath"]);
  if (apiVersion === "") errors.push(requiredField(path.child("apiVersion")));
  else if (fieldPath === "") errors.push(requiredField(path.child("fieldPath")));
  else {
    const subscript = /^(metadata\.(?:annotations|labels))\[['"]?(.+?)['"]?\]$/.exec(fieldPath);
    if (subscript) {
      if (!supported.includes(subscript[1] ?? "")) errors.push(notSupportedField(path.child("fieldPath"), fieldPath, supported));
    } else if (!supported.includes(fieldPath)) errors.push(notSupportedField(path.child("fieldPath"), fieldPath, supported));
  }
  return errors;
}

/** A `ResourceFieldSelector` (`resourceFieldRef`); `volume` makes `containerName` required. */
export function validateResourceFieldSelector(ref: Record<string, unknown>, volume: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (volume && str(ref["containerName"]) === "") errors.push(requiredField(path.child("containerName")));
  const resource = str(ref["resource"]);
  if (resource === "") errors.push(requiredField(path.child("resource")));
  else if (!downwardResources.includes(resource)) errors.push(notSupportedField(path.child("resource"), resource, downwardResources));
  return errors;
}

function validateDownwardFile(item: unknown, path: FieldPath): FieldError[] {
  const file = record(item) ?? {};
  const errors: FieldError[] = [];
  const p = str(file["path"]);
  if (p === "") errors.push(requiredField(path.child("path")));
  errors.push(...validateLocalNonReservedPath(p, path.child("path")));
  const fieldRef = record(file["fieldRef"]);
  const resourceRef = record(file["resourceFieldRef"]);
  if (fieldRef) {
    errors.push(...validateObjectFieldSelector(fieldRef, downwardFieldPaths, path.child("fieldRef")));
    if (resourceRef) errors.push(invalidField(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"));
  } else if (resourceRef) {
    errors.push(...validateResourceFieldSelector(resourceRef, true, path.child("resourceFieldRef")));
  } else {
    errors.push(requiredField(path, "one of fieldRef and resourceFieldRef is required"));
  }
  errors.push(...validateFileMode(file["mode"], path.child("mode")));
  return errors;
}

function validateProjected(src: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const paths = new Set<string>();
  const claim = (p: unknown, value: string) => {
    if (typeof p !== "string" || p === "") return;
    if (paths.has(p)) errors.push(invalidField(path, value, "conflicting duplicate paths"));
    paths.add(p);
  };
  list(src["sources"]).forEach((item, i) => {
    const source = record(item) ?? {};
    const at = path.child("sources").index(i);
    let count = 0;
    for (const kind of ["secret", "configMap"] as const) {
      const s = record(source[kind]);
      if (!s) continue;
      count++;
      const sp = at.child(kind);
      errors.push(...required(s, "name", sp));
      list(s["items"]).forEach((kp, j) => {
        errors.push(...validateKeyToPath(kp, sp.child("items").index(j)));
        claim(record(kp)?.["path"], str(s["name"]));
      });
    }
    const downward = record(source["downwardAPI"]);
    if (downward) {
      count++;
      const dp = at.child("downwardAPI");
      list(downward["items"]).forEach((f, j) => {
        errors.push(...validateDownwardFile(f, dp.child("items").index(j)));
        claim(record(f)?.["path"], str(record(f)?.["path"]));
      });
    }
    const token = record(source["serviceAccountToken"]);
    if (token) {
      count++;
      const tp = at.child("serviceAccountToken");
      const seconds = token["expirationSeconds"];
      if (typeof seconds === "number" && seconds < 600) {
        errors.push(invalidField(tp.child("expirationSeconds"), seconds, "may not specify a duration less than 10 minutes"));
      }
      if (typeof seconds === "number" && seconds > 2 ** 32) {
        errors.push(invalidField(tp.child("expirationSeconds"), seconds, "may not specify a duration larger than 2^32 seconds"));
      }
      const p = str(token["path"]);
      if (p === "") errors.push(requiredField(tp.child("path")));
      else errors.push(...validateLocalNonReservedPath(p, tp.child("path")));
      claim(p, p);
    }
    if (count > 1) errors.push(forbiddenField(at, "may not specify more than 1 volume type per source"));
  });
  errors.push(...validateFileMode(src["defaultMode"], path.child("defaultMode")));
  return errors;
}

const iqnPattern = /^iqn\.\d{4}-\d{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\s]+)$/;
const euiPattern = /^eui\.[A-Za-z0-9]{16}$/;
const naaPattern = /^naa\.[A-Za-z0-9]{32}$/;

function validateIQN(value: string, path: FieldPath): FieldError[] {
  if (!value.startsWith("iqn") && !value.startsWith("eui") && !value.startsWith("naa")) {
    return [invalidField(path, value, "must be valid format starting with iqn, eui, or naa")];
  }
  const ok = value.startsWith("iqn") ? iqnPattern.test(value) : value.startsWith("eui") ? euiPattern.test(value) : naaPattern.test(value);
  return ok ? [] : [invalidField(path, value, "must be valid format")];
}

function splitHostPort(pair: string): boolean {
  const m = /^(\[[^\]]*\]|[^:[\]]*):([^:]*)$/.exec(pair);
  return m !== null;
}

/** What a volume source's validation needs beyond the source. */
export interface VolumeContext {
  /** The product domain (`orch.io`): flexVolume options under it are reserved. */
  domain: string;
}

type SourceValidator = (src: Record<string, unknown>, path: FieldPath, ctx: VolumeContext) => FieldError[];

const hostPathTypes = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];

const sourceValidators: Record<(typeof volumeSourceNames)[number], SourceValidator> = {
  hostPath: (s, p) => {
    const errors = required(s, "path", p);
    errors.push(...validatePathNoBacksteps(str(s["path"]), p.child("path")));
    if (s["type"] !== undefined && !hostPathTypes.includes(str(s["type"]))) errors.push(notSupportedField(p.child("type"), s["type"], hostPathTypes));
    return errors;
  },
  emptyDir: (s, p) => {
    const medium = str(s["medium"]);
    const errors: FieldError[] = [];
    if (medium !== "" && medium !== "Memory" && medium !== "HugePages" && !medium.startsWith("HugePages-")) {
      errors.push(notSupportedField(p.child("medium"), medium, ["", "Memory", "HugePages"]));
    }
    const size = s["sizeLimit"];
    if (typeof size === "string" && size.startsWith("-"))
      errors.push(forbiddenField(p.child("sizeLimit"), "SizeLimit field must be a valid resource quantity"));
    return errors;
  },
  gitRepo: (s, p) => {
    const errors = required(s, "repository", p);
    errors.push(...validateLocalDescendingPath(str(s["directory"]), p.child("directory")));
    return errors;
  },
  gcePersistentDisk: (s, p) => {
    const errors = required(s, "pdName", p);
    const part = s["partition"];
    if (typeof part === "number" && (part < 0 || part > 255)) errors.push(invalidField(p.child("partition"), part, inclusiveRangeError(1, 255)));
    return errors;
  },
  awsElasticBlockStore: (s, p) => {
    const errors = required(s, "volumeID", p);
    const part = s["partition"];
    if (typeof part === "number" && (part < 0 || part > 255)) errors.push(invalidField(p.child("partition"), part, inclusiveRangeError(1, 255)));
    return errors;
  },
  secret: (s, p) => {
    const errors = required(s, "secretName", p);
    errors.push(...validateFileMode(s["defaultMode"], p.child("defaultMode")));
    errors.push(...validateItems(s, p));
    return errors;
  },
  nfs: (s, p) => {
    const errors = required(s, "server", p);
    const path = str(s["path"]);
    if (path === "") errors.push(requiredField(p.child("path")));
    else if (!path.startsWith("/")) errors.push(invalidField(p.child("path"), path, "must be an absolute path"));
    return errors;
  },
  iscsi: (s, p) => {
    const errors = required(s, "targetPortal", p);
    const iqn = str(s["iqn"]);
    if (iqn === "") errors.push(requiredField(p.child("iqn")));
    else errors.push(...validateIQN(iqn, p.child("iqn")));
    const lun = s["lun"];
    if (typeof lun !== "number") errors.push(requiredField(p.child("lun")));
    else if (lun < 0 || lun > 255) errors.push(invalidField(p.child("lun"), lun, inclusiveRangeError(0, 255)));
    if ((s["chapAuthDiscovery"] === true || s["chapAuthSession"] === true) && !record(s["secretRef"])) {
      errors.push(requiredField(p.child("secretRef")));
    }
    if (typeof s["initiatorName"] === "string") errors.push(...validateIQN(s["initiatorName"], p.child("initiatorName")));
    return errors;
  },
  glusterfs: (s, p) => [...required(s, "endpoints", p), ...required(s, "path", p)],
  flocker: (s, p) => {
    const errors: FieldError[] = [];
    const name = str(s["datasetName"]);
    const uuid = str(s["datasetUUID"]);
    if (name === "" && uuid === "") errors.push(requiredField(p, "one of datasetName and datasetUUID is required"));
    if (name !== "" && uuid !== "") errors.push(invalidField(p, "resource", "datasetName and datasetUUID can not be specified simultaneously"));
    if (name.includes("/")) errors.push(invalidField(p.child("datasetName"), name, "must not contain '/'"));
    return errors;
  },
  persistentVolumeClaim: (s, p) => required(s, "claimName", p),
  rbd: (s, p) => {
    const errors = list(s["monitors"]).length === 0 ? [requiredField(p.child("monitors"))] : [];
    errors.push(...required(s, "image", p));
    return errors;
  },
  cinder: (s, p) => {
    const errors = required(s, "volumeID", p);
    const ref = record(s["secretRef"]);
    if (ref && str(ref["name"]) === "") errors.push(requiredField(p.child("secretRef").child("name")));
    return errors;
  },
  cephfs: (s, p) => (list(s["monitors"]).length === 0 ? [requiredField(p.child("monitors"))] : []),
  quobyte: (s, p) => {
    const errors: FieldError[] = [];
    const registry = str(s["registry"]);
    const msg = "must be a host:port pair or multiple pairs separated by commas";
    if (registry === "") errors.push(requiredField(p.child("registry"), msg));
    else if (str(s["tenant"]).length >= 65) errors.push(tooLongField(p.child("tenant"), "", 65));
    else if (!registry.split(",").every(splitHostPort)) errors.push(invalidField(p.child("registry"), registry, msg));
    errors.push(...required(s, "volume", p));
    return errors;
  },
  downwardAPI: (s, p) => {
    const errors: FieldError[] = [];
    list(s["items"]).forEach((f, i) => errors.push(...validateDownwardFile(f, p.child("items").index(i))));
    errors.push(...validateFileMode(s["defaultMode"], p.child("defaultMode")));
    return errors;
  },
  fc: (s, p) => {
    const errors: FieldError[] = [];
    const wwns = list(s["targetWWNs"]);
    const wwids = list(s["wwids"]);
    if (wwns.length === 0 && wwids.length === 0) {
      errors.push(requiredField(p.child("targetWWNs"), "must specify either targetWWNs or wwids, but not both"));
    }
    if (wwns.length !== 0 && wwids.length !== 0) {
      errors.push(invalidField(p.child("targetWWNs"), wwns, "targetWWNs and wwids can not be specified simultaneously"));
    }
    if (wwns.length !== 0) {
      const lun = s["lun"];
      if (typeof lun !== "number") errors.push(requiredField(p.child("lun"), "lun is required if targetWWNs is specified"));
      else if (lun < 0 || lun > 255) errors.push(invalidField(p.child("lun"), lun, inclusiveRangeError(0, 255)));
    }
    return errors;
  },
  flexVolume: (s, p, ctx) => {
    const errors = required(s, "driver", p);
    for (const key of Object.keys(record(s["options"]) ?? {})) {
      const parts = key.split("/");
      const namespace = parts.length >= 2 ? (parts[0] ?? "") : key;
      if (`.${namespace.toLowerCase()}`.endsWith(`.${ctx.domain}`)) {
        errors.push(invalidField(p.child("options").key(key), key, `${ctx.domain} and subdomains are reserved`));
      }
    }
    return errors;
  },
  configMap: (s, p) => {
    const errors = required(s, "name", p);
    errors.push(...validateFileMode(s["defaultMode"], p.child("defaultMode")));
    errors.push(...validateItems(s, p));
    return errors;
  },
  azureFile: (s, p) => [...required(s, "secretName", p), ...required(s, "shareName", p)],
  vsphereVolume: (s, p) => required(s, "volumePath", p),
  photonPersistentDisk: (s, p) => required(s, "pdID", p),
  portworxVolume: (s, p) => required(s, "volumeID", p),
  azureDisk: (s, p) => {
    const errors = [...required(s, "diskName", p), ...required(s, "diskURI", p)];
    const caching = s["cachingMode"];
    const cachingModes = ["None", "ReadOnly", "ReadWrite"];
    if (caching !== undefined && !cachingModes.includes(str(caching))) errors.push(notSupportedField(p.child("cachingMode"), caching, cachingModes));
    const kind = s["kind"];
    const kinds = ["Dedicated", "Managed", "Shared"];
    if (kind !== undefined && !kinds.includes(str(kind))) errors.push(notSupportedField(p.child("kind"), kind, kinds));
    const uri = str(s["diskURI"]);
    if (kind === "Managed" && uri !== "" && !uri.startsWith("/subscriptions/")) {
      errors.push(forbiddenField(p.child("diskURI"), "invalid diskURI: " + uri + " for managed disk"));
    }
    if (kind !== "Managed" && kind !== undefined && uri.startsWith("/subscriptions/")) {
      errors.push(forbiddenField(p.child("diskURI"), "invalid diskURI: " + uri + " for blob disk"));
    }
    return errors;
  },
  storageos: (s, p) => {
    const errors: FieldError[] = [];
    const name = str(s["volumeName"]);
    if (name === "") errors.push(requiredField(p.child("volumeName")));
    else errors.push(...validateDNS1123Label(name, p.child("volumeName")));
    const ns = str(s["volumeNamespace"]);
    if (ns !== "") errors.push(...validateDNS1123Label(ns, p.child("volumeNamespace")));
    const ref = record(s["secretRef"]);
    if (ref && str(ref["name"]) === "") errors.push(requiredField(p.child("secretRef").child("name")));
    return errors;
  },
  projected: (s, p) => validateProjected(s, p),
  scaleIO: (s, p) => {
    const errors = [...required(s, "gateway", p), ...required(s, "system", p), ...required(s, "volumeName", p)];
    if (!record(s["secretRef"])) errors.push(requiredField(p.child("secretRef")));
    const mode = s["storageMode"];
    const modes = ["ThickProvisioned", "ThinProvisioned"];
    if (mode !== undefined && !modes.includes(str(mode))) errors.push(notSupportedField(p.child("storageMode"), mode, modes));
    return errors;
  },
  csi: (s, p) => {
    const errors: FieldError[] = [];
    const driver = str(s["driver"]);
    if (driver === "") errors.push(requiredField(p.child("driver")));
    else if (driver.length > 63) errors.push(tooLongField(p.child("driver"), driver, 63));
    else errors.push(...validateDNS1123Subdomain(driver.toLowerCase(), p.child("driver")));
    const ref = record(s["nodePublishSecretRef"]);
    if (ref && str(ref["name"]) === "") errors.push(requiredField(p.child("nodePublishSecretRef").child("name")));
    return errors;
  },
  ephemeral: (s, p) => {
    const errors: FieldError[] = [];
    const template = record(s["volumeClaimTemplate"]);
    if (!template) return [requiredField(p.child("volumeClaimTemplate"))];
    const tp = p.child("volumeClaimTemplate");
    const meta = record(template["metadata"]) ?? {};
    for (const key of Object.keys(meta)) {
      if (key !== "labels" && key !== "annotations")
        errors.push(forbiddenField(tp.child("metadata").child(key), "field is not allowed in a volume claim template"));
    }
    const spec = record(template["spec"]);
    if (!spec) return [...errors, requiredField(tp.child("spec"))];
    const sp = tp.child("spec");
    if (list(spec["accessModes"]).length === 0) errors.push(requiredField(sp.child("accessModes"), "at least 1 access mode is required"));
    const modes = ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"];
    list(spec["accessModes"]).forEach((m) => {
      if (!modes.includes(str(m))) errors.push(notSupportedField(sp.child("accessModes"), m, modes));
    });
    const requests = record(record(spec["resources"])?.["requests"]);
    if (requests?.["storage"] === undefined) errors.push(requiredField(sp.child("resources").key("storage")));
    const mode = spec["volumeMode"];
    if (mode !== undefined && mode !== "Filesystem" && mode !== "Block") errors.push(notSupportedField(sp.child("volumeMode"), mode, ["Block", "Filesystem"]));
    return errors;
  },
  image: (s, p) => {
    const errors = required(s, "reference", p);
    const policy = s["pullPolicy"];
    const policies = ["Always", "IfNotPresent", "Never"];
    if (policy !== undefined && !policies.includes(str(policy))) errors.push(notSupportedField(p.child("pullPolicy"), policy, policies));
    return errors;
  },
};

/**
 * The reference's `validateVolumeSource` for the volume at `path` (`spec.volumes[0]`): exactly one
 * source (`Required` at the volume for none, `Forbidden` at the second one found), then that
 * source's rules.
 */
export function validateVolumeSource(volume: Record<string, unknown>, path: FieldPath, ctx: VolumeContext): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const name of volumeSourceNames) {
    const src = volume[name];
    if (src === undefined || src === null) continue;
    if (count > 0) {
      errors.push(forbiddenField(path.child(name), "may not specify more than 1 volume type"));
      continue;
    }
    count++;
    errors.push(...sourceValidators[name](record(src) ?? {}, path.child(name), ctx));
  }
  if (count === 0) errors.push(requiredField(path, "must specify a volume type"));
  return errors;
}

/**
 * The reference's `ValidateVolumes` for `spec.volumes`: each name a DNS label, required and
 * unique, each source valid. Returns the errors and the volume names, for the mounts.
 */
export function validateVolumes(volumes: unknown, path: FieldPath, ctx: VolumeContext): { errors: FieldError[]; names: Set<string> } {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  list(volumes).forEach((item, i) => {
    const v = record(item) ?? {};
    const at = path.index(i);
    const name = str(v["name"]);
    if (name === "") errors.push(requiredField(at.child("name")));
    else errors.push(...validateDNS1123Label(name, at.child("name")));
    if (name !== "" && names.has(name)) errors.push(duplicateField(at.child("name"), name));
    errors.push(...validateVolumeSource(v, at, ctx));
    if (name !== "") names.add(name);
  });
  return { errors, names };
}
