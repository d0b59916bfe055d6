/**
 * `@orch/controllers`: a small controller runtime (a rate-limited work queue, shared informers,
 * Lease leader election and a manager that runs a `--controllers` selection while it leads) and
 * the control loops, which talk to the API only through `@orch/client`.
 * @module
 */
export { WorkQueue, processQueue, type WorkQueueOptions } from "./work-queue.js";
export { SharedInformers, type SharedInformersOptions } from "./shared-informers.js";
export type { Controller, ControllerContext, ControllerDescriptor } from "./controller.js";
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
export { builtinControllers } from "./builtin-controllers.js";
