/**
 * {@link builtinControllers}: every controller this package provides, for the `controllers`
 * option of {@link ControllerManager}.
 * @module
 */
import { bootstrapSignerController } from "./bootstrap-signer.js";
import { clusterRoleAggregationController } from "./clusterrole-aggregation.js";
import type { ControllerDescriptor } from "./controller.js";
import { csrApprovingController } from "./csr-approving.js";
import { csrCleanerController } from "./csr-cleaner.js";
import { csrSigningController } from "./csr-signing.js";
import { garbageCollectorController } from "./garbage-collector.js";
import { namespaceController } from "./namespace.js";
import { pvProtectionController } from "./pv-protection.js";
import { pvcProtectionController } from "./pvc-protection.js";
import { resourceQuotaController } from "./resource-quota.js";
import { serviceAccountController } from "./service-account.js";
import { tokenCleanerController } from "./token-cleaner.js";

/**
 * Every controller of this package, for {@link ControllerManager}'s `controllers`:
 * `garbagecollector`, `csrapproving`, `csrsigning`, `csrcleaner`, `pvc-protection`,
 * `pv-protection`, `namespace`, `serviceaccount`, `resourcequota`, `clusterrole-aggregation`
 * (on by default) and `tokencleaner`, `bootstrapsigner` (off unless named).
 */
export const builtinControllers: readonly ControllerDescriptor[] = [
  garbageCollectorController,
  csrApprovingController,
  csrSigningController,
  csrCleanerController,
  tokenCleanerController,
  bootstrapSignerController,
  pvcProtectionController,
  pvProtectionController,
  namespaceController,
  serviceAccountController,
  resourceQuotaController,
  clusterRoleAggregationController,
];
