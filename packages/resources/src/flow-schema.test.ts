import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultFlowSchema, flowSchemaType, validateFlowSchema } from "./flow-schema.js";

const ctx = { domain: "orch.io", now: 0 };
const user = { kind: "User", user: { name: "*" } };
const resourceRule = { verbs: ["get"], apiGroups: ["*"], resources: ["pods"], namespaces: ["*"] };
const nonResourceRule = { verbs: ["*"], nonResourceURLs: ["/healthz/*"] };
const fs = (spec: Record<string, unknown>, name = "web", status?: Record<string, unknown>): APIObject => ({
  metadata: { name },
  spec: { priorityLevelConfiguration: { name: "workload-low" }, matchingPrecedence: 500, ...spec },
  ...(status ? { status } : {}),
});
const rule = (r: Record<string, unknown>) => fs({ rules: [r] });
const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);
const strategy = flowSchemaType.strategy ?? {};

describe("FlowSchema", () => {
  it("is a cluster-scoped flowcontrol.apiserver.{domain}/v1beta2 kind with a status sub-resource", () => {
    expect(flowSchemaType).toMatchObject({ group: "flowcontrol.apiserver.{domain}", resource: "flowschemas", scope: "Cluster", subresources: ["status"] });
    expect(flowSchemaType.versions.map((v) => v.name)).toEqual(["v1beta2"]);
  });

  it("defaults matchingPrecedence to 1000", () => {
    const object: APIObject = { metadata: { name: "web" }, spec: { priorityLevelConfiguration: { name: "x" } } };
    defaultFlowSchema(object);
    expect(object["spec"]).toMatchObject({ matchingPrecedence: 1000 });
    const zero = fs({ matchingPrecedence: 0 });
    strategy.defaults?.(zero, ctx);
    expect(zero["spec"]).toMatchObject({ matchingPrecedence: 1000 });
  });

  it.each([
    [
      "a valid schema",
      fs({ distinguisherMethod: { type: "ByUser" }, rules: [{ subjects: [user], resourceRules: [resourceRule], nonResourceRules: [nonResourceRule] }] }),
      [],
    ],
    ["no rules at all", fs({}), []],
    [
      "a cluster-scoped rule without namespaces",
      rule({ subjects: [user], resourceRules: [{ verbs: ["*"], apiGroups: [""], resources: ["nodes"], clusterScope: true }] }),
      [],
    ],
    ["matchingPrecedence 1 for the exempt schema", fs({ matchingPrecedence: 1 }, "exempt"), []],
    ["matchingPrecedence 0", fs({ matchingPrecedence: 0 }), [["spec.matchingPrecedence", "FieldValueInvalid"]]],
    ["matchingPrecedence 10001", fs({ matchingPrecedence: 10001 }), [["spec.matchingPrecedence", "FieldValueInvalid"]]],
    ["matchingPrecedence 1 for another schema", fs({ matchingPrecedence: 1 }), [["spec.matchingPrecedence", "FieldValueInvalid"]]],
    ["an unknown distinguisher", fs({ distinguisherMethod: { type: "ByGroup" } }), [["spec.distinguisherMethod.type", "FieldValueNotSupported"]]],
    ["a missing priority level", fs({ priorityLevelConfiguration: {} }), [["spec.priorityLevelConfiguration.name", "FieldValueRequired"]]],
    ["a bad priority level name", fs({ priorityLevelConfiguration: { name: "Bad_Name" } }), [["spec.priorityLevelConfiguration.name", "FieldValueInvalid"]]],
    ["a rule without subjects", rule({ nonResourceRules: [nonResourceRule] }), [["spec.rules[0].subjects", "FieldValueRequired"]]],
    ["a rule without resource or non-resource rules", rule({ subjects: [user] }), [["spec.rules[0]", "FieldValueRequired"]]],
    [
      "an unknown subject kind",
      rule({ subjects: [{ kind: "Robot" }], nonResourceRules: [nonResourceRule] }),
      [["spec.rules[0].subjects[0].kind", "FieldValueNotSupported"]],
    ],
    [
      "a User subject without user",
      rule({ subjects: [{ kind: "User" }], nonResourceRules: [nonResourceRule] }),
      [["spec.rules[0].subjects[0].user", "FieldValueRequired"]],
    ],
    [
      "a Group subject with an empty name",
      rule({ subjects: [{ kind: "Group", group: { name: "" } }], nonResourceRules: [nonResourceRule] }),
      [["spec.rules[0].subjects[0].group.name", "FieldValueRequired"]],
    ],
    [
      "a User subject with a group too",
      rule({ subjects: [{ kind: "User", user: { name: "a" }, group: { name: "g" } }], nonResourceRules: [nonResourceRule] }),
      [["spec.rules[0].subjects[0].group", "FieldValueForbidden"]],
    ],
    [
      "a service account without namespace",
      rule({ subjects: [{ kind: "ServiceAccount", serviceAccount: { name: "*" } }], nonResourceRules: [nonResourceRule] }),
      [["spec.rules[0].subjects[0].serviceAccount.namespace", "FieldValueRequired"]],
    ],
    [
      "a service account with a bad name",
      rule({ subjects: [{ kind: "ServiceAccount", serviceAccount: { name: "A_B", namespace: "ns" } }], nonResourceRules: [nonResourceRule] }),
      [["spec.rules[0].subjects[0].serviceAccount.name", "FieldValueInvalid"]],
    ],
    [
      "a resource rule without verbs",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, verbs: [] }] }),
      [["spec.rules[0].resourceRules[0].verbs", "FieldValueRequired"]],
    ],
    [
      "'*' with other verbs",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, verbs: ["*", "get"] }] }),
      [["spec.rules[0].resourceRules[0].verbs", "FieldValueInvalid"]],
    ],
    [
      "an unknown verb",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, verbs: ["fly"] }] }),
      [["spec.rules[0].resourceRules[0].verbs", "FieldValueNotSupported"]],
    ],
    [
      "a resource rule without apiGroups",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, apiGroups: [] }] }),
      [["spec.rules[0].resourceRules[0].apiGroups", "FieldValueRequired"]],
    ],
    [
      "'*' with other apiGroups",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, apiGroups: ["*", "apps"] }] }),
      [["spec.rules[0].resourceRules[0].apiGroups", "FieldValueInvalid"]],
    ],
    [
      "a resource rule without resources",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, resources: [] }] }),
      [["spec.rules[0].resourceRules[0].resources", "FieldValueRequired"]],
    ],
    [
      "'*' with other resources",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, resources: ["*", "pods"] }] }),
      [["spec.rules[0].resourceRules[0].resources", "FieldValueInvalid"]],
    ],
    [
      "a namespaced rule without namespaces",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, namespaces: [] }] }),
      [["spec.rules[0].resourceRules[0].namespaces", "FieldValueRequired"]],
    ],
    [
      "'*' with other namespaces",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, namespaces: ["*", "a"] }] }),
      [["spec.rules[0].resourceRules[0].namespaces", "FieldValueInvalid"]],
    ],
    [
      "a bad namespace",
      rule({ subjects: [user], resourceRules: [{ ...resourceRule, namespaces: ["a.b"] }] }),
      [["spec.rules[0].resourceRules[0].namespaces[0]", "FieldValueInvalid"]],
    ],
    [
      "a non-resource rule without URLs",
      rule({ subjects: [user], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: [] }] }),
      [["spec.rules[0].nonResourceRules[0].nonResourceURLs", "FieldValueRequired"]],
    ],
    [
      "'*' with other URLs",
      rule({ subjects: [user], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["*", "/a"] }] }),
      [["spec.rules[0].nonResourceRules[0].nonResourceURLs", "FieldValueInvalid"]],
    ],
    [
      "a URL without a leading slash",
      rule({ subjects: [user], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["healthz"] }] }),
      [["spec.rules[0].nonResourceRules[0].nonResourceURLs[0]", "FieldValueInvalid"]],
    ],
    [
      "a URL with a middle wildcard",
      rule({ subjects: [user], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/a/*/b"] }] }),
      [["spec.rules[0].nonResourceRules[0].nonResourceURLs[0]", "FieldValueInvalid"]],
    ],
    [
      "a non-resource rule without verbs",
      rule({ subjects: [user], nonResourceRules: [{ nonResourceURLs: ["/a"] }] }),
      [["spec.rules[0].nonResourceRules[0].verbs", "FieldValueRequired"]],
    ],
    [
      "duplicate condition types",
      fs({}, "web", { conditions: [{ type: "Dangling" }, { type: "Dangling" }] }),
      [["status.conditions[1].type", "FieldValueDuplicate"]],
    ],
    ["an empty condition type", fs({}, "web", { conditions: [{ status: "True" }] }), [["status.conditions[0].type", "FieldValueRequired"]]],
  ])("validates %s", (_what, object, expected) => {
    expect(causes(validateFlowSchema(object))).toEqual(expected);
  });

  it("prints the reference's messages", () => {
    expect(validateFlowSchema(fs({ matchingPrecedence: 1 }))[0]?.detail).toBe("only the schema named 'exempt' may have matchingPrecedence 1");
    expect(validateFlowSchema(rule({ subjects: [user] }))[0]?.detail).toBe("at least one of resourceRules and nonResourceRules has to be non-empty");
    expect(validateFlowSchema(rule({ subjects: [user], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/a/*/b"] }] }))[0]?.detail).toBe(
      "wildcard can only do suffix glob matching",
    );
  });

  it("resets status on create and keeps it on spec writes", () => {
    const object = fs({}, "web", { conditions: [{ type: "Dangling", status: "True" }] });
    strategy.prepareForCreate?.(object, ctx);
    expect(object["status"]).toEqual({});
    const old = fs({}, "web", { conditions: [{ type: "Dangling", status: "False" }] });
    const next = fs({ matchingPrecedence: 600 }, "web", {});
    strategy.prepareForUpdate?.(next, old, ctx);
    expect(next["status"]).toEqual(old["status"]);
  });

  it("prints PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD MISSINGPL", () => {
    const columns = strategy.tableColumns ?? [];
    expect(columns.map((c) => c.name)).toEqual(["PriorityLevel", "MatchingPrecedence", "DistinguisherMethod", "MissingPL"]);
    expect(columns.map((c) => c.cell(fs({ distinguisherMethod: { type: "ByUser" } }, "web", { conditions: [{ type: "Dangling", status: "False" }] })))).toEqual(
      ["workload-low", "500", "ByUser", "False"],
    );
    expect(columns.map((c) => c.cell(fs({})))).toEqual(["workload-low", "500", "<none>", "?"]);
  });
});
