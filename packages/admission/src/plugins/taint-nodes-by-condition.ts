/**
 * TaintNodesByCondition: a new Node starts tainted not-ready (`NoSchedule`) until the node
 * controller sees it ready, so nothing is scheduled onto it early (the reference's
 * `nodetaint` plugin).
 * @module
 */
import { labelDomain } from "../internal/domain.js";
import { list, record, str } from "../internal/json.js";
import { admissionForbidden, type PluginFactory } from "../plugin.js";

/**
 * The TaintNodesByCondition plugin (mutating phase, CREATE of `nodes`, not of sub-resources):
 * appends the taint `{ key: "node.<p>/not-ready", effect: "NoSchedule" }` to `spec.taints`
 * (`node.orch.io/not-ready`; `node.kubernetes.io/not-ready` for domain `k8s.io`) unless a taint
 * with that key and effect is there already (its value and time do not matter, as the
 * reference's `MatchTaint`); a Node without `spec` gets one.
 */
export const taintNodesByCondition: PluginFactory = ({ services }) => {
  const key = `node.${labelDomain(services.domain)}/not-ready`;
  return {
    name: "TaintNodesByCondition",
    operations: ["CREATE"],
    handlesResource: (group, resource) => group === "" && resource === "nodes",
    admit(attrs) {
      if (attrs.resource.group !== "" || attrs.resource.resource !== "nodes" || attrs.subresource !== "") return;
      const node = attrs.object;
      if (!node) throw admissionForbidden(attrs, "unexpected type <nil>");
      const spec = record(node["spec"]) ?? {};
      const taints = list(spec["taints"]);
      if (taints.some((t) => str(record(t)?.["key"]) === key && str(record(t)?.["effect"]) === "NoSchedule")) return;
      spec["taints"] = [...taints, { key, effect: "NoSchedule" }];
      node["spec"] = spec;
    },
  };
};
