import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { cronJobType, defaultCronJob, validateCronJob } from "./cron-job.js";
import { cronScheduleError, timeZoneMessages } from "./internal/cron-schedule.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);

function cronJob(spec: Record<string, unknown> = {}, name = "tick"): APIObject {
  const object: APIObject = {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name, namespace: "ns" },
    spec: {
      schedule: "*/5 * * * *",
      jobTemplate: { spec: { template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "i" }] } } } },
      ...spec,
    },
  };
  defaultCronJob(object);
  return object;
}

describe("CronJob", () => {
  it("is a namespaced batch/v1 kind with status and short name cj", () => {
    expect(cronJobType).toMatchObject({ group: "batch", resource: "cronjobs", shortNames: ["cj"], subresources: ["status"] });
  });

  it("defaults the policy, suspend and history limits, and the job template's pod template only", () => {
    const spec = cronJob()["spec"] as Record<string, unknown>;
    expect(spec).toMatchObject({ concurrencyPolicy: "Allow", suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(spec["jobTemplate"]).toMatchObject({ spec: { template: { spec: { dnsPolicy: "ClusterFirst" } } } });
    expect((spec["jobTemplate"] as { spec: Record<string, unknown> }).spec).not.toHaveProperty("backoffLimit");
    expect(validateCronJob(cronJob())).toEqual([]);
  });

  it("refuses TZ in the schedule, unknown zones and long names", () => {
    expect(causes(validateCronJob(cronJob({ schedule: "CRON_TZ=UTC 0 * * * *" })))).toEqual([
      ["spec.schedule", "FieldValueInvalid", "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"],
    ]);
    expect(causes(validateCronJob(cronJob({ timeZone: "Local" })))).toEqual([
      ["spec.timeZone", "FieldValueInvalid", "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"],
    ]);
    expect(causes(validateCronJob(cronJob({}, "x".repeat(53))))).toEqual([["metadata.name", "FieldValueInvalid", "must be no more than 52 characters"]]);
  });

  it("refuses a selector or a manual selector in the job template", () => {
    const object = cronJob({
      jobTemplate: { spec: { manualSelector: true, template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "i" }] } } } },
    });
    expect(causes(validateCronJob(object))).toEqual([["spec.jobTemplate.spec.manualSelector", "FieldValueNotSupported", 'supported values: "nil", "false"']]);
  });
});

describe("cron schedules", () => {
  it.each(["* * * * *", "0 0 1 1 *", "*/15 9-17 * * mon-fri", "0 12 * JAN,jul SUN", "5 4 ? * *", "0-59/10 * * * *", "@hourly", "@every 1h30m", "@annually"])(
    "accepts %s",
    (schedule) => expect(cronScheduleError(schedule)).toBeUndefined(),
  );

  it.each([
    ["", "empty spec string"],
    ["* * *", "expected exactly 5 fields, found 3: [* * *]"],
    ["* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"],
    ["60 * * * *", "end of range (60) above maximum (59): 60"],
    ["* 24 * * *", "end of range (24) above maximum (23): 24"],
    ["* * 0 * *", "beginning of range (0) below minimum (1): 0"],
    ["* * * * 7", "end of range (7) above maximum (6): 7"],
    ["5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"],
    ["*/0 * * * *", "step of range should be a positive number: */0"],
    ["1-2-3 * * * *", "too many hyphens: 1-2-3"],
    ["*/2/3 * * * *", "too many slashes: */2/3"],
    ["x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ["@weekdays", "unrecognized descriptor: @weekdays"],
    ["@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"'],
  ])("refuses %j: %s", (schedule, message) => expect(cronScheduleError(schedule)).toBe(message));

  it("checks time zones as the IANA database names them", () => {
    expect(timeZoneMessages("America/New_York")).toEqual([]);
    expect(timeZoneMessages("Etc/UTC")).toEqual([]);
    expect(timeZoneMessages("america/new_york")).toEqual(["unknown time zone america/new_york"]);
    expect(timeZoneMessages("Mars/Olympus_Mons")).toEqual(["unknown time zone Mars/Olympus_Mons"]);
    expect(timeZoneMessages("../etc/passwd")).toEqual(["unknown time zone ../etc/passwd"]);
    expect(timeZoneMessages("")).toEqual(["timeZone must be nil or non-empty string"]);
  });
});
