/**
 * `GET /metrics`: the metrics of a {@link MetricsRegistry} in the Prometheus text exposition
 * format, with `apiserver_storage_objects` counted from the store at each scrape.
 * @module
 */
import { statusError } from "@orch/meta";
import type { Store } from "@orch/store";
import type { APIResponse } from "./api-request.js";
import type { MetricsRegistry } from "./metrics.js";
import { countStoredObjects, type ServedResource } from "./served-resource.js";

/** `<resource>.<group>`, or `<resource>` for the core group: the `resource` label of `apiserver_storage_objects`. */
function storageResourceName(served: ServedResource): string {
  return served.group ? `${served.type.resource}.${served.group}` : served.type.resource;
}

/**
 * Counts the stored objects of every kind in `kinds` (one store list of one entry each, whose
 * `remaining` gives the rest) into `registry`. A kind the store cannot count now keeps its last
 * count.
 */
export async function recordStorageObjects(registry: MetricsRegistry, store: Store, kinds: readonly ServedResource[]): Promise<void> {
  await Promise.all(
    kinds.map(async (served) => {
      try {
        registry.storageObjects(storageResourceName(served), await countStoredObjects(store, served));
      } catch {
        // The store is away: the scrape still answers, with the last counts.
      }
    }),
  );
}

/**
 * The answer to `<method> /metrics`: the registry's text for GET and HEAD, 405 otherwise.
 * Authorization (`get` on the non-resource URL `/metrics`) happened before.
 */
export async function metricsResponse(method: string, registry: MetricsRegistry, store: Store, kinds: readonly ServedResource[]): Promise<APIResponse> {
  if (method !== "GET" && method !== "HEAD") throw statusError("MethodNotAllowed", "the server does not allow this method on the requested resource");
  await recordStorageObjects(registry, store, kinds);
  const rendered = await registry.render();
  const headers = new Headers({ "Content-Type": rendered.contentType, "X-Content-Type-Options": "nosniff" });
  return { status: 200, headers, body: rendered.body };
}
