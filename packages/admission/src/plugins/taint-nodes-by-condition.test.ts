import type { APIObject } from "@orch/meta";
import { nodeType, podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices, type AttributesInput } from "../internal/testing.js";
import { taintNodesByCondition } from "./taint-nodes-by-condition.js";

function admit(input: AttributesInput, domain?: string): APIObject | undefined {
  const services = fakeServices(domain ? { domain } : {});
  const plugin = taintNodesByCondition({ services, configuration: undefined });
  const attrs = attributesFor({ ...input, ...(domain ? { domain } : {}) });
  void plugin.admit?.(attrs);
  return attrs.object;
}

const node = (spec?: Record<string, unknown>): APIObject => ({ apiVersion: "v1", kind: "Node", metadata: { name: "n1" }, ...(spec ? { spec } : {}) });

describe("TaintNodesByCondition", () => {
  it("mutates on CREATE only", () => {
    const plugin = taintNodesByCondition({ services: fakeServices(), configuration: undefined });
    expect(plugin.operations).toEqual(["CREATE"]);
    expect(plugin.validate).toBeUndefined();
  });

  it("adds the not-ready NoSchedule taint to a new node, after its own taints", () => {
    expect(admit({ operation: "CREATE", type: nodeType, object: node() })?.["spec"]).toEqual({
      taints: [{ key: "node.orch.io/not-ready", effect: "NoSchedule" }],
    });
    const own = { key: "dedicated", value: "db", effect: "NoExecute" };
    expect(admit({ operation: "CREATE", type: nodeType, object: node({ podCIDR: "10.0.0.0/24", taints: [own] }) })?.["spec"]).toEqual({
      podCIDR: "10.0.0.0/24",
      taints: [own, { key: "node.orch.io/not-ready", effect: "NoSchedule" }],
    });
  });

  it("keeps a matching taint (same key and effect, whatever its value) and adds beside another effect", () => {
    const present = { key: "node.orch.io/not-ready", value: "x", effect: "NoSchedule" };
    expect(admit({ operation: "CREATE", type: nodeType, object: node({ taints: [present] }) })?.["spec"]).toEqual({ taints: [present] });
    const execute = { key: "node.orch.io/not-ready", effect: "NoExecute" };
    expect(admit({ operation: "CREATE", type: nodeType, object: node({ taints: [execute] }) })?.["spec"]).toEqual({
      taints: [execute, { key: "node.orch.io/not-ready", effect: "NoSchedule" }],
    });
  });

  it("uses node.kubernetes.io/not-ready under domain k8s.io", () => {
    expect(admit({ operation: "CREATE", type: nodeType, object: node() }, "k8s.io")?.["spec"]).toEqual({
      taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }],
    });
  });

  it("leaves other resources and sub-resources alone", () => {
    expect(admit({ operation: "CREATE", type: nodeType, subresource: "status", object: node() })?.["spec"]).toBeUndefined();
    const pod: APIObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" }, spec: {} };
    expect(admit({ operation: "CREATE", type: podType, object: pod })?.["spec"]).toEqual({});
  });
});
