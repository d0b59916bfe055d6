import { conflict, StatusError, type APIObject } from "@orch/meta";
import {
  configMapType,
  eventType,
  namespaceType,
  persistentVolumeClaimType,
  podType,
  resourceQuotaType,
  secretType,
  serviceType,
  type ResourceType,
} from "@orch/resources";
import { describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../attributes.js";
import { attributesFor, fakeServices, type FakeServices } from "../internal/testing.js";
import { resourceQuota } from "./resource-quota.js";

type List = Record<string, string>;

function quota(name: string, hard: List, used?: List, spec: Record<string, unknown> = {}): APIObject {
  return {
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { name, namespace: "ns" },
    spec: { hard, ...spec },
    status: used === undefined ? { hard } : { hard, used },
  };
}

const pod = (name: string, containers: unknown[] = [{ name: "c", image: "i" }], spec: Record<string, unknown> = {}): APIObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns" },
  spec: { containers, ...spec },
});
const cpu = (name: string, request: string, limit?: string) => ({
  name,
  image: "i",
  resources: { requests: { cpu: request }, ...(limit ? { limits: { cpu: limit } } : {}) },
});

function servicesWith(...quotas: APIObject[]): FakeServices {
  const services = fakeServices();
  for (const q of quotas) services.put("", "resourcequotas", q);
  return services;
}

async function admit(services: FakeServices, attrs: AdmissionAttributes, configuration?: unknown): Promise<StatusError | undefined> {
  const plugin = resourceQuota({ services, configuration });
  try {
    await plugin.validate?.(attrs);
    return undefined;
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
}

const create = (type: ResourceType, object: APIObject, dryRun = false) => attributesFor({ operation: "CREATE", type, object, dryRun });
const update = (type: ResourceType, object: APIObject, oldObject: APIObject) =>
  attributesFor({ operation: "UPDATE", type, object, oldObject: { ...oldObject, metadata: { ...oldObject.metadata, resourceVersion: "9" } } });
async function usedOf(services: FakeServices, name = "q"): Promise<List | undefined> {
  return ((await services.get("", "resourcequotas", "ns", name))?.["status"] as { used?: List } | undefined)?.used;
}

describe("ResourceQuota pods", () => {
  it("charges a created pod to status.used", async () => {
    const services = servicesWith(quota("q", { pods: "2", "count/pods": "5" }, { pods: "1", "count/pods": "1" }));
    expect(await admit(services, create(podType, pod("a")))).toBeUndefined();
    expect(await usedOf(services)).toEqual({ "count/pods": "2", pods: "2" });
    expect(services.writes).toHaveLength(1);
  });

  it("refuses a create over the limit with the reference's message, resources sorted", async () => {
    const services = servicesWith(quota("q", { pods: "2", "requests.cpu": "1", "limits.cpu": "2" }, { pods: "2", "requests.cpu": "800m", "limits.cpu": "1" }));
    const error = await admit(services, create(podType, pod("a", [cpu("c", "500m", "500m")])));
    expect(error?.status.code).toBe(403);
    expect(error?.message).toBe(
      'pods "a" is forbidden: exceeded quota: q, requested: pods=1,requests.cpu=500m, used: pods=2,requests.cpu=800m, limited: pods=2,requests.cpu=1',
    );
    expect(services.writes).toHaveLength(0);
  });

  it("counts requests, limits and their legacy names, init containers and overhead", async () => {
    const services = servicesWith(
      quota(
        "q",
        { cpu: "10", memory: "10Gi", "requests.cpu": "10", "limits.cpu": "10", "requests.memory": "10Gi", "limits.memory": "10Gi" },
        { cpu: "0", memory: "0", "requests.cpu": "0", "limits.cpu": "0", "requests.memory": "0", "limits.memory": "0" },
      ),
    );
    const c = { name: "c", image: "i", resources: { requests: { cpu: "250m", memory: "64Mi" }, limits: { cpu: "500m", memory: "128Mi" } } };
    const init = { name: "i", image: "i", resources: { requests: { cpu: "2", memory: "1Gi" }, limits: { cpu: "2", memory: "1Gi" } } };
    await admit(services, create(podType, pod("a", [c, { ...c, name: "d" }], { initContainers: [init], overhead: { cpu: "100m" } })));
    expect(await usedOf(services)).toEqual({
      cpu: "2100m",
      "limits.cpu": "2100m",
      "limits.memory": "1Gi",
      memory: "1Gi",
      "requests.cpu": "2100m",
      "requests.memory": "1Gi",
    });
  });

  it("counts ephemeral-storage, hugepages and extended resources as requests.<name>", async () => {
    const services = servicesWith(
      quota(
        "q",
        { "requests.ephemeral-storage": "1Gi", "limits.ephemeral-storage": "1Gi", "requests.hugepages-2Mi": "1Gi", "requests.example.com/gpu": "1" },
        {
          "requests.ephemeral-storage": "0",
          "limits.ephemeral-storage": "0",
          "requests.hugepages-2Mi": "0",
          "requests.example.com/gpu": "1",
        },
      ),
    );
    const c = {
      name: "c",
      image: "i",
      resources: {
        requests: { "ephemeral-storage": "100Mi", "hugepages-2Mi": "4Mi", "example.com/gpu": "1" },
        limits: { "ephemeral-storage": "200Mi", "hugepages-2Mi": "4Mi", "example.com/gpu": "1" },
      },
    };
    expect((await admit(services, create(podType, pod("a", [c]))))?.message).toBe(
      'pods "a" is forbidden: exceeded quota: q, requested: requests.example.com/gpu=1, used: requests.example.com/gpu=1, limited: requests.example.com/gpu=1',
    );
    const noGpu = {
      ...c,
      resources: { requests: { "ephemeral-storage": "100Mi", "hugepages-2Mi": "4Mi" }, limits: { "ephemeral-storage": "200Mi", "hugepages-2Mi": "4Mi" } },
    };
    expect(await admit(services, create(podType, pod("b", [noGpu])))).toBeUndefined();
    expect(await usedOf(services)).toEqual({
      "limits.ephemeral-storage": "200Mi",
      "requests.ephemeral-storage": "100Mi",
      "requests.example.com/gpu": "1",
      "requests.hugepages-2Mi": "4Mi",
    });
  });

  it("requires every container to state what a compute quota constrains", async () => {
    const services = servicesWith(quota("compute", { cpu: "4", "limits.memory": "4Gi" }, { cpu: "0", "limits.memory": "0" }));
    const error = await admit(services, create(podType, pod("a", [cpu("x", "100m"), { name: "y", image: "i" }])));
    expect(error?.status.code).toBe(403);
    expect(error?.message).toBe('pods "a" is forbidden: failed quota: compute: must specify cpu for: y; limits.memory for: x,y');
  });

  it("refuses while a matching quota's usage is unknown", async () => {
    const services = servicesWith(quota("q", { pods: "5", "count/pods": "5" }));
    expect((await admit(services, create(podType, pod("a"))))?.message).toBe('pods "a" is forbidden: status unknown for quota: q, resources: count/pods,pods');
  });

  it("ignores a quota whose status.hard is not set yet", async () => {
    const services = fakeServices();
    services.put("", "resourcequotas", { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q", namespace: "ns" }, spec: { hard: { pods: "0" } } });
    expect(await admit(services, create(podType, pod("a")))).toBeUndefined();
    expect(services.writes).toHaveLength(0);
  });

  it("checks dry-run writes without charging them", async () => {
    const services = servicesWith(quota("q", { pods: "1" }, { pods: "0" }));
    expect(await admit(services, create(podType, pod("a"), true))).toBeUndefined();
    expect(services.writes).toHaveLength(0);
    const full = servicesWith(quota("q", { pods: "1" }, { pods: "1" }));
    expect((await admit(full, create(podType, pod("a"), true)))?.message).toMatch(/exceeded quota: q/);
  });

  it("charges a resize's change and gives back what it shrinks", async () => {
    const services = servicesWith(quota("q", { "requests.cpu": "1" }, { "requests.cpu": "500m" }));
    const old = pod("a", [cpu("c", "500m")]);
    const resize = { ...update(podType, pod("a", [cpu("c", "800m")]), old), subresource: "resize" };
    expect(await admit(services, resize)).toBeUndefined();
    expect(await usedOf(services)).toEqual({ "requests.cpu": "800m" });
    const shrink = { ...update(podType, pod("a", [cpu("c", "200m")]), pod("a", [cpu("c", "800m")])), subresource: "resize" };
    expect(await admit(services, shrink)).toBeUndefined();
    expect(await usedOf(services)).toEqual({ "requests.cpu": "200m" });
  });

  it("does not charge other pod updates", async () => {
    const services = servicesWith(quota("q", { pods: "1" }, { pods: "1" }));
    expect(await admit(services, update(podType, pod("a", [cpu("c", "2")]), pod("a")))).toBeUndefined();
    expect(services.writes).toHaveLength(0);
  });
});

describe("ResourceQuota scopes", () => {
  const used = { pods: "0" };
  const best = pod("be");
  const burstable = pod("bu", [cpu("c", "100m")]);
  const terminating = pod("t", undefined, { activeDeadlineSeconds: 30 });
  const high = pod("h", undefined, { priorityClassName: "high" });
  const crossNs = pod("x", undefined, {
    affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "k", namespaces: ["other"] }] } },
  });
  const charged = async (spec: Record<string, unknown>, object: APIObject) => {
    const services = servicesWith(quota("q", { pods: "10" }, used, spec));
    await admit(services, create(podType, object));
    return services.writes.length === 1;
  };

  it("Terminating and NotTerminating follow activeDeadlineSeconds", async () => {
    expect(await charged({ scopes: ["Terminating"] }, terminating)).toBe(true);
    expect(await charged({ scopes: ["Terminating"] }, best)).toBe(false);
    expect(await charged({ scopes: ["NotTerminating"] }, best)).toBe(true);
    expect(await charged({ scopes: ["NotTerminating"] }, terminating)).toBe(false);
  });

  it("BestEffort and NotBestEffort follow the pod's requests and limits", async () => {
    expect(await charged({ scopes: ["BestEffort"] }, best)).toBe(true);
    expect(await charged({ scopes: ["BestEffort"] }, burstable)).toBe(false);
    expect(await charged({ scopes: ["NotBestEffort"] }, burstable)).toBe(true);
    expect(await charged({ scopes: ["NotBestEffort"] }, best)).toBe(false);
  });

  it("PriorityClass matches the scope selector's operators", async () => {
    const sel = (operator: string, values?: string[]) => ({
      scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator, ...(values ? { values } : {}) }] },
    });
    expect(await charged(sel("In", ["high"]), high)).toBe(true);
    expect(await charged(sel("In", ["high"]), best)).toBe(false);
    expect(await charged(sel("NotIn", ["high"]), high)).toBe(false);
    expect(await charged(sel("NotIn", ["high"]), best)).toBe(true);
    expect(await charged(sel("Exists"), high)).toBe(true);
    expect(await charged(sel("Exists"), best)).toBe(false);
    expect(await charged(sel("DoesNotExist"), best)).toBe(true);
    expect(await charged(sel("DoesNotExist"), high)).toBe(false);
    expect(await charged({ scopes: ["PriorityClass"] }, high)).toBe(true);
  });

  it("CrossNamespacePodAffinity matches terms naming namespaces or a namespace selector", async () => {
    expect(await charged({ scopes: ["CrossNamespacePodAffinity"] }, crossNs)).toBe(true);
    expect(await charged({ scopes: ["CrossNamespacePodAffinity"] }, best)).toBe(false);
    const selector = pod("y", undefined, {
      affinity: {
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: "k", namespaceSelector: {} } }] },
      },
    });
    expect(await charged({ scopes: ["CrossNamespacePodAffinity"] }, selector)).toBe(true);
  });

  it("scopes and scope selectors must all match", async () => {
    expect(
      await charged({ scopes: ["BestEffort"], scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }] } }, high),
    ).toBe(true);
    expect(
      await charged(
        { scopes: ["NotBestEffort"], scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }] } },
        high,
      ),
    ).toBe(false);
  });

  it("a scoped quota never matches non-pod resources", async () => {
    const services = servicesWith(quota("q", { configmaps: "0" }, { configmaps: "0" }, { scopes: ["BestEffort"] }));
    expect(await admit(services, create(configMapType, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" } }))).toBeUndefined();
  });
});

describe("ResourceQuota services", () => {
  const svc = (name: string, type: string, ports = 2, extra: Record<string, unknown> = {}): APIObject => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "ns" },
    spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ port: 80 + i })), ...extra },
  });
  const hard = { services: "5", "count/services": "5", "services.nodeports": "3", "services.loadbalancers": "1" };
  const zero = { services: "0", "count/services": "0", "services.nodeports": "0", "services.loadbalancers": "0" };

  it("counts services, node ports and load balancers", async () => {
    const services = servicesWith(quota("q", hard, zero));
    expect(await admit(services, create(serviceType, svc("lb", "LoadBalancer")))).toBeUndefined();
    expect(await usedOf(services)).toEqual({ "count/services": "1", services: "1", "services.loadbalancers": "1", "services.nodeports": "2" });
    expect((await admit(services, create(serviceType, svc("np", "NodePort"))))?.message).toBe(
      'services "np" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=2, limited: services.nodeports=3',
    );
    expect((await admit(services, create(serviceType, svc("lb2", "LoadBalancer", 1, { allocateLoadBalancerNodePorts: false }))))?.message).toBe(
      'services "lb2" is forbidden: exceeded quota: q, requested: services.loadbalancers=1, used: services.loadbalancers=1, limited: services.loadbalancers=1',
    );
  });

  it("charges an update that changes the type", async () => {
    const services = servicesWith(quota("q", hard, { ...zero, services: "1", "count/services": "1" }));
    expect(await admit(services, update(serviceType, svc("s", "NodePort", 1), svc("s", "ClusterIP", 1)))).toBeUndefined();
    expect(await usedOf(services)).toEqual({ "count/services": "1", services: "1", "services.loadbalancers": "0", "services.nodeports": "1" });
  });
});

describe("ResourceQuota persistentvolumeclaims", () => {
  const pvc = (name: string, storage: string, storageClassName?: string): APIObject => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name, namespace: "ns" },
    spec: { resources: { requests: { storage } }, ...(storageClassName ? { storageClassName } : {}) },
  });

  it("counts claims and storage, per storage class too", async () => {
    const hard = {
      persistentvolumeclaims: "5",
      "requests.storage": "10Gi",
      "gold.storageclass.storage.orch.io/requests.storage": "3Gi",
      "gold.storageclass.storage.orch.io/persistentvolumeclaims": "2",
    };
    const services = servicesWith(
      quota("q", hard, {
        persistentvolumeclaims: "0",
        "requests.storage": "0",
        "gold.storageclass.storage.orch.io/requests.storage": "0",
        "gold.storageclass.storage.orch.io/persistentvolumeclaims": "0",
      }),
    );
    expect(await admit(services, create(persistentVolumeClaimType, pvc("a", "2Gi", "gold")))).toBeUndefined();
    expect(await usedOf(services)).toEqual({
      "gold.storageclass.storage.orch.io/persistentvolumeclaims": "1",
      "gold.storageclass.storage.orch.io/requests.storage": "2Gi",
      persistentvolumeclaims: "1",
      "requests.storage": "2Gi",
    });
    expect((await admit(services, create(persistentVolumeClaimType, pvc("b", "2Gi", "gold"))))?.message).toBe(
      'persistentvolumeclaims "b" is forbidden: exceeded quota: q, requested: gold.storageclass.storage.orch.io/requests.storage=2Gi, used: gold.storageclass.storage.orch.io/requests.storage=2Gi, limited: gold.storageclass.storage.orch.io/requests.storage=3Gi',
    );
    expect(await admit(services, create(persistentVolumeClaimType, pvc("c", "2Gi", "silver")))).toBeUndefined();
  });

  it("charges a storage increase, not a decrease", async () => {
    const services = servicesWith(quota("q", { "requests.storage": "5Gi" }, { "requests.storage": "2Gi" }));
    expect(await admit(services, update(persistentVolumeClaimType, pvc("a", "4Gi"), pvc("a", "2Gi")))).toBeUndefined();
    expect(await usedOf(services)).toEqual({ "requests.storage": "4Gi" });
    expect((await admit(services, update(persistentVolumeClaimType, pvc("a", "6Gi"), pvc("a", "4Gi"))))?.message).toBe(
      'persistentvolumeclaims "a" is forbidden: exceeded quota: q, requested: requests.storage=2Gi, used: requests.storage=4Gi, limited: requests.storage=5Gi',
    );
    const writes = services.writes.length;
    expect(await admit(services, update(persistentVolumeClaimType, pvc("a", "1Gi"), pvc("a", "4Gi")))).toBeUndefined();
    expect(services.writes).toHaveLength(writes);
  });

  it("uses storageclass.storage.k8s.io under domain k8s.io", async () => {
    const services = fakeServices({ domain: "k8s.io" });
    services.put(
      "",
      "resourcequotas",
      quota("q", { "gold.storageclass.storage.k8s.io/requests.storage": "1Gi" }, { "gold.storageclass.storage.k8s.io/requests.storage": "0" }),
    );
    const attrs = attributesFor({ operation: "CREATE", type: persistentVolumeClaimType, object: pvc("a", "2Gi", "gold"), domain: "k8s.io" });
    expect((await admit(services, attrs))?.message).toMatch(/exceeded quota: q, requested: gold.storageclass.storage.k8s.io\/requests.storage=2Gi/);
  });
});

describe("ResourceQuota object counts", () => {
  const cm = (name: string): APIObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns" } });

  it("counts configmaps under count/configmaps and the legacy name", async () => {
    const services = servicesWith(quota("q", { configmaps: "1", "count/configmaps": "5" }, { configmaps: "0", "count/configmaps": "0" }));
    expect(await admit(services, create(configMapType, cm("a")))).toBeUndefined();
    expect(await usedOf(services)).toEqual({ configmaps: "1", "count/configmaps": "1" });
    expect((await admit(services, create(configMapType, cm("b"))))?.message).toBe(
      'configmaps "b" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=1, limited: configmaps=1',
    );
  });

  it("counts secrets and resourcequotas under their legacy names", async () => {
    const services = servicesWith(quota("q", { secrets: "0", resourcequotas: "1" }, { secrets: "0", resourcequotas: "1" }));
    const secret: APIObject = { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "ns" } };
    expect((await admit(services, create(secretType, secret)))?.message).toMatch(/exceeded quota: q, requested: secrets=1/);
    expect((await admit(services, create(resourceQuotaType, quota("q2", {}))))?.message).toMatch(/exceeded quota: q, requested: resourcequotas=1/);
  });

  it("counts any resource as count/<resource>.<group>", async () => {
    const deployments: ResourceType = { ...configMapType, group: "apps", resource: "deployments", kind: "Deployment" };
    const services = servicesWith(quota("q", { "count/deployments.apps": "1" }, { "count/deployments.apps": "1" }));
    const error = await admit(services, create(deployments, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "ns" } }));
    expect(error?.message).toBe(
      'deployments.apps "d" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1',
    );
  });

  it("does not charge object-count updates", async () => {
    const services = servicesWith(quota("q", { configmaps: "1" }, { configmaps: "1" }));
    expect(await admit(services, update(configMapType, cm("a"), cm("a")))).toBeUndefined();
  });

  it("ignores sub-resources, cluster objects, namespace creation and events", async () => {
    const services = servicesWith(
      quota("q", { pods: "0", "count/events": "0", "count/namespaces": "0" }, { pods: "0", "count/events": "0", "count/namespaces": "0" }),
    );
    expect(await admit(services, { ...create(podType, pod("a")), subresource: "status" })).toBeUndefined();
    expect(await admit(services, create(eventType, { apiVersion: "v1", kind: "Event", metadata: { name: "e", namespace: "ns" } }))).toBeUndefined();
    expect(await admit(services, create(namespaceType, { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns" } }))).toBeUndefined();
    expect(await admit(servicesWith(), create(podType, pod("a")))).toBeUndefined();
  });
});

describe("ResourceQuota charging", () => {
  it("never overshoots under 20 concurrent creates: exactly 5 of them pass", async () => {
    const services = servicesWith(quota("q", { pods: "5" }, { pods: "0" }));
    const plugin = resourceQuota({ services, configuration: undefined });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => plugin.validate?.(create(podType, pod(`p${i}`)))));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(refused).toHaveLength(15);
    expect(refused.every((r) => r.reason instanceof StatusError && r.reason.status.code === 403)).toBe(true);
    expect(await usedOf(services)).toEqual({ pods: "5" });
  });

  it("never overshoots with two plugin instances (two servers) sharing the quota", async () => {
    const services = servicesWith(quota("q", { pods: "5" }, { pods: "0" }));
    const plugins = [resourceQuota({ services, configuration: undefined }), resourceQuota({ services, configuration: undefined })];
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => plugins[i % 2]?.validate?.(create(podType, pod(`p${i}`)))));
    const passed = results.filter((r) => r.status === "fulfilled").length;
    expect(passed).toBeLessThanOrEqual(5);
    expect((await usedOf(services))?.["pods"]).toBe(String(passed));
  });

  it("re-reads the quota and decides again after a conflict", async () => {
    const services = servicesWith(quota("q", { pods: "2" }, { pods: "0" }));
    const update = services.update.bind(services);
    let calls = 0;
    services.update = async (group, resource, namespace, object, subresource) => {
      // Another server charges the quota first.
      if (calls++ === 0) services.put("", "resourcequotas", quota("q", { pods: "2" }, { pods: "1" }));
      return update(group, resource, namespace, object, subresource);
    };
    expect(await admit(services, create(podType, pod("a")))).toBeUndefined();
    expect(await usedOf(services)).toEqual({ pods: "2" });
    expect(calls).toBe(2);
  });

  it("gives up with the conflict after three more tries", async () => {
    const services = servicesWith(quota("q", { pods: "9" }, { pods: "0" }));
    let calls = 0;
    services.update = async () => {
      calls++;
      throw conflict({ group: "", resource: "resourcequotas" }, "q");
    };
    const error = await admit(services, create(podType, pod("a")));
    expect(error?.status.code).toBe(409);
    expect(calls).toBe(4);
  });

  it("charges every matching quota", async () => {
    const services = servicesWith(quota("a", { pods: "5" }, { pods: "1" }), quota("b", { "count/pods": "5" }, { "count/pods": "3" }));
    expect(await admit(services, create(podType, pod("x")))).toBeUndefined();
    expect(await usedOf(services, "a")).toEqual({ pods: "2" });
    expect(await usedOf(services, "b")).toEqual({ "count/pods": "4" });
  });
});

describe("ResourceQuota limitedResources", () => {
  const configuration = {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "ResourceQuotaConfiguration",
    limitedResources: [{ resource: "pods", matchContains: ["cpu"] }],
  };

  it("refuses consumption no quota covers", async () => {
    const error = await admit(servicesWith(), create(podType, pod("a", [cpu("c", "100m")])), configuration);
    expect(error?.message).toBe('pods "a" is forbidden: insufficient quota to consume: cpu,requests.cpu');
    expect(await admit(servicesWith(), create(podType, pod("b")), configuration)).toBeUndefined();
    const covered = servicesWith(quota("q", { cpu: "1", "requests.cpu": "1" }, { cpu: "0", "requests.cpu": "0" }));
    expect(await admit(covered, create(podType, pod("c", [cpu("c", "100m")])), configuration)).toBeUndefined();
  });

  it("refuses objects in a limited scope without a quota of that scope", async () => {
    const scoped = { limitedResources: [{ resource: "pods", matchScopes: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }] }] };
    const error = await admit(servicesWith(), create(podType, pod("a", undefined, { priorityClassName: "high" })), scoped);
    expect(error?.message).toBe('pods "a" is forbidden: insufficient quota to match these scopes: [{PriorityClass In [high]}]');
  });

  it("refuses a malformed configuration", () => {
    expect(() => resourceQuota({ services: fakeServices(), configuration: { limitedResources: {} } })).toThrow(/limitedResources must be a list/);
  });
});

describe("ResourceQuota without quotas", () => {
  it("passes a write at once (no promise) once the watch-kept quotas are in and the namespace holds none", async () => {
    const services = servicesWith();
    const plugin = resourceQuota({ services, configuration: undefined });
    const attrs = create(podType, pod("a"));
    // Before the view is known to be in, the plugin waits for it.
    await expect(plugin.validate?.(attrs)).resolves.toBeUndefined();
    expect(plugin.validate?.(attrs)).toBeUndefined();
    services.put("", "resourcequotas", quota("q", { pods: "0" }));
    // A namespace with a quota is checked (and refused here) as before.
    const refused = plugin.validate?.(create(podType, pod("b")));
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toMatchObject({ code: 403 });
  });
});
