import { mergeMarkersOf, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  mutatingWebhookConfigurationType,
  mutatingWebhookConfigurationV1beta1Schema,
  mutatingWebhookConfigurationV1Schema,
  validateMutatingWebhookConfiguration,
  validateMutatingWebhookConfigurationUpdate,
} from "./mutating-webhook-configuration.js";

const ctx = { domain: "orch.io", now: 0 };
const v1 = mutatingWebhookConfigurationType.versions.find((v) => v.name === "v1");
const v1beta1 = mutatingWebhookConfigurationType.versions.find((v) => v.name === "v1beta1");

const hook = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: "inject.example.com",
  clientConfig: { url: "https://hooks.example.com/inject" },
  rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments", "deployments/scale"] }],
  sideEffects: "NoneOnDryRun",
  admissionReviewVersions: ["v1", "v1beta1"],
  ...fields,
});
const config = (...webhooks: Record<string, unknown>[]): APIObject => ({ metadata: { name: "m" }, webhooks });
const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

describe("MutatingWebhookConfiguration", () => {
  it("is a cluster-scoped admissionregistration kind served in v1 (storage) and v1beta1 (deprecated)", () => {
    expect(mutatingWebhookConfigurationType).toMatchObject({
      group: "admissionregistration.{domain}",
      resource: "mutatingwebhookconfigurations",
      singular: "mutatingwebhookconfiguration",
      kind: "MutatingWebhookConfiguration",
      scope: "Cluster",
    });
    expect(v1).toMatchObject({ storage: true });
    expect(v1beta1).toMatchObject({ storage: false, deprecated: true });
    expect(v1beta1?.toStorage).toBeTypeOf("function");
    expect(v1beta1?.fromStorage).toBeTypeOf("function");
  });

  it("marks webhooks a map list keyed by name, merged by name", () => {
    for (const schema of [mutatingWebhookConfigurationV1Schema, mutatingWebhookConfigurationV1beta1Schema]) {
      expect(mergeMarkersOf(schema.shape.webhooks)).toEqual({ listType: "map", listMapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name" });
    }
    const webhook = mutatingWebhookConfigurationV1Schema.shape.webhooks.unwrap().element;
    expect(mergeMarkersOf(webhook.shape.rules)).toEqual({ listType: "atomic" });
    const matchConditions = "matchConditions" in webhook.shape ? webhook.shape.matchConditions : undefined;
    expect(matchConditions && mergeMarkersOf(matchConditions)).toMatchObject({ listType: "map", listMapKeys: ["name"] });
    expect(mergeMarkersOf(webhook.shape.namespaceSelector)).toEqual({ structType: "atomic" });
    expect(mutatingWebhookConfigurationV1beta1Schema.shape.webhooks.unwrap().element.shape).not.toHaveProperty("matchConditions");
  });

  it("accepts a complete webhook", () => {
    expect(validateMutatingWebhookConfiguration(config(hook({ reinvocationPolicy: "IfNeeded" })))).toEqual([]);
  });

  it.each([
    ["an unknown reinvocationPolicy", { reinvocationPolicy: "Always" }, [["webhooks[0].reinvocationPolicy", "FieldValueNotSupported"]]],
    ["sideEffects Some in v1", { sideEffects: "Some" }, [["webhooks[0].sideEffects", "FieldValueNotSupported"]]],
    ["a name of one segment", { name: "inject" }, [["webhooks[0].name", "FieldValueInvalid"]]],
    ["a url without host", { clientConfig: { url: "https:///inject" } }, [["webhooks[0].clientConfig.url", "FieldValueInvalid"]]],
    ["a timeout of 60", { timeoutSeconds: 60 }, [["webhooks[0].timeoutSeconds", "FieldValueInvalid"]]],
  ])("refuses %s", (_what, fields, expected) => {
    expect(errorsOf(validateMutatingWebhookConfiguration(config(hook(fields))))).toEqual(expected);
  });

  it("defaults reinvocationPolicy to Never in both versions, with each version's other defaults", () => {
    const a = config({ name: "inject.example.com" });
    v1?.defaults?.(a, ctx);
    expect(a["webhooks"]).toEqual([
      {
        name: "inject.example.com",
        failurePolicy: "Fail",
        matchPolicy: "Equivalent",
        namespaceSelector: {},
        objectSelector: {},
        timeoutSeconds: 10,
        reinvocationPolicy: "Never",
      },
    ]);
    const b = config({ name: "inject.example.com", reinvocationPolicy: "IfNeeded" });
    v1beta1?.defaults?.(b, ctx);
    expect(b["webhooks"]).toEqual([
      {
        name: "inject.example.com",
        failurePolicy: "Ignore",
        matchPolicy: "Exact",
        namespaceSelector: {},
        objectSelector: {},
        sideEffects: "Unknown",
        timeoutSeconds: 30,
        admissionReviewVersions: ["v1beta1"],
        reinvocationPolicy: "IfNeeded",
      },
    ]);
  });

  it("round-trips between the versions without loss", () => {
    const stored: APIObject = {
      apiVersion: "admissionregistration.orch.io/v1",
      kind: "MutatingWebhookConfiguration",
      ...config(hook({ reinvocationPolicy: "IfNeeded" })),
    };
    const beta = v1beta1?.fromStorage?.(stored) as APIObject;
    expect(beta.apiVersion).toBe("admissionregistration.orch.io/v1beta1");
    expect(v1beta1?.toStorage?.(beta)).toEqual(stored);
  });

  it("validates updates with the relaxed rules", () => {
    const old = config(hook({ sideEffects: "Unknown", admissionReviewVersions: ["v9"] }));
    expect(validateMutatingWebhookConfigurationUpdate(config(hook({ sideEffects: "Some", admissionReviewVersions: ["v9"] })), old)).toEqual([]);
  });
});
