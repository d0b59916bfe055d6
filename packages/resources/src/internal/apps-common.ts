/**
 * What the `apps/v1` workload kinds (Deployment, ReplicaSet, StatefulSet, DaemonSet) share: the
 * pod template schema (built on Pod's spec schema), the label selector, the template's defaults
 * and validation under `spec.template`, the selector rules, and the status and scale hooks.
 * @module
 */
import {
  FieldPath,
  invalidField,
  labelSelectorFromObject,
  notSupportedField,
  requiredField,
  validateLabels,
  type APIObject,
  type FieldError,
  type LabelSelectorObject,
} from "@orch/meta";
import { z } from "zod";
import { defaultPod, podSpecSchema, validatePod } from "../pod.js";
import type { ScaleSubresource, StrategyContext } from "../resource-type.js";
import { named } from "../schema/fields.js";
import { objectMetaSchema } from "../schema/object-meta.js";
import { immutable } from "./cluster-rules.js";
import { record } from "./rules.js";
import { labelSelector } from "./storage-fields.js";

/** `PodTemplateSpec`: the metadata and Pod spec of the pods a controller creates. */
export const podTemplateSpecSchema = named(
  z
    .object({
      metadata: objectMetaSchema.optional().describe("Standard object's metadata."),
      spec: podSpecSchema.optional().describe("Specification of the desired behavior of the pod."),
    })
    .meta({ description: "PodTemplateSpec describes the data a pod should have when created from a template" }),
  "api.core.v1.PodTemplateSpec",
);

/** `LabelSelector` (atomic), the schema of a workload's `spec.selector`. */
export const workloadLabelSelectorSchema = named(labelSelector(), "apimachinery.pkg.apis.meta.v1.LabelSelector");

/** The `spec` of `object`, created when missing. */
export function specOf(object: APIObject): Record<string, unknown> {
  const s = record(object["spec"]);
  if (s) return s;
  const fresh: Record<string, unknown> = {};
  object["spec"] = fresh;
  return fresh;
}

/** Sets `target[key]` to `value` when it is unset. */
export function setDefault(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === undefined) target[key] = value;
}

/** The object at `target[key]`, created when missing. */
export function childObject(target: Record<string, unknown>, key: string): Record<string, unknown> {
  const c = record(target[key]);
  if (c) return c;
  const fresh: Record<string, unknown> = {};
  target[key] = fresh;
  return fresh;
}

/** Defaults the pod template of `spec` as a Pod's spec is defaulted (`defaultPod`). */
export function defaultTemplate(spec: Record<string, unknown>): void {
  const template = record(spec["template"]);
  if (!template) return;
  defaultPod(template as APIObject);
}

/**
 * The rules every `apps/v1` workload shares: `spec.selector` required and valid, not empty, and
 * matching `spec.template.metadata.labels` (`` `selector` does not match template `labels` ``);
 * the template's labels and Pod spec (errors under `spec.template.spec`), its `restartPolicy`
 * Always; `spec.replicas` (when `replicas`) not negative. `kind` words the empty-selector message
 * (`empty selector is invalid for deployment`).
 */
export function validateWorkloadSpec(
  object: APIObject,
  ctx: Pick<StrategyContext, "domain"> | undefined,
  opts: { replicas: boolean; kind: string },
): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  if (opts.replicas) {
    const replicas = spec["replicas"];
    if (typeof replicas === "number" && replicas < 0) errors.push(invalidField(path.child("replicas"), replicas, "must be greater than or equal to 0"));
  }
  const selectorObject = record(spec["selector"]);
  const template = record(spec["template"]);
  const labels = (record(record(template?.["metadata"])?.["labels"]) ?? {}) as Record<string, string>;
  if (!selectorObject) errors.push(requiredField(path.child("selector")));
  else {
    const parsed = labelSelectorFromObject(selectorObject as unknown as LabelSelectorObject, path.child("selector"));
    if (!parsed.ok) errors.push(...parsed.errors);
    else if (parsed.selector.isEmpty()) errors.push(invalidField(path.child("selector"), selectorObject, `empty selector is invalid for ${opts.kind}`));
    else if (template && !parsed.selector.matches(labels)) {
      errors.push(invalidField(path.child("template").child("metadata").child("labels"), labels, "`selector` does not match template `labels`"));
    }
  }
  if (!template) errors.push(requiredField(path.child("template")));
  else {
    errors.push(...validateLabels(labels, path.child("template").child("metadata").child("labels")));
    const podErrors = validatePod(template as APIObject, ctx);
    for (const e of podErrors) errors.push({ ...e, field: `spec.template.${e.field}` });
    const restart = record(template["spec"])?.["restartPolicy"];
    if (typeof restart === "string" && restart !== "Always") {
      errors.push(notSupportedField(path.child("template").child("spec").child("restartPolicy"), restart, ["Always"]));
    }
  }
  return errors;
}

/** The rule every workload update adds: `spec.selector` cannot change (`field is immutable`). */
export function validateSelectorUpdate(object: APIObject, old: APIObject): FieldError[] {
  return immutable(record(object["spec"])?.["selector"], record(old["spec"])?.["selector"], FieldPath.root("spec").child("selector"));
}

/** The `scale` sub-resource of the replicated workloads: `spec.replicas`, `status.replicas`, `spec.selector`. */
export const replicasScale: ScaleSubresource = {
  specReplicasPath: "spec.replicas",
  statusReplicasPath: "status.replicas",
  labelSelectorPath: "spec.selector",
};

/** The integer at `status[key]` of `object`, 0 when unset. */
export function statusCount(object: APIObject, key: string): number {
  const v = record(object["status"])?.[key];
  return typeof v === "number" ? v : 0;
}

/** The integer at `spec[key]` of `object`, 0 when unset. */
export function specCount(object: APIObject, key: string): number {
  const v = record(object["spec"])?.[key];
  return typeof v === "number" ? v : 0;
}
