/**
 * Deployment (`apps/v1`, namespaced, short name `deploy`, sub-resources `status` and `scale`):
 * declarative updates of a set of replicated pods. The reference's defaults (`replicas` 1,
 * `revisionHistoryLimit` 10, `progressDeadlineSeconds` 600, a RollingUpdate strategy of 25%
 * surge and unavailability, the pod template's defaults), its validation (selector required and
 * matching the template's labels, immutable on update; replicas not negative; the template's pod
 * spec), the status sub-resource and kubectl's columns (READY, UP-TO-DATE, AVAILABLE).
 * @module
 */
import { FieldPath, invalidField, listType, notSupportedField, patchStrategy, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import {
  childObject,
  defaultTemplate,
  podTemplateSpecSchema,
  replicasScale,
  setDefault,
  specCount,
  specOf,
  statusCount,
  validateSelectorUpdate,
  validateWorkloadSpec,
  workloadLabelSelectorSchema,
} from "./internal/apps-common.js";
import { statusHooks } from "./internal/cluster-rules.js";
import { record, str } from "./internal/rules.js";
import { intOrString } from "./internal/workloads-common.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { int32, int64, named, optionalBoolean, optionalString, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `DeploymentStrategy`: how old pods are replaced. */
export const deploymentStrategySchema = named(
  z
    .object({
      rollingUpdate: z
        .object({
          maxSurge: intOrString().optional().describe("The maximum number of pods that can be scheduled above the desired number of pods."),
          maxUnavailable: intOrString().optional().describe("The maximum number of pods that can be unavailable during the update."),
        })
        .meta({ description: "Spec to control the desired behavior of rolling update." })
        .optional()
        .describe("Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate."),
      type: optionalString('Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.'),
    })
    .meta({ description: "DeploymentStrategy describes how to replace existing pods with new ones." }),
  "api.apps.v1.DeploymentStrategy",
);

/** `DeploymentSpec`. */
export const deploymentSpecSchema = named(
  z
    .object({
      minReadySeconds: int32().optional().describe("Minimum number of seconds for which a newly created pod should be ready."),
      paused: optionalBoolean("Indicates that the deployment is paused."),
      progressDeadlineSeconds: int32()
        .optional()
        .describe("The maximum time in seconds for a deployment to make progress before it is considered to be failed."),
      replicas: int32().optional().describe("Number of desired pods. Defaults to 1."),
      revisionHistoryLimit: int32().optional().describe("The number of old ReplicaSets to retain to allow rollback. Defaults to 10."),
      selector: workloadLabelSelectorSchema.optional().describe("Label selector for pods. It must match the pod template's labels."),
      strategy: patchStrategy(deploymentStrategySchema, "retainKeys")
        .optional()
        .describe("The deployment strategy to use to replace existing pods with new ones."),
      template: podTemplateSpecSchema.optional().describe("Template describes the pods that will be created."),
    })
    .meta({ description: "DeploymentSpec is the specification of the desired behavior of the Deployment.", required: ["selector", "template"] }),
  "api.apps.v1.DeploymentSpec",
);

/** A condition of an `apps/v1` workload (`DeploymentCondition` and its kin). */
function workloadConditionSchema(kind: string) {
  return named(
    z
      .object({
        lastTransitionTime: time().optional().describe("Last time the condition transitioned from one status to another."),
        lastUpdateTime: time().optional().describe("The last time this condition was updated."),
        message: optionalString("A human readable message indicating details about the transition."),
        reason: optionalString("The reason for the condition's last transition."),
        status: optionalString("Status of the condition, one of True, False, Unknown."),
        type: optionalString(`Type of ${kind} condition.`),
      })
      .meta({ description: `${kind}Condition describes the state of a ${kind.toLowerCase()} at a certain point.`, required: ["type", "status"] }),
    `api.apps.v1.${kind}Condition`,
  );
}

/** The `conditions` list of an `apps/v1` workload's status (merged by `type`). */
export function workloadConditions(kind: string) {
  return patchStrategy(listType(z.array(workloadConditionSchema(kind)), "map", ["type"]), "merge", "type")
    .optional()
    .describe(`Represents the latest available observations of a ${kind.toLowerCase()}'s current state.`);
}

/** `DeploymentStatus`. */
export const deploymentStatusSchema = named(
  z
    .object({
      availableReplicas: int32().optional().describe("Total number of available pods targeted by this deployment."),
      collisionCount: int32().optional().describe("Count of hash collisions for the Deployment."),
      conditions: workloadConditions("Deployment"),
      observedGeneration: int64().optional().describe("The generation observed by the deployment controller."),
      readyReplicas: int32().optional().describe("Total number of ready pods targeted by this Deployment."),
      replicas: int32().optional().describe("Total number of non-terminating pods targeted by this deployment."),
      terminatingReplicas: int32().optional().describe("Total number of terminating pods targeted by this deployment."),
      unavailableReplicas: int32().optional().describe("Total number of unavailable pods targeted by this deployment."),
      updatedReplicas: int32().optional().describe("Total number of non-terminating pods that have the desired template spec."),
    })
    .meta({ description: "DeploymentStatus is the most recently observed status of the Deployment." }),
  "api.apps.v1.DeploymentStatus",
);

/** The zod schema of a Deployment in `apps/v1`. */
export const deploymentV1Schema = kindSchema(
  {
    spec: deploymentSpecSchema.optional().describe("Specification of the desired behavior of the Deployment."),
    status: deploymentStatusSchema.optional().describe("Most recently observed status of the Deployment."),
  },
  "Deployment enables declarative updates for Pods and ReplicaSets.",
);

/**
 * The reference's Deployment defaults: `replicas` 1, `revisionHistoryLimit` 10,
 * `progressDeadlineSeconds` 600, `strategy.type` RollingUpdate with `maxSurge` and
 * `maxUnavailable` 25%, and the pod template's defaults.
 */
export function defaultDeployment(object: APIObject): void {
  const spec = specOf(object);
  setDefault(spec, "replicas", 1);
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
  const strategy = childObject(spec, "strategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy["type"] === "RollingUpdate") {
    const rolling = childObject(strategy, "rollingUpdate");
    setDefault(rolling, "maxUnavailable", "25%");
    setDefault(rolling, "maxSurge", "25%");
  }
  defaultTemplate(spec);
}

const strategyTypes = ["Recreate", "RollingUpdate"];

/**
 * The Deployment rules: those every workload shares (`spec.selector` required and matching
 * `spec.template.metadata.labels`, `spec.replicas` not negative, the template), the strategy type
 * (Recreate or RollingUpdate; `rollingUpdate` forbidden for Recreate), non-negative
 * `minReadySeconds` and `revisionHistoryLimit`, and `progressDeadlineSeconds` above
 * `minReadySeconds`.
 */
export function validateDeployment(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const errors = validateWorkloadSpec(object, ctx, { replicas: true, kind: "deployment" });
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const strategy = record(spec["strategy"]) ?? {};
  const type = str(strategy["type"]);
  if (type === "") errors.push(requiredField(path.child("strategy").child("type")));
  else if (!strategyTypes.includes(type)) errors.push(notSupportedField(path.child("strategy").child("type"), type, strategyTypes));
  else if (type === "Recreate" && strategy["rollingUpdate"] !== undefined) {
    errors.push({
      type: "FieldValueForbidden",
      field: "spec.strategy.rollingUpdate",
      detail: "may not be specified when strategy `type` is 'Recreate'",
    });
  }
  for (const f of ["minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds"]) {
    const v = spec[f];
    if (typeof v === "number" && v < 0) errors.push(invalidField(path.child(f), v, "must be greater than or equal to 0"));
  }
  const deadline = spec["progressDeadlineSeconds"];
  const minReady = spec["minReadySeconds"];
  if (typeof deadline === "number" && typeof minReady === "number" && deadline <= minReady) {
    errors.push(invalidField(path.child("progressDeadlineSeconds"), deadline, "must be greater than minReadySeconds"));
  }
  return errors;
}

/** The rules a Deployment update adds: `spec.selector` is immutable. */
export function validateDeploymentUpdate(object: APIObject, old: APIObject): FieldError[] {
  return validateSelectorUpdate(object, old);
}

/** The Deployment resource type. */
export const deploymentType: ResourceType = {
  group: "apps",
  resource: "deployments",
  singular: "deployment",
  kind: "Deployment",
  scope: "Namespaced",
  shortNames: ["deploy"],
  categories: ["all"],
  subresources: ["status", "scale"],
  versions: [{ name: "v1", schema: deploymentV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultDeployment(object),
    ...statusHooks(() => ({})),
    validate: (object, ctx) => validateDeployment(object, ctx),
    validateUpdate: (object, old) => validateDeploymentUpdate(object, old),
    scale: replicasScale,
    tableColumns: [
      {
        name: "Ready",
        type: "string",
        description: "Number of the pod with ready state",
        priority: 0,
        cell: (o) => `${statusCount(o, "readyReplicas")}/${specCount(o, "replicas")}`,
      },
      {
        name: "Up-to-date",
        type: "string",
        description: "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
        priority: 0,
        cell: (o) => statusCount(o, "updatedReplicas"),
      },
      {
        name: "Available",
        type: "string",
        description: "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
        priority: 0,
        cell: (o) => statusCount(o, "availableReplicas"),
      },
    ],
  },
};
