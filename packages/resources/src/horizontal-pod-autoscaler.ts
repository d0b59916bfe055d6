/**
 * HorizontalPodAutoscaler (`autoscaling/v2`, the storage version, and `autoscaling/v1`;
 * namespaced, short name `hpa`, sub-resource `status`): scales `spec.scaleTargetRef` between
 * `minReplicas` (default 1) and `maxReplicas` on its metrics (80% CPU by default). `v1` says
 * only CPU utilisation; its objects keep the rest in annotations (see
 * `horizontal-pod-autoscaler-v2.ts`). Scaling to zero needs an alpha gate, so `minReplicas` 0 is
 * refused.
 * @module
 */
import { FieldPath, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import {
  defaultHorizontalPodAutoscalerV2,
  horizontalPodAutoscalerTargetsV2,
  horizontalPodAutoscalerV1ToV2,
  horizontalPodAutoscalerV2Schema,
  horizontalPodAutoscalerV2ToV1,
  validateHorizontalPodAutoscalerV2,
} from "./horizontal-pod-autoscaler-v2.js";
import { child, nonNegative, statusHooks } from "./internal/cluster-rules.js";
import { record, str } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { int32, int64, named, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `CrossVersionObjectReference`: the scaled object (`kind` and `name` required). */
export const crossVersionObjectReferenceSchema = named(
  z
    .object({
      apiVersion: z.string().optional().describe("apiVersion is the API version of the referent."),
      kind: z.string().optional().describe("kind is the kind of the referent."),
      name: z.string().optional().describe("name is the name of the referent."),
    })
    .meta({ description: "CrossVersionObjectReference contains enough information to let you identify the referred resource.", required: ["kind", "name"] }),
  "api.autoscaling.v1.CrossVersionObjectReference",
);

/** `HorizontalPodAutoscalerSpec` of `autoscaling/v1`. */
export const horizontalPodAutoscalerSpecSchema = named(
  z
    .object({
      maxReplicas: int32().optional().describe("maxReplicas is the upper limit for the number of pods; cannot be smaller than minReplicas."),
      minReplicas: int32().optional().describe("minReplicas is the lower limit for the number of replicas; defaults to 1."),
      scaleTargetRef: crossVersionObjectReferenceSchema.optional().describe("reference to scaled resource."),
      targetCPUUtilizationPercentage: int32()
        .optional()
        .describe("targetCPUUtilizationPercentage is the target average CPU utilization over all the pods, in percent of requested CPU."),
    })
    .meta({ description: "specification of a horizontal pod autoscaler.", required: ["scaleTargetRef", "maxReplicas"] }),
  "api.autoscaling.v1.HorizontalPodAutoscalerSpec",
);

/** `HorizontalPodAutoscalerStatus` of `autoscaling/v1`. */
export const horizontalPodAutoscalerStatusSchema = named(
  z
    .object({
      currentCPUUtilizationPercentage: int32().optional().describe("The current average CPU utilization over all pods, in percent of requested CPU."),
      currentReplicas: int32().optional().describe("The current number of replicas of pods managed by this autoscaler."),
      desiredReplicas: int32().optional().describe("The desired number of replicas of pods managed by this autoscaler."),
      lastScaleTime: time().optional().describe("The last time the autoscaler scaled the number of pods."),
      observedGeneration: int64().optional().describe("The most recent generation observed by this autoscaler."),
    })
    .meta({ description: "current status of a horizontal pod autoscaler", required: ["currentReplicas", "desiredReplicas"] }),
  "api.autoscaling.v1.HorizontalPodAutoscalerStatus",
);

/** The group, version and kind of the body and answer of every `scale` sub-resource. */
export const scaleGVK = { group: "autoscaling", version: "v1", kind: "Scale" } as const;

/**
 * The zod schema of an `autoscaling/v1` Scale, the representation of the `scale` sub-resource of
 * Deployment, ReplicaSet and StatefulSet (not a stored kind).
 */
export const scaleV1Schema = kindSchema(
  {
    spec: z
      .object({ replicas: int32().optional().describe("replicas is the desired number of instances for the scaled object.") })
      .meta({ description: "ScaleSpec describes the attributes of a scale subresource." })
      .optional()
      .describe("spec defines the behavior of the scale."),
    status: z
      .object({
        replicas: int32().optional().describe("replicas is the actual number of observed instances of the scaled object."),
        selector: z.string().optional().describe("selector is the label query over pods that should match the replicas count."),
      })
      .meta({ description: "ScaleStatus represents the current status of a scale subresource.", required: ["replicas"] })
      .optional()
      .describe("status is the current status of the scale."),
  },
  "Scale represents a scaling request for a resource.",
);

/** The zod schema of a HorizontalPodAutoscaler in `autoscaling/v1`. */
export const horizontalPodAutoscalerV1Schema = kindSchema(
  {
    spec: horizontalPodAutoscalerSpecSchema.optional().describe("spec defines the behaviour of autoscaler."),
    status: horizontalPodAutoscalerStatusSchema.optional().describe("status is the current information about the autoscaler."),
  },
  "configuration of a horizontal pod autoscaler.",
);

/** The defaults of `v1` (run before the conversion to `v2`, whose defaults follow): `spec.minReplicas` 1. */
export function defaultHorizontalPodAutoscaler(object: APIObject): void {
  const spec = child(object, "spec");
  if (spec["minReplicas"] === undefined) spec["minReplicas"] = 1;
}

/**
 * The HorizontalPodAutoscaler rules beyond metadata, for create and update alike, on the stored
 * (`autoscaling/v2`) form a `v1` object is converted to first: see
 * {@link validateHorizontalPodAutoscalerV2}. A `v1` `targetCPUUtilizationPercentage` is thus
 * reported at `spec.metrics[0].resource.target.averageUtilization`, as the reference does.
 */
export function validateHorizontalPodAutoscaler(object: APIObject): FieldError[] {
  return validateHorizontalPodAutoscalerV2(object);
}

/** The rules of a write to `/status`: `status.currentReplicas` and `status.desiredReplicas` not negative. */
export function validateHorizontalPodAutoscalerStatus(object: APIObject): FieldError[] {
  const status = record(object["status"]) ?? {};
  const path = FieldPath.root("status");
  return [...nonNegative(status["currentReplicas"], path.child("currentReplicas")), ...nonNegative(status["desiredReplicas"], path.child("desiredReplicas"))];
}

function targets(object: APIObject): string {
  const spec = record(object["spec"]) ?? {};
  if (spec["metrics"] !== undefined) return horizontalPodAutoscalerTargetsV2(object);
  const target = spec["targetCPUUtilizationPercentage"];
  if (typeof target !== "number") return "<none>";
  const current = record(object["status"])?.["currentCPUUtilizationPercentage"];
  return `cpu: ${typeof current === "number" ? `${current}%` : "<unknown>"}/${target}%`;
}

const hooks = statusHooks(() => ({ currentReplicas: 0, desiredReplicas: 0 }));

/** The HorizontalPodAutoscaler resource type. */
export const horizontalPodAutoscalerType: ResourceType = {
  group: "autoscaling",
  resource: "horizontalpodautoscalers",
  singular: "horizontalpodautoscaler",
  kind: "HorizontalPodAutoscaler",
  shortNames: ["hpa"],
  categories: ["all"],
  scope: "Namespaced",
  versions: [
    { name: "v2", schema: horizontalPodAutoscalerV2Schema, storage: true },
    {
      name: "v1",
      schema: horizontalPodAutoscalerV1Schema,
      storage: false,
      defaults: (object) => defaultHorizontalPodAutoscaler(object),
      toStorage: (object) => horizontalPodAutoscalerV1ToV2(object),
      fromStorage: (object, served) => horizontalPodAutoscalerV2ToV1(object, served?.domain),
    },
  ],
  subresources: ["status"],
  strategy: {
    defaults: (object) => defaultHorizontalPodAutoscalerV2(object),
    prepareForCreate: hooks.prepareForCreate,
    prepareForUpdate: hooks.prepareForUpdate,
    validate: (object) => validateHorizontalPodAutoscaler(object),
    validateStatusUpdate: (object) => validateHorizontalPodAutoscalerStatus(object),
    tableColumns: [
      {
        name: "Reference",
        type: "string",
        description: "The kind and name of the scaled object.",
        priority: 0,
        cell: (object) => {
          const ref = record(record(object["spec"])?.["scaleTargetRef"]);
          return `${str(ref?.["kind"])}/${str(ref?.["name"])}`;
        },
      },
      { name: "Targets", type: "string", description: "The current and target CPU utilisation.", priority: 0, cell: targets },
      {
        name: "MinPods",
        type: "string",
        description: "The lower limit for the number of pods.",
        priority: 0,
        cell: (object) => {
          const min = record(object["spec"])?.["minReplicas"];
          return typeof min === "number" ? String(min) : "<unset>";
        },
      },
      {
        name: "MaxPods",
        type: "integer",
        description: "The upper limit for the number of pods.",
        priority: 0,
        cell: (object) => {
          const max = record(object["spec"])?.["maxReplicas"];
          return typeof max === "number" ? max : 0;
        },
      },
      {
        name: "Replicas",
        type: "integer",
        description: "The current number of replicas.",
        priority: 0,
        cell: (object) => {
          const current = record(object["status"])?.["currentReplicas"];
          return typeof current === "number" ? current : 0;
        },
      },
    ],
  },
};
