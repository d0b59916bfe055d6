/**
 * PodNodeSelector (alpha): a pod created in a namespace gets the namespace's node selector
 * merged into `spec.nodeSelector`, and may only use the node labels its namespace's whitelist
 * allows (the reference's `podnodeselector` plugin).
 *
 * The namespace's selector is its annotation `scheduler.alpha.<prefix>/node-selector`
 * (`kubernetes.io` under domain `k8s.io`), else the configuration's
 * `clusterDefaultNodeSelector`. The configuration's entry named after the namespace is the
 * namespace's whitelist. Selectors are `k=v,k2=v2` strings.
 *
 * Configuration (the plugin's entry in the AdmissionConfiguration):
 * ```yaml
 * podNodeSelectorPluginConfig:
 *   clusterDefaultNodeSelector: env=prod
 *   team-a: env=prod,team=a
 * ```
 * @module
 */
import { internalError } from "@orch/meta";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { CachedLookup } from "../internal/namespace-cache.js";
import { labelDomain } from "../internal/domain.js";
import { record, stringMap } from "../internal/json.js";
import { labelsConflict, parseLabelMap, type LabelMap } from "../internal/pod-scheduling.js";
import { ensurePodSpec, podSpecOf } from "../internal/pod-spec.js";
import { admissionForbidden, type AdmissionPlugin, type PluginFactory } from "../plugin.js";

/** The configuration key of the cluster-wide default selector. */
const clusterDefaultKey = "clusterDefaultNodeSelector";

const conflictMessage = "pod node label selector conflicts with its namespace node label selector";
const whitelistMessage = "pod node label selector labels conflict with its namespace whitelist";

/**
 * Reads the plugin's configuration: `podNodeSelectorPluginConfig`, a map of selector strings.
 * @throws Error for a configuration that is not such a map, or a selector that does not parse.
 */
function readConfiguration(configuration: unknown): Map<string, LabelMap> {
  const out = new Map<string, LabelMap>();
  if (configuration === undefined || configuration === null) return out;
  const root = record(configuration);
  if (!root) throw new Error("PodNodeSelector: the configuration must be an object with podNodeSelectorPluginConfig");
  const entries = root["podNodeSelectorPluginConfig"];
  if (entries === undefined || entries === null) return out;
  const map = record(entries);
  if (!map) throw new Error("PodNodeSelector: podNodeSelectorPluginConfig must be a map of node selectors");
  for (const [key, value] of Object.entries(map)) {
    if (typeof value !== "string") throw new Error(`PodNodeSelector: podNodeSelectorPluginConfig.${key} must be a string`);
    try {
      out.set(key, parseLabelMap(value));
    } catch (error) {
      throw new Error(`PodNodeSelector: podNodeSelectorPluginConfig.${key}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  return out;
}

/** True when every label of `subset` is in `superset` with the same value (an empty superset allows all). */
function isSubset(subset: LabelMap, superset: LabelMap | undefined): boolean {
  if (!superset || Object.keys(superset).length === 0) return true;
  return Object.entries(subset).every(([k, v]) => superset[k] === v);
}

/**
 * The PodNodeSelector plugin (CREATE of pods, not their sub-resources). `admit` refuses a pod
 * whose `spec.nodeSelector` conflicts with its namespace's selector (403 `pod node label
 * selector conflicts with its namespace node label selector`), merges the namespace's selector
 * into it (the pod's own labels kept) and checks the whitelist (403 `pod node label selector
 * labels conflict with its namespace whitelist`); `validate` checks both again. A namespace that
 * does not exist is 500 `namespace <ns> does not exist`, as the reference answers; a namespace
 * annotation that does not parse refuses the pod (403).
 * @throws Error at construction for a configuration it cannot use.
 */
export const podNodeSelector: PluginFactory = ({ services, configuration }) => {
  const selectors = readConfiguration(configuration);
  const annotation = `scheduler.alpha.${labelDomain(services.domain)}/node-selector`;
  const namespaces = new CachedLookup(services, "", "namespaces");

  /** The node selector of the pod's namespace. */
  async function namespaceSelector(attrs: AdmissionAttributes): Promise<LabelMap> {
    const namespace = await namespaces.find("", attrs.namespace);
    if (!namespace) throw internalError(`namespace ${attrs.namespace} does not exist`);
    const text = namespace.metadata.annotations?.[annotation];
    if (text === undefined) return selectors.get(clusterDefaultKey) ?? {};
    try {
      return parseLabelMap(text);
    } catch (error) {
      throw admissionForbidden(attrs, error instanceof Error ? error.message : String(error));
    }
  }

  /** The checks of both phases: no conflict with the namespace, within the whitelist. */
  function check(attrs: AdmissionAttributes, fromNamespace: LabelMap, podSelector: LabelMap): void {
    if (labelsConflict(fromNamespace, podSelector)) throw admissionForbidden(attrs, conflictMessage);
    if (!isSubset(podSelector, selectors.get(attrs.namespace))) throw admissionForbidden(attrs, whitelistMessage);
  }

  const pods = (attrs: AdmissionAttributes) => attrs.object !== undefined && isResource(attrs, "", "pods");

  const plugin: AdmissionPlugin = {
    name: "PodNodeSelector",
    operations: ["CREATE"],
    ready: () => namespaces.ready(),
    async admit(attrs: AdmissionAttributes) {
      if (!pods(attrs) || !attrs.object) return;
      const fromNamespace = await namespaceSelector(attrs);
      const spec = ensurePodSpec(attrs.object);
      const own = stringMap(spec["nodeSelector"]);
      if (labelsConflict(fromNamespace, own)) throw admissionForbidden(attrs, conflictMessage);
      const merged = { ...fromNamespace, ...own };
      if (Object.keys(merged).length > 0) spec["nodeSelector"] = merged;
      check(attrs, fromNamespace, merged);
    },
    async validate(attrs: AdmissionAttributes) {
      if (!pods(attrs) || !attrs.object) return;
      check(attrs, await namespaceSelector(attrs), stringMap(podSpecOf(attrs.object)?.["nodeSelector"]));
    },
  };
  return plugin;
};
