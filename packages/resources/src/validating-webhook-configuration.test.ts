import { formatFieldError, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { matchConditionsAnnotation } from "./internal/access-webhook.js";
import {
  validateValidatingWebhookConfiguration,
  validateValidatingWebhookConfigurationUpdate,
  validatingWebhookConfigurationType,
  validatingWebhookConfigurationV1Schema,
} from "./validating-webhook-configuration.js";

const ctx = { domain: "orch.io", now: Date.UTC(2026, 10, 21) };
const v1 = validatingWebhookConfigurationType.versions.find((v) => v.name === "v1");
const v1beta1 = validatingWebhookConfigurationType.versions.find((v) => v.name === "v1beta1");

const hook = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: "check.example.com",
  clientConfig: { service: { namespace: "default", name: "hooks", port: 443 } },
  rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], scope: "*" }],
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  failurePolicy: "Fail",
  matchPolicy: "Equivalent",
  timeoutSeconds: 10,
  ...fields,
});
const config = (...webhooks: Record<string, unknown>[]): APIObject => ({
  apiVersion: "admissionregistration.orch.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: "c" },
  webhooks,
});
const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

describe("ValidatingWebhookConfiguration", () => {
  it("is a cluster-scoped admissionregistration kind served in v1 (storage) and v1beta1 (deprecated)", () => {
    expect(validatingWebhookConfigurationType).toMatchObject({
      group: "admissionregistration.{domain}",
      resource: "validatingwebhookconfigurations",
      kind: "ValidatingWebhookConfiguration",
      scope: "Cluster",
      categories: ["api-extensions"],
    });
    expect(v1).toMatchObject({ storage: true });
    expect(v1beta1).toMatchObject({ storage: false, deprecated: true });
  });

  it("accepts a complete webhook", () => {
    expect(validateValidatingWebhookConfiguration(config(hook()))).toEqual([]);
    expect(validateValidatingWebhookConfiguration(config(hook({ clientConfig: { url: "https://hooks.example.com:8443/check" } })))).toEqual([]);
  });

  it.each([
    ["an empty name", { name: "" }, [["webhooks[0].name", "FieldValueRequired"]]],
    ["a name of two segments", { name: "example.com" }, [["webhooks[0].name", "FieldValueInvalid"]]],
    ["a name that is not a subdomain", { name: "Check.example.com" }, [["webhooks[0].name", "FieldValueInvalid"]]],
    ["no operations", { rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] }, [["webhooks[0].rules[0].operations", "FieldValueRequired"]]],
    [
      "an unknown operation",
      { rules: [{ operations: ["PATCH"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] },
      [["webhooks[0].rules[0].operations[0]", "FieldValueNotSupported"]],
    ],
    [
      "* with other operations",
      { rules: [{ operations: ["*", "CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] },
      [["webhooks[0].rules[0].operations", "FieldValueInvalid"]],
    ],
    [
      "no apiGroups",
      { rules: [{ operations: ["CREATE"], apiVersions: ["v1"], resources: ["pods"] }] },
      [["webhooks[0].rules[0].apiGroups", "FieldValueRequired"]],
    ],
    [
      "* with other apiGroups",
      { rules: [{ operations: ["CREATE"], apiGroups: ["*", "apps"], apiVersions: ["v1"], resources: ["pods"] }] },
      [["webhooks[0].rules[0].apiGroups", "FieldValueInvalid"]],
    ],
    [
      "no apiVersions",
      { rules: [{ operations: ["CREATE"], apiGroups: [""], resources: ["pods"] }] },
      [["webhooks[0].rules[0].apiVersions", "FieldValueRequired"]],
    ],
    [
      "an empty apiVersion",
      { rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: [""], resources: ["pods"] }] },
      [["webhooks[0].rules[0].apiVersions[0]", "FieldValueRequired"]],
    ],
    ["no resources", { rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"] }] }, [["webhooks[0].rules[0].resources", "FieldValueRequired"]]],
    [
      "*/* with other resources",
      { rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["*/*", "pods"] }] },
      [["webhooks[0].rules[0].resources", "FieldValueInvalid"]],
    ],
    [
      "pods/* then pods/status",
      { rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/*", "pods/status"] }] },
      [["webhooks[0].rules[0].resources[1]", "FieldValueInvalid"]],
    ],
    [
      "an unknown scope",
      { rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], scope: "Global" }] },
      [["webhooks[0].rules[0].scope", "FieldValueNotSupported"]],
    ],
    ["an unknown failurePolicy", { failurePolicy: "Retry" }, [["webhooks[0].failurePolicy", "FieldValueNotSupported"]]],
    ["an unknown matchPolicy", { matchPolicy: "Fuzzy" }, [["webhooks[0].matchPolicy", "FieldValueNotSupported"]]],
    ["no sideEffects", { sideEffects: undefined }, [["webhooks[0].sideEffects", "FieldValueRequired"]]],
    ["sideEffects Unknown in v1", { sideEffects: "Unknown" }, [["webhooks[0].sideEffects", "FieldValueNotSupported"]]],
    ["a timeout of 0", { timeoutSeconds: 0 }, [["webhooks[0].timeoutSeconds", "FieldValueInvalid"]]],
    ["a timeout of 31", { timeoutSeconds: 31 }, [["webhooks[0].timeoutSeconds", "FieldValueInvalid"]]],
    [
      "a bad namespaceSelector operator",
      { namespaceSelector: { matchExpressions: [{ key: "env", operator: "Is", values: ["x"] }] } },
      [["webhooks[0].namespaceSelector.matchExpressions[0].operator", "FieldValueInvalid"]],
    ],
    [
      "an objectSelector In without values",
      { objectSelector: { matchExpressions: [{ key: "env", operator: "In" }] } },
      [["webhooks[0].objectSelector.matchExpressions[0].values", "FieldValueRequired"]],
    ],
    ["neither url nor service", { clientConfig: {} }, [["webhooks[0].clientConfig", "FieldValueRequired"]]],
    [
      "both url and service",
      { clientConfig: { url: "https://a.example.com", service: { namespace: "n", name: "s" } } },
      [["webhooks[0].clientConfig", "FieldValueRequired"]],
    ],
    ["an http url", { clientConfig: { url: "http://a.example.com/x" } }, [["webhooks[0].clientConfig.url", "FieldValueInvalid"]]],
    ["a url with a query", { clientConfig: { url: "https://a.example.com/x?y=1" } }, [["webhooks[0].clientConfig.url", "FieldValueInvalid"]]],
    ["a url with a fragment", { clientConfig: { url: "https://a.example.com/x#f" } }, [["webhooks[0].clientConfig.url", "FieldValueInvalid"]]],
    ["a url with a user", { clientConfig: { url: "https://me@a.example.com/x" } }, [["webhooks[0].clientConfig.url", "FieldValueInvalid"]]],
    ["a service without a name", { clientConfig: { service: { namespace: "n" } } }, [["webhooks[0].clientConfig.service.name", "FieldValueRequired"]]],
    ["a service without a namespace", { clientConfig: { service: { name: "s" } } }, [["webhooks[0].clientConfig.service.namespace", "FieldValueRequired"]]],
    [
      "a service port of 0",
      { clientConfig: { service: { namespace: "n", name: "s", port: 0 } } },
      [["webhooks[0].clientConfig.service.port", "FieldValueInvalid"]],
    ],
    [
      "a service path without /",
      { clientConfig: { service: { namespace: "n", name: "s", path: "check" } } },
      [["webhooks[0].clientConfig.service.path", "FieldValueInvalid"]],
    ],
    ["no admissionReviewVersions", { admissionReviewVersions: [] }, [["webhooks[0].admissionReviewVersions", "FieldValueRequired"]]],
    ["only unknown admissionReviewVersions", { admissionReviewVersions: ["v2"] }, [["webhooks[0].admissionReviewVersions", "FieldValueInvalid"]]],
    ["a duplicate admissionReviewVersion", { admissionReviewVersions: ["v1", "v1"] }, [["webhooks[0].admissionReviewVersions[1]", "FieldValueInvalid"]]],
    [
      "an admissionReviewVersion that is not a DNS-1035 label",
      { admissionReviewVersions: ["v1", "1v"] },
      [["webhooks[0].admissionReviewVersions[1]", "FieldValueInvalid"]],
    ],
    [
      "a duplicate match condition",
      {
        matchConditions: [
          { name: "a", expression: "true" },
          { name: "a", expression: "true" },
        ],
      },
      [["webhooks[0].matchConditions[1].name", "FieldValueDuplicate"]],
    ],
    ["a match condition without expression", { matchConditions: [{ name: "a" }] }, [["webhooks[0].matchConditions[0].expression", "FieldValueRequired"]]],
    [
      "65 match conditions",
      { matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: "true" })) },
      [["webhooks[0].matchConditions", "FieldValueTooMany"]],
    ],
  ])("refuses %s", (_what, fields, expected) => {
    const h = hook(fields);
    for (const [k, v] of Object.entries(h)) if (v === undefined) delete h[k];
    expect(errorsOf(validateValidatingWebhookConfiguration(config(h)))).toEqual(expected);
  });

  it("prints the reference's messages", () => {
    const errors = validateValidatingWebhookConfiguration(
      config(hook({ name: "example.com", timeoutSeconds: 31, clientConfig: { url: "http://a.example.com" } })),
    );
    expect(errors.map(formatFieldError)).toEqual([
      'webhooks[0].name: Invalid value: "example.com": should be a domain with at least three segments separated by dots',
      "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
      "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    ]);
  });

  it("refuses two webhooks of one name", () => {
    expect(errorsOf(validateValidatingWebhookConfiguration(config(hook(), hook())))).toEqual([["webhooks[1].name", "FieldValueDuplicate"]]);
  });

  it("defaults v1 webhooks: Fail, Equivalent, 10 seconds, empty selectors, scope *, port 443", () => {
    const object = config({
      name: "check.example.com",
      clientConfig: { service: { namespace: "n", name: "s" } },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
    });
    v1?.defaults?.(object, ctx);
    expect(object["webhooks"]).toEqual([
      {
        name: "check.example.com",
        clientConfig: { service: { namespace: "n", name: "s", port: 443 } },
        rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], scope: "*" }],
        failurePolicy: "Fail",
        matchPolicy: "Equivalent",
        namespaceSelector: {},
        objectSelector: {},
        timeoutSeconds: 10,
      },
    ]);
  });

  it("defaults v1beta1 webhooks: Ignore, Exact, Unknown side effects, 30 seconds, review version v1beta1", () => {
    const object = config({ name: "check.example.com", clientConfig: { url: "https://a.example.com" } });
    v1beta1?.defaults?.(object, ctx);
    expect(object["webhooks"]).toEqual([
      {
        name: "check.example.com",
        clientConfig: { url: "https://a.example.com" },
        failurePolicy: "Ignore",
        matchPolicy: "Exact",
        namespaceSelector: {},
        objectSelector: {},
        sideEffects: "Unknown",
        timeoutSeconds: 30,
        admissionReviewVersions: ["v1beta1"],
      },
    ]);
  });

  it("validates a create through v1beta1 by v1beta1's rules (side effects Unknown allowed)", () => {
    const object: APIObject = {
      ...config({ name: "check.example.com", clientConfig: { url: "https://a.example.com" } }),
      apiVersion: "admissionregistration.orch.io/v1beta1",
    };
    v1beta1?.defaults?.(object, ctx);
    const stored = v1beta1?.toStorage?.(object) as APIObject;
    expect(stored.apiVersion).toBe("admissionregistration.orch.io/v1");
    expect(validateValidatingWebhookConfiguration(stored)).toEqual([]);
    expect(errorsOf(validateValidatingWebhookConfiguration(structuredClone(stored)))).toEqual([["webhooks[0].sideEffects", "FieldValueNotSupported"]]);
  });

  it("relaxes the side-effect and name rules on update when the old object already broke them", () => {
    const old = config(hook({ sideEffects: "Unknown" }), hook({ sideEffects: "Unknown" }));
    expect(validateValidatingWebhookConfigurationUpdate(structuredClone(old), old)).toEqual([]);
    expect(errorsOf(validateValidatingWebhookConfigurationUpdate(config(hook({ sideEffects: "Some" })), config(hook())))).toEqual([
      ["webhooks[0].sideEffects", "FieldValueNotSupported"],
    ]);
  });

  it("runs the create rules only on creates (updates carry a resourceVersion and get the relaxed rules)", () => {
    const old = config(hook({ sideEffects: "Unknown" }));
    const next = { ...structuredClone(old), metadata: { name: "c", resourceVersion: "5" } };
    expect(validatingWebhookConfigurationType.strategy?.validate?.(next, ctx)).toEqual([]);
    expect(validatingWebhookConfigurationType.strategy?.validateUpdate?.(next, old, ctx)).toEqual([]);
    expect(validatingWebhookConfigurationType.strategy?.validate?.(old, ctx)).toHaveLength(1);
  });

  it("round-trips v1-only matchConditions through v1beta1 in an annotation", () => {
    const stored = config(hook({ matchConditions: [{ name: "not-kube", expression: "true" }] }));
    const beta = v1beta1?.fromStorage?.(stored) as APIObject;
    expect(beta.apiVersion).toBe("admissionregistration.orch.io/v1beta1");
    expect((beta["webhooks"] as Record<string, unknown>[])[0]).not.toHaveProperty("matchConditions");
    expect(beta.metadata.annotations?.[matchConditionsAnnotation("orch.io")]).toBe('{"check.example.com":[{"name":"not-kube","expression":"true"}]}');
    expect(v1beta1?.toStorage?.(beta)).toEqual(stored);
  });

  it("keeps the domain of the apiVersion in conversion", () => {
    const stored = { ...config(hook()), apiVersion: "admissionregistration.k8s.io/v1" };
    expect(v1beta1?.fromStorage?.(stored).apiVersion).toBe("admissionregistration.k8s.io/v1beta1");
  });

  it("marks webhooks a map list keyed by name and parses a complete object", () => {
    const parsed = validatingWebhookConfigurationV1Schema.parse(config(hook({ clientConfig: { caBundle: "AAEC", url: "https://a.example.com" } })));
    expect(parsed.webhooks?.[0]?.name).toBe("check.example.com");
  });

  it("shows the number of webhooks in the Webhooks column", () => {
    const column = validatingWebhookConfigurationType.strategy?.tableColumns?.[0];
    expect(column?.name).toBe("Webhooks");
    expect(column?.cell(config(hook(), hook({ name: "b.example.com" })))).toBe(2);
  });
});
