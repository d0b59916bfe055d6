/**
 * Job (`batch/v1`, namespaced, sub-resource `status`): pods that run to completion. The
 * reference's defaults (`completions` and `parallelism` 1 when both are unset, `backoffLimit` 6,
 * `completionMode` NonIndexed, `suspend` and `manualSelector` false, `podReplacementPolicy`
 * TerminatingOrFailed, the pod template's defaults), the generated selector (the
 * `batch.<domain>/controller-uid` label, with the legacy `controller-uid` and `job-name` labels
 * and their `batch.<domain>/` kin on the template) unless `manualSelector`, its validation (a
 * restart policy of `Never` or `OnFailure`, the selector matching the template, immutable
 * selector, template and completion mode), the `status.successful` field selector and kubectl's
 * columns (STATUS, COMPLETIONS, DURATION; wide CONTAINERS, IMAGES, SELECTOR).
 * @module
 */
import {
  FieldPath,
  invalidField,
  labelSelectorFromObject,
  listType,
  notSupportedField,
  parseTime,
  patchStrategy,
  requiredField,
  validateLabels,
  type APIObject,
  type FieldError,
  type LabelSelectorObject,
} from "@orch/meta";
import { z } from "zod";
import { childObject, defaultTemplate, podTemplateSpecSchema, setDefault, specOf, workloadLabelSelectorSchema } from "./internal/apps-common.js";
import { nonNegative, statusHooks } from "./internal/cluster-rules.js";
import { humanDuration } from "./internal/duration.js";
import { jsonEqual, list, record, str } from "./internal/rules.js";
import { ageColumn, nameColumn } from "./internal/table-columns.js";
import { validatePod } from "./pod.js";
import type { ResourceType, StrategyContext, TableColumn } from "./resource-type.js";
import { atomicStrings, int32, int64, named, optionalBoolean, optionalString, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `PodFailurePolicyOnExitCodesRequirement`. */
const onExitCodesSchema = named(
  z
    .object({
      containerName: optionalString("Restricts the check for exit codes to the container with the specified name."),
      operator: optionalString("Represents the relationship between the container exit code(s) and the specified values: In or NotIn."),
      values: listType(z.array(int32()), "set").optional().describe("Specifies the set of values."),
    })
    .meta({ description: "PodFailurePolicyOnExitCodesRequirement describes the requirement for handling a failed pod based on its container exit codes." }),
  "api.batch.v1.PodFailurePolicyOnExitCodesRequirement",
);

/** `PodFailurePolicyOnPodConditionsPattern`. */
const onPodConditionsSchema = named(
  z
    .object({
      status: optionalString("Specifies the required Pod condition status. Defaults to True."),
      type: optionalString("Specifies the required Pod condition type."),
    })
    .meta({ description: "PodFailurePolicyOnPodConditionsPattern describes a pattern for matching an actual pod condition type." }),
  "api.batch.v1.PodFailurePolicyOnPodConditionsPattern",
);

/** `PodFailurePolicy`. */
export const podFailurePolicySchema = named(
  z
    .object({
      rules: listType(
        z.array(
          named(
            z
              .object({
                action: optionalString("Specifies the action taken on a pod failure when the requirements are satisfied."),
                onExitCodes: onExitCodesSchema.optional().describe("Represents the requirement on the container exit codes."),
                onPodConditions: listType(z.array(onPodConditionsSchema), "atomic").optional().describe("Represents the requirement on the pod conditions."),
              })
              .meta({ description: "PodFailurePolicyRule describes how a pod failure is handled when the requirements are met." }),
            "api.batch.v1.PodFailurePolicyRule",
          ),
        ),
        "atomic",
      )
        .optional()
        .describe("A list of pod failure policy rules. The rules are evaluated in order."),
    })
    .meta({ description: "PodFailurePolicy describes how failed pods influence the backoffLimit.", required: ["rules"] }),
  "api.batch.v1.PodFailurePolicy",
);

/** `SuccessPolicy`. */
export const successPolicySchema = named(
  z
    .object({
      rules: listType(
        z.array(
          named(
            z
              .object({
                succeededCount: int32().optional().describe("The minimal required size of the actual set of the succeeded indexes for the Job."),
                succeededIndexes: optionalString("The set of indexes which need to be contained in the actual set of the succeeded indexes for the Job."),
              })
              .meta({ description: "SuccessPolicyRule describes rule for declaring a Job as succeeded." }),
            "api.batch.v1.SuccessPolicyRule",
          ),
        ),
        "atomic",
      )
        .optional()
        .describe("The rules represent the alternative rules for declaring the Jobs as successful."),
    })
    .meta({ description: "SuccessPolicy describes when a Job can be declared as succeeded based on the success of some indexes.", required: ["rules"] }),
  "api.batch.v1.SuccessPolicy",
);

/** `JobSpec`. */
export const jobSpecSchema = named(
  z
    .object({
      activeDeadlineSeconds: int64().optional().describe("The duration in seconds relative to the startTime that the job may be continuously active."),
      backoffLimit: int32().optional().describe("The number of retries before marking this job failed. Defaults to 6."),
      backoffLimitPerIndex: int32().optional().describe("The limit for the number of retries within an index before marking this index as failed."),
      completionMode: optionalString("How Pod completions are tracked: NonIndexed (the default) or Indexed."),
      completions: int32().optional().describe("The desired number of successfully finished pods the job should be run with."),
      managedBy: optionalString("The controller which manages the Job."),
      manualSelector: optionalBoolean("Controls generation of pod labels and pod selectors. Leave unset unless you are certain what you are doing."),
      maxFailedIndexes: int32().optional().describe("The maximal number of failed indexes before marking the Job as failed."),
      parallelism: int32().optional().describe("The maximum desired number of pods the job should run at any given time."),
      podFailurePolicy: podFailurePolicySchema.optional().describe("The policy of handling failed pods."),
      podReplacementPolicy: optionalString("When to create replacement Pods: TerminatingOrFailed (the default) or Failed."),
      selector: workloadLabelSelectorSchema.optional().describe("A label query over pods that should match the pod count."),
      successPolicy: successPolicySchema.optional().describe("The policy of when the Job can be declared as succeeded."),
      suspend: optionalBoolean("Whether the Job controller should create Pods or not. Defaults to false."),
      template: podTemplateSpecSchema.optional().describe("Describes the pod that will be created when executing a job."),
      ttlSecondsAfterFinished: int32().optional().describe("Limits the lifetime of a Job that has finished execution."),
    })
    .meta({ description: "JobSpec describes how the job execution will look like.", required: ["template"] }),
  "api.batch.v1.JobSpec",
);

/** `JobCondition`. */
const jobConditionSchema = named(
  z
    .object({
      lastProbeTime: time().optional().describe("Last time the condition was checked."),
      lastTransitionTime: time().optional().describe("Last time the condition transit from one status to another."),
      message: optionalString("Human readable message indicating details about last transition."),
      reason: optionalString("(brief) reason for the condition's last transition."),
      status: optionalString("Status of the condition, one of True, False, Unknown."),
      type: optionalString("Type of job condition, Complete or Failed."),
    })
    .meta({ description: "JobCondition describes current state of a job.", required: ["type", "status"] }),
  "api.batch.v1.JobCondition",
);

/** `JobStatus`. */
export const jobStatusSchema = named(
  z
    .object({
      active: int32().optional().describe("The number of pending and running pods which are not terminating."),
      completedIndexes: optionalString("The completed indexes when .spec.completionMode = Indexed in a text format."),
      completionTime: time().optional().describe("Represents time when the job was completed."),
      conditions: patchStrategy(listType(z.array(jobConditionSchema), "atomic"), "merge", "type")
        .optional()
        .describe("The latest available observations of an object's current state."),
      failed: int32().optional().describe("The number of pods which reached phase Failed."),
      failedIndexes: optionalString("The failed indexes when spec.backoffLimitPerIndex is set."),
      ready: int32().optional().describe("The number of active pods which have a Ready condition and are not terminating."),
      startTime: time().optional().describe("Represents time when the job controller started processing a job."),
      succeeded: int32().optional().describe("The number of pods which reached phase Succeeded."),
      terminating: int32().optional().describe("The number of pods which are terminating."),
      uncountedTerminatedPods: named(
        z
          .object({
            failed: listType(atomicStrings("UIDs of failed Pods."), "set").optional(),
            succeeded: listType(atomicStrings("UIDs of succeeded Pods."), "set").optional(),
          })
          .meta({ description: "UncountedTerminatedPods holds UIDs of Pods that have terminated but haven't been accounted in Job status counters." }),
        "api.batch.v1.UncountedTerminatedPods",
      )
        .optional()
        .describe("The UIDs of Pods that have terminated but the job controller hasn't yet accounted for in the status counters."),
    })
    .meta({ description: "JobStatus represents the current state of a Job." }),
  "api.batch.v1.JobStatus",
);

/** The zod schema of a Job in `batch/v1`. */
export const jobV1Schema = kindSchema(
  {
    spec: jobSpecSchema.optional().describe("Specification of the desired behavior of a job."),
    status: jobStatusSchema.optional().describe("Current status of a job."),
  },
  "Job represents the configuration of a single job.",
);

/** The legacy label of a Job's pods that carries the Job's uid. */
export const legacyControllerUidLabel = "controller-uid";
/** The legacy label of a Job's pods that carries the Job's name. */
export const legacyJobNameLabel = "job-name";
/** The label of a Job's pods that carries the Job's uid: `batch.<domain>/controller-uid`. */
export function controllerUidLabel(domain: string): string {
  return `batch.${batchLabelDomain(domain)}/controller-uid`;
}
/** The label of a Job's pods that carries the Job's name: `batch.<domain>/job-name`. */
export function jobNameLabel(domain: string): string {
  return `batch.${batchLabelDomain(domain)}/job-name`;
}

// The reference's labels live under `kubernetes.io`, the product domain of `k8s.io`.
function batchLabelDomain(domain: string): string {
  return domain === "k8s.io" ? "kubernetes.io" : domain;
}

/**
 * The spec defaults of a Job (shared with a CronJob's job template): `completions` and
 * `parallelism` 1 when both are unset, `parallelism` 1, `backoffLimit` 6 (the int32 maximum with
 * `backoffLimitPerIndex`), `completionMode` NonIndexed, `suspend` false, `manualSelector` false,
 * `podReplacementPolicy` TerminatingOrFailed (Failed with a `podFailurePolicy`), a
 * `podFailurePolicy` pod-condition status True, and the pod template's defaults.
 */
export function defaultJobSpec(spec: Record<string, unknown>): void {
  if (spec["completions"] === undefined && spec["parallelism"] === undefined) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  setDefault(spec, "parallelism", 1);
  setDefault(spec, "backoffLimit", spec["backoffLimitPerIndex"] !== undefined ? 2147483647 : 6);
  setDefault(spec, "completionMode", "NonIndexed");
  setDefault(spec, "suspend", false);
  setDefault(spec, "manualSelector", false);
  const failurePolicy = record(spec["podFailurePolicy"]);
  setDefault(spec, "podReplacementPolicy", failurePolicy ? "Failed" : "TerminatingOrFailed");
  for (const rule of list(failurePolicy?.["rules"])) {
    for (const pattern of list(record(rule)?.["onPodConditions"])) {
      const p = record(pattern);
      if (p) setDefault(p, "status", "True");
    }
  }
  defaultTemplate(spec);
}

/**
 * The reference's Job defaults: the spec's ({@link defaultJobSpec}), and the Job's labels taken
 * from the template's when the Job has none.
 */
export function defaultJob(object: APIObject): void {
  const spec = specOf(object);
  defaultJobSpec(spec);
  copyTemplateLabels(object);
}

function copyTemplateLabels(object: APIObject): void {
  const labels = record(record(record(record(object["spec"])?.["template"])?.["metadata"])?.["labels"]) as Record<string, string> | undefined;
  if (labels && Object.keys(labels).length > 0 && Object.keys(object.metadata?.labels ?? {}).length === 0) {
    object.metadata = { ...object.metadata, labels: { ...labels } };
  }
}

/**
 * The selector a create generates unless `spec.manualSelector` is true: the template gets the
 * legacy `job-name` and `controller-uid` labels and their `batch.<domain>/` kin (unless set), and
 * `spec.selector.matchLabels` gets `batch.<domain>/controller-uid` (the Job's uid). The Job's
 * labels are then the template's when it has none, as a read back of the stored Job shows them.
 */
export function generateJobSelector(object: APIObject, domain: string): void {
  const spec = specOf(object);
  if (spec["manualSelector"] === true) return;
  const name = object.metadata?.name ?? "";
  const uid = object.metadata?.uid ?? "";
  const template = childObject(spec, "template");
  const meta = childObject(template, "metadata");
  const labels = childObject(meta, "labels");
  for (const key of [legacyJobNameLabel, jobNameLabel(domain)]) setDefault(labels, key, name);
  for (const key of [legacyControllerUidLabel, controllerUidLabel(domain)]) setDefault(labels, key, uid);
  const selector = childObject(spec, "selector");
  const matchLabels = childObject(selector, "matchLabels");
  setDefault(matchLabels, controllerUidLabel(domain), uid);
  copyTemplateLabels(object);
}

/** `must be 'value'` or required, as the reference's `ValidateHasLabel`. */
function validateHasLabel(labels: Record<string, unknown>, path: FieldPath, key: string, expected: string): FieldError[] {
  const at = path.child("labels").key(key);
  if (!(key in labels)) return [requiredField(at, expected)];
  if (labels[key] !== expected) return [invalidField(at, labels, `must be '${expected}'`)];
  return [];
}

/**
 * The rules of a Job's pod template at `path` (`spec.template`, or a CronJob's
 * `spec.jobTemplate.spec.template`): required, its labels, its Pod spec (errors under the
 * template's `spec`), and a restart policy of `OnFailure` or `Never`.
 */
export function validateJobTemplate(template: Record<string, unknown> | undefined, path: FieldPath, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  if (!template) return [requiredField(path)];
  const errors: FieldError[] = [];
  const labels = (record(record(template["metadata"])?.["labels"]) ?? {}) as Record<string, string>;
  errors.push(...validateLabels(labels, path.child("metadata").child("labels")));
  const prefix = `${path.toString()}.`;
  for (const e of validatePod(template as APIObject, ctx)) errors.push({ ...e, field: `${prefix}${e.field}` });
  const restart = str(record(template["spec"])?.["restartPolicy"]);
  if (restart !== "OnFailure" && restart !== "Never") {
    errors.push(notSupportedField(path.child("spec").child("restartPolicy"), restart, ["OnFailure", "Never"]));
  }
  return errors;
}

const completionModes = ["NonIndexed", "Indexed"];
const podReplacementPolicies = ["TerminatingOrFailed", "Failed"];

/**
 * The rules of a Job spec at `path` that a CronJob's job template shares: non-negative
 * `parallelism`, `completions`, `activeDeadlineSeconds`, `backoffLimit` and
 * `ttlSecondsAfterFinished`; the completion mode (Indexed needs `completions`); the pod
 * replacement policy; and the template ({@link validateJobTemplate}).
 */
export function validateJobSpecFields(spec: Record<string, unknown>, path: FieldPath, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const errors: FieldError[] = [];
  for (const f of [
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "backoffLimitPerIndex",
    "maxFailedIndexes",
  ]) {
    errors.push(...nonNegative(spec[f], path.child(f)));
  }
  const mode = spec["completionMode"];
  if (typeof mode === "string" && !completionModes.includes(mode)) errors.push(notSupportedField(path.child("completionMode"), mode, completionModes));
  if (mode === "Indexed" && spec["completions"] === undefined) {
    errors.push(requiredField(path.child("completions"), "when completion mode is Indexed"));
  }
  const replacement = spec["podReplacementPolicy"];
  if (typeof replacement === "string" && !podReplacementPolicies.includes(replacement)) {
    errors.push(notSupportedField(path.child("podReplacementPolicy"), replacement, podReplacementPolicies));
  }
  errors.push(...validateJobTemplate(record(spec["template"]), path.child("template"), ctx));
  return errors;
}

/**
 * The Job rules: the spec's (`validateJobSpecFields`); `spec.selector` required, valid and
 * matching the template's labels; and, unless `manualSelector`, the generated labels on the
 * template (`batch.<domain>/controller-uid`, `controller-uid`, `batch.<domain>/job-name`,
 * `job-name`) and a selector that selects them (`` `selector` not auto-generated ``).
 */
export function validateJob(object: APIObject, ctx: Pick<StrategyContext, "domain"> = { domain: "orch.io" }): FieldError[] {
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const errors: FieldError[] = [];
  const selectorObject = record(spec["selector"]);
  const templateMeta = record(record(spec["template"])?.["metadata"]) ?? {};
  const templateLabels = (record(templateMeta["labels"]) ?? {}) as Record<string, string>;
  if (spec["manualSelector"] !== true && selectorObject) {
    const uid = object.metadata?.uid ?? "";
    const name = object.metadata?.name ?? "";
    if (uid === "") errors.push(requiredField("metadata.uid"));
    const metaPath = path.child("template").child("metadata");
    errors.push(...validateHasLabel(templateLabels, metaPath, legacyControllerUidLabel, uid));
    errors.push(...validateHasLabel(templateLabels, metaPath, legacyJobNameLabel, name));
    errors.push(...validateHasLabel(templateLabels, metaPath, controllerUidLabel(ctx.domain), uid));
    errors.push(...validateHasLabel(templateLabels, metaPath, jobNameLabel(ctx.domain), name));
    const expected = {
      [controllerUidLabel(ctx.domain)]: uid,
      [jobNameLabel(ctx.domain)]: name,
      [legacyControllerUidLabel]: uid,
      [legacyJobNameLabel]: name,
    };
    const parsed = labelSelectorFromObject(selectorObject as unknown as LabelSelectorObject);
    if (parsed.ok && !parsed.selector.matches(expected)) errors.push(invalidField(path.child("selector"), selectorObject, "`selector` not auto-generated"));
  }
  errors.push(...validateJobSpecFields(spec, path, ctx));
  if (!selectorObject) errors.push(requiredField(path.child("selector")));
  else {
    const parsed = labelSelectorFromObject(selectorObject as unknown as LabelSelectorObject, path.child("selector"));
    if (!parsed.ok) errors.push(...parsed.errors);
    else if (spec["template"] !== undefined && !parsed.selector.matches(templateLabels)) {
      errors.push(invalidField(path.child("template").child("metadata").child("labels"), templateLabels, "`selector` does not match template `labels`"));
    }
  }
  return errors;
}

/** `field is immutable` when `next` and `old` differ as JSON values (key order aside). */
function immutable(next: unknown, old: unknown, path: FieldPath): FieldError[] {
  return jsonEqual(next, old) ? [] : [invalidField(path, next, "field is immutable")];
}

/** The pod spec fields of a Job's template that may change while it is suspended and has never started. */
const schedulingDirectives = ["affinity", "nodeSelector", "tolerations", "schedulingGates"];

/**
 * The rules a Job update adds: `spec.selector`, `spec.template` and `spec.completionMode` are
 * immutable (but the template's scheduling directives, `affinity`, `nodeSelector`, `tolerations`
 * and `schedulingGates`, of a suspended Job that never started); `spec.completions` too, but for
 * an Indexed Job that keeps it equal to `parallelism` (an elastic Indexed Job).
 */
export function validateJobUpdate(object: APIObject, old: APIObject): FieldError[] {
  const spec = record(object["spec"]) ?? {};
  const oldSpec = record(old["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const errors: FieldError[] = [];
  const elastic = spec["completionMode"] === "Indexed" && spec["completions"] === spec["parallelism"] && oldSpec["completions"] === oldSpec["parallelism"];
  if (!elastic) errors.push(...immutable(spec["completions"], oldSpec["completions"], path.child("completions")));
  errors.push(...immutable(spec["selector"], oldSpec["selector"], path.child("selector")));
  let oldTemplate = oldSpec["template"];
  const neverStarted = record(old["status"])?.["startTime"] === undefined;
  const newPodSpec = record(record(spec["template"])?.["spec"]);
  if (oldSpec["suspend"] === true && neverStarted && record(oldTemplate) && newPodSpec) {
    const copy = structuredClone(record(oldTemplate) ?? {});
    const podSpec = childObject(copy, "spec");
    for (const f of schedulingDirectives) {
      if (newPodSpec[f] === undefined) delete podSpec[f];
      else podSpec[f] = newPodSpec[f];
    }
    oldTemplate = copy;
  }
  errors.push(...immutable(spec["template"], oldTemplate, path.child("template")));
  errors.push(...immutable(spec["completionMode"], oldSpec["completionMode"], path.child("completionMode")));
  return errors;
}

/** The rules of a write to a Job's `/status`: non-negative counters. */
export function validateJobStatus(object: APIObject): FieldError[] {
  const status = record(object["status"]) ?? {};
  const path = FieldPath.root("status");
  const errors: FieldError[] = [];
  for (const f of ["active", "succeeded", "failed", "ready", "terminating"]) errors.push(...nonNegative(status[f], path.child(f)));
  return errors;
}

function hasCondition(object: APIObject, type: string): boolean {
  return list(record(object["status"])?.["conditions"]).some((c) => record(c)?.["type"] === type && record(c)?.["status"] === "True");
}

/** The STATUS cell of a Job as kubectl prints it (Complete, Failed, Terminating, Suspended, Running, ...). */
export function jobStatusCell(object: APIObject): string {
  if (hasCondition(object, "Complete")) return "Complete";
  if (hasCondition(object, "Failed")) return "Failed";
  if (object.metadata?.deletionTimestamp) return "Terminating";
  if (hasCondition(object, "SuccessCriteriaMet")) return "SuccessCriteriaMet";
  if (hasCondition(object, "FailureTarget")) return "FailureTarget";
  if (hasCondition(object, "Suspended")) return "Suspended";
  return "Running";
}

/** The COMPLETIONS cell: `succeeded/completions`, or `succeeded/1 of parallelism` without completions. */
export function jobCompletionsCell(object: APIObject): string {
  const spec = record(object["spec"]) ?? {};
  const status = record(object["status"]) ?? {};
  const succeeded = typeof status["succeeded"] === "number" ? status["succeeded"] : 0;
  if (typeof spec["completions"] === "number") return `${succeeded}/${spec["completions"]}`;
  const parallelism = typeof spec["parallelism"] === "number" ? spec["parallelism"] : 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** The DURATION cell: from `startTime` to `completionTime` (or to now), empty before the start. */
export function jobDurationCell(object: APIObject, now: number): string {
  const status = record(object["status"]) ?? {};
  const start = str(status["startTime"]);
  if (start === "") return "";
  try {
    const completion = str(status["completionTime"]);
    return humanDuration((completion === "" ? now : parseTime(completion)) - parseTime(start));
  } catch {
    return "";
  }
}

/** The containers of a pod template as the wide columns show them: names and images, comma-joined. */
export function templateContainersCells(template: unknown): { names: string; images: string } {
  const containers = list(record(record(template)?.["spec"])?.["containers"]).map((c) => record(c) ?? {});
  return { names: containers.map((c) => str(c["name"])).join(","), images: containers.map((c) => str(c["image"])).join(",") };
}

/** A LabelSelector object as kubectl prints it (`<none>` when unset, `<invalid>` when unreadable). */
export function selectorCell(selector: unknown): string {
  const s = record(selector);
  if (!s) return "<none>";
  const parsed = labelSelectorFromObject(s as unknown as LabelSelectorObject);
  if (!parsed.ok) return "<invalid>";
  const text = parsed.selector.toString();
  return text === "" ? "<none>" : text;
}

/** The wide columns of the batch kinds: Containers, Images and Selector of `template` and `selector`. */
export function batchWideColumns(template: (o: APIObject) => unknown, selector: (o: APIObject) => unknown): TableColumn[] {
  return [
    {
      name: "Containers",
      type: "string",
      description: "Names of each container in the template.",
      priority: 1,
      cell: (o) => templateContainersCells(template(o)).names,
    },
    {
      name: "Images",
      type: "string",
      description: "Images referenced by each container in the template.",
      priority: 1,
      cell: (o) => templateContainersCells(template(o)).images,
    },
    {
      name: "Selector",
      type: "string",
      description: "Query over pods that should match the replicas count.",
      priority: 1,
      cell: (o) => selectorCell(selector(o)),
    },
  ];
}

/** The Job resource type. */
export const jobType: ResourceType = {
  group: "batch",
  resource: "jobs",
  singular: "job",
  kind: "Job",
  scope: "Namespaced",
  categories: ["all"],
  subresources: ["status"],
  versions: [{ name: "v1", schema: jobV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultJob(object),
    ...statusHooks(() => ({})),
    prepareForCreate(object, ctx) {
      object["status"] = {};
      generateJobSelector(object, ctx.domain);
    },
    validate: (object, ctx) => validateJob(object, ctx),
    validateUpdate: (object, old) => validateJobUpdate(object, old),
    validateStatusUpdate: (object) => validateJobStatus(object),
    selectableFields: (object) => {
      const succeeded = record(object["status"])?.["succeeded"];
      return { "status.successful": String(typeof succeeded === "number" ? succeeded : 0) };
    },
    selectableFieldNames: ["status.successful"],
    tableColumnsComplete: true,
    tableColumns: [
      nameColumn,
      { name: "Status", type: "string", description: "Status of the job.", priority: 0, cell: (o) => jobStatusCell(o) },
      {
        name: "Completions",
        type: "string",
        description: "The number of pods which reached phase Succeeded.",
        priority: 0,
        cell: (o) => jobCompletionsCell(o),
      },
      {
        name: "Duration",
        type: "string",
        description: "Time required to complete the job.",
        priority: 0,
        cell: (o, now) => jobDurationCell(o, now ?? Date.now()),
      },
      ageColumn,
      ...batchWideColumns(
        (o) => record(o["spec"])?.["template"],
        (o) => record(o["spec"])?.["selector"],
      ),
    ],
  },
};
