/**
 * PersistentVolume (core `v1`, cluster-scoped, short name `pv`, sub-resource `status`): a piece
 * of storage with exactly one volume source (`local`, `csi`, `hostPath`, `nfs`, `cephfs`,
 * `cinder`, `azureFile`, `fc`, `iscsi` and the other persistent sources), access modes, a
 * `storage` capacity, a reclaim policy (default `Retain`), a volume mode (default `Filesystem`),
 * node affinity, and a phase (`Pending`, `Available`, `Bound`, `Released`, `Failed`).
 * @module
 */
import {
  FieldPath,
  forbiddenField,
  formatTime,
  invalidField,
  listType,
  notSupportedField,
  patchStrategy,
  requiredField,
  validateDNS1123Label,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import {
  inclusiveRange,
  nodeSelector,
  quantityOf,
  resourceList,
  secretReference,
  strings,
  validateAccessModes,
  validateClassName,
  validateCSIDriverName,
  validateImmutable,
  validateNodeSelector,
  validatePathNoBacksteps,
  validatePositiveQuantity,
  validateSecretReference,
  validateVolumeMode,
} from "./internal/storage-fields.js";
import { objectReferenceSchema } from "./event.js";
import { jsonEqual, record, str } from "./internal/rules.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { atomicStrings, int32, named, stringMap, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

type Shape = Record<string, z.ZodType>;

function source(description: string, shape: Shape, required: readonly string[] = []): z.ZodType {
  const optional = Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()]));
  return z.object(optional).meta(required.length ? { description, required: [...required] } : { description });
}

const s = (d: string) => z.string().describe(d);
const b = (d: string) => z.boolean().describe(d);
const fsType = () => s("Filesystem type to mount (ext4, xfs, ntfs...).");
const readOnly = () => b("Forces the volume to be mounted read-only.");

/**
 * The persistent volume sources, one field each (`PersistentVolumeSource`), in the order the
 * reference validates them. Exactly one must be set.
 */
export const persistentVolumeSourceShape = {
  hostPath: source(
    "A directory on the host.",
    {
      path: s("Path of the directory on the host."),
      type: s("Type of the host path: '', DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice, BlockDevice."),
    },
    ["path"],
  ),
  gcePersistentDisk: source(
    "A GCE persistent disk.",
    { fsType: fsType(), partition: int32().describe("The partition to mount."), pdName: s("Unique name of the PD resource in GCE."), readOnly: readOnly() },
    ["pdName"],
  ),
  awsElasticBlockStore: source(
    "An AWS EBS disk.",
    {
      fsType: fsType(),
      partition: int32().describe("The partition to mount."),
      readOnly: readOnly(),
      volumeID: s("Unique ID of the persistent disk resource in AWS."),
    },
    ["volumeID"],
  ),
  glusterfs: source(
    "A Glusterfs mount.",
    {
      endpoints: s("Name of the endpoints that details the Glusterfs topology."),
      endpointsNamespace: s("Namespace of the endpoints."),
      path: s("Glusterfs volume path."),
      readOnly: readOnly(),
    },
    ["endpoints", "path"],
  ),
  flocker: source("A Flocker volume.", { datasetName: s("Name of the dataset (deprecated)."), datasetUUID: s("UUID of the dataset.") }),
  nfs: source("An NFS mount.", { path: s("Path exported by the NFS server."), readOnly: readOnly(), server: s("Hostname or IP address of the NFS server.") }, [
    "server",
    "path",
  ]),
  rbd: source(
    "A Rados Block Device mount.",
    {
      fsType: fsType(),
      image: s("The rados image name."),
      keyring: s("Path to key ring for RBDUser; default /etc/ceph/keyring."),
      monitors: atomicStrings("A collection of Ceph monitors."),
      pool: s("The rados pool name; default rbd."),
      readOnly: readOnly(),
      secretRef: secretReference().describe("Name of the authentication secret for RBDUser."),
      user: s("The rados user name; default admin."),
    },
    ["monitors", "image"],
  ),
  quobyte: source(
    "A Quobyte mount.",
    {
      group: s("Group to map volume access to."),
      readOnly: readOnly(),
      registry: s("One or more Quobyte registry services as host:port pairs separated by commas."),
      tenant: s("Tenant owning the given Quobyte volume."),
      user: s("User to map volume access to."),
      volume: s("The name of an already created Quobyte volume."),
    },
    ["registry", "volume"],
  ),
  cephfs: source(
    "A Ceph FS mount.",
    {
      monitors: atomicStrings("A collection of Ceph monitors."),
      path: s("Used as the mounted root, rather than the full Ceph tree; default /."),
      readOnly: readOnly(),
      secretFile: s("Path to key ring for User; default /etc/ceph/user.secret."),
      secretRef: secretReference().describe("Reference to the authentication secret for User."),
      user: s("The rados user name; default admin."),
    },
    ["monitors"],
  ),
  iscsi: source(
    "An ISCSI disk.",
    {
      chapAuthDiscovery: b("Whether support iSCSI Discovery CHAP authentication."),
      chapAuthSession: b("Whether support iSCSI Session CHAP authentication."),
      fsType: fsType(),
      initiatorName: s("Custom iSCSI Initiator Name."),
      iqn: s("Target iSCSI Qualified Name."),
      iscsiInterface: s("iSCSI Interface Name that uses an iSCSI transport; default 'default' (tcp)."),
      lun: int32().describe("iSCSI Target Lun number."),
      portals: atomicStrings("iSCSI Target Portal List."),
      readOnly: readOnly(),
      secretRef: secretReference().describe("CHAP Secret for iSCSI target and initiator authentication."),
      targetPortal: s("iSCSI Target Portal (IP or ip_addr:port)."),
    },
    ["targetPortal", "iqn", "lun"],
  ),
  cinder: source(
    "A cinder volume.",
    {
      fsType: fsType(),
      readOnly: readOnly(),
      secretRef: secretReference().describe("Secret with parameters to connect to OpenStack."),
      volumeID: s("Volume id used to identify the volume in cinder."),
    },
    ["volumeID"],
  ),
  fc: source("A Fibre Channel disk.", {
    fsType: fsType(),
    lun: int32().describe("Target lun number."),
    readOnly: readOnly(),
    targetWWNs: atomicStrings("Fibre Channel target worldwide names (WWNs)."),
    wwids: atomicStrings("Fibre Channel volume world wide identifiers; either wwids or targetWWNs and lun, not both."),
  }),
  flexVolume: source(
    "A generic volume provisioned by an exec based plugin.",
    {
      driver: s("Name of the driver to use for this volume."),
      fsType: fsType(),
      options: stringMap().describe("Extra command options, if any."),
      readOnly: readOnly(),
      secretRef: secretReference().describe("Reference to the secret object containing sensitive information to pass to the plugin scripts."),
    },
    ["driver"],
  ),
  azureFile: source(
    "An Azure File Service mount.",
    {
      readOnly: readOnly(),
      secretName: s("Name of secret that contains Azure Storage Account Name and Key."),
      secretNamespace: s("Namespace of the secret; default the pod's namespace."),
      shareName: s("Azure Share Name."),
    },
    ["secretName", "shareName"],
  ),
  vsphereVolume: source(
    "A vSphere volume.",
    {
      fsType: fsType(),
      storagePolicyID: s("Storage Policy Based Management (SPBM) profile ID."),
      storagePolicyName: s("Storage Policy Based Management (SPBM) profile name."),
      volumePath: s("Path that identifies vSphere volume vmdk."),
    },
    ["volumePath"],
  ),
  photonPersistentDisk: source("A PhotonController persistent disk.", { fsType: fsType(), pdID: s("ID that identifies Photon Controller persistent disk.") }, [
    "pdID",
  ]),
  portworxVolume: source("A Portworx volume.", { fsType: fsType(), readOnly: readOnly(), volumeID: s("Uniquely identifies a Portworx volume.") }, ["volumeID"]),
  azureDisk: source(
    "An Azure Data Disk.",
    {
      cachingMode: s("Host Caching mode: None, ReadOnly, ReadWrite (default)."),
      diskName: s("The Name of the data disk in the blob storage."),
      diskURI: s("The URI of the data disk in the blob storage."),
      fsType: fsType(),
      kind: s("Shared (default), Dedicated or Managed."),
      readOnly: readOnly(),
    },
    ["diskName", "diskURI"],
  ),
  scaleIO: source(
    "A ScaleIO volume.",
    {
      fsType: fsType(),
      gateway: s("The host address of the ScaleIO API Gateway."),
      protectionDomain: s("The name of the ScaleIO Protection Domain."),
      readOnly: readOnly(),
      secretRef: secretReference().describe("The secret for ScaleIO user and other sensitive information."),
      sslEnabled: b("Enable/disable SSL communication with Gateway; default false."),
      storageMode: s("ThickProvisioned or ThinProvisioned (default)."),
      storagePool: s("The ScaleIO Storage Pool associated with the protection domain."),
      system: s("The name of the storage system as configured in ScaleIO."),
      volumeName: s("The name of a volume already created in the ScaleIO system."),
    },
    ["gateway", "system", "secretRef"],
  ),
  local: source(
    "A directly-attached storage with node affinity.",
    { fsType: fsType(), path: s("The full path to the volume on the node (a directory or block device).") },
    ["path"],
  ),
  storageos: source("A StorageOS volume.", {
    fsType: fsType(),
    readOnly: readOnly(),
    secretRef: objectReferenceSchema.describe("Secret to use for obtaining the StorageOS API credentials."),
    volumeName: s("The human-readable name of the StorageOS volume."),
    volumeNamespace: s("The scope of the volume within StorageOS."),
  }),
  csi: source(
    "Storage handled by an external CSI driver.",
    {
      controllerExpandSecretRef: secretReference().describe("Secret passed to the CSI driver's ControllerExpandVolume call."),
      controllerPublishSecretRef: secretReference().describe("Secret passed to the CSI driver's ControllerPublishVolume and ControllerUnpublishVolume calls."),
      driver: s("The name of the driver to use for this volume."),
      fsType: fsType(),
      nodeExpandSecretRef: secretReference().describe("Secret passed to the CSI driver's NodeExpandVolume call."),
      nodePublishSecretRef: secretReference().describe("Secret passed to the CSI driver's NodePublishVolume and NodeUnpublishVolume calls."),
      nodeStageSecretRef: secretReference().describe("Secret passed to the CSI driver's NodeStageVolume, NodeUnstageVolume and NodeUnpublishVolume calls."),
      readOnly: readOnly(),
      volumeAttributes: stringMap().describe("Attributes of the volume to publish."),
      volumeHandle: s("The unique volume name returned by the CSI volume plugin's CreateVolume."),
    },
    ["driver", "volumeHandle"],
  ),
} satisfies Shape;

/** The names of the persistent volume sources, in the order the reference checks them. */
export const persistentVolumeSources = Object.keys(persistentVolumeSourceShape) as readonly (keyof typeof persistentVolumeSourceShape)[];

/** `PersistentVolumeSpec`. */
export const persistentVolumeSpecSchema = named(
  z
    .object({
      accessModes: listType(z.array(z.string()), "atomic")
        .optional()
        .describe("All ways the volume can be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod."),
      capacity: resourceList().optional().describe("The description of the persistent volume's resources and capacity (`storage`)."),
      claimRef: objectReferenceSchema.optional().describe("Part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim."),
      mountOptions: listType(z.array(z.string()), "atomic").optional().describe('A list of mount options, e.g. ["ro", "soft"]. Not validated.'),
      nodeAffinity: z
        .object({ required: nodeSelector().optional().describe("Required specifies hard node constraints that must be met.") })
        .meta({ description: "VolumeNodeAffinity defines constraints that limit what nodes this volume can be accessed from." })
        .optional()
        .describe("Constraints that limit what nodes this volume can be accessed from."),
      persistentVolumeReclaimPolicy: z
        .string()
        .optional()
        .describe("What happens to a persistent volume when released from its claim: Retain (default), Delete, Recycle (deprecated)."),
      storageClassName: z.string().optional().describe("The name of StorageClass to which this persistent volume belongs; empty means no class."),
      volumeAttributesClassName: z.string().optional().describe("The name of VolumeAttributesClass to which this persistent volume belongs."),
      volumeMode: z.string().optional().describe("Block or Filesystem (default)."),
      ...Object.fromEntries(Object.entries(persistentVolumeSourceShape).map(([k, v]) => [k, v.optional()])),
    })
    .meta({ description: "PersistentVolumeSpec is the specification of a persistent volume." }),
  "api.core.v1.PersistentVolumeSpec",
);

/** `PersistentVolumeStatus`. */
export const persistentVolumeStatusSchema = named(
  z
    .object({
      lastPhaseTransitionTime: time().optional().describe("The time the phase transitioned from one to another; reset to now on every phase change."),
      message: z.string().optional().describe("A human-readable message indicating details about why the volume is in this state."),
      phase: z.string().optional().describe("Pending, Available, Bound, Released or Failed."),
      reason: z.string().optional().describe("A brief CamelCase string that describes any failure."),
    })
    .meta({ description: "PersistentVolumeStatus is the current status of a persistent volume." }),
  "api.core.v1.PersistentVolumeStatus",
);

/** The zod schema of a PersistentVolume in `v1`. */
export const persistentVolumeV1Schema = kindSchema(
  {
    spec: persistentVolumeSpecSchema.optional().describe("Spec defines a specification of a persistent volume owned by the cluster."),
    status: persistentVolumeStatusSchema.optional().describe("Status represents the current information/status for the persistent volume."),
  },
  "PersistentVolume (PV) is a storage resource provisioned by an administrator.",
);

/** The phases of a persistent volume. */
export const persistentVolumePhases = ["Pending", "Available", "Bound", "Released", "Failed"] as const;
/** The reclaim policies of a persistent volume. */
export const reclaimPolicies = ["Delete", "Recycle", "Retain"] as const;

const hostPathTypes = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];
const azureCachingModes = ["None", "ReadOnly", "ReadWrite"];
const azureDiskKinds = ["Dedicated", "Managed", "Shared"];
const iqnPattern = /^iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$/;
const euiPattern = /^eui\.[A-Za-z0-9]{16}$/;
const naaPattern = /^naa\.[A-Za-z0-9]{32}$/;

function required(src: Record<string, unknown>, field: string, path: FieldPath, detail = ""): FieldError[] {
  return str(src[field]) === "" ? [requiredField(path.child(field), detail)] : [];
}

function validatePartition(src: Record<string, unknown>, path: FieldPath): FieldError[] {
  const partition = src["partition"];
  return typeof partition === "number" && (partition < 0 || partition > 255) ? [invalidField(path.child("partition"), partition, inclusiveRange(1, 255))] : [];
}

function validateIQN(iqn: string, path: FieldPath): FieldError[] {
  if (!iqn.startsWith("iqn") && !iqn.startsWith("eui") && !iqn.startsWith("naa")) {
    return [invalidField(path, iqn, "must be valid format starting with iqn, eui, or naa")];
  }
  const pattern = iqn.startsWith("iqn") ? iqnPattern : iqn.startsWith("eui") ? euiPattern : naaPattern;
  return pattern.test(iqn) ? [] : [invalidField(path, iqn, "must be valid format")];
}

function validateLun(src: Record<string, unknown>, path: FieldPath): FieldError[] {
  const lun = src["lun"];
  return typeof lun === "number" && (lun < 0 || lun > 255) ? [invalidField(path.child("lun"), lun, inclusiveRange(0, 255))] : [];
}

/** The field errors of one source's own fields (`spec.nfs.path`, ...). */
const sourceValidators: Record<string, (src: Record<string, unknown>, path: FieldPath) => FieldError[]> = {
  hostPath(src, path) {
    const p = str(src["path"]);
    if (p === "") return [requiredField(path.child("path"))];
    const errors = validatePathNoBacksteps(p, path.child("path"));
    if (src["type"] !== undefined && !hostPathTypes.includes(str(src["type"]))) errors.push(notSupportedField(path.child("type"), src["type"], hostPathTypes));
    return errors;
  },
  gcePersistentDisk: (src, path) => [...required(src, "pdName", path), ...validatePartition(src, path)],
  awsElasticBlockStore: (src, path) => [...required(src, "volumeID", path), ...validatePartition(src, path)],
  glusterfs(src, path) {
    const errors = [...required(src, "endpoints", path), ...required(src, "path", path)];
    const ns = src["endpointsNamespace"];
    if (ns !== undefined) {
      if (str(ns) === "") errors.push(invalidField(path.child("endpointsNamespace"), "", "if the endpointnamespace is set, it must be a valid namespace name"));
      else errors.push(...validateDNS1123Label(str(ns), path.child("endpointsNamespace")));
    }
    return errors;
  },
  flocker(src, path) {
    const name = str(src["datasetName"]);
    const uuid = str(src["datasetUUID"]);
    const errors: FieldError[] = [];
    if (name === "" && uuid === "") errors.push(requiredField(path, "one of datasetName and datasetUUID is required"));
    if (name !== "" && uuid !== "") errors.push(invalidField(path, "resource", "datasetName and datasetUUID can not be specified simultaneously"));
    if (name.includes("/")) errors.push(invalidField(path.child("datasetName"), name, "must not contain '/'"));
    return errors;
  },
  nfs(src, path) {
    const errors = required(src, "server", path);
    const p = str(src["path"]);
    if (p === "") errors.push(requiredField(path.child("path")));
    else if (!p.startsWith("/")) errors.push(invalidField(path.child("path"), p, "must be an absolute path"));
    return errors;
  },
  rbd(src, path) {
    const errors = strings(src["monitors"]).length === 0 ? [requiredField(path.child("monitors"))] : [];
    return [...errors, ...required(src, "image", path)];
  },
  quobyte(src, path) {
    const errors: FieldError[] = [];
    const registry = str(src["registry"]);
    if (registry === "") errors.push(requiredField(path.child("registry"), "must be a host:port pair or multiple pairs separated by commas"));
    else if (registry.split(",").some((pair) => !/^[^:]*:\d+$/.test(pair) && !/^\[[^\]]*\]:\d+$/.test(pair))) {
      errors.push(invalidField(path.child("registry"), registry, "must be a host:port pair or multiple pairs separated by commas"));
    }
    if (str(src["tenant"]).length >= 65)
      errors.push(invalidField(path.child("tenant"), "tenant", "must be a UUID and may not exceed a length of 64 characters"));
    errors.push(...required(src, "volume", path));
    return errors;
  },
  cephfs: (src, path) => (strings(src["monitors"]).length === 0 ? [requiredField(path.child("monitors"))] : []),
  iscsi(src, path) {
    const errors = required(src, "targetPortal", path);
    const iqn = str(src["iqn"]);
    if (iqn === "") errors.push(requiredField(path.child("iqn")));
    else errors.push(...validateIQN(iqn, path.child("iqn")));
    errors.push(...validateLun(src, path));
    const secretRef = record(src["secretRef"]);
    if ((src["chapAuthDiscovery"] === true || src["chapAuthSession"] === true) && !secretRef) errors.push(requiredField(path.child("secretRef")));
    if (secretRef && str(secretRef["name"]) === "") errors.push(requiredField(path.child("secretRef").child("name")));
    const initiator = str(src["initiatorName"]);
    if (initiator !== "") errors.push(...validateIQN(initiator, path.child("initiatorname")));
    return errors;
  },
  cinder(src, path) {
    const errors = required(src, "volumeID", path);
    const secretRef = record(src["secretRef"]);
    if (secretRef) {
      if (str(secretRef["name"]) === "") errors.push(requiredField(path.child("secretRef").child("name")));
      if (str(secretRef["namespace"]) === "") errors.push(requiredField(path.child("secretRef").child("namespace")));
    }
    return errors;
  },
  fc(src, path) {
    const errors: FieldError[] = [];
    const wwns = strings(src["targetWWNs"]);
    const wwids = strings(src["wwids"]);
    if (wwns.length === 0 && wwids.length === 0) errors.push(requiredField(path.child("targetWWNs"), "must specify either targetWWNs or wwids, but not both"));
    if (wwns.length > 0 && wwids.length > 0)
      errors.push(invalidField(path.child("targetWWNs"), wwns, "targetWWNs and wwids can not be specified simultaneously"));
    if (wwns.length > 0) {
      if (typeof src["lun"] !== "number") errors.push(requiredField(path.child("lun"), "lun is required if targetWWNs is specified"));
      else errors.push(...validateLun(src, path));
    }
    return errors;
  },
  flexVolume: (src, path) => required(src, "driver", path),
  azureFile(src, path) {
    const errors = [...required(src, "secretName", path), ...required(src, "shareName", path)];
    if (src["secretNamespace"] !== undefined && str(src["secretNamespace"]) === "") errors.push(requiredField(path.child("secretNamespace")));
    return errors;
  },
  vsphereVolume: (src, path) => required(src, "volumePath", path),
  photonPersistentDisk: (src, path) => required(src, "pdID", path),
  portworxVolume: (src, path) => required(src, "volumeID", path),
  azureDisk(src, path) {
    const errors = [...required(src, "diskName", path), ...required(src, "diskURI", path)];
    const caching = src["cachingMode"];
    if (caching !== undefined && !azureCachingModes.includes(str(caching)))
      errors.push(notSupportedField(path.child("cachingMode"), caching, azureCachingModes));
    const kind = src["kind"];
    if (kind !== undefined && !azureDiskKinds.includes(str(kind))) errors.push(notSupportedField(path.child("kind"), kind, azureDiskKinds));
    const uri = str(src["diskURI"]);
    if (kind === "Managed" && !uri.startsWith("/subscriptions/"))
      errors.push(invalidField(path.child("diskURI"), uri, "must be a valid Azure managed disk URI"));
    if (kind !== undefined && kind !== "Managed" && !uri.startsWith("https://"))
      errors.push(invalidField(path.child("diskURI"), uri, "must be a valid Azure unmanaged disk URI"));
    return errors;
  },
  scaleIO: (src, path) => [...required(src, "gateway", path), ...required(src, "system", path), ...required(src, "volumeName", path)],
  local(src, path) {
    const p = str(src["path"]);
    if (p === "") return [requiredField(path.child("path"))];
    return validatePathNoBacksteps(p, path.child("path"));
  },
  storageos(src, path) {
    const errors = required(src, "volumeName", path);
    const secretRef = record(src["secretRef"]);
    if (secretRef) {
      if (str(secretRef["name"]) === "") errors.push(requiredField(path.child("secretRef").child("name")));
      if (str(secretRef["namespace"]) === "") errors.push(requiredField(path.child("secretRef").child("namespace")));
    }
    return errors;
  },
  csi(src, path) {
    const errors = validateCSIDriverName(str(src["driver"]), path.child("driver"));
    errors.push(...required(src, "volumeHandle", path));
    for (const ref of ["controllerPublishSecretRef", "nodeStageSecretRef", "nodePublishSecretRef", "controllerExpandSecretRef", "nodeExpandSecretRef"]) {
      const value = record(src[ref]);
      if (value) errors.push(...validateSecretReference(value, path.child(ref)));
    }
    return errors;
  },
};

/** How {@link validatePersistentVolumeSpec} checks a spec. */
export interface PersistentVolumeSpecOptions {
  /**
   * The spec is the `inlineVolumeSpec` of a VolumeAttachment: `csi` is the only source allowed,
   * and `claimRef` and `capacity` may not be set.
   */
  inline?: boolean;
}

/**
 * The rules of a `PersistentVolumeSpec` at `path` (`spec`, or
 * `spec.source.inlineVolumeSpec`): access modes; a `storage` capacity, positive; exactly one
 * source (`spec: Required value: must specify a volume type`, `spec.nfs: Forbidden: may not
 * specify more than 1 volume type`) with its own rules; reclaim policy and volume mode among
 * the supported; storage class a DNS subdomain; node affinity (required, required for `local`).
 */
export function validatePersistentVolumeSpec(spec: Record<string, unknown>, path: FieldPath, options: PersistentVolumeSpecOptions = {}): FieldError[] {
  const errors: FieldError[] = [];
  errors.push(...validateAccessModes(spec["accessModes"], path.child("accessModes"), ""));
  const capPath = path.child("capacity");
  const capacity = record(spec["capacity"]) ?? {};
  if (options.inline) {
    if (spec["claimRef"] !== undefined) errors.push(forbiddenField(path.child("claimRef"), "may not be specified in the context of inline volumes"));
    if (Object.keys(capacity).length > 0) errors.push(forbiddenField(capPath, "may not be specified in the context of inline volumes"));
    if (spec["csi"] === undefined) errors.push(requiredField(path.child("csi"), "has to be specified in the context of inline volumes"));
  } else {
    if (Object.keys(capacity).length === 0) errors.push(requiredField(capPath));
    if (!Object.hasOwn(capacity, "storage") || Object.keys(capacity).length > 1) errors.push(notSupportedField(capPath, capacity, ["storage"]));
  }
  for (const [name, value] of Object.entries(capacity)) {
    const q = quantityOf(value);
    if (q) errors.push(...validatePositiveQuantity(q, capPath.key(name)));
  }
  const policy = spec["persistentVolumeReclaimPolicy"];
  if (policy !== undefined && policy !== "" && !(reclaimPolicies as readonly string[]).includes(str(policy))) {
    errors.push(notSupportedField(path.child("persistentVolumeReclaimPolicy"), policy, reclaimPolicies));
  }
  errors.push(...validateClassName(spec["storageClassName"], path.child("storageClassName")));
  errors.push(...validateVolumeMode(spec["volumeMode"], path.child("volumeMode")));

  const affinity = record(spec["nodeAffinity"]);
  if (affinity) {
    const requiredSelector = record(affinity["required"]);
    if (requiredSelector) errors.push(...validateNodeSelector(requiredSelector, path.child("nodeAffinity").child("required")));
    else errors.push(requiredField(path.child("nodeAffinity").child("required"), "must specify required node constraints"));
  }

  let count = 0;
  for (const name of persistentVolumeSources) {
    const src = spec[name];
    if (src === undefined) continue;
    const at = path.child(name);
    if (count > 0) {
      errors.push(forbiddenField(at, "may not specify more than 1 volume type"));
      continue;
    }
    count++;
    errors.push(...(sourceValidators[name]?.(record(src) ?? {}, at) ?? []));
    if (name === "local" && !affinity) errors.push(requiredField(path.child("nodeAffinity"), "Local volume requires node affinity"));
  }
  if (count === 0) errors.push(requiredField(path, "must specify a volume type"));

  const hostPath = record(spec["hostPath"]);
  if (policy === "Recycle" && hostPath && /^\/+$/.test(str(hostPath["path"]))) {
    errors.push(forbiddenField(path.child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  return errors;
}

/** The PersistentVolume rules beyond metadata (pair with `validateObjectMeta(..., { namespaced: false })`). */
export function validatePersistentVolume(object: APIObject): FieldError[] {
  return validatePersistentVolumeSpec(record(object["spec"]) ?? {}, FieldPath.root("spec"));
}

function sourcesOf(spec: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of persistentVolumeSources) if (spec[name] !== undefined) out[name] = spec[name];
  return out;
}

/**
 * The rules an update adds: the volume source cannot change (`spec.persistentvolumesource:
 * Forbidden: spec.persistentvolumesource is immutable after creation`), nor `volumeMode` (path
 * `volumeMode`, as the reference reports it), nor `nodeAffinity` once set (path `nodeAffinity`).
 */
export function validatePersistentVolumeUpdate(object: APIObject, old: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const oldSpec = record(old["spec"]) ?? {};
  if (!jsonEqual(sourcesOf(spec), sourcesOf(oldSpec))) {
    errors.push(forbiddenField(FieldPath.root("spec").child("persistentvolumesource"), "spec.persistentvolumesource is immutable after creation"));
  }
  errors.push(...validateImmutable(spec["volumeMode"], oldSpec["volumeMode"], "volumeMode"));
  if (oldSpec["nodeAffinity"] !== undefined) errors.push(...validateImmutable(spec["nodeAffinity"], oldSpec["nodeAffinity"], "nodeAffinity"));
  return errors;
}

/**
 * Defaults of the persistent volume sources the reference defaults: `iscsi.iscsiInterface`
 * `default`; `azureDisk` `cachingMode` `ReadWrite`, `fsType` `ext4`, `readOnly` false, `kind`
 * `Shared`; `scaleIO` `storageMode` `ThinProvisioned`, `fsType` `xfs`; `rbd` `pool` `rbd`, `user`
 * `admin`, `keyring` `/etc/ceph/keyring`; `hostPath.type` `""`.
 */
export function defaultPersistentVolumeSources(spec: Record<string, unknown>): void {
  const set = (src: Record<string, unknown> | undefined, defaults: Record<string, unknown>) => {
    if (!src) return;
    for (const [k, v] of Object.entries(defaults)) if (src[k] === undefined || src[k] === "") src[k] = v;
  };
  set(record(spec["iscsi"]), { iscsiInterface: "default" });
  set(record(spec["azureDisk"]), { cachingMode: "ReadWrite", fsType: "ext4", readOnly: false, kind: "Shared" });
  set(record(spec["scaleIO"]), { storageMode: "ThinProvisioned", fsType: "xfs" });
  set(record(spec["rbd"]), { pool: "rbd", user: "admin", keyring: "/etc/ceph/keyring" });
  const hostPath = record(spec["hostPath"]);
  if (hostPath && hostPath["type"] === undefined) hostPath["type"] = "";
}

function specOf(object: APIObject): Record<string, unknown> {
  const spec = record(object["spec"]) ?? {};
  object["spec"] = spec;
  return spec;
}

function defaults(object: APIObject): void {
  const spec = specOf(object);
  if (!spec["persistentVolumeReclaimPolicy"]) spec["persistentVolumeReclaimPolicy"] = "Retain";
  if (spec["volumeMode"] === undefined) spec["volumeMode"] = "Filesystem";
  defaultPersistentVolumeSources(spec);
  const status = record(object["status"]);
  if (status && !status["phase"]) status["phase"] = "Pending";
}

function prepareForCreate(object: APIObject, ctx: StrategyContext): void {
  object["status"] = { phase: "Pending", lastPhaseTransitionTime: formatTime(ctx.now) };
}

function prepareForUpdate(object: APIObject, old: APIObject): void {
  if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
  else delete object["status"];
}

/** Keeps everything but `metadata` and `status` of `old`; used by the storage kinds' `/status`. */
export function keepAllButStatus(object: APIObject, old: APIObject): void {
  for (const key of Object.keys(object)) if (key !== "metadata" && key !== "status" && key !== "apiVersion" && key !== "kind") delete object[key];
  for (const [key, value] of Object.entries(old)) {
    if (key !== "metadata" && key !== "status" && key !== "apiVersion" && key !== "kind") object[key] = structuredClone(value);
  }
}

function prepareForStatusUpdate(object: APIObject, old: APIObject, ctx: StrategyContext): void {
  keepAllButStatus(object, old);
  const status = record(object["status"]);
  const oldPhase = str(record(old["status"])?.["phase"]);
  if (status && str(status["phase"]) !== oldPhase) {
    status["lastPhaseTransitionTime"] = formatTime(ctx.now);
  }
}

const accessModeShort: readonly (readonly [string, string])[] = [
  ["ReadWriteOnce", "RWO"],
  ["ReadOnlyMany", "ROX"],
  ["ReadWriteMany", "RWX"],
  ["ReadWriteOncePod", "RWOP"],
];

/** Access modes as kubectl prints them: `RWO,ROX,RWX,RWOP`, in that order. */
export function accessModesString(value: unknown): string {
  const modes = strings(value);
  return accessModeShort
    .filter(([long]) => modes.includes(long))
    .map(([, short]) => short)
    .join(",");
}

/** The storage class of a volume or claim: the beta annotation first, then `spec.storageClassName`. */
export function storageClassOf(object: APIObject): string {
  const annotation = object.metadata?.annotations?.["volume.beta.kubernetes.io/storage-class"];
  return annotation ?? str(record(object["spec"])?.["storageClassName"]);
}

/** The PersistentVolume resource type. */
export const persistentVolumeType: ResourceType = {
  group: "",
  resource: "persistentvolumes",
  singular: "persistentvolume",
  kind: "PersistentVolume",
  shortNames: ["pv"],
  scope: "Cluster",
  versions: [{ name: "v1", schema: persistentVolumeV1Schema, storage: true }],
  subresources: ["status"],
  strategy: {
    defaults,
    prepareForCreate,
    prepareForUpdate,
    prepareForStatusUpdate,
    validate: (object) => validatePersistentVolume(object),
    validateUpdate: (object, old) => validatePersistentVolumeUpdate(object, old),
    validateStatusUpdate: () => [],
    tracksGeneration: false,
    selectableFields: (object) => ({ name: object.metadata?.name ?? "" }),
    selectableFieldNames: ["name"],
    tableColumns: [
      {
        name: "Capacity",
        type: "string",
        description: "The storage capacity of the volume.",
        priority: 0,
        cell: (object) => str(record(record(object["spec"])?.["capacity"])?.["storage"]),
      },
      {
        name: "Access Modes",
        type: "string",
        description: "All ways the volume can be mounted.",
        priority: 0,
        cell: (object) => accessModesString(record(object["spec"])?.["accessModes"]),
      },
      {
        name: "Reclaim Policy",
        type: "string",
        description: "What happens to the volume when released from its claim.",
        priority: 0,
        cell: (object) => str(record(object["spec"])?.["persistentVolumeReclaimPolicy"]),
      },
      { name: "Status", type: "string", description: "The phase of the volume.", priority: 0, cell: (object) => str(record(object["status"])?.["phase"]) },
      {
        name: "Claim",
        type: "string",
        description: "The claim bound to the volume, as namespace/name.",
        priority: 0,
        cell: (object) => {
          const ref = record(record(object["spec"])?.["claimRef"]);
          return ref ? `${str(ref["namespace"])}/${str(ref["name"])}` : "";
        },
      },
      { name: "StorageClass", type: "string", description: "The storage class of the volume.", priority: 0, cell: (object) => storageClassOf(object) },
      {
        name: "VolumeAttributesClass",
        type: "string",
        description: "The volume attributes class of the volume.",
        priority: 0,
        cell: (object) => str(record(object["spec"])?.["volumeAttributesClassName"]) || "<unset>",
      },
      {
        name: "Reason",
        type: "string",
        description: "Why the volume is in this phase.",
        priority: 0,
        cell: (object) => str(record(object["status"])?.["reason"]),
      },
      { name: "VolumeMode", type: "string", description: "Block or Filesystem.", priority: 1, cell: (object) => str(record(object["spec"])?.["volumeMode"]) },
    ],
  },
};

/** A `conditions` list merged by `type` (list type map, patch strategy merge). */
export function conditionsList<T extends z.ZodType>(item: T): z.ZodType {
  return patchStrategy(listType(z.array(item), "map", ["type"]), "merge", "type");
}
