import { StatusError, type APIObject } from "@orch/meta";
import { persistentVolumeClaimType, podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../attributes.js";
import { attributesFor, fakeServices, type FakeServices } from "../internal/testing.js";
import { limitRanger, ratioString } from "./limit-ranger.js";
import { parseQuantity } from "@orch/meta";

type Resources = { requests?: Record<string, string>; limits?: Record<string, string> };

const container = (name: string, resources?: Resources, extra: Record<string, unknown> = {}) => ({
  name,
  image: "nginx",
  ...(resources ? { resources } : {}),
  ...extra,
});
const pod = (containers: unknown[], initContainers?: unknown[]): APIObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns" },
  spec: { containers, ...(initContainers ? { initContainers } : {}) },
});
const claim = (storage?: string): APIObject => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name: "c", namespace: "ns", resourceVersion: "5" },
  spec: { accessModes: ["ReadWriteOnce"], resources: storage ? { requests: { storage } } : {} },
});

function servicesWith(limits: Record<string, unknown>[], domain = "orch.io", name = "lr"): FakeServices {
  const services = fakeServices({ domain });
  services.put("", "limitranges", { apiVersion: "v1", kind: "LimitRange", metadata: { name, namespace: "ns" }, spec: { limits } });
  return services;
}

async function run(services: FakeServices, attrs: AdmissionAttributes): Promise<StatusError | undefined> {
  const plugin = limitRanger({ services, configuration: undefined });
  try {
    await plugin.admit?.(attrs);
    await plugin.validate?.(attrs);
    return undefined;
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
}

const createPod = (object: APIObject, domain?: string) => attributesFor({ operation: "CREATE", type: podType, object, ...(domain ? { domain } : {}) });
const resourcesOf = (attrs: AdmissionAttributes, list = "containers", i = 0) =>
  ((attrs.object?.["spec"] as Record<string, { resources?: Resources }[]>)[list]?.[i]?.resources ?? {}) as Resources;

describe("LimitRanger defaults", () => {
  const defaults = { type: "Container", default: { cpu: "500m", memory: "256Mi" }, defaultRequest: { cpu: "100m", memory: "128Mi" } };

  it("sets missing limits from default and requests from defaultRequest, with the annotation", async () => {
    const attrs = createPod(pod([container("c")], [container("init")]));
    expect(await run(servicesWith([defaults]), attrs)).toBeUndefined();
    expect(resourcesOf(attrs)).toEqual({ limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } });
    expect(resourcesOf(attrs, "initContainers")).toEqual({ limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } });
    expect(attrs.object?.metadata.annotations?.["orch.io/limit-ranger"]).toBe(
      "LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c; cpu, memory request for init container init; cpu, memory limit for init container init",
    );
  });

  it("keeps what the container states and names only what it set", async () => {
    const attrs = createPod(pod([container("c", { requests: { cpu: "200m" }, limits: { cpu: "400m" } })]));
    await run(servicesWith([defaults]), attrs);
    expect(resourcesOf(attrs)).toEqual({ limits: { cpu: "400m", memory: "256Mi" }, requests: { cpu: "200m", memory: "128Mi" } });
    expect(attrs.object?.metadata.annotations?.["orch.io/limit-ranger"]).toBe(
      "LimitRanger plugin set: memory request for container c; memory limit for container c",
    );
  });

  it("defaults a request to the limit when only a limit is known", async () => {
    const attrs = createPod(pod([container("c")]));
    await run(servicesWith([{ type: "Container", default: { cpu: "1" } }]), attrs);
    expect(resourcesOf(attrs)).toEqual({ limits: { cpu: "1" }, requests: { cpu: "1" } });
  });

  it("uses kubernetes.io/limit-ranger under domain k8s.io", async () => {
    const attrs = createPod(pod([container("c")]), "k8s.io");
    await run(servicesWith([defaults], "k8s.io"), attrs);
    expect(attrs.object?.metadata.annotations?.["kubernetes.io/limit-ranger"]).toMatch(/^LimitRanger plugin set: /);
  });

  it("changes nothing without a LimitRange, for claims, and for pod updates", async () => {
    const bare = createPod(pod([container("c")]));
    await run(fakeServices(), bare);
    expect(bare.object?.metadata.annotations).toBeUndefined();
    const old = { ...pod([container("c")]), metadata: { name: "p", namespace: "ns", resourceVersion: "3" } };
    const update = attributesFor({ operation: "UPDATE", type: podType, object: pod([container("c")]), oldObject: old });
    await run(servicesWith([defaults]), update);
    expect(resourcesOf(update)).toEqual({});
  });
});

describe("LimitRanger Container rules", () => {
  const check = async (item: Record<string, unknown>, resources: Resources, name = "c") =>
    (await run(servicesWith([{ type: "Container", ...item }]), createPod(pod([container(name, resources)]))))?.message;

  it("enforces max on the limit and the request", async () => {
    expect(await check({ max: { cpu: "500m" } }, { limits: { cpu: "1" }, requests: { cpu: "100m" } })).toBe(
      'pods "p" is forbidden: maximum cpu usage per Container is 500m, but limit is 1',
    );
    expect(await check({ max: { cpu: "500m" } }, { requests: { cpu: "100m" } })).toBe(
      'pods "p" is forbidden: maximum cpu usage per Container is 500m.  No limit is specified',
    );
    expect(await check({ max: { cpu: "500m" } }, { limits: { cpu: "500m" }, requests: { cpu: "500m" } })).toBeUndefined();
  });

  it("enforces min on the request and the limit", async () => {
    expect(await check({ min: { memory: "64Mi" } }, { requests: { memory: "32Mi" }, limits: { memory: "128Mi" } })).toBe(
      'pods "p" is forbidden: minimum memory usage per Container is 64Mi, but request is 32Mi',
    );
    expect(await check({ min: { memory: "64Mi" } }, {})).toBe('pods "p" is forbidden: minimum memory usage per Container is 64Mi.  No request is specified');
    expect(await check({ min: { memory: "64Mi" } }, { requests: { memory: "64Mi" } })).toBeUndefined();
  });

  it("enforces maxLimitRequestRatio", async () => {
    expect(await check({ maxLimitRequestRatio: { cpu: "2" } }, { requests: { cpu: "250m" }, limits: { cpu: "1" } })).toBe(
      'pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000',
    );
    expect(await check({ maxLimitRequestRatio: { cpu: "2" } }, { requests: { cpu: "500m" }, limits: { cpu: "1" } })).toBeUndefined();
    expect(await check({ maxLimitRequestRatio: { cpu: "2" } }, { limits: { cpu: "1" }, requests: { cpu: "0" } })).toBe(
      'pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but no request is specified or request is 0',
    );
    expect(await check({ maxLimitRequestRatio: { memory: "2" } }, { requests: { memory: "1Gi" } })).toBe(
      'pods "p" is forbidden: memory max limit to request ratio per Container is 2, but no limit is specified or limit is 0',
    );
  });

  it("prints the ratio with six decimals rounded half to even", () => {
    expect(ratioString(parseQuantity("1"), parseQuantity("3"))).toBe("0.333333");
    expect(ratioString(parseQuantity("2"), parseQuantity("3"))).toBe("0.666667");
    expect(ratioString(parseQuantity("3Gi"), parseQuantity("1Gi"))).toBe("3.000000");
  });

  it("checks init containers and aggregates several failures", async () => {
    const attrs = createPod(
      pod([container("a", { requests: { cpu: "2" }, limits: { cpu: "2" } })], [container("i", { requests: { cpu: "3" }, limits: { cpu: "3" } })]),
    );
    const error = await run(servicesWith([{ type: "Container", max: { cpu: "1" } }]), attrs);
    expect(error?.status.code).toBe(403);
    expect(error?.message).toBe(
      'pods "p" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, maximum cpu usage per Container is 1, but limit is 3]',
    );
  });

  it("checks after the defaults are applied", async () => {
    const error = await run(
      servicesWith([{ type: "Container", default: { cpu: "2" }, defaultRequest: { cpu: "1" }, max: { cpu: "1" } }]),
      createPod(pod([container("c")])),
    );
    expect(error?.message).toBe('pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });
});

describe("LimitRanger Pod rules", () => {
  const check = async (item: Record<string, unknown>, containers: unknown[], init?: unknown[]) =>
    (await run(servicesWith([{ type: "Pod", ...item }]), createPod(pod(containers, init))))?.message;
  const c = (name: string, cpu: string, limit = cpu) => container(name, { requests: { cpu }, limits: { cpu: limit } });

  it("enforces max over the sum of the containers", async () => {
    expect(await check({ max: { cpu: "1" } }, [c("a", "600m"), c("b", "600m")])).toBe(
      'pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m',
    );
    expect(await check({ max: { cpu: "2" } }, [c("a", "600m"), c("b", "600m")])).toBeUndefined();
  });

  it("takes the largest init container when it exceeds the sum", async () => {
    expect(await check({ max: { cpu: "1" } }, [c("a", "200m")], [c("i", "1500m")])).toBe(
      'pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1500m',
    );
  });

  it("adds restartable init containers to the sum", async () => {
    const sidecar = { ...c("s", "500m"), restartPolicy: "Always" };
    expect(await check({ max: { cpu: "1" } }, [c("a", "600m")], [sidecar])).toBe('pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1100m');
  });

  it("enforces min and the ratio over the totals", async () => {
    expect(await check({ min: { cpu: "1" } }, [c("a", "200m"), c("b", "300m")])).toBe(
      'pods "p" is forbidden: minimum cpu usage per Pod is 1, but request is 500m',
    );
    expect(await check({ maxLimitRequestRatio: { cpu: "3" } }, [c("a", "100m", "400m"), c("b", "100m", "400m")])).toBe(
      'pods "p" is forbidden: cpu max limit to request ratio per Pod is 3, but provided ratio is 4.000000',
    );
  });
});

describe("LimitRanger PersistentVolumeClaim rules", () => {
  const item = { type: "PersistentVolumeClaim", min: { storage: "1Gi" }, max: { storage: "2Gi" } };
  const create = (object: APIObject) => attributesFor({ operation: "CREATE", type: persistentVolumeClaimType, object });

  it("enforces min and max on the storage request", async () => {
    expect((await run(servicesWith([item]), create(claim("5Gi"))))?.message).toBe(
      'persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi',
    );
    expect((await run(servicesWith([item]), create(claim("500Mi"))))?.message).toBe(
      'persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi',
    );
    expect((await run(servicesWith([item]), create(claim())))?.message).toBe(
      'persistentvolumeclaims "c" is forbidden: [minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, maximum storage usage per PersistentVolumeClaim is 2Gi.  No request is specified]',
    );
    expect(await run(servicesWith([item]), create(claim("2Gi")))).toBeUndefined();
  });

  it("checks an update's new request, not one left as stored", async () => {
    const grow = attributesFor({ operation: "UPDATE", type: persistentVolumeClaimType, object: claim("3Gi"), oldObject: claim("2Gi") });
    expect((await run(servicesWith([item]), grow))?.message).toBe(
      'persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 3Gi',
    );
    const same = attributesFor({ operation: "UPDATE", type: persistentVolumeClaimType, object: claim("5Gi"), oldObject: claim("5Gi") });
    expect(await run(servicesWith([item]), same)).toBeUndefined();
  });

  it("ignores claims being deleted and other resources' sub-resources", async () => {
    const old = { ...claim("2Gi"), metadata: { ...claim("2Gi").metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
    expect(
      await run(servicesWith([item]), attributesFor({ operation: "UPDATE", type: persistentVolumeClaimType, object: claim("9Gi"), oldObject: old })),
    ).toBeUndefined();
    expect(
      await run(
        servicesWith([item]),
        attributesFor({ operation: "UPDATE", type: persistentVolumeClaimType, object: claim("9Gi"), oldObject: claim("1Gi"), subresource: "status" }),
      ),
    ).toBeUndefined();
  });
});
