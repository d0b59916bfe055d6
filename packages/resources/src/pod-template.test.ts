import { FieldPath, formatFieldError, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultPodTemplate, formatLabels, podTemplateType, validatePodTemplate, validatePodTemplateSpec } from "./pod-template.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

describe("PodTemplate", () => {
  it("is a core v1 kind whose table has no age", () => {
    expect(podTemplateType).toMatchObject({ group: "", resource: "podtemplates", kind: "PodTemplate", scope: "Namespaced" });
    expect(podTemplateType.strategy?.tableColumns?.map((c) => c.name)).toEqual(["Name", "Containers", "Images", "Pod Labels"]);
  });

  it("defaults and validates the template as a pod, with any restart policy", () => {
    const object: APIObject = {
      apiVersion: "v1",
      kind: "PodTemplate",
      metadata: { name: "t" },
      template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "i" }] } },
    };
    defaultPodTemplate(object);
    expect(object["template"]).toMatchObject({ spec: { restartPolicy: "Never", dnsPolicy: "ClusterFirst" } });
    expect(validatePodTemplate(object)).toEqual([]);
    const imageless = structuredClone(object);
    delete (imageless as unknown as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec.containers[0]?.["image"];
    expect(causes(validatePodTemplate(imageless))).toEqual([["template.spec.containers[0].image", "FieldValueRequired"]]);
  });

  it("formats labels sorted by key", () => {
    expect(formatLabels({ b: "2", a: "1" })).toBe("a=1,b=2");
    expect(formatLabels(undefined)).toBe("<none>");
  });
});

describe("validatePodTemplateSpec and ephemeral containers", () => {
  it("refuses them in a template, as the reference", () => {
    const template = {
      metadata: { labels: { app: "x" } },
      spec: { containers: [{ name: "a", image: "x" }], ephemeralContainers: [{ name: "d", image: "busybox" }] },
    };
    const messages = validatePodTemplateSpec(template, FieldPath.root("template")).map(formatFieldError);
    expect(messages).toContain("template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template");
  });
});
