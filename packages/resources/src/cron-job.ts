/**
 * CronJob (`batch/v1`, namespaced, short name `cj`, sub-resource `status`): a Job made on a
 * schedule. The reference's defaults (`concurrencyPolicy` Allow, `suspend` false,
 * `successfulJobsHistoryLimit` 3, `failedJobsHistoryLimit` 1, the job template's pod template as
 * a Pod's), its validation (the cron schedule with the cron library's messages, no `TZ=` or
 * `CRON_TZ=` in it, an IANA `timeZone`, the concurrency policy, the job template without a
 * selector, names of at most 52 characters) and kubectl's columns (SCHEDULE, TIMEZONE, SUSPEND,
 * ACTIVE, LAST SCHEDULE; wide CONTAINERS, IMAGES, SELECTOR).
 * @module
 */
import { FieldPath, invalidField, listType, notSupportedField, requiredField, validateLabels, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { workloadObjectReferenceSchema } from "./internal/workloads-common.js";
import { defaultTemplate, setDefault, specOf } from "./internal/apps-common.js";
import { nonNegative, statusHooks } from "./internal/cluster-rules.js";
import { cronScheduleError, timeZoneMessages } from "./internal/cron-schedule.js";
import { ageOf } from "./internal/duration.js";
import { list, record, str } from "./internal/rules.js";
import { ageColumn, nameColumn } from "./internal/table-columns.js";
import { batchWideColumns, jobSpecSchema, validateJobSpecFields } from "./job.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { int32, int64, named, optionalBoolean, optionalString, time } from "./schema/fields.js";
import { kindSchema, objectMetaSchema } from "./schema/object-meta.js";

/** `JobTemplateSpec`: the metadata and spec of the Jobs a CronJob makes. */
export const jobTemplateSpecSchema = named(
  z
    .object({
      metadata: objectMetaSchema.optional().describe("Standard object's metadata of the jobs created from this template."),
      spec: jobSpecSchema.optional().describe("Specification of the desired behavior of the job."),
    })
    .meta({ description: "JobTemplateSpec describes the data a Job should have when created from a template" }),
  "api.batch.v1.JobTemplateSpec",
);

/** `CronJobSpec`. */
export const cronJobSpecSchema = named(
  z
    .object({
      concurrencyPolicy: optionalString("Specifies how to treat concurrent executions of a Job: Allow (the default), Forbid or Replace."),
      failedJobsHistoryLimit: int32().optional().describe("The number of failed finished jobs to retain. Defaults to 1."),
      jobTemplate: jobTemplateSpecSchema.optional().describe("Specifies the job that will be created when executing a CronJob."),
      schedule: optionalString("The schedule in Cron format."),
      startingDeadlineSeconds: int64().optional().describe("Optional deadline in seconds for starting the job if it misses scheduled time for any reason."),
      successfulJobsHistoryLimit: int32().optional().describe("The number of successful finished jobs to retain. Defaults to 3."),
      suspend: optionalBoolean("This flag tells the controller to suspend subsequent executions. Defaults to false."),
      timeZone: optionalString("The time zone name for the given schedule; defaults to the time zone of the controller."),
    })
    .meta({ description: "CronJobSpec describes how the job execution will look like and when it will actually run.", required: ["schedule", "jobTemplate"] }),
  "api.batch.v1.CronJobSpec",
);

/** `CronJobStatus`. */
export const cronJobStatusSchema = named(
  z
    .object({
      active: listType(z.array(workloadObjectReferenceSchema), "atomic").optional().describe("A list of pointers to currently running jobs."),
      lastScheduleTime: time().optional().describe("Information when was the last time the job was successfully scheduled."),
      lastSuccessfulTime: time().optional().describe("Information when was the last time the job successfully completed."),
    })
    .meta({ description: "CronJobStatus represents the current state of a cron job." }),
  "api.batch.v1.CronJobStatus",
);

/** The zod schema of a CronJob in `batch/v1`. */
export const cronJobV1Schema = kindSchema(
  {
    spec: cronJobSpecSchema.optional().describe("Specification of the desired behavior of a cron job, including the schedule."),
    status: cronJobStatusSchema.optional().describe("Current status of a cron job."),
  },
  "CronJob represents the configuration of a single cron job.",
);

/**
 * The reference's CronJob defaults: `concurrencyPolicy` Allow, `suspend` false,
 * `successfulJobsHistoryLimit` 3, `failedJobsHistoryLimit` 1, and the job template's pod template
 * as a Pod's (the job template's own spec fields stay as written).
 */
export function defaultCronJob(object: APIObject): void {
  const spec = specOf(object);
  setDefault(spec, "concurrencyPolicy", "Allow");
  setDefault(spec, "suspend", false);
  setDefault(spec, "successfulJobsHistoryLimit", 3);
  setDefault(spec, "failedJobsHistoryLimit", 1);
  const jobSpec = record(record(spec["jobTemplate"])?.["spec"]);
  if (jobSpec) defaultTemplate(jobSpec);
}

const concurrencyPolicies = ["Allow", "Forbid", "Replace"];

/**
 * The rules of a CronJob spec. The reference lets an update keep a `TZ` its stored schedule had;
 * since a create refuses one, no stored schedule has it, and updates check as creates do.
 */
function validateCronJobSpec(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const schedule = str(spec["schedule"]);
  const timeZone = spec["timeZone"];
  if (schedule === "") errors.push(requiredField(path.child("schedule")));
  else {
    const parseError = cronScheduleError(schedule);
    if (parseError) errors.push(invalidField(path.child("schedule"), schedule, parseError));
    if (schedule.includes("TZ")) {
      errors.push(invalidField(path.child("schedule"), schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
    }
  }
  errors.push(...nonNegative(spec["startingDeadlineSeconds"], path.child("startingDeadlineSeconds")));
  if (typeof timeZone === "string") {
    for (const m of timeZoneMessages(timeZone)) errors.push(invalidField(path.child("timeZone"), timeZone, m));
  }
  const policy = str(spec["concurrencyPolicy"]);
  if (policy === "") errors.push(requiredField(path.child("concurrencyPolicy")));
  else if (!concurrencyPolicies.includes(policy)) errors.push(notSupportedField(path.child("concurrencyPolicy"), policy, concurrencyPolicies));
  const template = record(spec["jobTemplate"]) ?? {};
  const templatePath = path.child("jobTemplate");
  const templateLabels = record(record(template["metadata"])?.["labels"]);
  if (templateLabels) errors.push(...validateLabels(templateLabels as Record<string, string>, templatePath.child("metadata").child("labels")));
  const jobSpec = record(template["spec"]) ?? {};
  const jobSpecPath = templatePath.child("spec");
  errors.push(...validateJobSpecFields(jobSpec, jobSpecPath, ctx));
  if (jobSpec["selector"] !== undefined) errors.push(invalidField(jobSpecPath.child("selector"), jobSpec["selector"], "`selector` will be auto-generated"));
  if (jobSpec["manualSelector"] === true) errors.push(notSupportedField(jobSpecPath.child("manualSelector"), true, ["nil", "false"]));
  for (const f of ["successfulJobsHistoryLimit", "failedJobsHistoryLimit"]) errors.push(...nonNegative(spec[f], path.child(f)));
  return errors;
}

/**
 * The CronJob rules of a create: the spec's (schedule, time zone, concurrency policy, job
 * template, history limits) and a name of at most 52 characters (the controller appends an
 * 11-character suffix to name its Jobs).
 */
export function validateCronJob(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const errors = validateCronJobSpec(object, ctx);
  const name = object.metadata?.name ?? "";
  if (name.length > 52) errors.push(invalidField("metadata.name", name, "must be no more than 52 characters"));
  return errors;
}

function jobTemplateSpec(object: APIObject): Record<string, unknown> | undefined {
  return record(record(record(object["spec"])?.["jobTemplate"])?.["spec"]);
}

/** The CronJob resource type. */
export const cronJobType: ResourceType = {
  group: "batch",
  resource: "cronjobs",
  singular: "cronjob",
  kind: "CronJob",
  scope: "Namespaced",
  shortNames: ["cj"],
  categories: ["all"],
  subresources: ["status"],
  versions: [{ name: "v1", schema: cronJobV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultCronJob(object),
    ...statusHooks(() => ({})),
    validate: (object, ctx) => validateCronJob(object, ctx),
    tableColumnsComplete: true,
    tableColumns: [
      nameColumn,
      { name: "Schedule", type: "string", description: "The schedule in Cron format.", priority: 0, cell: (o) => str(record(o["spec"])?.["schedule"]) },
      {
        name: "Timezone",
        type: "string",
        description: "The time zone name for the given schedule.",
        priority: 0,
        cell: (o) => {
          const zone = record(o["spec"])?.["timeZone"];
          return typeof zone === "string" ? zone : "<none>";
        },
      },
      {
        name: "Suspend",
        type: "boolean",
        description: "This flag tells the controller to suspend subsequent executions.",
        priority: 0,
        cell: (o) => {
          const suspend = record(o["spec"])?.["suspend"];
          return typeof suspend === "boolean" ? (suspend ? "True" : "False") : "<unset>";
        },
      },
      {
        name: "Active",
        type: "integer",
        description: "A list of pointers to currently running jobs.",
        priority: 0,
        cell: (o) => list(record(o["status"])?.["active"]).length,
      },
      {
        name: "Last Schedule",
        type: "string",
        description: "Information when was the last time the job was successfully scheduled.",
        priority: 0,
        cell: (o, now) => {
          const last = record(o["status"])?.["lastScheduleTime"];
          return typeof last === "string" ? ageOf(last, now ?? Date.now()) : "<none>";
        },
      },
      ageColumn,
      ...batchWideColumns(
        (o) => jobTemplateSpec(o)?.["template"],
        (o) => jobTemplateSpec(o)?.["selector"],
      ),
    ],
  },
};
