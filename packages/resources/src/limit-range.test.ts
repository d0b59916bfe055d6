import { formatFieldError, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultLimitRange, limitRangeType, validateLimitRange } from "./limit-range.js";

const lr = (...limits: Record<string, unknown>[]): APIObject => ({ metadata: { name: "l", namespace: "ns" }, spec: { limits } });
const causes = (errors: FieldError[]) => errors.map((e) => ({ field: e.field, type: e.type }));

describe("LimitRange", () => {
  it("is a namespaced core v1 kind with short name limits", () => {
    expect(limitRangeType).toMatchObject({ group: "", resource: "limitranges", kind: "LimitRange", scope: "Namespaced", shortNames: ["limits"] });
  });

  it("defaults a container's default from max and defaultRequest from default, then min", () => {
    const l = lr({ type: "Container", max: { cpu: "2", memory: "1Gi" }, min: { cpu: "100m", "ephemeral-storage": "1Gi" } }, { type: "Pod", max: { cpu: "4" } });
    defaultLimitRange(l);
    expect(l["spec"]).toEqual({
      limits: [
        {
          type: "Container",
          max: { cpu: "2", memory: "1Gi" },
          min: { cpu: "100m", "ephemeral-storage": "1Gi" },
          default: { cpu: "2", memory: "1Gi" },
          defaultRequest: { cpu: "2", memory: "1Gi", "ephemeral-storage": "1Gi" },
        },
        { type: "Pod", max: { cpu: "4" } },
      ],
    });
    expect(validateLimitRange(l)).toEqual([]);
  });

  it.each<[string, APIObject, { field: string; type: string }[]]>([
    ["an unknown type", lr({ type: "Volume" }), [{ field: "spec.limits[0].type", type: "FieldValueInvalid" }]],
    ["a repeated type", lr({ type: "Pod" }, { type: "Pod" }), [{ field: "spec.limits[1].type", type: "FieldValueDuplicate" }]],
    ["a default for type Pod", lr({ type: "Pod", default: { cpu: "1" } }), [{ field: "spec.limits[0].default", type: "FieldValueForbidden" }]],
    [
      "a claim limit without storage",
      lr({ type: "PersistentVolumeClaim", max: { cpu: "1" } }),
      [{ field: "spec.limits[0].limits", type: "FieldValueRequired" }],
    ],
    ["min above max", lr({ type: "Pod", min: { cpu: "2" }, max: { cpu: "1" } }), [{ field: "spec.limits[0].min[cpu]", type: "FieldValueInvalid" }]],
    [
      "default above max",
      lr({ type: "Container", default: { cpu: "2" }, defaultRequest: { cpu: "1" }, max: { cpu: "1" } }),
      [{ field: "spec.limits[0].default[cpu]", type: "FieldValueInvalid" }],
    ],
    [
      "min above default",
      lr({ type: "Container", default: { cpu: "1" }, defaultRequest: { cpu: "2" }, min: { cpu: "2" } }),
      [
        { field: "spec.limits[0].defaultRequest[cpu]", type: "FieldValueInvalid" },
        { field: "spec.limits[0].default[cpu]", type: "FieldValueInvalid" },
      ],
    ],
    [
      "defaultRequest above default",
      lr({ type: "Container", default: { cpu: "1" }, defaultRequest: { cpu: "2" } }),
      [{ field: "spec.limits[0].defaultRequest[cpu]", type: "FieldValueInvalid" }],
    ],
    ["a negative quantity", lr({ type: "Container", max: { memory: "-1" } }), [{ field: "spec.limits[0].max[memory]", type: "FieldValueInvalid" }]],
    [
      "a ratio below 1",
      lr({ type: "Container", maxLimitRequestRatio: { cpu: "500m" } }),
      [{ field: "spec.limits[0].maxLimitRequestRatio[cpu]", type: "FieldValueInvalid" }],
    ],
    [
      "a ratio above max/min",
      lr({ type: "Pod", min: { cpu: "1" }, max: { cpu: "2" }, maxLimitRequestRatio: { cpu: "3" } }),
      [{ field: "spec.limits[0].maxLimitRequestRatio[cpu]", type: "FieldValueInvalid" }],
    ],
    [
      "a non-container resource for containers",
      lr({ type: "Container", max: { pods: "1" } }),
      [{ field: "spec.limits[0].max[pods]", type: "FieldValueInvalid" }],
    ],
  ])("refuses %s", (_what, object, expected) => {
    expect(causes(validateLimitRange(object))).toEqual(expected);
  });

  it("words the comparisons as the reference", () => {
    expect(validateLimitRange(lr({ type: "Pod", min: { cpu: "2" }, max: { cpu: "1" } })).map(formatFieldError)).toEqual([
      'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
    ]);
  });
});
