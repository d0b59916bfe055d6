/**
 * The `cluster-info` ConfigMap `orch-apiserver` publishes at start, which anonymous callers may
 * read (the RBAC bootstrap policy lets them), as the reference's signed cluster-info config map.
 * @module
 */
import { clusterInfoKubeconfig, clusterInfoKubeconfigKey, clusterInfoName } from "@orch/certificates";
import { isNotFound } from "@orch/meta";
import type { Client } from "@orch/client";

/**
 * Creates ConfigMap `cluster-info` in `namespace` with key `kubeconfig` =
 * `clusterInfoKubeconfig({ server, caPem })`, or updates that key of an existing one (keeping
 * its other keys: the bootstrap signer's `jws-kubeconfig-<id>` signatures). Writes nothing when
 * the key already holds that text.
 * @throws what the client throws (a conflict with a concurrent writer included)
 */
export async function publishClusterInfo(client: Client, namespace: string, info: { server: string; caPem: string }): Promise<void> {
  const kubeconfig = clusterInfoKubeconfig(info);
  const configMaps = client.configMaps;
  let current;
  try {
    current = await configMaps.get(clusterInfoName, { namespace });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await configMaps.create(
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: clusterInfoName, namespace }, data: { [clusterInfoKubeconfigKey]: kubeconfig } },
      { namespace },
    );
    return;
  }
  const data = current.data ?? {};
  if (data[clusterInfoKubeconfigKey] === kubeconfig) return;
  await configMaps.update({ ...current, data: { ...data, [clusterInfoKubeconfigKey]: kubeconfig } }, { namespace });
}
