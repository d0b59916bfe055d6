import type { APIObject } from "@orch/meta";
import { podType, priorityClassType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices, type FakeServices } from "../internal/testing.js";
import { priority } from "./priority.js";

const group = "scheduling.orch.io";

function priorityClass(name: string, value: number, extra: Record<string, unknown> = {}): APIObject {
  return { apiVersion: `${group}/v1`, kind: "PriorityClass", metadata: { name }, value, ...extra };
}

function setup(...classes: APIObject[]) {
  const services = fakeServices();
  for (const c of classes) services.put(group, "priorityclasses", c);
  return { services, plugin: priority({ services, configuration: undefined }) };
}

function pod(spec: Record<string, unknown> = {}): APIObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" }, spec: { containers: [{ name: "c", image: "i" }], ...spec } };
}

const create = (object: APIObject) => attributesFor({ operation: "CREATE", type: podType, object });
const specOf = (attrs: { object: APIObject | undefined }) => attrs.object?.["spec"] as Record<string, unknown>;

describe("Priority", () => {
  it("admits pods on CREATE and UPDATE and validates PriorityClasses", () => {
    const { plugin } = setup();
    expect(plugin.name).toBe("Priority");
    expect(plugin.operations).toEqual(["CREATE", "UPDATE"]);
    expect(plugin.validate).toBeDefined();
  });

  it("fills priority and preemptionPolicy from the named class", async () => {
    const { plugin } = setup(priorityClass("high", 1000, { preemptionPolicy: "Never" }));
    const attrs = create(pod({ priorityClassName: "high" }));
    await plugin.admit?.(attrs);
    expect(specOf(attrs)).toMatchObject({ priorityClassName: "high", priority: 1000, preemptionPolicy: "Never" });
  });

  it("reads a class the watch does not show yet", async () => {
    const { services } = setup();
    services.watchList = () => ({ items: () => [], generation: () => 0, ready: async () => {} });
    const fresh = priority({ services, configuration: undefined });
    services.put(group, "priorityclasses", priorityClass("new", 7, { preemptionPolicy: "PreemptLowerPriority" }));
    const attrs = create(pod({ priorityClassName: "new" }));
    await fresh.admit?.(attrs);
    expect(specOf(attrs)).toMatchObject({ priority: 7 });
  });

  it("refuses a missing class (403)", async () => {
    const { plugin } = setup();
    await expect(plugin.admit?.(create(pod({ priorityClassName: "nope" })))).rejects.toMatchObject({
      status: { code: 403, message: 'pods "p" is forbidden: no PriorityClass with name nope was found' },
    });
  });

  it("knows the system classes before their objects exist, in any namespace", async () => {
    const { plugin } = setup();
    const cluster = create(pod({ priorityClassName: "system-cluster-critical" }));
    await plugin.admit?.(cluster);
    expect(specOf(cluster)).toMatchObject({ priority: 2_000_000_000, preemptionPolicy: "PreemptLowerPriority" });
    const node = create(pod({ priorityClassName: "system-node-critical" }));
    await plugin.admit?.(node);
    expect(specOf(node)).toMatchObject({ priority: 2_000_001_000 });
  });

  it("uses the global default class for a pod that names none, recording its name", async () => {
    const { plugin } = setup(priorityClass("normal", 100, { globalDefault: true, preemptionPolicy: "Never" }), priorityClass("high", 1000));
    const attrs = create(pod());
    await plugin.admit?.(attrs);
    expect(specOf(attrs)).toMatchObject({ priorityClassName: "normal", priority: 100, preemptionPolicy: "Never" });
  });

  it("of several defaults, takes the lowest value, as the reference", async () => {
    const { plugin } = setup(priorityClass("a", 500, { globalDefault: true }), priorityClass("b", 50, { globalDefault: true }));
    const attrs = create(pod());
    await plugin.admit?.(attrs);
    expect(specOf(attrs)).toMatchObject({ priorityClassName: "b", priority: 50 });
  });

  it("without a default class, gives priority 0 and PreemptLowerPriority and no class name", async () => {
    const { plugin } = setup(priorityClass("high", 1000));
    const attrs = create(pod());
    await plugin.admit?.(attrs);
    expect(specOf(attrs)).toMatchObject({ priority: 0, preemptionPolicy: "PreemptLowerPriority" });
    expect(specOf(attrs)).not.toHaveProperty("priorityClassName");
  });

  it("leaves preemptionPolicy alone when the class sets none", async () => {
    const { plugin } = setup(priorityClass("bare", 5));
    const attrs = create(pod({ priorityClassName: "bare", preemptionPolicy: "Never" }));
    await plugin.admit?.(attrs);
    expect(specOf(attrs)).toMatchObject({ priority: 5, preemptionPolicy: "Never" });
  });

  it("accepts a pod that already carries the computed values", async () => {
    const { plugin } = setup(priorityClass("high", 1000, { preemptionPolicy: "PreemptLowerPriority" }));
    await expect(plugin.admit?.(create(pod({ priorityClassName: "high", priority: 1000, preemptionPolicy: "PreemptLowerPriority" })))).resolves.toBeUndefined();
  });

  it("refuses a pod that sets another priority or preemptionPolicy (403)", async () => {
    const { plugin } = setup(priorityClass("high", 1000, { preemptionPolicy: "PreemptLowerPriority" }));
    await expect(plugin.admit?.(create(pod({ priorityClassName: "high", priority: 5 })))).rejects.toMatchObject({
      status: {
        code: 403,
        message:
          'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
      },
    });
    await expect(plugin.admit?.(create(pod({ priorityClassName: "high", preemptionPolicy: "Never" })))).rejects.toMatchObject({
      status: {
        code: 403,
        message:
          'pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
      },
    });
  });

  it("on UPDATE restores priority and preemptionPolicy the pod dropped", async () => {
    const { plugin } = setup();
    const old = pod({ priority: 10, preemptionPolicy: "Never" });
    const attrs = attributesFor({ operation: "UPDATE", type: podType, object: pod(), oldObject: old });
    await plugin.admit?.(attrs);
    expect(specOf(attrs)).toMatchObject({ priority: 10, preemptionPolicy: "Never" });
  });

  it("skips pod sub-resources", async () => {
    const { plugin } = setup();
    const binding = attributesFor({ operation: "CREATE", type: podType, object: pod({ priorityClassName: "nope" }), subresource: "binding" });
    await expect(plugin.admit?.(binding)).resolves.toBeUndefined();
  });

  describe("PriorityClass validation", () => {
    const write = async (services: FakeServices, operation: "CREATE" | "UPDATE", object: APIObject) => {
      const plugin = priority({ services, configuration: undefined });
      return plugin.validate?.(attributesFor({ operation, type: priorityClassType, object, ...(operation === "UPDATE" ? { oldObject: object } : {}) }));
    };

    it("refuses a second global default (403)", async () => {
      const { services } = setup(priorityClass("normal", 100, { globalDefault: true }));
      await expect(write(services, "CREATE", priorityClass("other", 5, { globalDefault: true }))).rejects.toMatchObject({
        status: {
          code: 403,
          message: 'priorityclasses.scheduling.orch.io "other" is forbidden: PriorityClass normal is already marked as default. Only one default can exist',
        },
      });
      await expect(write(services, "UPDATE", priorityClass("high", 1000, { globalDefault: true }))).rejects.toMatchObject({ status: { code: 403 } });
    });

    it("lets the default class be updated, and non-default classes through", async () => {
      const { services } = setup(priorityClass("normal", 100, { globalDefault: true }));
      await expect(write(services, "UPDATE", priorityClass("normal", 100, { globalDefault: true, description: "d" }))).resolves.toBeUndefined();
      await expect(write(services, "CREATE", priorityClass("other", 5))).resolves.toBeUndefined();
    });

    it("lets the first default in", async () => {
      const { services } = setup(priorityClass("high", 1000));
      await expect(write(services, "CREATE", priorityClass("normal", 100, { globalDefault: true }))).resolves.toBeUndefined();
    });
  });
});
