/**
 * `@orch/controllers`: a small controller runtime (a rate-limited work queue, shared informers,
 * Lease leader election and a manager that runs a `--controllers` selection while it leads) and
 * the control loops, which talk to the API only through `@orch/client`.
 * @module
 */
export { WorkQueue, processQueue, type WorkQueueOptions } from "./work-queue.js";
export { SharedInformers, type SharedInformersOptions } from "./shared-informers.js";
export type { ClusterSigning, Controller, ControllerContext, ControllerDescriptor } from "./controller.js";
export { LeaderElector, type LeaderElectionOptions } from "./leader-election.js";
export { ControllerManager, selectControllers, type ControllerManagerOptions } from "./controller-manager.js";
export { discoverResources, type DiscoveredResource } from "./discovery.js";
export {
  GarbageCollector,
  foregroundDeletionFinalizer,
  garbageCollectorController,
  orphanFinalizer,
  type GarbageCollectorOptions,
} from "./garbage-collector.js";
export { CSRApprovingController, csrApprovingController } from "./csr-approving.js";
export { CSRSigningController, csrSigningController } from "./csr-signing.js";
export { CSRCleanerController, csrCleanerController } from "./csr-cleaner.js";
export { TokenCleanerController, isBootstrapTokenSecret, tokenCleanerController } from "./token-cleaner.js";
export { BootstrapSignerController, bootstrapSignerController } from "./bootstrap-signer.js";
export { PVCProtectionController, pvcProtectionController } from "./pvc-protection.js";
export { PVProtectionController, pvProtectionController } from "./pv-protection.js";
export { builtinControllers } from "./builtin-controllers.js";
export { NamespaceController, namespaceController } from "./namespace.js";
export { ServiceAccountController, serviceAccountController } from "./service-account.js";
export { EndpointsController, endpointsController, maxEndpointsCapacity, packSubsets, truncateSubsets } from "./endpoints.js";
export { EndpointSliceController, desiredSlices, endpointSliceController, maxEndpointsPerSlice } from "./endpoint-slice.js";
export { ResourceQuotaController, quotaResyncPeriodMs, quotaSyncDelayMs, resourceQuotaController } from "./resource-quota.js";
export { ClusterRoleAggregationController, clusterRoleAggregationController } from "./clusterrole-aggregation.js";
export { ReplicaSetController, replicaSetController } from "./replicaset.js";
export { ReplicationControllerController, replicationControllerController } from "./replicationcontroller.js";
export { DeploymentController, deploymentController } from "./deployment.js";
export { JobController, formatIndexes, isJobFinished, jobCompletionIndexKey, jobController, jobPodFailureBackoffMs, parseIndexes } from "./job.js";
export { CronJobController, cronJobController, cronJobJobName, cronJobScheduledTimestampAnnotation, formatInZone, mostRecentScheduleTime } from "./cron-job.js";
export { StatefulSetController, controllerRevisionHashLabel, podIndexLabel, statefulSetController, statefulSetPodNameLabel } from "./stateful-set.js";
export { DaemonSetController, daemonSetController, podTemplateGenerationLabel, resolveMaxUnavailable, targetNodeName } from "./daemon-set.js";
export { DisruptionController, disruptionController, disruptionDeletionTimeoutMs, resolveIntOrPercent } from "./disruption.js";
export { TTLAfterFinishedController, jobFinishTime, ttlAfterFinishedController } from "./ttl-after-finished.js";
export { controllerManagerUser, startInProcessControllers, type InProcessControllersOptions } from "./in-process.js";
