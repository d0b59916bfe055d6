import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultPriorityClass, priorityClassType, refuseSystemClassDeletion, validatePriorityClass, validatePriorityClassUpdate } from "./priority-class.js";

const pc = (fields: Record<string, unknown>, name = "high"): APIObject => ({ metadata: { name }, ...fields });
const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

describe("PriorityClass", () => {
  it("is a cluster-scoped scheduling.{domain}/v1 kind with short name pc", () => {
    expect(priorityClassType).toMatchObject({ group: "scheduling.{domain}", resource: "priorityclasses", scope: "Cluster", shortNames: ["pc"] });
  });

  it("defaults preemptionPolicy to PreemptLowerPriority and keeps Never", () => {
    const object = pc({ value: 10 });
    defaultPriorityClass(object);
    expect(object["preemptionPolicy"]).toBe("PreemptLowerPriority");
    const never = pc({ value: 10, preemptionPolicy: "Never" });
    defaultPriorityClass(never);
    expect(never["preemptionPolicy"]).toBe("Never");
  });

  it.each([
    ["a valid class", pc({ value: 1000, globalDefault: true, preemptionPolicy: "Never" }), []],
    ["the highest user value", pc({ value: 1_000_000_000 }), []],
    ["a missing value", pc({}), [["value", "FieldValueRequired"]]],
    ["a user value above one billion", pc({ value: 1_000_000_001 }), [["value", "FieldValueForbidden"]]],
    ["an unknown preemptionPolicy", pc({ value: 1, preemptionPolicy: "Sometimes" }), [["preemptionPolicy", "FieldValueNotSupported"]]],
    ["an empty preemptionPolicy", pc({ value: 1, preemptionPolicy: "" }), [["preemptionPolicy", "FieldValueRequired"]]],
    ["the system-node-critical class", pc({ value: 2_000_001_000 }, "system-node-critical"), []],
    ["an unknown system- name", pc({ value: 1 }, "system-mine"), [["metadata.name", "FieldValueForbidden"]]],
    ["a system class with a wrong value", pc({ value: 5 }, "system-cluster-critical"), [["metadata.name", "FieldValueForbidden"]]],
    [
      "a system class as global default",
      pc({ value: 2_000_000_000, globalDefault: true }, "system-cluster-critical"),
      [["metadata.name", "FieldValueForbidden"]],
    ],
  ])("validates %s", (_what, object, expected) => {
    expect(causes(validatePriorityClass(object))).toEqual(expected);
  });

  it("prints the reference's messages", () => {
    expect(validatePriorityClass(pc({ value: 1 }, "system-mine"))[0]?.detail).toBe(
      "priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    );
    expect(validatePriorityClass(pc({ value: 2e9 + 1 }))[0]?.detail).toBe("maximum allowed value of a user defined priority is 1000000000");
  });

  it("freezes value and preemptionPolicy but not description or globalDefault", () => {
    const old = pc({ value: 10, preemptionPolicy: "PreemptLowerPriority" });
    expect(validatePriorityClassUpdate(pc({ value: 10, preemptionPolicy: "PreemptLowerPriority", description: "d", globalDefault: true }), old)).toEqual([]);
    const errors = validatePriorityClassUpdate(pc({ value: 11, preemptionPolicy: "Never" }), old);
    expect(causes(errors)).toEqual([
      ["value", "FieldValueForbidden"],
      ["preemptionPolicy", "FieldValueInvalid"],
    ]);
    expect(errors.map((e) => e.detail)).toEqual(["may not be changed in an update.", "field is immutable"]);
  });

  it("prints VALUE and GLOBAL-DEFAULT", () => {
    const columns = priorityClassType.strategy?.tableColumns ?? [];
    expect(columns.map((c) => c.name)).toEqual(["Value", "Global-Default"]);
    expect(columns.map((c) => c.cell(pc({ value: 7, globalDefault: true })))).toEqual([7, true]);
    expect(columns[1]?.cell(pc({ value: 7 }))).toBe(false);
  });
});

describe("refuseSystemClassDeletion", () => {
  it("refuses the system classes with 403, as the reference, and lets others go", () => {
    const named = (name: string) => ({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name } }) as APIObject;
    expect(() => refuseSystemClassDeletion(named("system-node-critical"), "k8s.io")).toThrow(
      'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted',
    );
    expect(() => refuseSystemClassDeletion(named("system-cluster-critical"), "orch.io")).toThrow(/forbidden/);
    expect(() => refuseSystemClassDeletion(named("high"), "orch.io")).not.toThrow();
  });
});
