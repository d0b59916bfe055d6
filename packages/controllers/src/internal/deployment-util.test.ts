import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  deploymentAnnotations,
  equalIgnoreHash,
  maxSurge,
  maxUnavailable,
  newReplicaSetReplicas,
  podTemplateHash,
  proportionOf,
  resolveFenceposts,
  scaledValue,
  setCondition,
  setNewReplicaSetAnnotations,
  type DeploymentStatus,
} from "./deployment-util.js";

const names = deploymentAnnotations("orch.io");

function deployment(replicas: number, rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string }, type = "RollingUpdate"): APIObject {
  return { metadata: { name: "web", namespace: "default" }, spec: { replicas, strategy: { type, ...(rollingUpdate ? { rollingUpdate } : {}) } } };
}

const rs = (replicas: number, annotations: Record<string, string> = {}): APIObject => ({ metadata: { name: "r", annotations }, spec: { replicas } });

describe("deployment arithmetic", () => {
  it("names the annotations after the label domain: the domain, or kubernetes.io under k8s.io", () => {
    expect(names.revision).toBe("deployment.orch.io/revision");
    expect(deploymentAnnotations("k8s.io")).toMatchObject({
      revision: "deployment.kubernetes.io/revision",
      revisionHistory: "deployment.kubernetes.io/revision-history",
      desiredReplicas: "deployment.kubernetes.io/desired-replicas",
      maxReplicas: "deployment.kubernetes.io/max-replicas",
    });
  });

  it("scales percentages up for the surge and down for unavailability, and takes ints as they are", () => {
    expect(scaledValue("25%", 10, true)).toBe(3);
    expect(scaledValue("25%", 10, false)).toBe(2);
    expect(scaledValue(2, 10, true)).toBe(2);
    expect(() => scaledValue("two", 10, true)).toThrow(/invalid value/);
    expect(resolveFenceposts("25%", "25%", 3)).toEqual([1, 0]);
    expect(resolveFenceposts(0, 0, 3)).toEqual([0, 1]);
    expect(resolveFenceposts("0%", "10%", 5)).toEqual([0, 1]);
  });

  it("bounds maxUnavailable by replicas and gives Recreate neither surge nor unavailability", () => {
    expect(maxUnavailable(deployment(2, { maxSurge: 0, maxUnavailable: 5 }))).toBe(2);
    expect(maxSurge(deployment(4, { maxSurge: "50%", maxUnavailable: 0 }))).toBe(2);
    expect(maxSurge(deployment(4, undefined, "Recreate"))).toBe(0);
    expect(maxUnavailable(deployment(4, undefined, "Recreate"))).toBe(0);
    expect(maxUnavailable(deployment(0, { maxUnavailable: 1 }))).toBe(0);
  });

  it("lets the new ReplicaSet grow up to replicas plus surge in all", () => {
    const d = deployment(4, { maxSurge: 1, maxUnavailable: 0 });
    const fresh = rs(0);
    expect(newReplicaSetReplicas(d, [rs(4), fresh], fresh)).toBe(1);
    expect(newReplicaSetReplicas(d, [rs(2), rs(3)], rs(3))).toBe(3);
    expect(newReplicaSetReplicas(deployment(4, undefined, "Recreate"), [rs(4), fresh], fresh)).toBe(4);
  });

  it("hashes templates into the safe alphabet, the collision count changing the hash", () => {
    const template = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } };
    const hash = podTemplateHash(template);
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(podTemplateHash(structuredClone(template))).toBe(hash);
    expect(podTemplateHash({ spec: template.spec, metadata: template.metadata })).toBe(hash);
    expect(podTemplateHash(template, 1)).not.toBe(hash);
    expect(podTemplateHash({ ...template, spec: { containers: [{ name: "c", image: "nginx:2" }] } })).not.toBe(hash);
  });

  it("compares templates ignoring the pod-template-hash label", () => {
    const a = { metadata: { labels: { app: "web" } }, spec: { x: 1 } };
    expect(equalIgnoreHash(a, { metadata: { labels: { app: "web", "pod-template-hash": "abc" } }, spec: { x: 1 } })).toBe(true);
    expect(equalIgnoreHash(a, { metadata: { labels: { app: "web" } }, spec: { x: 2 } })).toBe(false);
  });

  it("raises a ReplicaSet's revision, keeping the old one in its history, and copies the Deployment's annotations", () => {
    const d: APIObject = {
      ...deployment(3, { maxSurge: "25%", maxUnavailable: "25%" }),
      metadata: { name: "web", annotations: { team: "a", [names.revision]: "9" } },
    };
    const set = rs(3, { [names.revision]: "1" });
    expect(setNewReplicaSetAnnotations(d, set, 3, true, names)).toBe(true);
    expect(set.metadata.annotations).toEqual({ team: "a", [names.revision]: "3", [names.revisionHistory]: "1" });
    setNewReplicaSetAnnotations(d, set, 5, true, names);
    expect(set.metadata.annotations?.[names.revisionHistory]).toBe("1,3");
    expect(setNewReplicaSetAnnotations(d, set, 5, true, names)).toBe(false);
    const created = rs(0);
    setNewReplicaSetAnnotations(d, created, 1, false, names);
    expect(created.metadata.annotations).toMatchObject({ [names.revision]: "1", [names.desiredReplicas]: "3", [names.maxReplicas]: "4" });
  });

  it("shares a scaling in proportion to each ReplicaSet's size before it", () => {
    // 10 -> 15 replicas (max 13 -> 19): a ReplicaSet of 6 of the 13 grows to 9.
    const d = deployment(15, { maxSurge: "25%", maxUnavailable: "25%" });
    expect(proportionOf(rs(6, { [names.maxReplicas]: "13" }), d, 6, 0, names)).toBe(3);
    expect(proportionOf(rs(6, { [names.maxReplicas]: "13" }), d, 6, 5, names)).toBe(1);
    expect(proportionOf(rs(4, {}), deployment(0), -4, 0, names)).toBe(-4);
  });

  it("keeps a condition's transition time while its status stays, and ignores the same status and reason", () => {
    const status: DeploymentStatus = {};
    setCondition(status, { type: "Progressing", status: "True", reason: "A", lastTransitionTime: "t1", lastUpdateTime: "t1" });
    setCondition(status, { type: "Progressing", status: "True", reason: "A", lastTransitionTime: "t2", lastUpdateTime: "t2" });
    expect(status.conditions).toEqual([{ type: "Progressing", status: "True", reason: "A", lastTransitionTime: "t1", lastUpdateTime: "t1" }]);
    setCondition(status, { type: "Progressing", status: "True", reason: "B", lastTransitionTime: "t3", lastUpdateTime: "t3" });
    expect(status.conditions).toEqual([{ type: "Progressing", status: "True", reason: "B", lastTransitionTime: "t1", lastUpdateTime: "t3" }]);
  });
});
