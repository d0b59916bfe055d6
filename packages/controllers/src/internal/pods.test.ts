import { formatTime, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { sortPodsForDeletion } from "./pod-deletion-order.js";
import { isPodActive, isPodAvailable } from "./pods.js";

const now = Date.parse("2026-01-01T12:00:00Z");

function pod(name: string, o: { node?: string; phase?: string; readySince?: number; created?: number; restarts?: number; cost?: string } = {}): APIObject {
  return {
    metadata: {
      name,
      uid: name,
      creationTimestamp: formatTime(o.created ?? now - 3_600_000),
      ...(o.cost ? { annotations: { "controller.orch.io/pod-deletion-cost": o.cost } } : {}),
    },
    spec: o.node ? { nodeName: o.node } : {},
    status: {
      phase: o.phase ?? "Running",
      conditions: o.readySince === undefined ? [] : [{ type: "Ready", status: "True", lastTransitionTime: formatTime(o.readySince) }],
      containerStatuses: [{ restartCount: o.restarts ?? 0 }],
    },
  };
}

const order = (pods: APIObject[], ranks: number[] = []) =>
  sortPodsForDeletion(
    pods.map((p, i) => ({ pod: p, rank: ranks[i] ?? 0 })),
    now,
    "controller.orch.io/pod-deletion-cost",
  ).map((r) => r.pod.metadata.name);

describe("pod helpers", () => {
  it("takes finished and deleted Pods as inactive", () => {
    expect(isPodActive(pod("a"))).toBe(true);
    expect(isPodActive(pod("a", { phase: "Succeeded" }))).toBe(false);
    expect(isPodActive({ ...pod("a"), metadata: { ...pod("a").metadata, deletionTimestamp: formatTime(now) } })).toBe(false);
  });

  it("makes a ready Pod available once strictly more than minReadySeconds passed", () => {
    expect(isPodAvailable(pod("a", { readySince: now - 10_000 }), 10, now)).toBe(false);
    expect(isPodAvailable(pod("a", { readySince: now - 11_000 }), 10, now)).toBe(true);
    expect(isPodAvailable(pod("a", { readySince: now }), 0, now)).toBe(true);
    expect(isPodAvailable(pod("a"), 0, now)).toBe(false);
  });

  it("does not make a ready Pod without a transition time available while minReadySeconds applies", () => {
    const unknownSince: APIObject = { metadata: { name: "a" }, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } };
    expect(isPodAvailable(unknownSince, 0, now)).toBe(true);
    expect(isPodAvailable(unknownSince, 10, now)).toBe(false);
  });

  it("puts unscheduled, then pending, then not ready Pods first for deletion", () => {
    const ready = pod("ready", { node: "n", readySince: now - 60_000 });
    const notReady = pod("not-ready", { node: "n" });
    const pending = pod("pending", { node: "n", phase: "Pending" });
    const unscheduled = pod("unscheduled", { readySince: now - 60_000 });
    expect(order([ready, notReady, pending, unscheduled])).toEqual(["unscheduled", "pending", "not-ready", "ready"]);
  });

  it("then lower deletion cost, more colocated Pods, shorter readiness, more restarts, newer", () => {
    const base = { node: "n", readySince: now - 3_600_000 };
    expect(order([pod("dear", { ...base, cost: "10" }), pod("cheap", { ...base, cost: "-5" })])).toEqual(["cheap", "dear"]);
    expect(order([pod("alone", base), pod("crowded", base)], [1, 3])).toEqual(["crowded", "alone"]);
    expect(order([pod("long", base), pod("short", { node: "n", readySince: now - 1000 })])).toEqual(["short", "long"]);
    expect(order([pod("calm", base), pod("crashy", { ...base, restarts: 4 })])).toEqual(["crashy", "calm"]);
    expect(order([pod("old", { ...base, created: now - 86_400_000 }), pod("new", { ...base, created: now - 1000 })])).toEqual(["new", "old"]);
  });
});
