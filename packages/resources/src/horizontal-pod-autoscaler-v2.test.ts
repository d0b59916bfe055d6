import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  defaultHorizontalPodAutoscalerV2,
  horizontalPodAutoscalerTargetsV2,
  horizontalPodAutoscalerV1ToV2,
  horizontalPodAutoscalerV2ToV1,
  hpaAlphaAnnotations,
  validateHorizontalPodAutoscalerV2,
} from "./horizontal-pod-autoscaler-v2.js";

const ref = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
const v2 = (spec: Record<string, unknown>, status?: Record<string, unknown>): APIObject => ({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web", namespace: "ns" },
  spec: { scaleTargetRef: ref, maxReplicas: 5, ...spec },
  ...(status ? { status } : {}),
});
const messages = (object: APIObject) => validateHorizontalPodAutoscalerV2(object).map((e) => formatFieldError(e));
const cpu = (n: number) => ({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: n } } });

describe("HorizontalPodAutoscaler autoscaling/v2 defaults", () => {
  it("defaults minReplicas to 1 and the metrics to 80% CPU", () => {
    const object = v2({});
    defaultHorizontalPodAutoscalerV2(object);
    expect(object["spec"]).toMatchObject({ minReplicas: 1, metrics: [cpu(80)] });
    expect(object["spec"]).not.toHaveProperty("behavior");
  });

  it("fills a given behavior's missing rules from the reference's defaults and keeps what is given", () => {
    const object = v2({ metrics: [cpu(50)], behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } });
    defaultHorizontalPodAutoscalerV2(object);
    expect(object["spec"]).toMatchObject({
      metrics: [cpu(50)],
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: "Max",
          policies: [
            { type: "Pods", value: 4, periodSeconds: 15 },
            { type: "Percent", value: 100, periodSeconds: 15 },
          ],
        },
        scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] },
      },
    });
  });
});

describe("HorizontalPodAutoscaler autoscaling/v2 validation", () => {
  it("accepts every metric source type with a fitting target", () => {
    const object = v2({
      minReplicas: 1,
      metrics: [
        cpu(70),
        { type: "ContainerResource", containerResource: { name: "memory", container: "app", target: { type: "AverageValue", averageValue: "500Mi" } } },
        { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
        { type: "Object", object: { describedObject: { kind: "Ingress", name: "main" }, metric: { name: "rps" }, target: { type: "Value", value: "2k" } } },
        {
          type: "External",
          external: { metric: { name: "queue", selector: { matchLabels: { q: "a" } } }, target: { type: "AverageValue", averageValue: "30" } },
        },
      ],
      behavior: { scaleUp: { policies: [{ type: "Pods", value: 2, periodSeconds: 60 }] } },
    });
    expect(messages(object)).toEqual([]);
  });

  it("refuses a metric whose source does not match its type, a second source and an unknown type", () => {
    // One source, of another type: only the missing one is reported, as the reference does.
    expect(messages(v2({ metrics: [{ type: "Pods", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } }] }))).toEqual([
      "spec.metrics[0].pods: Required value: must populate information for the given metric source",
    ]);
    expect(messages(v2({ metrics: [{ ...cpu(50), pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "1" } } }] }))).toEqual([
      "spec.metrics[0].pods: Forbidden: must populate the given metric source only",
    ]);
    expect(messages(v2({ metrics: [{ type: "Magic" }] }))).toEqual([
      'spec.metrics[0].type: Unsupported value: "Magic": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
      'spec.metrics[0].type: Unsupported value: "Magic": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
    ]);
  });

  it("checks targets with the reference's messages", () => {
    expect(messages(v2({ metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 0 } } }] }))).toEqual([
      "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
    ]);
    expect(
      messages(v2({ metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Bogus", averageUtilization: 50, averageValue: "1" } } }] })),
    ).toEqual([
      'spec.metrics[0].resource.target.type: Invalid value: "Bogus": must be either Utilization, Value, or AverageValue',
      "spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization",
    ]);
    expect(messages(v2({ metrics: [{ type: "Pods", pods: { metric: { name: "qps" }, target: { type: "Value", value: "-1" } } }] }))).toEqual([
      'spec.metrics[0].pods.target.value: Invalid value: "-1": must be positive',
      "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue",
    ]);
    expect(messages(v2({ metrics: [{ type: "External", external: { metric: {}, target: { type: "Value" } } }] }))).toEqual([
      "spec.metrics[0].external.metric.name: Required value: must specify a metric name",
      "spec.metrics[0].external.target.averageValue: Required value: must set either a target value for metric or a per-pod target",
    ]);
  });

  it("checks the behavior's windows, select policies and policies", () => {
    const behavior = {
      scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: "Random", policies: [] },
      scaleDown: { policies: [{ type: "Nodes", value: 0, periodSeconds: 1801 }] },
    };
    expect(messages(v2({ metrics: [cpu(50)], behavior }))).toEqual([
      "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
      'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Random": supported values: "Disabled", "Max", "Min"',
      "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
      'spec.behavior.scaleDown.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"',
      "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
      "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
    ]);
  });
});

describe("HorizontalPodAutoscaler conversion between autoscaling/v1 and v2", () => {
  const keys = hpaAlphaAnnotations("orch.io");

  it("names the annotations after the domain, kubernetes.io under k8s.io", () => {
    expect(keys.metrics).toBe("autoscaling.alpha.orch.io/metrics");
    expect(hpaAlphaAnnotations("k8s.io").behavior).toBe("autoscaling.alpha.kubernetes.io/behavior");
  });

  it("turns v1's CPU target into a Resource metric and back", () => {
    const v1: APIObject = {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web", namespace: "ns" },
      spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 },
      status: { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 30 },
    };
    const stored = horizontalPodAutoscalerV1ToV2(v1);
    expect(stored).toEqual({
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web", namespace: "ns" },
      spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, metrics: [cpu(60)] },
      status: {
        currentReplicas: 2,
        desiredReplicas: 2,
        currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 30 } } }],
      },
    });
    expect(horizontalPodAutoscalerV2ToV1(stored)).toEqual(v1);
  });

  it("keeps v2-only metrics, behavior, current metrics and conditions in annotations, and loses nothing on the way back", () => {
    const object = v2(
      {
        minReplicas: 2,
        metrics: [{ type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } }, cpu(75)],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: "Min", policies: [{ type: "Pods", value: 1, periodSeconds: 30 }] } },
      },
      {
        currentReplicas: 3,
        desiredReplicas: 3,
        currentMetrics: [{ type: "Pods", pods: { metric: { name: "qps" }, current: { averageValue: "12" } } }],
        conditions: [{ type: "AbleToScale", status: "True", reason: "ReadyForNewScale" }],
      },
    );
    object.metadata = { ...object.metadata, annotations: { team: "web" } };
    const v1 = horizontalPodAutoscalerV2ToV1(object);
    expect(v1["spec"]).toEqual({ scaleTargetRef: ref, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 75 });
    expect(v1["status"]).toEqual({ currentReplicas: 3, desiredReplicas: 3 });
    const annotations = v1.metadata?.annotations ?? {};
    expect(annotations["team"]).toBe("web");
    expect(JSON.parse(annotations[keys.metrics] ?? "null")).toEqual([
      { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
    ]);
    expect(JSON.parse(annotations[keys.behavior] ?? "null")).toMatchObject({ scaleDown: { selectPolicy: "Min" } });
    expect(JSON.parse(annotations[keys.currentMetrics] ?? "null")).toHaveLength(1);
    expect(JSON.parse(annotations[keys.conditions] ?? "null")).toEqual([{ type: "AbleToScale", status: "True", reason: "ReadyForNewScale" }]);
    const back = horizontalPodAutoscalerV1ToV2(v1);
    // The CPU metric moves after the others: the only change a round trip makes.
    expect(back["spec"]).toEqual({ ...(object["spec"] as object), metrics: [(object["spec"] as { metrics: unknown[] }).metrics[0], cpu(75)] });
    expect(back["status"]).toEqual(object["status"]);
    expect(back.metadata?.annotations).toEqual({ team: "web" });
  });

  it("reads the annotations whatever domain wrote them", () => {
    const v1: APIObject = {
      apiVersion: "autoscaling/v1",
      metadata: {
        name: "web",
        annotations: { "autoscaling.alpha.kubernetes.io/behavior": '{"scaleUp":{"policies":[{"type":"Pods","value":1,"periodSeconds":10}]}}' },
      },
      spec: { scaleTargetRef: ref, maxReplicas: 3 },
    };
    expect(horizontalPodAutoscalerV1ToV2(v1)).toMatchObject({ spec: { behavior: { scaleUp: { policies: [{ type: "Pods", value: 1, periodSeconds: 10 }] } } } });
  });
});

describe("HorizontalPodAutoscaler v2 TARGETS cell", () => {
  it("prints each metric's current and target value as kubectl does", () => {
    const object = v2(
      { metrics: [cpu(80), { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } }, cpu(90)] },
      { currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 40 } } }] },
    );
    expect(horizontalPodAutoscalerTargetsV2(object)).toBe("cpu: 40%/80%, qps: <unknown>/10 + 1 more...");
  });
});
