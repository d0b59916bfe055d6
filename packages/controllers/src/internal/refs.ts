/**
 * The {@link ResourceRef}s the control loops of this package read and write, from the catalog
 * of `@orch/resources`.
 * @module
 */
import { resourceRefOf, type ResourceRef } from "@orch/client";
import {
  certificateSigningRequestType,
  clusterRoleType,
  persistentVolumeClaimType,
  persistentVolumeType,
  podType,
  resourceQuotaType,
  serviceAccountType,
  subjectAccessReviewType,
} from "@orch/resources";

/** `certificatesigningrequests` in `certificates.{domain}`, `v1`. */
export const csrRef: ResourceRef = resourceRefOf(certificateSigningRequestType, "v1");
/** `subjectaccessreviews` in `authorization.{domain}`, `v1`. */
export const subjectAccessReviewRef: ResourceRef = resourceRefOf(subjectAccessReviewType, "v1");
/** `pods` in the core group, `v1`. */
export const podsRef: ResourceRef = resourceRefOf(podType, "v1");
/** `persistentvolumeclaims` in the core group, `v1`. */
export const persistentVolumeClaimsRef: ResourceRef = resourceRefOf(persistentVolumeClaimType, "v1");
/** `persistentvolumes` in the core group, `v1`. */
export const persistentVolumesRef: ResourceRef = resourceRefOf(persistentVolumeType, "v1");
/** `serviceaccounts` in the core group, `v1`. */
export const serviceAccountsRef: ResourceRef = resourceRefOf(serviceAccountType, "v1");
/** `resourcequotas` in the core group, `v1`. */
export const resourceQuotasRef: ResourceRef = resourceRefOf(resourceQuotaType, "v1");
/** `clusterroles` in `rbac.authorization.{domain}`, `v1`. */
export const clusterRolesRef: ResourceRef = resourceRefOf(clusterRoleType, "v1");
