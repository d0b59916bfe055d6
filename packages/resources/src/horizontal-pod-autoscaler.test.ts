import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  defaultHorizontalPodAutoscaler,
  horizontalPodAutoscalerType,
  validateHorizontalPodAutoscaler,
  validateHorizontalPodAutoscalerStatus,
} from "./horizontal-pod-autoscaler.js";
import { horizontalPodAutoscalerV1ToV2 } from "./horizontal-pod-autoscaler-v2.js";

const ctx = { domain: "orch.io", now: 0 };
const ref = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
const hpa = (spec: Record<string, unknown>, status?: Record<string, unknown>): APIObject => ({
  metadata: { name: "web", namespace: "ns" },
  spec,
  ...(status ? { status } : {}),
});
const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);
const strategy = horizontalPodAutoscalerType.strategy ?? {};

describe("HorizontalPodAutoscaler", () => {
  it("is a namespaced autoscaling kind (v2 stored, v1 served too) with short name hpa and a status sub-resource", () => {
    expect(horizontalPodAutoscalerType).toMatchObject({
      group: "autoscaling",
      resource: "horizontalpodautoscalers",
      scope: "Namespaced",
      shortNames: ["hpa"],
      subresources: ["status"],
    });
    expect(horizontalPodAutoscalerType.versions.map((v) => [v.name, v.storage])).toEqual([
      ["v2", true],
      ["v1", false],
    ]);
  });

  it("defaults minReplicas to 1 and keeps a given one", () => {
    const object = hpa({ scaleTargetRef: ref, maxReplicas: 3 });
    defaultHorizontalPodAutoscaler(object);
    expect(object["spec"]).toMatchObject({ minReplicas: 1 });
    const given = hpa({ scaleTargetRef: ref, maxReplicas: 3, minReplicas: 2 });
    strategy.defaults?.(given, ctx);
    expect(given["spec"]).toMatchObject({ minReplicas: 2 });
  });

  it.each([
    ["a valid autoscaler", { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 }, []],
    ["a missing maxReplicas", { scaleTargetRef: ref, minReplicas: 1 }, [["spec.maxReplicas", "FieldValueRequired"]]],
    ["maxReplicas 0", { scaleTargetRef: ref, maxReplicas: 0 }, [["spec.maxReplicas", "FieldValueInvalid"]]],
    ["maxReplicas below minReplicas", { scaleTargetRef: ref, minReplicas: 4, maxReplicas: 3 }, [["spec.maxReplicas", "FieldValueInvalid"]]],
    [
      "minReplicas 0 (scale to zero needs a gate and object metrics)",
      { scaleTargetRef: ref, minReplicas: 0, maxReplicas: 3, targetCPUUtilizationPercentage: 80 },
      [
        ["spec.minReplicas", "FieldValueInvalid"],
        ["spec.metrics", "FieldValueForbidden"],
      ],
    ],
    [
      "a missing scaleTargetRef",
      { maxReplicas: 3 },
      [
        ["spec.scaleTargetRef.kind", "FieldValueRequired"],
        ["spec.scaleTargetRef.name", "FieldValueRequired"],
      ],
    ],
    [
      "a scaleTargetRef kind with a slash",
      { scaleTargetRef: { kind: "a/b", name: "web" }, maxReplicas: 3 },
      [["spec.scaleTargetRef.kind", "FieldValueInvalid"]],
    ],
    ["a scaleTargetRef name '..'", { scaleTargetRef: { kind: "Deployment", name: ".." }, maxReplicas: 3 }, [["spec.scaleTargetRef.name", "FieldValueInvalid"]]],
    [
      "targetCPUUtilizationPercentage 0",
      { scaleTargetRef: ref, maxReplicas: 3, targetCPUUtilizationPercentage: 0 },
      [["spec.metrics[0].resource.target.averageUtilization", "FieldValueInvalid"]],
    ],
  ])("validates %s (a v1 spec, converted to v2 as the server does)", (_what, spec, expected) => {
    expect(causes(validateHorizontalPodAutoscaler(horizontalPodAutoscalerV1ToV2(hpa(spec))))).toEqual(expected);
  });

  it("prints the reference's messages", () => {
    const [low, order] = validateHorizontalPodAutoscaler(hpa({ scaleTargetRef: ref, minReplicas: 0, maxReplicas: -1 }));
    expect(low?.detail).toBe("must be greater than or equal to 1");
    expect(order?.detail).toBe("must be greater than 0");
    expect(validateHorizontalPodAutoscaler(hpa({ scaleTargetRef: ref, minReplicas: 4, maxReplicas: 3 }))[0]?.detail).toBe(
      "must be greater than or equal to `minReplicas`",
    );
  });

  it("starts with an empty status, keeps the status on a spec write, checks replica counts on a status write", () => {
    const object = hpa({ scaleTargetRef: ref, maxReplicas: 3 }, { currentReplicas: 9, desiredReplicas: 9 });
    strategy.prepareForCreate?.(object, ctx);
    expect(object["status"]).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
    const old = hpa({ scaleTargetRef: ref, maxReplicas: 3 }, { currentReplicas: 2, desiredReplicas: 2 });
    const next = hpa({ scaleTargetRef: ref, maxReplicas: 4 }, { currentReplicas: 7, desiredReplicas: 7 });
    strategy.prepareForUpdate?.(next, old, ctx);
    expect(next["status"]).toEqual({ currentReplicas: 2, desiredReplicas: 2 });
    expect(causes(validateHorizontalPodAutoscalerStatus(hpa({}, { currentReplicas: -1, desiredReplicas: -2 })))).toEqual([
      ["status.currentReplicas", "FieldValueInvalid"],
      ["status.desiredReplicas", "FieldValueInvalid"],
    ]);
  });

  it("prints REFERENCE TARGETS MINPODS MAXPODS REPLICAS", () => {
    const columns = strategy.tableColumns ?? [];
    expect(columns.map((c) => c.name)).toEqual(["Reference", "Targets", "MinPods", "MaxPods", "Replicas"]);
    const object = hpa({ scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 }, { currentReplicas: 2, desiredReplicas: 2 });
    expect(columns.map((c) => c.cell(object))).toEqual(["Deployment/web", "cpu: <unknown>/80%", "1", 5, 2]);
    const withCurrent = hpa(
      { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
      { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 40 },
    );
    expect(columns[1]?.cell(withCurrent)).toBe("cpu: 40%/80%");
    expect(columns[1]?.cell(hpa({ scaleTargetRef: ref, maxReplicas: 5 }))).toBe("<none>");
  });
});
