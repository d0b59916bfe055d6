import type { APIObject } from "@orch/meta";
import { podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { podTolerationRestriction } from "./pod-toleration-restriction.js";

const conflict = 'pods "p" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist';
const memoryPressure = { key: "node.orch.io/memory-pressure", operator: "Exists", effect: "NoSchedule" };

function setup(annotations: Record<string, string> | undefined, configuration?: unknown, domain = "orch.io") {
  const services = fakeServices({ domain });
  if (annotations !== undefined) services.put("", "namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns", annotations } });
  return { services, plugin: podTolerationRestriction({ services, configuration }) };
}

const defaults = (list: unknown[]) => ({ "scheduler.alpha.orch.io/defaultTolerations": JSON.stringify(list) });
const allowed = (list: unknown[]) => ({ "scheduler.alpha.orch.io/tolerationsWhitelist": JSON.stringify(list) });

function pod(tolerations?: unknown[], burstable = false): APIObject {
  const container = { name: "c", image: "i", ...(burstable ? { resources: { requests: { cpu: "100m" } } } : {}) };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns" },
    spec: { containers: [container], ...(tolerations ? { tolerations } : {}) },
  };
}

const create = (object: APIObject) => attributesFor({ operation: "CREATE", type: podType, object });
const tolerationsOf = (attrs: { object: APIObject | undefined }) => (attrs.object?.["spec"] as { tolerations?: unknown[] }).tolerations;

describe("PodTolerationRestriction", () => {
  it("looks at CREATE and UPDATE in both phases", () => {
    const { plugin } = setup({});
    expect(plugin.name).toBe("PodTolerationRestriction");
    expect(plugin.operations).toEqual(["CREATE", "UPDATE"]);
    expect(plugin.validate).toBeDefined();
  });

  it("merges the namespace's default tolerations after the pod's own", async () => {
    const { plugin } = setup(defaults([{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }]));
    const own = { key: "gpu", operator: "Exists" };
    const attrs = create(pod([own]));
    await plugin.admit?.(attrs);
    expect(tolerationsOf(attrs)).toEqual([own, { key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }]);
  });

  it("keeps the broader toleration when the pod's and the default overlap", async () => {
    const { plugin } = setup(defaults([{ key: "dedicated", operator: "Exists" }]));
    const attrs = create(pod([{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }]));
    await plugin.admit?.(attrs);
    expect(tolerationsOf(attrs)).toEqual([{ key: "dedicated", operator: "Exists" }]);
  });

  it("falls back to the configured defaults and whitelist when the namespace has no annotation", async () => {
    const configuration = {
      apiVersion: "podtolerationrestriction.admission.orch.io/v1alpha1",
      kind: "Configuration",
      default: [{ key: "pool", operator: "Equal", value: "general", effect: "NoSchedule" }],
      whitelist: [{ key: "pool", operator: "Exists" }],
    };
    const { plugin } = setup({}, configuration);
    const attrs = create(pod());
    await plugin.admit?.(attrs);
    expect(tolerationsOf(attrs)).toEqual([{ key: "pool", operator: "Equal", value: "general", effect: "NoSchedule" }]);
    await expect(plugin.admit?.(create(pod([{ key: "gpu", operator: "Exists" }])))).rejects.toMatchObject({ status: { code: 403, message: conflict } });
  });

  it("does not fall back when the annotation is empty", async () => {
    const configuration = { default: [{ key: "pool", operator: "Exists" }] };
    const { plugin } = setup({ "scheduler.alpha.orch.io/defaultTolerations": "" }, configuration);
    const attrs = create(pod());
    await plugin.admit?.(attrs);
    expect(tolerationsOf(attrs)).toBeUndefined();
  });

  it("adds the memory-pressure toleration to pods that are not BestEffort", async () => {
    const { plugin } = setup({});
    const attrs = create(pod(undefined, true));
    await plugin.admit?.(attrs);
    expect(tolerationsOf(attrs)).toEqual([memoryPressure]);
  });

  it("refuses tolerations the namespace whitelist does not cover (403), in both phases", async () => {
    const { plugin } = setup(allowed([{ key: "gpu", operator: "Exists" }]));
    await expect(plugin.admit?.(create(pod([{ key: "gpu", operator: "Exists", effect: "NoSchedule" }])))).resolves.toBeUndefined();
    await expect(plugin.admit?.(create(pod([{ key: "other", operator: "Exists" }])))).rejects.toMatchObject({ status: { code: 403, message: conflict } });
    await expect(plugin.validate?.(create(pod([{ key: "other", operator: "Exists" }])))).rejects.toMatchObject({ status: { code: 403, message: conflict } });
  });

  it("checks the merged defaults against the whitelist too", async () => {
    const { plugin } = setup({ ...defaults([{ key: "x", operator: "Exists" }]), ...allowed([{ key: "gpu", operator: "Exists" }]) });
    await expect(plugin.admit?.(create(pod()))).rejects.toMatchObject({ status: { message: conflict } });
  });

  it("on UPDATE adds no defaults but still checks the whitelist", async () => {
    const { plugin } = setup({ ...defaults([{ key: "x", operator: "Exists" }]), ...allowed([{ key: "gpu", operator: "Exists" }]) });
    const object = pod([{ key: "gpu", operator: "Exists" }]);
    const update = attributesFor({ operation: "UPDATE", type: podType, object, oldObject: object });
    await plugin.admit?.(update);
    expect(tolerationsOf(update)).toEqual([{ key: "gpu", operator: "Exists" }]);
    const bad = pod([{ key: "y", operator: "Exists" }]);
    await expect(plugin.admit?.(attributesFor({ operation: "UPDATE", type: podType, object: bad, oldObject: bad }))).rejects.toMatchObject({
      status: { message: conflict },
    });
  });

  it("refuses a pod whose namespace annotation is not a JSON list of tolerations", async () => {
    const notJSON = setup({ "scheduler.alpha.orch.io/defaultTolerations": "[{" });
    await expect(notJSON.plugin.admit?.(create(pod()))).rejects.toMatchObject({ status: { code: 403 } });
    const notList = setup({ "scheduler.alpha.orch.io/defaultTolerations": '{"key":"a"}' });
    await expect(notList.plugin.admit?.(create(pod()))).rejects.toMatchObject({
      status: { code: 403, message: 'pods "p" is forbidden: json: cannot unmarshal object into Go value of type []v1.Toleration' },
    });
    const badField = setup({ "scheduler.alpha.orch.io/tolerationsWhitelist": '[{"key":1}]' });
    await expect(badField.plugin.admit?.(create(pod([{ key: "a", operator: "Exists" }])))).rejects.toMatchObject({
      status: { message: 'pods "p" is forbidden: json: cannot unmarshal number into Go struct field Toleration.key of type string' },
    });
  });

  it("answers 404 for a namespace that does not exist", async () => {
    const { plugin } = setup(undefined);
    await expect(plugin.admit?.(create(pod()))).rejects.toMatchObject({ status: { code: 404, message: 'namespaces "ns" not found' } });
  });

  it("uses kubernetes.io keys under domain k8s.io", async () => {
    const services = fakeServices({ domain: "k8s.io" });
    services.put("", "namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ns", annotations: { "scheduler.alpha.kubernetes.io/defaultTolerations": '[{"key":"a","operator":"Exists"}]' } },
    });
    const plugin = podTolerationRestriction({ services, configuration: undefined });
    const attrs = attributesFor({ operation: "CREATE", type: podType, object: pod(undefined, true), domain: "k8s.io" });
    await plugin.admit?.(attrs);
    expect(tolerationsOf(attrs)).toEqual([
      { key: "a", operator: "Exists" },
      { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
    ]);
  });

  it("throws at construction on a configuration it cannot use", () => {
    const services = fakeServices();
    expect(() => podTolerationRestriction({ services, configuration: { kind: "Other" } })).toThrow("kind must be Configuration");
    expect(() => podTolerationRestriction({ services, configuration: { apiVersion: "v1" } })).toThrow(
      "apiVersion must be podtolerationrestriction.admission.orch.io/v1alpha1",
    );
    expect(() => podTolerationRestriction({ services, configuration: { default: [{ key: "", operator: "Equal" }] } })).toThrow(
      "PodTolerationRestriction: invalid configuration: default[0].operator",
    );
    expect(() => podTolerationRestriction({ services, configuration: { whitelist: "x" } })).toThrow("whitelist must be a list");
  });

  it("skips sub-resources", async () => {
    const { plugin } = setup(allowed([{ key: "gpu", operator: "Exists" }]));
    const binding = attributesFor({ operation: "CREATE", type: podType, object: pod([{ key: "x", operator: "Exists" }]), subresource: "binding" });
    await expect(plugin.admit?.(binding)).resolves.toBeUndefined();
  });
});
