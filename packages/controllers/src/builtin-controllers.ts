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
import { cronJobController } from "./cron-job.js";
import { csrSigningController } from "./csr-signing.js";
import { daemonSetController } from "./daemon-set.js";
import { deploymentController } from "./deployment.js";
import { disruptionController } from "./disruption.js";
import { endpointSliceController } from "./endpoint-slice.js";
import { endpointsController } from "./endpoints.js";
import { garbageCollectorController } from "./garbage-collector.js";
import { jobController } from "./job.js";
import { namespaceController } from "./namespace.js";
import { pvProtectionController } from "./pv-protection.js";
import { pvcProtectionController } from "./pvc-protection.js";
import { replicaSetController } from "./replicaset.js";
import { replicationControllerController } from "./replicationcontroller.js";
import { resourceQuotaController } from "./resource-quota.js";
import { serviceAccountController } from "./service-account.js";
import { statefulSetController } from "./stateful-set.js";
import { tokenCleanerController } from "./token-cleaner.js";
import { ttlAfterFinishedController } from "./ttl-after-finished.js";

/**
 * Every controller of this package, for {@link ControllerManager}'s `controllers`:
 * `garbagecollector`, `csrapproving`, `csrsigning`, `csrcleaner`, `pvc-protection`,
 * `pv-protection`, `namespace`, `serviceaccount`, `endpoint`, `endpointslice`, `resourcequota`,
 * `clusterrole-aggregation`, `replicaset`, `replicationcontroller`, `deployment`, `job`, `cronjob`, `statefulset`,
 * `daemonset`, `disruption`, `ttl-after-finished` (on by default)
 * and `tokencleaner`, `bootstrapsigner` (off unless named).
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
  endpointsController,
  endpointSliceController,
  resourceQuotaController,
  clusterRoleAggregationController,
  replicaSetController,
  replicationControllerController,
  deploymentController,
  jobController,
  cronJobController,
  statefulSetController,
  daemonSetController,
  disruptionController,
  ttlAfterFinishedController,
];
