/**
 * PodTemplate (core `v1`, namespaced): a stored pod template for others to copy. Defaults the
 * template as a Pod is defaulted, validates its labels and Pod spec (under `template.spec`), and
 * has kubectl's columns (CONTAINERS, IMAGES, POD LABELS; no age).
 * @module
 */
import { FieldPath, forbiddenField, requiredField, validateLabels, type APIObject, type FieldError } from "@orch/meta";
import { podTemplateSpecSchema } from "./internal/apps-common.js";
import { record } from "./internal/rules.js";
import { nameColumn } from "./internal/table-columns.js";
import { templateContainersCells } from "./job.js";
import { defaultPod, validatePod } from "./pod.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { kindSchema } from "./schema/object-meta.js";

/** The zod schema of a PodTemplate in `v1`. */
export const podTemplateV1Schema = kindSchema(
  { template: podTemplateSpecSchema.optional().describe("Template defines the pods that will be created from this pod template.") },
  "PodTemplate describes a template for creating copies of a predefined pod.",
);

/** The reference's PodTemplate defaults: the template's, as a Pod's. */
export function defaultPodTemplate(object: APIObject): void {
  const template = record(object["template"]);
  if (template) defaultPod(template as APIObject);
}

/**
 * The reference's `ValidatePodTemplateSpec` for the template at `path` (`template`,
 * `spec.template`): required, its labels, and its Pod spec (errors under `<path>.spec`), without
 * ephemeral containers.
 */
export function validatePodTemplateSpec(template: Record<string, unknown> | undefined, path: FieldPath, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  if (!template) return [requiredField(path)];
  const labels = (record(record(template["metadata"])?.["labels"]) ?? {}) as Record<string, string>;
  const errors = validateLabels(labels, path.child("metadata").child("labels"));
  const prefix = `${path.toString()}.`;
  for (const e of validatePod(template as APIObject, ctx)) errors.push({ ...e, field: `${prefix}${e.field}` });
  const ephemeral = record(template["spec"])?.["ephemeralContainers"];
  if (Array.isArray(ephemeral) && ephemeral.length > 0) {
    errors.push(forbiddenField(path.child("spec").child("ephemeralContainers"), "ephemeral containers not allowed in pod template"));
  }
  return errors;
}

/** The PodTemplate rules: the template's ({@link validatePodTemplateSpec}). */
export function validatePodTemplate(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  return validatePodTemplateSpec(record(object["template"]), FieldPath.root("template"), ctx);
}

/** A label map as kubectl prints it: `k=v` pairs sorted by key, comma-joined; `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  const pairs = Object.entries(record(labels) ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${String(v)}`);
  return pairs.length ? pairs.join(",") : "<none>";
}

/** The PodTemplate resource type. */
export const podTemplateType: ResourceType = {
  group: "",
  resource: "podtemplates",
  singular: "podtemplate",
  kind: "PodTemplate",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: podTemplateV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultPodTemplate(object),
    validate: (object, ctx) => validatePodTemplate(object, ctx),
    tableColumnsComplete: true,
    tableColumns: [
      nameColumn,
      {
        name: "Containers",
        type: "string",
        description: "Names of each container in the template.",
        priority: 0,
        cell: (o) => templateContainersCells(o["template"]).names,
      },
      {
        name: "Images",
        type: "string",
        description: "Images referenced by each container in the template.",
        priority: 0,
        cell: (o) => templateContainersCells(o["template"]).images,
      },
      {
        name: "Pod Labels",
        type: "string",
        description: "The labels for the pod template.",
        priority: 0,
        cell: (o) => formatLabels(record(record(o["template"])?.["metadata"])?.["labels"]),
      },
    ],
  },
};
