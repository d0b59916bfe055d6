/**
 * LimitPodHardAntiAffinityTopology: refuses pods (CREATE and UPDATE of `pods`, not its
 * sub-resources) whose required pod anti-affinity terms
 * (`spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[*]`) use a
 * `topologyKey` other than the node host-name label (`<domain>/hostname`,
 * `kubernetes.io/hostname` under `k8s.io`), with the reference's message.
 * @module
 */
import { badRequest, forbidden } from "@orch/meta";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { hostnameLabel } from "../internal/domain.js";
import { type JSONRecord, list, record, str } from "../internal/json.js";
import { podSpecOf } from "../internal/pod-spec.js";
import type { AdmissionPlugin, PluginContext, PluginFactory } from "../plugin.js";

/** The first required anti-affinity topology key of `pod` that is not `allowed`, if any. */
export function forbiddenAntiAffinityTopologyKey(pod: JSONRecord, allowed: string): string | undefined {
  const antiAffinity = record(record(podSpecOf(pod)?.["affinity"])?.["podAntiAffinity"]);
  for (const term of list(antiAffinity?.["requiredDuringSchedulingIgnoredDuringExecution"])) {
    const key = str(record(term)?.["topologyKey"]);
    if (key !== allowed) return key;
  }
  return undefined;
}

/** The LimitPodHardAntiAffinityTopology plugin (validating; CREATE and UPDATE of pods). */
export const limitPodHardAntiAffinityTopology: PluginFactory = (ctx: PluginContext): AdmissionPlugin => {
  const allowed = hostnameLabel(ctx.services.domain);
  return {
    name: "LimitPodHardAntiAffinityTopology",
    operations: ["CREATE", "UPDATE"],
    validate(attrs: AdmissionAttributes): void {
      if (!isResource(attrs, "", "pods")) return;
      const pod = attrs.object;
      if (!pod || attrs.kind.kind !== "Pod") throw badRequest("Resource was marked with kind Pod but was unable to be converted");
      const key = forbiddenAntiAffinityTopologyKey(pod, allowed);
      if (key === undefined) return;
      const why = `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${key} but only key ${allowed} is allowed`;
      throw forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, pod.metadata.name ?? attrs.name, why);
    },
  };
};
