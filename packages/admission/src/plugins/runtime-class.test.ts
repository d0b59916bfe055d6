import type { APIObject } from "@orch/meta";
import { podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { runtimeClass } from "./runtime-class.js";

const group = "node.orch.io";

function setup(...classes: APIObject[]) {
  const services = fakeServices();
  for (const c of classes) services.put(group, "runtimeclasses", c);
  return { services, plugin: runtimeClass({ services, configuration: undefined }) };
}

const klass = (extra: Record<string, unknown> = {}): APIObject => ({
  apiVersion: `${group}/v1`,
  kind: "RuntimeClass",
  metadata: { name: "gvisor" },
  handler: "runsc",
  ...extra,
});

function pod(spec: Record<string, unknown> = {}): APIObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns" },
    spec: { containers: [{ name: "c", image: "i" }], runtimeClassName: "gvisor", ...spec },
  };
}

const create = (object: APIObject) => attributesFor({ operation: "CREATE", type: podType, object });
const specOf = (attrs: { object: APIObject | undefined }) => attrs.object?.["spec"] as Record<string, unknown>;

describe("RuntimeClass", () => {
  it("looks at CREATE in both phases", () => {
    const { plugin } = setup();
    expect(plugin.name).toBe("RuntimeClass");
    expect(plugin.operations).toEqual(["CREATE"]);
    expect(plugin.validate).toBeDefined();
  });

  it("refuses a pod naming a RuntimeClass that does not exist (403), in both phases", async () => {
    const { plugin } = setup();
    const message = 'pods "p" is forbidden: pod rejected: RuntimeClass "gvisor" not found';
    await expect(plugin.admit?.(create(pod()))).rejects.toMatchObject({ status: { code: 403, message } });
    await expect(plugin.validate?.(create(pod()))).rejects.toMatchObject({ status: { code: 403, message } });
  });

  it("sets spec.overhead from overhead.podFixed", async () => {
    const { plugin } = setup(klass({ overhead: { podFixed: { cpu: "250m", memory: "64Mi" } } }));
    const attrs = create(pod());
    await plugin.admit?.(attrs);
    expect(specOf(attrs)["overhead"]).toEqual({ cpu: "250m", memory: "64Mi" });
    await expect(plugin.validate?.(attrs)).resolves.toBeUndefined();
  });

  it("accepts a pod overhead equal to the class's, refuses another one (403)", async () => {
    const { plugin } = setup(klass({ overhead: { podFixed: { cpu: "250m" } } }));
    await expect(plugin.admit?.(create(pod({ overhead: { cpu: "0.25" } })))).resolves.toBeUndefined();
    const message = "pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
    await expect(plugin.admit?.(create(pod({ overhead: { cpu: "1" } })))).rejects.toMatchObject({ status: { code: 403, message } });
    await expect(plugin.validate?.(create(pod({ overhead: { cpu: "1" } })))).rejects.toMatchObject({ status: { code: 403, message } });
  });

  it("refuses in validation a pod overhead without a class that defines one", async () => {
    const { plugin } = setup(klass());
    const message = 'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead';
    await expect(plugin.validate?.(create(pod({ overhead: { cpu: "1" } })))).rejects.toMatchObject({ status: { message } });
    await expect(plugin.validate?.(create(pod({ runtimeClassName: undefined, overhead: { cpu: "1" } })))).rejects.toMatchObject({ status: { message } });
    await expect(plugin.validate?.(create(pod({ runtimeClassName: undefined })))).resolves.toBeUndefined();
  });

  it("merges the class's node selector and appends its tolerations", async () => {
    const scheduling = { nodeSelector: { sandbox: "gvisor" }, tolerations: [{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }] };
    const { plugin } = setup(klass({ scheduling }));
    const own = { key: "gpu", operator: "Exists" };
    const attrs = create(pod({ nodeSelector: { disk: "ssd" }, tolerations: [own] }));
    await plugin.admit?.(attrs);
    expect(specOf(attrs)["nodeSelector"]).toEqual({ disk: "ssd", sandbox: "gvisor" });
    expect(specOf(attrs)["tolerations"]).toEqual([own, { key: "sandbox", operator: "Exists", effect: "NoSchedule" }]);

    const bare = create(pod());
    await plugin.admit?.(bare);
    expect(specOf(bare)["nodeSelector"]).toEqual({ sandbox: "gvisor" });
    expect(specOf(bare)["tolerations"]).toEqual([{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }]);
  });

  it("refuses a pod whose node selector conflicts with the class's (403)", async () => {
    const { plugin } = setup(klass({ scheduling: { nodeSelector: { sandbox: "gvisor" } } }));
    await expect(plugin.admit?.(create(pod({ nodeSelector: { sandbox: "kata" } })))).rejects.toMatchObject({
      status: {
        code: 403,
        message: 'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = gvisor; pod.spec.nodeSelector[sandbox] = kata',
      },
    });
  });

  it("leaves pods without a runtimeClassName, and sub-resources, alone", async () => {
    const { plugin } = setup();
    const attrs = create(pod({ runtimeClassName: undefined }));
    await plugin.admit?.(attrs);
    expect(specOf(attrs)).not.toHaveProperty("overhead");
    const binding = attributesFor({ operation: "CREATE", type: podType, object: pod(), subresource: "binding" });
    await expect(plugin.admit?.(binding)).resolves.toBeUndefined();
  });

  it("reads RuntimeClasses of the domain's node group", async () => {
    const services = fakeServices({ domain: "k8s.io" });
    services.put("node.k8s.io", "runtimeclasses", { ...klass(), apiVersion: "node.k8s.io/v1", overhead: { podFixed: { cpu: "1" } } });
    const plugin = runtimeClass({ services, configuration: undefined });
    const attrs = attributesFor({ operation: "CREATE", type: podType, object: pod(), domain: "k8s.io" });
    await plugin.admit?.(attrs);
    expect(specOf(attrs)["overhead"]).toEqual({ cpu: "1" });
  });
});
