/**
 * The cluster-level kinds of the catalog: the `apps` workloads (Deployment, ReplicaSet,
 * StatefulSet, DaemonSet), ControllerRevision, HorizontalPodAutoscaler, Job and CronJob (`batch`),
 * Ingress, IngressClass and NetworkPolicy (`networking`), PodDisruptionBudget (`policy`),
 * PriorityClass, APIService, RuntimeClass, FlowSchema, PriorityLevelConfiguration and
 * ComponentStatus.
 * @module
 */
import { apiServiceType } from "../api-service.js";
import { componentStatusType } from "../component-status.js";
import { controllerRevisionType } from "../controller-revision.js";
import { cronJobType } from "../cron-job.js";
import { daemonSetType } from "../daemon-set.js";
import { deploymentType } from "../deployment.js";
import { flowSchemaType } from "../flow-schema.js";
import { horizontalPodAutoscalerType } from "../horizontal-pod-autoscaler.js";
import { ingressClassType } from "../ingress-class.js";
import { ingressType } from "../ingress.js";
import { jobType } from "../job.js";
import { networkPolicyType } from "../network-policy.js";
import { podDisruptionBudgetType } from "../pod-disruption-budget.js";
import { priorityClassType } from "../priority-class.js";
import { priorityLevelConfigurationType } from "../priority-level-configuration.js";
import { replicaSetType } from "../replica-set.js";
import type { ResourceType } from "../resource-type.js";
import { runtimeClassType } from "../runtime-class.js";
import { statefulSetType } from "../stateful-set.js";

/** The resource types of this part of the catalog, for the registry to serve. */
export const clusterResources: readonly ResourceType[] = [
  deploymentType,
  replicaSetType,
  statefulSetType,
  daemonSetType,
  controllerRevisionType,
  horizontalPodAutoscalerType,
  jobType,
  cronJobType,
  ingressType,
  ingressClassType,
  networkPolicyType,
  podDisruptionBudgetType,
  priorityClassType,
  apiServiceType,
  runtimeClassType,
  flowSchemaType,
  priorityLevelConfigurationType,
  componentStatusType,
];
