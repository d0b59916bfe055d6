/**
 * Which Node labels a node agent may set on its own Node (the reference's `getForbiddenLabels`
 * with `kubeletapis.IsKubeletLabel`): never `node-restriction.<prefix>/` ones, and of the
 * domain's own labels only the well-known kubelet set and the `kubelet.<prefix>/` and
 * `node.<prefix>/` namespaces.
 * @module
 */
import { labelDomain } from "./domain.js";

/** The label policy of one domain. */
export interface NodeLabelPolicy {
  /** The keys of `changed` the node may not add, remove or change, sorted. */
  forbidden(changed: Iterable<string>): string[];
}

/** The part of `key` before its `/`, `""` when it has none. */
function namespaceOf(key: string): string {
  const slash = key.indexOf("/");
  return slash === -1 ? "" : key.slice(0, slash);
}

/** True when `namespace` is `domain` or a sub-domain of it. */
function within(namespace: string, domain: string): boolean {
  return namespace === domain || namespace.endsWith(`.${domain}`);
}

/**
 * The label policy for `domain`. With `p` the label prefix (`orch.io`, `kubernetes.io` for
 * domain `k8s.io`), the node may set `p/hostname`, `p/os`, `p/arch`, `beta.p/os`, `beta.p/arch`,
 * `beta.p/instance-type`, `node.p/instance-type`, `topology.p/region`, `topology.p/zone`,
 * `failure-domain.beta.p/region`, `failure-domain.beta.p/zone`, and any key under
 * `kubelet.p/` or `node.p/` (or their sub-domains); other keys under `p` or the domain (or
 * their sub-domains) and every key under `node-restriction.p/` are forbidden.
 */
export function nodeLabelPolicy(domain: string): NodeLabelPolicy {
  const p = labelDomain(domain);
  const kubeletLabels = new Set([
    `${p}/hostname`,
    `topology.${p}/zone`,
    `topology.${p}/region`,
    `failure-domain.beta.${p}/zone`,
    `failure-domain.beta.${p}/region`,
    `beta.${p}/instance-type`,
    `node.${p}/instance-type`,
    `${p}/os`,
    `${p}/arch`,
    `beta.${p}/os`,
    `beta.${p}/arch`,
  ]);
  const kubeletNamespaces = [`kubelet.${p}`, `node.${p}`];
  const ownDomains = [...new Set([p, domain])];
  const restricted = `node-restriction.${p}`;

  const isKubeletLabel = (key: string) => kubeletLabels.has(key) || kubeletNamespaces.some((ns) => within(namespaceOf(key), ns));
  const isDomainLabel = (key: string) => ownDomains.some((d) => within(namespaceOf(key), d));
  const isForbidden = (key: string) => within(namespaceOf(key), restricted) || (isDomainLabel(key) && !isKubeletLabel(key));

  return { forbidden: (changed) => [...new Set(changed)].filter(isForbidden).sort() };
}

/** The keys whose value differs between `a` and `b` (added, removed or changed). */
export function changedLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): string[] {
  const left = a ?? {};
  const right = b ?? {};
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].filter((k) => !Object.hasOwn(left, k) || !Object.hasOwn(right, k) || left[k] !== right[k]);
}
