import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { quotaResources, quotaStatus, quotaUsage, type QuotaObjects } from "./usage.js";

const now = Date.parse("2026-01-01T00:00:00Z");
const context = { domain: "orch.io", now };

const quota = (hard: Record<string, string>, spec: Record<string, unknown> = {}, used?: Record<string, string>): APIObject => ({
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name: "q", namespace: "ns" },
  spec: { hard, ...spec },
  ...(used ? { status: { hard, used } } : {}),
});
const pod = (
  name: string,
  cpu: string,
  extra: { spec?: Record<string, unknown>; status?: Record<string, unknown>; metadata?: Record<string, unknown> } = {},
): APIObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns", ...extra.metadata },
  spec: { containers: [{ name: "c", image: "i", resources: { requests: { cpu }, limits: { cpu } } }], ...extra.spec },
  ...(extra.status ? { status: extra.status } : {}),
});

function objects(byResource: Record<string, APIObject[]>): QuotaObjects {
  return (group, resource) => byResource[group ? `${resource}.${group}` : resource];
}

describe("quotaUsage", () => {
  it("sums the pods, leaving terminal ones out of all but count/pods", () => {
    const pods = [
      pod("a", "100m"),
      pod("b", "200m"),
      pod("done", "1", { status: { phase: "Succeeded" } }),
      pod("failed", "1", { status: { phase: "Failed" } }),
      pod("gone", "1", { metadata: { deletionTimestamp: "2025-12-31T23:00:00Z", deletionGracePeriodSeconds: 30 } }),
      pod("leaving", "400m", { metadata: { deletionTimestamp: "2025-12-31T23:59:50Z", deletionGracePeriodSeconds: 30 } }),
    ];
    const q = quota({ pods: "10", "count/pods": "10", "requests.cpu": "4", "limits.cpu": "4", memory: "1Gi" });
    expect(quotaUsage(q, objects({ pods }), context)).toEqual({ "count/pods": "6", "limits.cpu": "700m", memory: "0", pods: "3", "requests.cpu": "700m" });
  });

  it("counts only the objects matching the quota's scopes", () => {
    const pods = [pod("a", "100m"), pod("t", "200m", { spec: { activeDeadlineSeconds: 10 } }), pod("be", "0")];
    expect(quotaUsage(quota({ pods: "10" }, { scopes: ["Terminating"] }), objects({ pods }), context)).toEqual({ pods: "1" });
    expect(quotaUsage(quota({ pods: "10" }, { scopes: ["NotTerminating", "NotBestEffort"] }), objects({ pods }), context)).toEqual({ pods: "1" });
    expect(
      quotaUsage(quota({ pods: "10" }, { scopes: ["BestEffort"] }), objects({ pods: [{ ...pod("x", "1"), spec: { containers: [{ name: "c" }] } }] }), context),
    ).toEqual({ pods: "1" });
  });

  it("measures services, claims and object counts", () => {
    const services: APIObject[] = [
      { apiVersion: "v1", kind: "Service", metadata: { name: "lb", namespace: "ns" }, spec: { type: "LoadBalancer", ports: [{ port: 80 }] } },
      { apiVersion: "v1", kind: "Service", metadata: { name: "ip", namespace: "ns" }, spec: { type: "ClusterIP", ports: [{ port: 80 }] } },
    ];
    const claims: APIObject[] = [
      {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: "a", namespace: "ns" },
        spec: { storageClassName: "gold", resources: { requests: { storage: "1Gi" } } },
      },
      {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: "b", namespace: "ns" },
        spec: { resources: { requests: { storage: "1Gi" } } },
        status: { allocatedResources: { storage: "2Gi" } },
      },
    ];
    const configmaps: APIObject[] = [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ns" } }];
    const deployments: APIObject[] = [{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "ns" } }];
    const hard = {
      services: "9",
      "services.loadbalancers": "9",
      "services.nodeports": "9",
      persistentvolumeclaims: "9",
      "requests.storage": "9Gi",
      "gold.storageclass.storage.orch.io/requests.storage": "9Gi",
      configmaps: "9",
      "count/configmaps": "9",
      "count/deployments.apps": "9",
      "count/widgets.example.com": "9",
      secrets: "9",
    };
    expect(
      quotaUsage(quota(hard), objects({ services, persistentvolumeclaims: claims, configmaps, "deployments.apps": deployments, secrets: [] }), context),
    ).toEqual({
      configmaps: "1",
      "count/configmaps": "1",
      "count/deployments.apps": "1",
      "gold.storageclass.storage.orch.io/requests.storage": "1Gi",
      persistentvolumeclaims: "2",
      "requests.storage": "3Gi",
      secrets: "0",
      services: "2",
      "services.loadbalancers": "1",
      "services.nodeports": "1",
    });
  });

  it("names the resources to list", () => {
    const q = quota({ pods: "1", "requests.storage": "1Gi", "count/deployments.apps": "1", secrets: "1", services: "1" });
    expect(quotaResources(q, "orch.io")).toEqual(
      expect.arrayContaining([
        { group: "", resource: "pods" },
        { group: "", resource: "persistentvolumeclaims" },
        { group: "apps", resource: "deployments" },
        { group: "", resource: "secrets" },
        { group: "", resource: "services" },
      ]),
    );
    expect(quotaResources(q, "orch.io")).toHaveLength(5);
  });
});

describe("quotaStatus", () => {
  it("sets hard from spec, keeps unmeasured usage and drops what is no longer hard", () => {
    const q = quota({ pods: "5", "example.com/unknown": "3" }, {}, { pods: "4", "example.com/unknown": "2", configmaps: "1" });
    expect(quotaStatus(q, objects({ pods: [pod("a", "1")] }), context)).toEqual({
      hard: { "example.com/unknown": "3", pods: "5" },
      used: { "example.com/unknown": "2", pods: "1" },
    });
  });
});
