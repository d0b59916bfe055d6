/**
 * The domain of the well-known label and annotation keys for the server's `domain`:
 * `kubernetes.io` under `k8s.io` (the reference's keys, which kubectl and clients read), the
 * domain itself otherwise (`orch.io`).
 * @example
 * `batch.${labelDomain("k8s.io")}/job-completion-index` // "batch.kubernetes.io/job-completion-index"
 */
export function labelDomain(domain: string): string {
  return domain === "k8s.io" ? "kubernetes.io" : domain;
}
