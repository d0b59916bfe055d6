/**
 * {@link discoverResources}: the resources a server serves, read from its discovery documents
 * (`/api/v1`, `/apis`, `/apis/<group>/<preferred version>`) through a {@link Client}.
 * @module
 */
import type { Client, ResourceRef } from "@orch/client";

/** A served resource with the verbs discovery lists for it. */
export interface DiscoveredResource extends ResourceRef {
  /** `create`, `delete`, `get`, `list`, `watch`, ... */
  verbs: string[];
}

interface APIResourceList {
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

interface APIGroupList {
  groups?: { name: string; preferredVersion?: { version: string }; versions?: { version: string }[] }[];
}

/**
 * Every top-level resource (no sub-resources) of the core group's `v1` and of the preferred
 * version of every named group. Groups come resolved (`coordination.orch.io`), never as
 * `{domain}` templates. A group version whose document cannot be read is skipped and reported
 * to `onGroupError` (with its `group/version`, `v1` for the core group). Throws what reading
 * `/apis` threw.
 */
export async function discoverResources(
  client: Client,
  signal?: AbortSignal,
  onGroupError?: (groupVersion: string, error: unknown) => void,
): Promise<DiscoveredResource[]> {
  const out: DiscoveredResource[] = [];
  const read = async (group: string, version: string): Promise<void> => {
    const path = group ? `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}` : `/api/${encodeURIComponent(version)}`;
    let list: APIResourceList;
    try {
      list = await client.call<APIResourceList>({ method: "GET", path, signal });
    } catch (error) {
      onGroupError?.(group ? `${group}/${version}` : version, error);
      return;
    }
    for (const r of list.resources ?? []) {
      if (r.name.includes("/")) continue;
      out.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [] });
    }
  };
  const groups = await client.call<APIGroupList>({ method: "GET", path: "/apis", signal });
  await read("", "v1");
  for (const g of groups.groups ?? []) {
    const version = g.preferredVersion?.version ?? g.versions?.[0]?.version;
    if (version) await read(g.name, version);
  }
  return out;
}
