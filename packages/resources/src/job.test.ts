import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultJob, generateJobSelector, jobCompletionsCell, jobDurationCell, jobStatusCell, jobType, validateJob, validateJobUpdate } from "./job.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

/** A created Job `pi` (uid `u1`): defaulted, with its selector generated. */
function job(spec: Record<string, unknown> = {}, domain = "orch.io"): APIObject {
  const object: APIObject = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "pi", namespace: "ns", uid: "u1" },
    spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "pi", image: "perl" }] } }, ...spec },
  };
  defaultJob(object);
  generateJobSelector(object, domain);
  return object;
}

describe("Job", () => {
  it("is a namespaced batch/v1 kind with status", () => {
    expect(jobType).toMatchObject({ group: "batch", resource: "jobs", kind: "Job", scope: "Namespaced", subresources: ["status"], categories: ["all"] });
  });

  it("defaults completions and parallelism together, backoffLimit, modes and the template", () => {
    expect(job()["spec"]).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: "NonIndexed",
      suspend: false,
      manualSelector: false,
      podReplacementPolicy: "TerminatingOrFailed",
      template: { spec: { dnsPolicy: "ClusterFirst" } },
    });
    // parallelism alone leaves completions unset
    expect(job({ parallelism: 3 })["spec"]).not.toHaveProperty("completions");
    expect(job({ backoffLimitPerIndex: 1, completionMode: "Indexed", completions: 2 })["spec"]).toMatchObject({ backoffLimit: 2147483647 });
  });

  it("generates the selector and the template's labels from the uid and the name", () => {
    const object = job();
    expect(object["spec"]).toMatchObject({
      selector: { matchLabels: { "batch.orch.io/controller-uid": "u1" } },
      template: { metadata: { labels: { "controller-uid": "u1", "batch.orch.io/controller-uid": "u1", "job-name": "pi", "batch.orch.io/job-name": "pi" } } },
    });
    expect(object.metadata.labels).toMatchObject({ "job-name": "pi" });
    expect(validateJob(object)).toEqual([]);
    expect(job({}, "k8s.io")["spec"]).toMatchObject({ selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u1" } } });
  });

  it("keeps a manual selector, which must match the template", () => {
    const object = job({ manualSelector: true, selector: { matchLabels: { app: "x" } } });
    expect(object["spec"]).toMatchObject({ selector: { matchLabels: { app: "x" } } });
    expect(causes(validateJob(object))).toEqual([["spec.template.metadata.labels", "FieldValueInvalid"]]);
  });

  it("refuses a generated label the user changed", () => {
    const object = job({
      template: { metadata: { labels: { "job-name": "other" } }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "i" }] } },
    });
    expect(causes(validateJob(object))).toEqual([["spec.template.metadata.labels[job-name]", "FieldValueInvalid"]]);
  });

  it("requires a restart policy of Never or OnFailure", () => {
    const object = job({ template: { spec: { containers: [{ name: "c", image: "i" }] } } });
    expect(causes(validateJob(object))).toEqual([["spec.template.spec.restartPolicy", "FieldValueNotSupported"]]);
  });

  it("requires completions for an Indexed job", () => {
    expect(causes(validateJob(job({ completionMode: "Indexed", parallelism: 2 })))).toEqual([["spec.completions", "FieldValueRequired"]]);
  });

  it("keeps the template, selector and completions on update, but for an elastic Indexed job", () => {
    const old = job();
    const next = structuredClone(old);
    (next["spec"] as Record<string, unknown>)["completions"] = 2;
    (next["spec"] as Record<string, unknown>)["selector"] = { matchLabels: { a: "b" } };
    expect(causes(validateJobUpdate(next, old))).toEqual([
      ["spec.completions", "FieldValueInvalid"],
      ["spec.selector", "FieldValueInvalid"],
    ]);
    const indexed = job({ completionMode: "Indexed", completions: 2, parallelism: 2 });
    const scaled = structuredClone(indexed);
    Object.assign(scaled["spec"] as Record<string, unknown>, { completions: 4, parallelism: 4 });
    expect(validateJobUpdate(scaled, indexed)).toEqual([]);
  });

  it("lets a suspended job that never started change its template's scheduling directives only", () => {
    const old = job({ suspend: true });
    const next = structuredClone(old);
    const podSpec = ((next["spec"] as Record<string, unknown>)["template"] as { spec: Record<string, unknown> }).spec;
    podSpec["nodeSelector"] = { zone: "a" };
    podSpec["tolerations"] = [{ key: "k", operator: "Exists" }];
    expect(validateJobUpdate(next, old)).toEqual([]);
    expect(causes(validateJobUpdate(next, { ...old, status: { startTime: "2026-01-01T00:00:00Z" } }))).toEqual([["spec.template", "FieldValueInvalid"]]);
    podSpec["restartPolicy"] = "OnFailure";
    expect(causes(validateJobUpdate(next, old))).toEqual([["spec.template", "FieldValueInvalid"]]);
  });

  it("selects by status.successful", () => {
    const object = job();
    object["status"] = { succeeded: 2 };
    expect(jobType.strategy?.selectableFields?.(object)).toEqual({ "status.successful": "2" });
  });

  it("prints status, completions and duration as kubectl does", () => {
    const object = job({ parallelism: 3, completions: undefined });
    delete (object["spec"] as Record<string, unknown>)["completions"];
    object["status"] = {
      succeeded: 1,
      startTime: "2026-01-01T00:00:00Z",
      completionTime: "2026-01-01T00:01:05Z",
      conditions: [{ type: "Complete", status: "True" }],
    };
    expect(jobStatusCell(object)).toBe("Complete");
    expect(jobCompletionsCell(object)).toBe("1/1 of 3");
    expect(jobDurationCell(object, 0)).toBe("65s");
    expect(jobCompletionsCell(job())).toBe("0/1");
    expect(jobStatusCell(job({ suspend: true }))).toBe("Running");
  });
});
