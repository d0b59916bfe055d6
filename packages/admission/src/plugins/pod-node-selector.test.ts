import type { APIObject } from "@orch/meta";
import { configMapType, podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { labelDomain } from "../internal/domain.js";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { podNodeSelector } from "./pod-node-selector.js";

const conflict = 'pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector';
const whitelist = 'pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist';

function setup(configuration: unknown, namespaces: Record<string, string | undefined> = { ns: undefined }, domain = "orch.io") {
  const services = fakeServices({ domain });
  const key = `scheduler.alpha.${labelDomain(domain)}/node-selector`;
  for (const [name, selector] of Object.entries(namespaces)) {
    services.put("", "namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name, ...(selector === undefined ? {} : { annotations: { [key]: selector } }) },
    });
  }
  return { services, plugin: podNodeSelector({ services, configuration }) };
}

const pod = (nodeSelector?: Record<string, string>, namespace = "ns"): APIObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace },
  spec: { containers: [{ name: "c", image: "i" }], ...(nodeSelector ? { nodeSelector } : {}) },
});

const create = (object: APIObject, domain?: string) => attributesFor({ operation: "CREATE", type: podType, object, ...(domain ? { domain } : {}) });

describe("PodNodeSelector", () => {
  it("looks at CREATE in both phases", () => {
    const { plugin } = setup(undefined);
    expect(plugin.name).toBe("PodNodeSelector");
    expect(plugin.operations).toEqual(["CREATE"]);
    expect(plugin.admit).toBeDefined();
    expect(plugin.validate).toBeDefined();
  });

  it("merges the namespace annotation's selector into the pod's, keeping the pod's labels", async () => {
    const { plugin } = setup(undefined, { ns: "env=prod,zone=a" });
    const attrs = create(pod({ disk: "ssd", zone: "a" }));
    await plugin.admit?.(attrs);
    expect(attrs.object?.["spec"]).toMatchObject({ nodeSelector: { env: "prod", zone: "a", disk: "ssd" } });
    await expect(plugin.validate?.(attrs)).resolves.toBeUndefined();
  });

  it("refuses a pod whose selector conflicts with its namespace's (403)", async () => {
    const { plugin } = setup(undefined, { ns: "env=prod" });
    await expect(plugin.admit?.(create(pod({ env: "dev" })))).rejects.toMatchObject({ status: { code: 403, message: conflict } });
    await expect(plugin.validate?.(create(pod({ env: "dev" })))).rejects.toMatchObject({ status: { code: 403, message: conflict } });
  });

  it("falls back to the cluster default selector when the namespace has no annotation", async () => {
    const { plugin } = setup({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "env=prod" } });
    const attrs = create(pod());
    await plugin.admit?.(attrs);
    expect(attrs.object?.["spec"]).toMatchObject({ nodeSelector: { env: "prod" } });
  });

  it("lets an empty annotation override the cluster default", async () => {
    const { plugin } = setup({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "env=prod" } }, { ns: "" });
    const attrs = create(pod());
    await plugin.admit?.(attrs);
    expect(attrs.object?.["spec"]).not.toHaveProperty("nodeSelector");
  });

  it("checks the pod against the namespace's whitelist from the configuration", async () => {
    const configuration = { podNodeSelectorPluginConfig: { ns: "env=prod,team=a" } };
    const { plugin } = setup(configuration, { ns: "env=prod" });
    const ok = create(pod({ team: "a" }));
    await plugin.admit?.(ok);
    expect(ok.object?.["spec"]).toMatchObject({ nodeSelector: { env: "prod", team: "a" } });
    await expect(plugin.admit?.(create(pod({ team: "b" })))).rejects.toMatchObject({ status: { code: 403, message: whitelist } });
    await expect(plugin.validate?.(create(pod({ disk: "ssd" })))).rejects.toMatchObject({ status: { code: 403, message: whitelist } });
  });

  it("uses kubernetes.io under domain k8s.io", async () => {
    const { plugin } = setup(undefined, { ns: "env=prod" }, "k8s.io");
    const attrs = create(pod(), "k8s.io");
    await plugin.admit?.(attrs);
    expect(attrs.object?.["spec"]).toMatchObject({ nodeSelector: { env: "prod" } });
  });

  it("answers 500 for a namespace that does not exist, as the reference", async () => {
    const { plugin } = setup(undefined, {});
    await expect(plugin.admit?.(create(pod()))).rejects.toMatchObject({
      status: { code: 500, message: "Internal error occurred: namespace ns does not exist" },
    });
  });

  it("refuses a pod whose namespace annotation does not parse", async () => {
    const { plugin } = setup(undefined, { ns: "env" });
    await expect(plugin.admit?.(create(pod()))).rejects.toMatchObject({ status: { code: 403, message: 'pods "p" is forbidden: invalid selector: env' } });
  });

  it("throws at construction on a configuration it cannot use", () => {
    const services = fakeServices();
    expect(() => podNodeSelector({ services, configuration: "x" })).toThrow("PodNodeSelector");
    expect(() => podNodeSelector({ services, configuration: { podNodeSelectorPluginConfig: ["a"] } })).toThrow("must be a map");
    expect(() => podNodeSelector({ services, configuration: { podNodeSelectorPluginConfig: { ns: 3 } } })).toThrow(
      "podNodeSelectorPluginConfig.ns must be a string",
    );
    expect(() => podNodeSelector({ services, configuration: { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "env in (a)" } } })).toThrow(
      "podNodeSelectorPluginConfig.clusterDefaultNodeSelector: invalid selector",
    );
  });

  it("skips sub-resources and other resources", async () => {
    const { plugin } = setup(undefined, { ns: "env=prod" });
    const binding = attributesFor({ operation: "CREATE", type: podType, object: pod({ env: "dev" }), subresource: "binding" });
    await expect(plugin.admit?.(binding)).resolves.toBeUndefined();
    const cm = attributesFor({
      operation: "CREATE",
      type: configMapType,
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ns" } },
    });
    await expect(plugin.admit?.(cm)).resolves.toBeUndefined();
    expect(cm.object).not.toHaveProperty("spec");
  });
});
