import type { APIObject, StatusError } from "@orch/meta";
import { configMapType, podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices, statusErrorOf } from "../internal/testing.js";
import { limitPodHardAntiAffinityTopology } from "./limit-pod-hard-anti-affinity-topology.js";

const pod = (podAntiAffinity: Record<string, unknown>): APIObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns" },
  spec: { containers: [{ name: "c" }], affinity: { podAntiAffinity } },
});
const term = (topologyKey: string) => ({ labelSelector: { matchLabels: { app: "a" } }, topologyKey });

function refusal(object: APIObject, domain = "orch.io", subresource = ""): Promise<StatusError | undefined> {
  const plugin = limitPodHardAntiAffinityTopology({ services: fakeServices({ domain }), configuration: undefined });
  return statusErrorOf(() => plugin.validate?.(attributesFor({ operation: "CREATE", type: podType, object, subresource, domain })));
}

describe("LimitPodHardAntiAffinityTopology", () => {
  it("looks at CREATE and UPDATE", () => {
    expect(limitPodHardAntiAffinityTopology({ services: fakeServices(), configuration: undefined }).operations).toEqual(["CREATE", "UPDATE"]);
  });

  it("admits the host-name key and pods without required anti-affinity", async () => {
    expect(await refusal(pod({ requiredDuringSchedulingIgnoredDuringExecution: [term("orch.io/hostname")] }))).toBeUndefined();
    expect(await refusal(pod({ preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term("zone") }] }))).toBeUndefined();
    expect(await refusal({ metadata: { name: "p", namespace: "ns" }, spec: { containers: [{ name: "c" }] } })).toBeUndefined();
  });

  it("refuses any other required topology key with the reference's message", async () => {
    const error = await refusal(pod({ requiredDuringSchedulingIgnoredDuringExecution: [term("orch.io/hostname"), term("topology.orch.io/zone")] }));
    expect(error?.status.code).toBe(403);
    expect(error?.message).toBe(
      'pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.orch.io/zone but only key orch.io/hostname is allowed',
    );
  });

  it("uses kubernetes.io/hostname under domain k8s.io", async () => {
    expect(await refusal(pod({ requiredDuringSchedulingIgnoredDuringExecution: [term("kubernetes.io/hostname")] }), "k8s.io")).toBeUndefined();
    expect((await refusal(pod({ requiredDuringSchedulingIgnoredDuringExecution: [term("orch.io/hostname")] }), "k8s.io"))?.message).toBe(
      'pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey orch.io/hostname but only key kubernetes.io/hostname is allowed',
    );
  });

  it("ignores sub-resources and other resources", async () => {
    expect(await refusal(pod({ requiredDuringSchedulingIgnoredDuringExecution: [term("zone")] }), "orch.io", "status")).toBeUndefined();
    const plugin = limitPodHardAntiAffinityTopology({ services: fakeServices(), configuration: undefined });
    expect(() =>
      plugin.validate?.(attributesFor({ operation: "CREATE", type: configMapType, object: { metadata: { name: "c", namespace: "ns" } } })),
    ).not.toThrow();
  });
});
