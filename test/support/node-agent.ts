/**
 * A stand-in for the node agent orch does not have: every 200 ms, every Pod of a namespace that
 * is not being deleted and not yet ready is marked `Running` and `Ready` (with a pod IP) through
 * the pods' `status` sub-resource, which is what makes rollouts complete in tests.
 * @module
 */
import { adminRequest, type RunningAPIServer } from "./apiserver.js";

interface Pod {
  metadata: { name: string; deletionTimestamp?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

/** Marks the Pods of `namespace` ready once: what one beat of {@link startPodReadiness} does. */
export async function markPodsReady(server: RunningAPIServer, namespace: string): Promise<void> {
  const res = await adminRequest(server, { path: `/api/v1/namespaces/${namespace}/pods` });
  if (res.status !== 200) return;
  for (const pod of (res.json as { items: Pod[] }).items) {
    if (pod.metadata.deletionTimestamp || pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")) continue;
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    await adminRequest(server, {
      method: "PATCH",
      path: `/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/status`,
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ status: { phase: "Running", podIP: "10.1.0.7", conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }] } }),
    });
  }
}

/** Keeps marking the Pods of `namespace` ready until the returned function is called. */
export function startPodReadiness(server: RunningAPIServer, namespace: string): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = (): void => {
    timer = setTimeout(() => void markPodsReady(server, namespace).finally(() => !stopped && tick()), 200);
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
