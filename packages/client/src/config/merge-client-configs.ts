/**
 * {@link mergeClientConfigs}: several client configuration files as one, the way kubectl merges
 * the files of a `KUBECONFIG` list.
 * @module
 */
import type { ClientConfig } from "./client-config.js";

/**
 * Merges configurations in precedence order, kubectl's rules: for every cluster, user and
 * context name the first configuration that defines it wins (whole entries, never field by
 * field), and the first one that sets `current-context` wins. Entries keep the file they came
 * from, so their relative paths stay resolved against their own file's directory.
 *
 * @example
 * const config = mergeClientConfigs([parseClientConfig(a, "/home/me/.kube/config"), parseClientConfig(b, "/etc/orch/admin.conf")]);
 */
export function mergeClientConfigs(configs: readonly ClientConfig[]): ClientConfig {
  const merged: ClientConfig = {
    files: configs.flatMap((c) => c.files),
    clusters: firstWins(configs.map((c) => c.clusters)),
    users: firstWins(configs.map((c) => c.users)),
    contexts: firstWins(configs.map((c) => c.contexts)),
  };
  const current = configs.find((c) => c.currentContext !== undefined)?.currentContext;
  if (current !== undefined) merged.currentContext = current;
  return merged;
}

function firstWins<T>(maps: readonly ReadonlyMap<string, T>[]): Map<string, T> {
  const out = new Map<string, T>();
  for (const map of maps) for (const [name, entry] of map) if (!out.has(name)) out.set(name, entry);
  return out;
}
