import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { runtimeClassType, validateRuntimeClass, validateRuntimeClassUpdate } from "./runtime-class.js";
import { decodeObject } from "./validate.js";

const rc = (fields: Record<string, unknown>): APIObject => ({ metadata: { name: "gvisor" }, handler: "runsc", ...fields });
const tol = (...tolerations: Record<string, unknown>[]) => rc({ scheduling: { tolerations } });
const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

describe("RuntimeClass", () => {
  it("is a cluster-scoped node.{domain}/v1 kind", () => {
    expect(runtimeClassType).toMatchObject({ group: "node.{domain}", resource: "runtimeclasses", scope: "Cluster", kind: "RuntimeClass" });
  });

  it("decodes overhead quantities to their canonical form and refuses a malformed one", () => {
    const decoded = decodeObject(runtimeClassType, "v1", rc({ overhead: { podFixed: { cpu: "0.25", memory: 1024 } } }));
    expect(decoded["overhead"]).toEqual({ podFixed: { cpu: "250m", memory: "1024" } });
    expect(() => decodeObject(runtimeClassType, "v1", rc({ overhead: { podFixed: { cpu: "lots" } } }))).toThrow();
  });

  it.each([
    [
      "a valid class",
      rc({
        overhead: { podFixed: { cpu: "250m", memory: "64Mi" } },
        scheduling: {
          nodeSelector: { "runtime/gvisor": "yes" },
          tolerations: [{ key: "k", operator: "Equal", value: "v", effect: "NoExecute", tolerationSeconds: 30 }],
        },
      }),
      [],
    ],
    ["a match-all toleration", tol({ operator: "Exists" }), []],
    ["a missing handler", rc({ handler: undefined }), [["handler", "FieldValueRequired"]]],
    ["a handler that is not a DNS label", rc({ handler: "Run.SC" }), [["handler", "FieldValueInvalid"]]],
    ["a negative overhead", rc({ overhead: { podFixed: { memory: "-1" } } }), [["overhead.podFixed[memory]", "FieldValueInvalid"]]],
    ["a non-standard overhead resource", rc({ overhead: { podFixed: { gpus: "1" } } }), [["overhead.podFixed[gpus]", "FieldValueInvalid"]]],
    ["a bad node selector key", rc({ scheduling: { nodeSelector: { "a b": "c" } } }), [["scheduling.nodeSelector", "FieldValueInvalid"]]],
    ["an empty key with Equal", tol({ operator: "Equal" }), [["scheduling.tolerations[0].operator", "FieldValueInvalid"]]],
    ["an unknown operator", tol({ key: "k", operator: "In" }), [["scheduling.tolerations[0].operator", "FieldValueNotSupported"]]],
    ["a value with Exists", tol({ key: "k", operator: "Exists", value: "v" }), [["scheduling.tolerations[0].operator", "FieldValueInvalid"]]],
    ["a value that is no label value", tol({ key: "k", value: "a b" }), [["scheduling.tolerations[0].operator", "FieldValueInvalid"]]],
    ["an unknown effect", tol({ key: "k", effect: "Evict" }), [["scheduling.tolerations[0].effect", "FieldValueNotSupported"]]],
    [
      "tolerationSeconds without NoExecute",
      tol({ key: "k", effect: "NoSchedule", tolerationSeconds: 5 }),
      [["scheduling.tolerations[0].effect", "FieldValueInvalid"]],
    ],
    ["a bad toleration key", tol({ key: "a b", operator: "Exists" }), [["scheduling.tolerations[0].key", "FieldValueInvalid"]]],
    [
      "a duplicate toleration",
      tol({ key: "k", operator: "Exists" }, { key: "k", operator: "Exists", tolerationSeconds: 1, effect: "" }),
      [
        ["scheduling.tolerations[1].effect", "FieldValueInvalid"],
        ["scheduling.tolerations[1]", "FieldValueDuplicate"],
      ],
    ],
  ])("validates %s", (_what, object, expected) => {
    expect(causes(validateRuntimeClass(object))).toEqual(expected);
  });

  it("prints the reference's toleration messages", () => {
    expect(validateRuntimeClass(tol({ operator: "Equal" }))[0]?.detail).toBe(
      'operator must be Exists when `key` is empty, which means "match all values and all keys"',
    );
    expect(validateRuntimeClass(tol({ key: "k", effect: "NoSchedule", tolerationSeconds: 5 }))[0]?.detail).toBe(
      "effect must be 'NoExecute' when `tolerationSeconds` is set",
    );
    expect(validateRuntimeClass(tol({ key: "k", operator: "Exists", value: "v" }))[0]?.detail).toBe("value must be empty when `operator` is 'Exists'");
  });

  it("freezes the handler", () => {
    expect(validateRuntimeClassUpdate(rc({ scheduling: { nodeSelector: { a: "b" } } }), rc({}))).toEqual([]);
    expect(causes(validateRuntimeClassUpdate(rc({ handler: "kata" }), rc({})))).toEqual([["handler", "FieldValueInvalid"]]);
  });

  it("prints HANDLER", () => {
    const columns = runtimeClassType.strategy?.tableColumns ?? [];
    expect(columns.map((c) => [c.name, c.cell(rc({}))])).toEqual([["Handler", "runsc"]]);
  });
});
