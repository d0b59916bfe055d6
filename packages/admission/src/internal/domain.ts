/**
 * The names the plugins derive from the product domain. The reference's `kubernetes.io` label,
 * annotation and taint prefixes become the domain (`orch.io`) and stay `kubernetes.io` under
 * domain `k8s.io`; its `kube-` name prefix becomes the domain's first label (`orch-`).
 * @module
 */

/**
 * The prefix of the domain's well-known label, annotation and taint keys: `kubernetes.io` for
 * domain `k8s.io` (the reference's keys), the domain itself otherwise (`orch.io`).
 */
export function labelDomain(domain: string): string {
  return domain === "k8s.io" ? "kubernetes.io" : domain;
}

/** The node host-name label: `kubernetes.io/hostname` under `k8s.io`, `<domain>/hostname` otherwise. */
export function hostnameLabel(domain: string): string {
  return `${labelDomain(domain)}/hostname`;
}

/**
 * The short product name that prefixes system object names (`<product>-node-lease`,
 * `<product>-root-ca.crt`): `kube` for domain `k8s.io`, else the domain's first label (`orch`).
 */
export function productName(domain: string): string {
  return domain === "k8s.io" ? "kube" : (domain.split(".")[0] ?? "orch");
}
