/**
 * {@link ResourceRef}: where a kind is served, which is all the client needs to talk about it.
 * @module
 */
import type { ResourceType } from "@orch/resources";

/** Where one kind is served. */
export interface ResourceRef {
  /**
   * The API group; `""` for the core group (`/api/v1`). `{domain}` stands for the client's
   * product domain: `coordination.{domain}` is `coordination.orch.io` by default.
   */
  group: string;
  /** The version: `v1`, `v1beta1`, ... */
  version: string;
  /** The plural, lower-case path segment: `configmaps`. */
  resource: string;
  /** The kind: `ConfigMap`. Filled into `kind` of objects the client sends when it is missing. */
  kind: string;
  /** True when objects live in a namespace. */
  namespaced: boolean;
}

/**
 * The {@link ResourceRef} of a catalog entry, at `version` (by default the storage version, or
 * the first served one). Throws a `TypeError` when the type does not serve `version`.
 */
export function resourceRefOf(type: ResourceType, version?: string): ResourceRef {
  const v = version === undefined ? (type.versions.find((x) => x.storage) ?? type.versions[0]) : type.versions.find((x) => x.name === version);
  if (!v) throw new TypeError(`${type.resource} does not serve version ${version ?? "(none)"}`);
  return { group: type.group, version: v.name, resource: type.resource, kind: type.kind, namespaced: type.scope === "Namespaced" };
}

/** `ref.group` with `{domain}` replaced by `domain`. */
export function resolveGroup(group: string, domain: string): string {
  return group.replaceAll("{domain}", domain);
}

/** The `apiVersion` of `ref` once its group is resolved: `v1` or `coordination.orch.io/v1`. */
export function apiVersionOf(ref: ResourceRef, domain: string): string {
  const group = resolveGroup(ref.group, domain);
  return group ? `${group}/${ref.version}` : ref.version;
}

/**
 * The path of a collection or of one object, percent-encoding the namespace and name:
 * `/api/v1/namespaces/default/configmaps/a`, `/apis/coordination.orch.io/v1/leases`.
 */
export function resourcePath(
  ref: ResourceRef,
  domain: string,
  at: { namespace?: string | undefined; name?: string | undefined; subresource?: string | undefined } = {},
): string {
  const group = resolveGroup(ref.group, domain);
  let path = group ? `/apis/${encodeURIComponent(group)}/${encodeURIComponent(ref.version)}` : `/api/${encodeURIComponent(ref.version)}`;
  if (ref.namespaced && at.namespace !== undefined) path += `/namespaces/${encodeURIComponent(at.namespace)}`;
  path += `/${encodeURIComponent(ref.resource)}`;
  if (at.name !== undefined) {
    path += `/${encodeURIComponent(at.name)}`;
    if (at.subresource !== undefined) path += `/${encodeURIComponent(at.subresource)}`;
  }
  return path;
}
