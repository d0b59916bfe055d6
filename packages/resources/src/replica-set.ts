/**
 * ReplicaSet (`apps/v1`, namespaced, short name `rs`, sub-resources `status` and `scale`): a
 * number of pod replicas from a template. Defaults `replicas` to 1 and the template as a Pod;
 * validates the selector (required, matching the template's labels, immutable on update),
 * non-negative `replicas` and `minReadySeconds`, and the template; kubectl's columns DESIRED,
 * CURRENT, READY.
 * @module
 */
import { FieldPath, invalidField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { workloadConditions } from "./deployment.js";
import {
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
import { record } from "./internal/rules.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { int32, int64, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `ReplicaSetSpec`. */
export const replicaSetSpecSchema = named(
  z
    .object({
      minReadySeconds: int32().optional().describe("Minimum number of seconds for which a newly created pod should be ready."),
      replicas: int32().optional().describe("Replicas is the number of desired pods. Defaults to 1."),
      selector: workloadLabelSelectorSchema.optional().describe("Selector is a label query over pods that should match the replica count."),
      template: podTemplateSpecSchema
        .optional()
        .describe("Template is the object that describes the pod that will be created if insufficient replicas are detected."),
    })
    .meta({ description: "ReplicaSetSpec is the specification of a ReplicaSet.", required: ["selector"] }),
  "api.apps.v1.ReplicaSetSpec",
);

/** `ReplicaSetStatus`. */
export const replicaSetStatusSchema = named(
  z
    .object({
      availableReplicas: int32().optional().describe("The number of available non-terminating pods for this replica set."),
      conditions: workloadConditions("ReplicaSet"),
      fullyLabeledReplicas: int32().optional().describe("The number of non-terminating pods that have labels matching the labels of the pod template."),
      observedGeneration: int64().optional().describe("The generation of the most recently observed ReplicaSet."),
      readyReplicas: int32().optional().describe("The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition."),
      replicas: int32().optional().describe("Replicas is the most recently observed number of non-terminating pods."),
      terminatingReplicas: int32().optional().describe("The number of terminating pods for this replica set."),
    })
    .meta({ description: "ReplicaSetStatus represents the current status of a ReplicaSet.", required: ["replicas"] }),
  "api.apps.v1.ReplicaSetStatus",
);

/** The zod schema of a ReplicaSet in `apps/v1`. */
export const replicaSetV1Schema = kindSchema(
  {
    spec: replicaSetSpecSchema.optional().describe("Spec defines the specification of the desired behavior of the ReplicaSet."),
    status: replicaSetStatusSchema.optional().describe("Status is the most recently observed status of the ReplicaSet."),
  },
  "ReplicaSet ensures that a specified number of pod replicas are running at any given time.",
);

/** The reference's ReplicaSet defaults: `replicas` 1 and the pod template's defaults. */
export function defaultReplicaSet(object: APIObject): void {
  const spec = specOf(object);
  setDefault(spec, "replicas", 1);
  defaultTemplate(spec);
}

/**
 * The ReplicaSet rules: those every workload shares (selector required and matching the
 * template's labels, `spec.replicas` not negative, the template) and non-negative `minReadySeconds`.
 */
export function validateReplicaSet(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  // The reference words the empty-selector error of a ReplicaSet as a Deployment's.
  const errors = validateWorkloadSpec(object, ctx, { replicas: true, kind: "deployment" });
  const minReady = record(object["spec"])?.["minReadySeconds"];
  if (typeof minReady === "number" && minReady < 0) {
    errors.push(invalidField(FieldPath.root("spec").child("minReadySeconds"), minReady, "must be greater than or equal to 0"));
  }
  return errors;
}

/** The ReplicaSet resource type. */
export const replicaSetType: ResourceType = {
  group: "apps",
  resource: "replicasets",
  singular: "replicaset",
  kind: "ReplicaSet",
  scope: "Namespaced",
  shortNames: ["rs"],
  categories: ["all"],
  subresources: ["status", "scale"],
  versions: [{ name: "v1", schema: replicaSetV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultReplicaSet(object),
    ...statusHooks(() => ({ replicas: 0 })),
    validate: (object, ctx) => validateReplicaSet(object, ctx),
    validateUpdate: (object, old) => validateSelectorUpdate(object, old),
    scale: replicasScale,
    tableColumns: [
      { name: "Desired", type: "integer", description: "Number of desired pods", priority: 0, cell: (o) => specCount(o, "replicas") },
      { name: "Current", type: "integer", description: "Number of created pods", priority: 0, cell: (o) => statusCount(o, "replicas") },
      { name: "Ready", type: "integer", description: "Number of ready pods", priority: 0, cell: (o) => statusCount(o, "readyReplicas") },
    ],
  },
};
