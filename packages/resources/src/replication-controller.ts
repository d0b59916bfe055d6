/**
 * ReplicationController (core `v1`, namespaced, short name `rc`, sub-resources `status` and
 * `scale`): the original replicated-pods controller, with a map selector. The reference's
 * defaults (the selector and the object's labels from the template's labels when unset,
 * `replicas` 1, the template as a Pod), its validation (a non-empty selector matching the
 * template's labels, non-negative `replicas` and `minReadySeconds`, a template with restart
 * policy Always and no `activeDeadlineSeconds`), the status rules, the `status.replicas` field
 * selector and kubectl's columns (DESIRED, CURRENT, READY; wide CONTAINERS, IMAGES, SELECTOR).
 * @module
 */
import {
  FieldPath,
  invalidField,
  listType,
  notSupportedField,
  patchStrategy,
  requiredField,
  validateLabels,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { podTemplateSpecSchema, setDefault, specCount, specOf, statusCount } from "./internal/apps-common.js";
import { nonNegative, statusHooks } from "./internal/cluster-rules.js";
import { record } from "./internal/rules.js";
import { ageColumn, nameColumn } from "./internal/table-columns.js";
import { templateContainersCells } from "./job.js";
import { defaultPodTemplate, formatLabels, validatePodTemplateSpec } from "./pod-template.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { int32, int64, named, optionalString, stringMap, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `ReplicationControllerSpec`. */
export const replicationControllerSpecSchema = named(
  z
    .object({
      minReadySeconds: int32().optional().describe("Minimum number of seconds for which a newly created pod should be ready."),
      replicas: int32().optional().describe("The number of desired replicas. Defaults to 1."),
      selector: stringMap().optional().describe("A label query over pods that should match the Replicas count; defaults to the template's labels."),
      template: podTemplateSpecSchema.optional().describe("The object that describes the pod that will be created if insufficient replicas are detected."),
    })
    .meta({ description: "ReplicationControllerSpec is the specification of a replication controller." }),
  "api.core.v1.ReplicationControllerSpec",
);

/** `ReplicationControllerCondition`. */
const replicationControllerConditionSchema = named(
  z
    .object({
      lastTransitionTime: time().optional().describe("The last time the condition transitioned from one status to another."),
      message: optionalString("A human readable message indicating details about the transition."),
      reason: optionalString("The reason for the condition's last transition."),
      status: optionalString("Status of the condition, one of True, False, Unknown."),
      type: optionalString("Type of replication controller condition."),
    })
    .meta({ description: "ReplicationControllerCondition describes the state of a replication controller at a certain point.", required: ["type", "status"] }),
  "api.core.v1.ReplicationControllerCondition",
);

/** `ReplicationControllerStatus`. */
export const replicationControllerStatusSchema = named(
  z
    .object({
      availableReplicas: int32().optional().describe("The number of available replicas (ready for at least minReadySeconds) for this replication controller."),
      conditions: patchStrategy(listType(z.array(replicationControllerConditionSchema), "map", ["type"]), "merge", "type")
        .optional()
        .describe("Represents the latest available observations of a replication controller's current state."),
      fullyLabeledReplicas: int32().optional().describe("The number of pods that have labels matching the labels of the pod template."),
      observedGeneration: int64().optional().describe("Reflects the generation of the most recently observed replication controller."),
      readyReplicas: int32().optional().describe("The number of ready replicas for this replication controller."),
      replicas: int32().optional().describe("The most recently observed number of replicas."),
    })
    .meta({ description: "ReplicationControllerStatus represents the current status of a replication controller.", required: ["replicas"] }),
  "api.core.v1.ReplicationControllerStatus",
);

/** The zod schema of a ReplicationController in `v1`. */
export const replicationControllerV1Schema = kindSchema(
  {
    spec: replicationControllerSpecSchema.optional().describe("Spec defines the specification of the desired behavior of the replication controller."),
    status: replicationControllerStatusSchema.optional().describe("Status is the most recently observed status of the replication controller."),
  },
  "ReplicationController represents the configuration of a replication controller.",
);

/**
 * The reference's ReplicationController defaults: with template labels, the selector (when
 * empty) and the object's labels (when empty) become them; `replicas` 1; the template as a Pod.
 */
export function defaultReplicationController(object: APIObject): void {
  const spec = specOf(object);
  const labels = record(record(record(spec["template"])?.["metadata"])?.["labels"]) as Record<string, string> | undefined;
  if (labels) {
    if (Object.keys(record(spec["selector"]) ?? {}).length === 0) spec["selector"] = { ...labels };
    if (Object.keys(object.metadata?.labels ?? {}).length === 0) object.metadata = { ...object.metadata, labels: { ...labels } };
  }
  setDefault(spec, "replicas", 1);
  const template = record(spec["template"]);
  if (template) defaultPodTemplate({ template } as unknown as APIObject);
}

/**
 * The ReplicationController rules: non-negative `minReadySeconds` and `replicas`; a selector
 * that is valid labels and not empty; a template whose labels the selector matches, whose Pod
 * spec is valid, with restart policy Always and no `activeDeadlineSeconds`.
 */
export function validateReplicationController(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const errors = [...nonNegative(spec["minReadySeconds"], path.child("minReadySeconds"))];
  const selector = (record(spec["selector"]) ?? {}) as Record<string, string>;
  if (Object.keys(selector).length === 0) errors.push(requiredField(path.child("selector")));
  errors.push(...validateLabels(selector, path.child("selector")));
  errors.push(...nonNegative(spec["replicas"], path.child("replicas")));
  const template = record(spec["template"]);
  const templatePath = path.child("template");
  if (template) {
    const labels = (record(record(template["metadata"])?.["labels"]) ?? {}) as Record<string, string>;
    const entries = Object.entries(selector);
    if (entries.length > 0 && !entries.every(([k, v]) => labels[k] === v)) {
      errors.push(invalidField(templatePath.child("metadata").child("labels"), labels, "`selector` does not match template `labels`"));
    }
  }
  errors.push(...validatePodTemplateSpec(template, templatePath, ctx));
  if (template) {
    const podSpec = record(template["spec"]) ?? {};
    const restart = podSpec["restartPolicy"];
    if (restart !== "Always") errors.push(notSupportedField(templatePath.child("spec").child("restartPolicy"), restart ?? "", ["Always"]));
    if (podSpec["activeDeadlineSeconds"] !== undefined) {
      errors.push(
        invalidField(
          templatePath.child("spec").child("activeDeadlineSeconds"),
          podSpec["activeDeadlineSeconds"],
          "activeDeadlineSeconds in ReplicationController is not Supported",
        ),
      );
    }
  }
  return errors;
}

/**
 * The rules of a write to a ReplicationController's `/status`: non-negative counts, none above
 * `status.replicas`, and `availableReplicas` not above `readyReplicas`.
 */
export function validateReplicationControllerStatus(object: APIObject): FieldError[] {
  const status = record(object["status"]) ?? {};
  const path = FieldPath.root("status");
  const errors: FieldError[] = [];
  for (const f of ["replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"])
    errors.push(...nonNegative(status[f], path.child(f)));
  const n = (f: string) => (typeof status[f] === "number" ? status[f] : 0);
  for (const f of ["fullyLabeledReplicas", "readyReplicas", "availableReplicas"]) {
    if (n(f) > n("replicas")) errors.push(invalidField(path.child(f), n(f), "cannot be greater than status.replicas"));
  }
  if (n("availableReplicas") > n("readyReplicas"))
    errors.push(invalidField(path.child("availableReplicas"), n("availableReplicas"), "cannot be greater than readyReplicas"));
  return errors;
}

/** The ReplicationController resource type. */
export const replicationControllerType: ResourceType = {
  group: "",
  resource: "replicationcontrollers",
  singular: "replicationcontroller",
  kind: "ReplicationController",
  scope: "Namespaced",
  shortNames: ["rc"],
  categories: ["all"],
  subresources: ["status", "scale"],
  versions: [{ name: "v1", schema: replicationControllerV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultReplicationController(object),
    ...statusHooks(() => ({ replicas: 0 })),
    validate: (object, ctx) => validateReplicationController(object, ctx),
    validateStatusUpdate: (object) => validateReplicationControllerStatus(object),
    scale: { specReplicasPath: "spec.replicas", statusReplicasPath: "status.replicas", labelSelectorPath: "spec.selector" },
    selectableFields: (object) => ({ "status.replicas": String(statusCount(object, "replicas")) }),
    selectableFieldNames: ["status.replicas"],
    tableColumnsComplete: true,
    tableColumns: [
      nameColumn,
      { name: "Desired", type: "integer", description: "Number of desired pods", priority: 0, cell: (o) => specCount(o, "replicas") },
      { name: "Current", type: "integer", description: "Number of created pods", priority: 0, cell: (o) => statusCount(o, "replicas") },
      { name: "Ready", type: "integer", description: "Number of ready pods", priority: 0, cell: (o) => statusCount(o, "readyReplicas") },
      ageColumn,
      {
        name: "Containers",
        type: "string",
        description: "Names of each container in the template.",
        priority: 1,
        cell: (o) => templateContainersCells(record(o["spec"])?.["template"]).names,
      },
      {
        name: "Images",
        type: "string",
        description: "Images referenced by each container in the template.",
        priority: 1,
        cell: (o) => templateContainersCells(record(o["spec"])?.["template"]).images,
      },
      { name: "Selector", type: "string", description: "Label selector for pods.", priority: 1, cell: (o) => formatLabels(record(o["spec"])?.["selector"]) },
    ],
  },
};
