/**
 * The storage kinds of the catalog: PersistentVolumeClaim and PersistentVolume (core `v1`), and
 * VolumeAttachment, CSIDriver, CSINode, CSIStorageCapacity and StorageClass
 * (`storage.{domain}/v1`).
 * @module
 */
import { csiDriverType } from "../csi-driver.js";
import { csiNodeType } from "../csi-node.js";
import { csiStorageCapacityType } from "../csi-storage-capacity.js";
import { persistentVolumeClaimType } from "../persistent-volume-claim.js";
import { persistentVolumeType } from "../persistent-volume.js";
import type { ResourceType } from "../resource-type.js";
import { storageClassType } from "../storage-class.js";
import { volumeAttachmentType } from "../volume-attachment.js";

/** The storage resource types, in the order discovery lists them within their groups. */
export const storageResources: readonly ResourceType[] = [
  persistentVolumeClaimType,
  persistentVolumeType,
  storageClassType,
  volumeAttachmentType,
  csiDriverType,
  csiNodeType,
  csiStorageCapacityType,
];
