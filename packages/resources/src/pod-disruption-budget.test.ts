import { conflict, isInternalError, isTooManyRequests, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  budgetsSelecting,
  checkPodDisruptionBudgets,
  podDisruptionBudgetType,
  setDisruptionAllowedCondition,
  validatePodDisruptionBudget,
  validatePodDisruptionBudgetStatus,
} from "./pod-disruption-budget.js";
import type { StrategyContext } from "./resource-type.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const pdb = (spec: Record<string, unknown>, status: Record<string, unknown> = {}, name = "b"): APIObject => ({
  apiVersion: "policy/v1",
  kind: "PodDisruptionBudget",
  metadata: { name, namespace: "ns", generation: 1, resourceVersion: "7" },
  spec,
  status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, observedGeneration: 1, ...status },
});
const pod = (phase = "Running", ready = true): APIObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns", labels: { app: "web" } },
  status: { phase, conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});

/** A context whose store holds `budgets` and records status writes. */
function context(budgets: APIObject[], writes: APIObject[] = []): StrategyContext {
  return {
    domain: "orch.io",
    now: Date.parse("2026-01-01T00:00:00Z"),
    list: async (group, resource, namespace) => {
      expect([group, resource, namespace]).toEqual(["policy", "poddisruptionbudgets", "ns"]);
      return budgets;
    },
    updateStatus: async (_g, _r, object) => {
      writes.push(object);
      return object;
    },
  };
}

describe("PodDisruptionBudget", () => {
  it("is a namespaced policy/v1 kind with short name pdb and status", () => {
    expect(podDisruptionBudgetType).toMatchObject({ group: "policy", resource: "poddisruptionbudgets", shortNames: ["pdb"], subresources: ["status"] });
  });

  it("takes minAvailable or maxUnavailable, as an integer or a percent up to 100%", () => {
    expect(validatePodDisruptionBudget(pdb({ minAvailable: "100%" }))).toEqual([]);
    expect(validatePodDisruptionBudget(pdb({ maxUnavailable: 0 }))).toEqual([]);
    expect(causes(validatePodDisruptionBudget(pdb({ minAvailable: "1.5%" })))).toEqual([
      [
        "spec.minAvailable",
        "FieldValueInvalid",
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ],
    ]);
    expect(causes(validatePodDisruptionBudget(pdb({ minAvailable: 1, maxUnavailable: "101%" })))).toEqual([
      ["spec", "FieldValueInvalid", "minAvailable and maxUnavailable cannot be both set"],
      ["spec.maxUnavailable", "FieldValueInvalid", "must not be greater than 100%"],
    ]);
  });

  it("checks the status counters and conditions of a status write", () => {
    const object = pdb({}, { disruptionsAllowed: -1, conditions: [{ type: "DisruptionAllowed", status: "Maybe", reason: "no good" }] });
    expect(causes(validatePodDisruptionBudgetStatus(object)).map(([f, t]) => [f, t])).toEqual([
      ["status.disruptionsAllowed", "FieldValueInvalid"],
      ["status.conditions[0].status", "FieldValueNotSupported"],
      ["status.conditions[0].lastTransitionTime", "FieldValueRequired"],
      ["status.conditions[0].reason", "FieldValueInvalid"],
    ]);
  });

  it("sets the DisruptionAllowed condition, keeping the transition time while the status holds", () => {
    const status: Record<string, unknown> = { disruptionsAllowed: 0, observedGeneration: 2 };
    setDisruptionAllowedCondition(status, Date.parse("2026-01-01T00:00:00Z"));
    expect(status["conditions"]).toEqual([
      {
        type: "DisruptionAllowed",
        status: "False",
        reason: "InsufficientPods",
        message: "",
        observedGeneration: 2,
        lastTransitionTime: "2026-01-01T00:00:00Z",
      },
    ]);
    setDisruptionAllowedCondition(status, Date.parse("2026-01-02T00:00:00Z"));
    expect((status["conditions"] as { lastTransitionTime: string }[])[0]?.lastTransitionTime).toBe("2026-01-01T00:00:00Z");
  });

  it("selects pods by a non-empty selector in the pod's namespace only", () => {
    const a = pdb({ selector: { matchLabels: { app: "web" } } }, {}, "a");
    const empty = pdb({ selector: {} }, {}, "empty");
    const none = pdb({}, {}, "none");
    const elsewhere = { ...a, metadata: { ...a.metadata, namespace: "other" } };
    expect(budgetsSelecting(pod(), [a, empty, none, elsewhere]).map((b) => b.metadata.name)).toEqual(["a"]);
  });
});

describe("checkPodDisruptionBudgets", () => {
  const selecting = { selector: { matchLabels: { app: "web" } }, minAvailable: 1 };

  it("counts an allowed eviction down and records the pod", async () => {
    const writes: APIObject[] = [];
    await checkPodDisruptionBudgets(pod(), context([pdb(selecting, { disruptionsAllowed: 2 })], writes));
    expect(writes).toHaveLength(1);
    expect(writes[0]?.["status"]).toMatchObject({ disruptionsAllowed: 1, disruptedPods: { p: "2026-01-01T00:00:00Z" } });
    expect(writes[0]?.metadata.resourceVersion).toBe("7");
  });

  it("refuses with 429 when no disruption is allowed", async () => {
    const error: unknown = await checkPodDisruptionBudgets(pod(), context([pdb(selecting, { currentHealthy: 1, desiredHealthy: 1 })])).catch((e: unknown) => e);
    expect(isTooManyRequests(error)).toBe(true);
    expect((error as { status: { details: unknown } }).status.details).toEqual({
      causes: [{ reason: "DisruptionBudget", message: "The disruption budget b needs 1 healthy pods and has 1 currently" }],
    });
  });

  it("answers 500 for two budgets", async () => {
    const error: unknown = await checkPodDisruptionBudgets(pod(), context([pdb(selecting, {}, "x"), pdb(selecting, {}, "y")])).catch((e: unknown) => e);
    expect(isInternalError(error)).toBe(true);
  });

  it("lets pending, finished and unready pods of healthy or AlwaysAllow budgets go without a write", async () => {
    const writes: APIObject[] = [];
    const refusing = [pdb(selecting)];
    await checkPodDisruptionBudgets(pod("Pending"), context(refusing, writes));
    await checkPodDisruptionBudgets(pod("Succeeded"), context(refusing, writes));
    await checkPodDisruptionBudgets(pod("Running", false), context([pdb({ ...selecting, unhealthyPodEvictionPolicy: "AlwaysAllow" })], writes));
    await checkPodDisruptionBudgets(pod("Running", false), context([pdb(selecting, { currentHealthy: 2, desiredHealthy: 2 })], writes));
    expect(writes).toEqual([]);
  });

  it("decides again on the newer budget when its status write conflicts", async () => {
    let reads = 0;
    const writes: APIObject[] = [];
    const ctx: StrategyContext = {
      domain: "orch.io",
      now: 0,
      // The controller counted another eviction between the first read and the write.
      list: async () => [pdb(selecting, { disruptionsAllowed: reads++ === 0 ? 1 : 0, currentHealthy: 1, desiredHealthy: 1 })],
      updateStatus: async (_g, _r, object) => {
        if (writes.push(object) === 1) throw conflict({ group: "policy", resource: "poddisruptionbudgets" }, "b");
        return object;
      },
    };
    const error: unknown = await checkPodDisruptionBudgets(pod(), ctx).catch((e: unknown) => e);
    expect(reads).toBe(2);
    expect(isTooManyRequests(error)).toBe(true);
  });

  it("writes nothing on a dry run", async () => {
    const writes: APIObject[] = [];
    await checkPodDisruptionBudgets(pod(), { ...context([pdb(selecting, { disruptionsAllowed: 1 })], writes), dryRun: true });
    expect(writes).toEqual([]);
  });
});
