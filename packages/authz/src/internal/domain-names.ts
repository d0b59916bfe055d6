/**
 * The names RBAC derives from the product domain: API groups (`rbac.authorization.orch.io`),
 * the label and annotation domain (`kubernetes.io` for `k8s.io`, else the domain itself), the
 * component prefix (`kube`, `orch`) and the node agent's name (`kubelet`, `nodeagent`).
 * @module
 */

/** The default product domain. */
export const defaultDomain = "orch.io";

/** `<prefix>.<domain>`: the API group the reference calls `<prefix>.k8s.io`. */
export function groupOf(prefix: string, domain: string): string {
  return `${prefix}.${domain}`;
}

/** The domain of labels, annotations and signer names: `kubernetes.io` for `k8s.io`, else `domain`. */
export function labelDomainOf(domain: string): string {
  return domain === "k8s.io" ? "kubernetes.io" : domain;
}

/** The component prefix: `kube` for `k8s.io`, else the domain's first label (`orch`). */
export function productOf(domain: string): string {
  return domain === "k8s.io" ? "kube" : (domain.split(".")[0] ?? domain);
}

/** The node agent: `kubelet` for `k8s.io`, else `nodeagent`. */
export function nodeAgentOf(domain: string): string {
  return domain === "k8s.io" ? "kubelet" : "nodeagent";
}

/** The system namespace: `kube-system` for `k8s.io`, else `<product>-system`. */
export function systemNamespaceOf(domain: string): string {
  return `${productOf(domain)}-system`;
}

/** The public namespace: `kube-public` for `k8s.io`, else `<product>-public`. */
export function publicNamespaceOf(domain: string): string {
  return `${productOf(domain)}-public`;
}

/** The annotation that lets reconciliation update a bootstrap object: `rbac.authorization.<labelDomain>/autoupdate`. */
export function autoUpdateAnnotationOf(domain: string): string {
  return `rbac.authorization.${labelDomainOf(domain)}/autoupdate`;
}
