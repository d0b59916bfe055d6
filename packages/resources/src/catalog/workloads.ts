/**
 * The workload kinds of the catalog: Pod (with its `binding` and `eviction` actions), Binding,
 * Node, ServiceAccount (with its `token` action), Service, LimitRange, ResourceQuota,
 * ReplicationController, Endpoints and PodTemplate.
 * @module
 */
import { bindingType } from "../binding.js";
import { endpointsType } from "../endpoints.js";
import { limitRangeType } from "../limit-range.js";
import { nodeType } from "../node.js";
import { podTemplateType } from "../pod-template.js";
import { podType } from "../pod.js";
import type { ResourceType } from "../resource-type.js";
import { replicationControllerType } from "../replication-controller.js";
import { resourceQuotaType } from "../resource-quota.js";
import { serviceAccountType } from "../service-account.js";
import { serviceType } from "../service.js";

/** The workload resource types, for the registry. */
export const workloadsResources: readonly ResourceType[] = [
  podType,
  bindingType,
  nodeType,
  serviceAccountType,
  serviceType,
  limitRangeType,
  resourceQuotaType,
  replicationControllerType,
  endpointsType,
  podTemplateType,
];
