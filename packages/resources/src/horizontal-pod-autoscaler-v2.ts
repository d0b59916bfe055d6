/**
 * HorizontalPodAutoscaler in `autoscaling/v2`, the version it is stored in: metrics of five
 * source types (Resource, ContainerResource, Pods, Object, External) with their targets, scaling
 * behaviour (per direction: a stabilization window, a select policy and rate policies), the
 * reference's v2 defaults and validation, and the conversion from and to `autoscaling/v1`, whose
 * objects keep what v1 cannot say in `autoscaling.alpha.<domain>/...` annotations.
 * @module
 */
import {
  FieldPath,
  forbiddenField,
  invalidField,
  listType,
  notSupportedField,
  patchStrategy,
  requiredField,
  validateDNS1123Label,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { record, records, str } from "./internal/rules.js";
import { labelSelector, validateLabelSelectorObject } from "./internal/storage-fields.js";
import { quantityOf, validateContainerResourceName } from "./internal/workloads-common.js";
import { int32, int64, named, optionalString, quantity, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `CrossVersionObjectReference` of `autoscaling/v2`. */
export const crossVersionObjectReferenceV2Schema = named(
  z
    .object({
      apiVersion: optionalString("apiVersion is the API version of the referent."),
      kind: optionalString("kind is the kind of the referent."),
      name: optionalString("name is the name of the referent."),
    })
    .meta({ description: "CrossVersionObjectReference contains enough information to let you identify the referred resource.", required: ["kind", "name"] }),
  "api.autoscaling.v2.CrossVersionObjectReference",
);

/** `MetricTarget`: a target value, average value or average utilization. */
export const metricTargetSchema = named(
  z
    .object({
      averageUtilization: int32()
        .optional()
        .describe("The target value of the average of the resource metric across all relevant pods, in percent of the requests."),
      averageValue: quantity().optional().describe("The target value of the average of the metric across all relevant pods."),
      type: optionalString("Utilization, Value or AverageValue."),
      value: quantity().optional().describe("The target value of the metric."),
    })
    .meta({ description: "MetricTarget defines the target value, average value, or average utilization of a specific metric", required: ["type"] }),
  "api.autoscaling.v2.MetricTarget",
);

/** `MetricValueStatus`: the current value of a metric. */
export const metricValueStatusSchema = named(
  z
    .object({
      averageUtilization: int32().optional().describe("The current value of the average of the resource metric across all relevant pods, in percent."),
      averageValue: quantity().optional().describe("The current value of the average of the metric across all relevant pods."),
      value: quantity().optional().describe("The current value of the metric."),
    })
    .meta({ description: "MetricValueStatus holds the current value for a metric" }),
  "api.autoscaling.v2.MetricValueStatus",
);

/** `MetricIdentifier`: a metric's name and label selector. */
export const metricIdentifierSchema = named(
  z
    .object({
      name: optionalString("name is the name of the given metric."),
      selector: labelSelector().optional().describe("The label selector of the metric; unset means the metric server chooses."),
    })
    .meta({ description: "MetricIdentifier defines the name and optionally selector for a metric", required: ["name"] }),
  "api.autoscaling.v2.MetricIdentifier",
);

const source = (fields: Record<string, z.ZodType>, description: string, name: string, required: string[]) =>
  named(z.object(fields).meta({ description, required }), `api.autoscaling.v2.${name}`);

/** `MetricSpec`: one metric to scale on, of the source type named by `type`. */
export const metricSpecSchema = named(
  z
    .object({
      containerResource: source(
        {
          container: optionalString("The name of the container in the pods of the scaling target."),
          name: optionalString("The name of the resource in question."),
          target: metricTargetSchema.optional().describe("The target value for the given metric."),
        },
        "ContainerResourceMetricSource indicates how to scale on a resource metric of one container of each pod.",
        "ContainerResourceMetricSource",
        ["name", "target", "container"],
      )
        .optional()
        .describe("A resource metric of a single container in each pod."),
      external: source(
        {
          metric: metricIdentifierSchema.optional().describe("The target metric by name and selector."),
          target: metricTargetSchema.optional().describe("The target value for the given metric."),
        },
        "ExternalMetricSource indicates how to scale on a metric not associated with any Kubernetes object.",
        "ExternalMetricSource",
        ["metric", "target"],
      )
        .optional()
        .describe("A global metric not associated with any object."),
      object: source(
        {
          describedObject: crossVersionObjectReferenceV2Schema.optional().describe("The object the metric describes."),
          metric: metricIdentifierSchema.optional().describe("The target metric by name and selector."),
          target: metricTargetSchema.optional().describe("The target value for the given metric."),
        },
        "ObjectMetricSource indicates how to scale on a metric describing a single object.",
        "ObjectMetricSource",
        ["describedObject", "target", "metric"],
      )
        .optional()
        .describe("A metric describing a single object."),
      pods: source(
        {
          metric: metricIdentifierSchema.optional().describe("The target metric by name and selector."),
          target: metricTargetSchema.optional().describe("The target value for the given metric."),
        },
        "PodsMetricSource indicates how to scale on a metric describing each pod in the current scale target.",
        "PodsMetricSource",
        ["metric", "target"],
      )
        .optional()
        .describe("A metric describing each pod, averaged."),
      resource: source(
        {
          name: optionalString("The name of the resource in question."),
          target: metricTargetSchema.optional().describe("The target value for the given metric."),
        },
        "ResourceMetricSource indicates how to scale on a resource metric known to Kubernetes.",
        "ResourceMetricSource",
        ["name", "target"],
      )
        .optional()
        .describe("A resource metric known from requests and limits."),
      type: optionalString("Object, Pods, Resource, ContainerResource or External."),
    })
    .meta({ description: "MetricSpec specifies how to scale based on a single metric.", required: ["type"] }),
  "api.autoscaling.v2.MetricSpec",
);

/** `MetricStatus`: the last read state of one metric. */
export const metricStatusSchema = named(
  z
    .object({
      containerResource: z
        .object({
          container: optionalString("The name of the container."),
          current: metricValueStatusSchema.optional().describe("The current value of the metric."),
          name: optionalString("The name of the resource."),
        })
        .meta({
          description: "ContainerResourceMetricStatus indicates the current value of a resource metric of one container.",
          required: ["name", "current", "container"],
        })
        .optional()
        .describe("A container resource metric."),
      external: z
        .object({
          current: metricValueStatusSchema.optional().describe("The current value of the metric."),
          metric: metricIdentifierSchema.optional().describe("The metric by name and selector."),
        })
        .meta({ description: "ExternalMetricStatus indicates the current value of a global metric.", required: ["metric", "current"] })
        .optional()
        .describe("A global metric."),
      object: z
        .object({
          current: metricValueStatusSchema.optional().describe("The current value of the metric."),
          describedObject: crossVersionObjectReferenceV2Schema.optional().describe("The object the metric describes."),
          metric: metricIdentifierSchema.optional().describe("The metric by name and selector."),
        })
        .meta({
          description: "ObjectMetricStatus indicates the current value of a metric describing an object.",
          required: ["metric", "current", "describedObject"],
        })
        .optional()
        .describe("A metric describing a single object."),
      pods: z
        .object({
          current: metricValueStatusSchema.optional().describe("The current value of the metric."),
          metric: metricIdentifierSchema.optional().describe("The metric by name and selector."),
        })
        .meta({ description: "PodsMetricStatus indicates the current value of a metric describing each pod.", required: ["metric", "current"] })
        .optional()
        .describe("A metric describing each pod."),
      resource: z
        .object({
          current: metricValueStatusSchema.optional().describe("The current value of the metric."),
          name: optionalString("The name of the resource."),
        })
        .meta({ description: "ResourceMetricStatus indicates the current value of a resource metric.", required: ["name", "current"] })
        .optional()
        .describe("A resource metric."),
      type: optionalString("Object, Pods, Resource, ContainerResource or External."),
    })
    .meta({ description: "MetricStatus describes the last-read state of a single metric.", required: ["type"] }),
  "api.autoscaling.v2.MetricStatus",
);

/** `HPAScalingPolicy`: at most `value` pods (or percent) per `periodSeconds`. */
export const hpaScalingPolicySchema = named(
  z
    .object({
      periodSeconds: int32().optional().describe("The window of time for which the policy holds; 1 to 1800 seconds."),
      type: optionalString("Pods or Percent."),
      value: int32().optional().describe("The amount of change permitted by the policy; greater than zero."),
    })
    .meta({
      description: "HPAScalingPolicy is a single policy which must hold true for a specified past interval.",
      required: ["type", "value", "periodSeconds"],
    }),
  "api.autoscaling.v2.HPAScalingPolicy",
);

/** `HPAScalingRules`: how the autoscaler scales in one direction. */
export const hpaScalingRulesSchema = named(
  z
    .object({
      policies: listType(z.array(hpaScalingPolicySchema), "atomic").optional().describe("Policies that may be used during scaling; at least one."),
      selectPolicy: optionalString("Max (default), Min or Disabled."),
      stabilizationWindowSeconds: int32().optional().describe("Seconds of past recommendations to consider; 0 to 3600."),
      tolerance: quantity().optional().describe("The tolerance on the ratio between the current and desired metric value under which no scaling happens."),
    })
    .meta({ description: "HPAScalingRules configures the scaling behavior for one direction." }),
  "api.autoscaling.v2.HPAScalingRules",
);

/** `HorizontalPodAutoscalerBehavior`: the scale-up and scale-down rules. */
export const horizontalPodAutoscalerBehaviorSchema = named(
  z
    .object({
      scaleDown: hpaScalingRulesSchema.optional().describe("Scaling policy for scaling Down; a 300 s stabilization window and 100% per 15 s by default."),
      scaleUp: hpaScalingRulesSchema.optional().describe("Scaling policy for scaling Up; the larger of 4 pods or 100% per 15 s by default."),
    })
    .meta({ description: "HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions." }),
  "api.autoscaling.v2.HorizontalPodAutoscalerBehavior",
);

/** `HorizontalPodAutoscalerSpec` of `autoscaling/v2`. */
export const horizontalPodAutoscalerSpecV2Schema = named(
  z
    .object({
      behavior: horizontalPodAutoscalerBehaviorSchema.optional().describe("The scaling behavior of the target in both Up and Down directions."),
      maxReplicas: int32().optional().describe("The upper limit for the number of replicas; cannot be less than minReplicas."),
      metrics: listType(z.array(metricSpecSchema), "atomic")
        .optional()
        .describe("The metrics used to calculate the desired replica count; 80% CPU by default."),
      minReplicas: int32().optional().describe("The lower limit for the number of replicas; defaults to 1."),
      scaleTargetRef: crossVersionObjectReferenceV2Schema.optional().describe("The target resource to scale."),
    })
    .meta({
      description: "HorizontalPodAutoscalerSpec describes the desired functionality of the HorizontalPodAutoscaler.",
      required: ["scaleTargetRef", "maxReplicas"],
    }),
  "api.autoscaling.v2.HorizontalPodAutoscalerSpec",
);

/** `HorizontalPodAutoscalerCondition`. */
export const horizontalPodAutoscalerConditionSchema = named(
  z
    .object({
      lastTransitionTime: time().optional().describe("The last time the condition transitioned from one status to another."),
      message: optionalString("A human-readable explanation containing details about the transition."),
      reason: optionalString("The reason for the condition's last transition."),
      status: optionalString("True, False or Unknown."),
      type: optionalString("ScalingActive, AbleToScale or ScalingLimited."),
    })
    .meta({
      description: "HorizontalPodAutoscalerCondition describes the state of a HorizontalPodAutoscaler at a certain point.",
      required: ["type", "status"],
    }),
  "api.autoscaling.v2.HorizontalPodAutoscalerCondition",
);

/** `HorizontalPodAutoscalerStatus` of `autoscaling/v2`. */
export const horizontalPodAutoscalerStatusV2Schema = named(
  z
    .object({
      conditions: patchStrategy(listType(z.array(horizontalPodAutoscalerConditionSchema), "map", ["type"]), "merge", "type")
        .optional()
        .describe("The conditions needed for this autoscaler to scale its target."),
      currentMetrics: listType(z.array(metricStatusSchema), "atomic").optional().describe("The last read state of the metrics used by this autoscaler."),
      currentReplicas: int32().optional().describe("The current number of replicas of pods managed by this autoscaler."),
      desiredReplicas: int32().optional().describe("The desired number of replicas of pods managed by this autoscaler."),
      lastScaleTime: time().optional().describe("The last time the autoscaler scaled the number of pods."),
      observedGeneration: int64().optional().describe("The most recent generation observed by this autoscaler."),
    })
    .meta({ description: "HorizontalPodAutoscalerStatus describes the current status of a horizontal pod autoscaler.", required: ["desiredReplicas"] }),
  "api.autoscaling.v2.HorizontalPodAutoscalerStatus",
);

/** The zod schema of a HorizontalPodAutoscaler in `autoscaling/v2`. */
export const horizontalPodAutoscalerV2Schema = kindSchema(
  {
    spec: horizontalPodAutoscalerSpecV2Schema.optional().describe("spec is the specification for the behaviour of the autoscaler."),
    status: horizontalPodAutoscalerStatusV2Schema.optional().describe("status is the current information about the autoscaler."),
  },
  "HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler.",
);

/** The CPU utilization a HorizontalPodAutoscaler without metrics targets, in percent. */
export const defaultCPUUtilization = 80;

function scaleUpDefaults(): Record<string, unknown> {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: "Max",
    policies: [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ],
  };
}

function scaleDownDefaults(): Record<string, unknown> {
  return { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };
}

function fillRules(given: unknown, defaults: Record<string, unknown>): Record<string, unknown> {
  const rules = record(given);
  if (!rules) return defaults;
  for (const key of ["selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"]) {
    if (rules[key] !== undefined) defaults[key] = rules[key];
  }
  return defaults;
}

/**
 * The defaults of `autoscaling/v2`, in place: `spec.minReplicas` 1; no metrics means one
 * Resource metric, cpu at 80% average utilization; a `behavior` given gets its missing rules
 * from the defaults (scale up: no stabilization window, Max of 4 pods or 100% per 15 s; scale
 * down: Max of 100% per 15 s, the window left to the controller's 300 s).
 */
export function defaultHorizontalPodAutoscalerV2(object: APIObject): void {
  const spec = record(object["spec"]) ?? {};
  object["spec"] = spec;
  if (spec["minReplicas"] === undefined) spec["minReplicas"] = 1;
  if (!Array.isArray(spec["metrics"]) || spec["metrics"].length === 0) {
    spec["metrics"] = [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: defaultCPUUtilization } } }];
  }
  const behavior = record(spec["behavior"]);
  if (behavior) {
    behavior["scaleUp"] = fillRules(behavior["scaleUp"], scaleUpDefaults());
    behavior["scaleDown"] = fillRules(behavior["scaleDown"], scaleDownDefaults());
  }
}

function pathSegmentMessages(value: string): string[] {
  if (value === "." || value === "..") return [`may not be '${value}'`];
  const messages: string[] = [];
  for (const bad of ["/", "%"]) if (value.includes(bad)) messages.push(`may not contain '${bad}'`);
  return messages;
}

/** The reference's `ValidateCrossVersionObjectReference`: `kind` and `name` required path segments. */
export function validateCrossVersionObjectReference(ref: Record<string, unknown> | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of ["kind", "name"]) {
    const value = str(ref?.[key]);
    if (value === "") errors.push(requiredField(path.child(key)));
    else for (const msg of pathSegmentMessages(value)) errors.push(invalidField(path.child(key), value, msg));
  }
  return errors;
}

function positive(value: unknown): boolean {
  const q = quantityOf(value);
  return q !== undefined && !q.isZero() && !q.toString().startsWith("-");
}

function validateMetricTarget(target: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const type = str(target["type"]);
  if (type === "") errors.push(requiredField(path.child("type"), "must specify a metric target type"));
  if (type !== "Utilization" && type !== "Value" && type !== "AverageValue") {
    errors.push(invalidField(path.child("type"), type, "must be either Utilization, Value, or AverageValue"));
  }
  for (const key of ["value", "averageValue"]) {
    if (target[key] !== undefined && !positive(target[key])) errors.push(invalidField(path.child(key), target[key], "must be positive"));
  }
  const utilization = target["averageUtilization"];
  if (typeof utilization === "number" && utilization < 1) errors.push(invalidField(path.child("averageUtilization"), utilization, "must be greater than 0"));
  return errors;
}

function validateMetricIdentifier(id: Record<string, unknown>, path: FieldPath): FieldError[] {
  const name = str(id["name"]);
  if (name === "") return [requiredField(path.child("name"), "must specify a metric name")];
  return [
    ...pathSegmentMessages(name).map((m) => invalidField(path.child("name"), name, m)),
    ...validateLabelSelectorObject(id["selector"], path.child("selector")),
  ];
}

function validateSource(kind: string, src: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const target = record(src["target"]) ?? {};
  const tp = path.child("target");
  if (kind === "object") errors.push(...validateCrossVersionObjectReference(record(src["describedObject"]), path.child("describedObject")));
  if (kind === "object" || kind === "external" || kind === "pods") errors.push(...validateMetricIdentifier(record(src["metric"]) ?? {}, path.child("metric")));
  if (kind === "resource" || kind === "containerResource") {
    const name = str(src["name"]);
    if (name === "") errors.push(requiredField(path.child("name"), "must specify a resource name"));
    else if (kind === "containerResource") errors.push(...validateContainerResourceName(name, path.child("name")));
  }
  if (kind === "containerResource") {
    const container = str(src["container"]);
    if (container === "") errors.push(requiredField(path.child("container"), "must specify a container"));
    else errors.push(...validateDNS1123Label(container, path.child("container")));
  }
  errors.push(...validateMetricTarget(target, tp));
  const hasValue = target["value"] !== undefined;
  const hasAverage = target["averageValue"] !== undefined;
  const hasUtilization = target["averageUtilization"] !== undefined;
  if (kind === "object" && !hasValue && !hasAverage) errors.push(requiredField(tp.child("averageValue"), "must set either a target value or averageValue"));
  if (kind === "external") {
    if (!hasValue && !hasAverage) errors.push(requiredField(tp.child("averageValue"), "must set either a target value for metric or a per-pod target"));
    if (hasValue && hasAverage) errors.push(forbiddenField(tp.child("value"), "may not set both a target value for metric and a per-pod target"));
  }
  if (kind === "pods" && !hasAverage) errors.push(requiredField(tp.child("averageValue"), "must specify a positive target averageValue"));
  if (kind === "resource" || kind === "containerResource") {
    if (!hasUtilization && !hasAverage)
      errors.push(requiredField(tp.child("averageUtilization"), "must set either a target raw value or a target utilization"));
    if (hasUtilization && hasAverage) errors.push(forbiddenField(tp.child("averageValue"), "may not set both a target raw value and a target utilization"));
  }
  return errors;
}

const metricSourceTypes = ["ContainerResource", "External", "Object", "Pods", "Resource"];
const sourceFields: [string, string][] = [
  ["object", "Object"],
  ["external", "External"],
  ["pods", "Pods"],
  ["resource", "Resource"],
  ["containerResource", "ContainerResource"],
];

function validateMetricSpec(spec: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const type = str(spec["type"]);
  if (type === "") errors.push(requiredField(path.child("type"), "must specify a metric source type"));
  if (!metricSourceTypes.includes(type)) errors.push(notSupportedField(path.child("type"), type, metricSourceTypes));
  const present: string[] = [];
  for (const [field] of sourceFields) {
    const src = record(spec[field]);
    if (!src) continue;
    present.push(field);
    if (present.length === 1) errors.push(...validateSource(field, src, path.child(field)));
  }
  const expected = sourceFields.find(([, t]) => t === type)?.[0];
  if (expected === undefined) errors.push(notSupportedField(path.child("type"), type, metricSourceTypes));
  else if (!record(spec[expected])) errors.push(requiredField(path.child(expected), "must populate information for the given metric source"));
  if (present.length !== 1) {
    for (const field of present) if (field !== expected) errors.push(forbiddenField(path.child(field), "must populate the given metric source only"));
  }
  return errors;
}

function validateScalingRules(value: unknown, path: FieldPath): FieldError[] {
  const rules = record(value);
  if (!rules) return [];
  const errors: FieldError[] = [];
  const window = rules["stabilizationWindowSeconds"];
  if (typeof window === "number" && window < 0)
    errors.push(invalidField(path.child("stabilizationWindowSeconds"), window, "must be greater than or equal to zero"));
  if (typeof window === "number" && window > 3600)
    errors.push(invalidField(path.child("stabilizationWindowSeconds"), window, "must be less than or equal to 3600"));
  const select = rules["selectPolicy"];
  if (select !== undefined && !["Disabled", "Max", "Min"].includes(str(select)))
    errors.push(notSupportedField(path.child("selectPolicy"), select, ["Disabled", "Max", "Min"]));
  const tolerance = rules["tolerance"];
  if (tolerance !== undefined && quantityOf(tolerance)?.toString().startsWith("-")) {
    errors.push(invalidField(path.child("tolerance"), tolerance, "must be greater than or equal to 0"));
  }
  const policies = records(rules["policies"]);
  const pp = path.child("policies");
  if (policies.length === 0) errors.push(requiredField(pp, "must specify at least one Policy"));
  policies.forEach((p, i) => {
    const at = pp.index(i);
    const type = str(p["type"]);
    if (type !== "Pods" && type !== "Percent") errors.push(notSupportedField(at.child("type"), type, ["Percent", "Pods"]));
    const v = typeof p["value"] === "number" ? p["value"] : 0;
    if (v <= 0) errors.push(invalidField(at.child("value"), v, "must be greater than zero"));
    const period = typeof p["periodSeconds"] === "number" ? p["periodSeconds"] : 0;
    if (period <= 0) errors.push(invalidField(at.child("periodSeconds"), period, "must be greater than zero"));
    if (period > 1800) errors.push(invalidField(at.child("periodSeconds"), period, "must be less than or equal to 1800"));
  });
  return errors;
}

/**
 * The HorizontalPodAutoscaler rules of `autoscaling/v2` (the form every version is validated
 * in): `minReplicas` at least 1 (0 needs a feature gate this server does not have, and then an
 * Object or External metric), `maxReplicas` above 0 and not below `minReplicas`, the
 * scale target, each metric (its type, exactly one source matching it, the source's metric,
 * target and names) and the behavior (windows 0 to 3600 s, select policies, at least one policy
 * per direction, each Pods or Percent with a positive value and a period of 1 to 1800 s).
 */
export function validateHorizontalPodAutoscalerV2(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const min = spec["minReplicas"];
  const max = spec["maxReplicas"];
  if (typeof min === "number" && min < 1) errors.push(invalidField(path.child("minReplicas"), min, "must be greater than or equal to 1"));
  if (max === undefined) errors.push(requiredField(path.child("maxReplicas")));
  else if (typeof max === "number") {
    if (max < 1) errors.push(invalidField(path.child("maxReplicas"), max, "must be greater than 0"));
    if (typeof min === "number" && max < min) errors.push(invalidField(path.child("maxReplicas"), max, "must be greater than or equal to `minReplicas`"));
  }
  const refErrors = validateCrossVersionObjectReference(record(spec["scaleTargetRef"]), path.child("scaleTargetRef"));
  if (refErrors.length) errors.push(...refErrors);
  else {
    const metrics = records(spec["metrics"]);
    metrics.forEach((m, i) => errors.push(...validateMetricSpec(m, path.child("metrics").index(i))));
    if (min === 0 && !metrics.some((m) => m["type"] === "Object" || m["type"] === "External")) {
      errors.push(forbiddenField(path.child("metrics"), "must specify at least one Object or External metric to support scaling to zero replicas"));
    }
  }
  const behavior = record(spec["behavior"]);
  if (behavior) {
    errors.push(...validateScalingRules(behavior["scaleUp"], path.child("behavior").child("scaleUp")));
    errors.push(...validateScalingRules(behavior["scaleDown"], path.child("behavior").child("scaleDown")));
  }
  return errors;
}

/** The v1 annotations that carry what `autoscaling/v1` cannot express, under `domain` (`autoscaling.alpha.orch.io/metrics`). */
export function hpaAlphaAnnotations(domain = "orch.io") {
  const prefix = `autoscaling.alpha.${domain === "k8s.io" ? "kubernetes.io" : domain}`;
  return {
    metrics: `${prefix}/metrics`,
    currentMetrics: `${prefix}/current-metrics`,
    conditions: `${prefix}/conditions`,
    behavior: `${prefix}/behavior`,
  } as const;
}

// An annotation of the v1 alpha set under any domain: conversion has no domain at hand, so it
// reads whichever one an object carries.
const alphaKey = /^autoscaling\.alpha\.[^/]+\/(metrics|current-metrics|conditions|behavior)$/;

function parseJSON(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isCPUUtilization(m: Record<string, unknown>, current: boolean): boolean {
  const resource = record(m["resource"]);
  const value = record(resource?.[current ? "current" : "target"]);
  return m["type"] === "Resource" && resource?.["name"] === "cpu" && typeof value?.["averageUtilization"] === "number";
}

/**
 * Converts an `autoscaling/v1` object to `autoscaling/v2`: `targetCPUUtilizationPercentage`
 * becomes a cpu Resource metric (after the metrics of the `metrics` annotation), the
 * `behavior`, `current-metrics` and `conditions` annotations come back as fields, and the
 * annotations are dropped.
 */
export function horizontalPodAutoscalerV1ToV2(object: APIObject): APIObject {
  const out = structuredClone(object);
  out.apiVersion = "autoscaling/v2";
  const annotations = { ...(out.metadata?.annotations ?? {}) };
  const found: Record<string, unknown> = {};
  for (const key of Object.keys(annotations)) {
    const match = alphaKey.exec(key);
    if (!match?.[1]) continue;
    found[match[1]] = parseJSON(annotations[key]);
    delete annotations[key];
  }
  if (out.metadata) {
    out.metadata = { ...out.metadata, annotations };
    if (Object.keys(annotations).length === 0) delete out.metadata.annotations;
  }
  const spec = { ...(record(out["spec"]) ?? {}) };
  const metrics = Array.isArray(found["metrics"]) ? [...(found["metrics"] as unknown[])] : [];
  const cpu = spec["targetCPUUtilizationPercentage"];
  delete spec["targetCPUUtilizationPercentage"];
  if (typeof cpu === "number") metrics.push({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: cpu } } });
  if (metrics.length) spec["metrics"] = metrics;
  if (record(found["behavior"])) spec["behavior"] = found["behavior"];
  if (out["spec"] !== undefined) out["spec"] = spec;
  const status = record(out["status"]);
  if (status) {
    const next = { ...status };
    const current = Array.isArray(found["current-metrics"]) ? [...(found["current-metrics"] as unknown[])] : [];
    const currentCPU = next["currentCPUUtilizationPercentage"];
    delete next["currentCPUUtilizationPercentage"];
    if (typeof currentCPU === "number") current.push({ type: "Resource", resource: { name: "cpu", current: { averageUtilization: currentCPU } } });
    if (current.length) next["currentMetrics"] = current;
    if (Array.isArray(found["conditions"])) next["conditions"] = found["conditions"];
    out["status"] = next;
  }
  return out;
}

/**
 * Converts an `autoscaling/v2` object to `autoscaling/v1`: the first cpu utilization metric
 * becomes `targetCPUUtilizationPercentage` (and its current value
 * `currentCPUUtilizationPercentage`); every other metric, the behavior, the other current
 * metrics and the conditions are kept as JSON in the `autoscaling.alpha.<domain>/...`
 * annotations (`domain` `orch.io` when not given), so that a round trip loses nothing.
 */
export function horizontalPodAutoscalerV2ToV1(object: APIObject, domain = "orch.io"): APIObject {
  const keys = hpaAlphaAnnotations(domain);
  const out = structuredClone(object);
  out.apiVersion = "autoscaling/v1";
  const annotations: Record<string, string> = { ...(out.metadata?.annotations ?? {}) };
  const spec = { ...(record(out["spec"]) ?? {}) };
  const metrics = records(spec["metrics"]);
  delete spec["metrics"];
  const cpuIndex = metrics.findIndex((m) => isCPUUtilization(m, false));
  const cpu = metrics[cpuIndex];
  if (cpu) spec["targetCPUUtilizationPercentage"] = record(record(cpu["resource"])?.["target"])?.["averageUtilization"];
  const others = metrics.filter((_, i) => i !== cpuIndex);
  if (others.length) annotations[keys.metrics] = JSON.stringify(others);
  if (spec["behavior"] !== undefined) annotations[keys.behavior] = JSON.stringify(spec["behavior"]);
  delete spec["behavior"];
  if (out["spec"] !== undefined) out["spec"] = spec;
  const status = record(out["status"]);
  if (status) {
    const next = { ...status };
    const current = records(next["currentMetrics"]);
    delete next["currentMetrics"];
    const currentIndex = current.findIndex((m) => isCPUUtilization(m, true));
    const currentCPU = current[currentIndex];
    if (currentCPU) next["currentCPUUtilizationPercentage"] = record(record(currentCPU["resource"])?.["current"])?.["averageUtilization"];
    const otherCurrent = current.filter((_, i) => i !== currentIndex);
    if (otherCurrent.length) annotations[keys.currentMetrics] = JSON.stringify(otherCurrent);
    const conditions = records(next["conditions"]);
    delete next["conditions"];
    if (conditions.length) annotations[keys.conditions] = JSON.stringify(conditions);
    out["status"] = next;
  }
  if (Object.keys(annotations).length) out.metadata = { ...(out.metadata ?? {}), annotations };
  return out;
}

/** The TARGETS cell of a v2 object as kubectl prints it (`cpu: 40%/80%`, `<unknown>/80%`, `+ 2 more...`). */
export function horizontalPodAutoscalerTargetsV2(object: APIObject): string {
  const metrics = records(record(object["spec"])?.["metrics"]);
  if (metrics.length === 0) return "<none>";
  const current = records(record(object["status"])?.["currentMetrics"]);
  const cells = metrics.map((m, i) => {
    const type = str(m["type"]);
    const field = sourceFields.find(([, t]) => t === type)?.[0] ?? "";
    const src = record(m[field]) ?? {};
    const target = record(src["target"]) ?? {};
    const now = record(record(current[i]?.[field])?.["current"]);
    const name = field === "resource" || field === "containerResource" ? str(src["name"]) : str(record(src["metric"])?.["name"]);
    if (typeof target["averageUtilization"] === "number") {
      const cur = typeof now?.["averageUtilization"] === "number" ? `${now["averageUtilization"]}%` : "<unknown>";
      return `${name}: ${cur}/${target["averageUtilization"]}%`;
    }
    const key = target["value"] !== undefined ? "value" : "averageValue";
    const cur = now?.[key] !== undefined ? str(now[key]) : "<unknown>";
    return `${name}: ${cur}/${str(target[key])}${key === "averageValue" && field !== "pods" ? " (avg)" : ""}`;
  });
  return cells.length > 2 ? `${cells.slice(0, 2).join(", ")} + ${cells.length - 2} more...` : cells.join(", ");
}
