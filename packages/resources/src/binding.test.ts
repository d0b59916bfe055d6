import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { bindingType, validateBinding } from "./binding.js";

const binding = (target: Record<string, unknown>): APIObject => ({ metadata: { name: "p", namespace: "ns" }, target });

describe("Binding", () => {
  it("is a create-only core v1 kind acting on the pod's binding sub-resource", () => {
    expect(bindingType).toMatchObject({
      group: "",
      resource: "bindings",
      kind: "Binding",
      scope: "Namespaced",
      verbs: ["create"],
      actionOn: { resource: "pods", action: "binding" },
    });
  });

  it.each([
    ["a node target", { kind: "Node", name: "n1" }, []],
    ["a target without kind", { name: "n1" }, []],
    ["a target without name", { kind: "Node" }, [{ field: "target.name", type: "FieldValueRequired" }]],
    ["a target of another kind", { kind: "Pod", name: "x" }, [{ field: "target.kind", type: "FieldValueNotSupported" }]],
  ])("validates %s", (_what, target, expected) => {
    expect(validateBinding(binding(target)).map((e) => ({ field: e.field, type: e.type }))).toEqual(expected);
  });
});
