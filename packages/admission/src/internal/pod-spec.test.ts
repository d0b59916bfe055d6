import { describe, expect, it } from "vitest";
import { ensurePodSpec, podContainers, podSpecOf, podTemplateOf } from "./pod-spec.js";

describe("podContainers", () => {
  it("lists init, regular and ephemeral containers with their paths", () => {
    const spec = {
      containers: [{ name: "a", securityContext: { privileged: true } }, { name: "b" }],
      initContainers: [{ name: "i" }],
      ephemeralContainers: [{ name: "e" }, "junk"],
    };
    expect(podContainers(spec).map((c) => [c.name, c.list, c.index, c.path, c.securityContext])).toEqual([
      ["i", "initContainers", 0, "spec.initContainers[0]", undefined],
      ["a", "containers", 0, "spec.containers[0]", { privileged: true }],
      ["b", "containers", 1, "spec.containers[1]", undefined],
      ["e", "ephemeralContainers", 0, "spec.ephemeralContainers[0]", undefined],
    ]);
    expect(podContainers(spec, "spec.template.spec")[0]?.path).toBe("spec.template.spec.initContainers[0]");
    expect(podContainers(undefined)).toEqual([]);
  });

  it("hands out the containers themselves, not copies", () => {
    const spec = { containers: [{ name: "a" }] };
    expect(podContainers(spec)[0]?.container).toBe(spec.containers[0]);
  });
});

describe("podTemplateOf", () => {
  it("finds the template of each workload form", () => {
    const template = { spec: { containers: [] } };
    expect(podTemplateOf({ spec: { template } }, "Deployment")).toEqual({ template, path: "spec.template" });
    expect(podTemplateOf({ template }, "PodTemplate")).toEqual({ template, path: "template" });
    expect(podTemplateOf({ spec: { jobTemplate: { spec: { template } } } }, "CronJob")).toEqual({ template, path: "spec.jobTemplate.spec.template" });
    expect(podTemplateOf({ spec: {} }, "ReplicationController")).toBeUndefined();
  });
});

describe("podSpecOf and ensurePodSpec", () => {
  it("reads the spec without changing the pod", () => {
    const pod: Record<string, unknown> = { metadata: {} };
    expect(podSpecOf(pod)).toBeUndefined();
    expect(podSpecOf(undefined)).toBeUndefined();
    expect(pod).toEqual({ metadata: {} });
  });

  it("creates a missing spec on the pod, and hands out an existing one itself", () => {
    const pod: Record<string, unknown> = { metadata: {} };
    const created = ensurePodSpec(pod);
    created["priority"] = 1;
    expect(pod["spec"]).toEqual({ priority: 1 });
    expect(ensurePodSpec(pod)).toBe(created);
  });
});
