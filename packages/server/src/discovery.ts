/**
 * Discovery: `/api`, `/api/v1`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`, in the plain form and in
 * the aggregated form (`as=APIGroupDiscoveryList`) that kubectl asks for first.
 * @module
 */
import { actionKindOf, compareVersions, subresourceVerbsOf, type Verb } from "@orch/resources";
import { scaleKind } from "./handlers/scale.js";
import { parseMediaType } from "./negotiation.js";
import type { ServedResource } from "./served-resource.js";

const allVerbs: readonly Verb[] = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/** The verbs a served resource offers, sorted as discovery lists them. */
export function verbsOf(served: ServedResource): string[] {
  return [...(served.type.verbs ?? allVerbs)].sort();
}

/**
 * The group, version and kind a sub-resource takes and answers with: the action's body kind for
 * an action (`pods/eviction` is `policy/v1` Eviction, `serviceaccounts/token`
 * `authentication.<domain>/v1` TokenRequest), `autoscaling/v1` Scale for a declared `scale`, the
 * options kind of a connect sub-resource (`pods/exec` PodExecOptions), else the parent's.
 */
function subresourceKind(served: ServedResource, sub: string, domain: string): { group: string; version: string; kind: string } {
  if (sub === "scale" && served.type.strategy?.scale) return { ...scaleKind };
  const action = served.type.strategy?.actions?.[sub];
  const connect = served.type.strategy?.connect?.[sub];
  if (connect) return { group: served.group, version: served.version.name, kind: connect.kind };
  return action ? actionKindOf(action, domain) : { group: served.group, version: served.version.name, kind: served.type.kind };
}

/** One group with its versions, the preferred one first. */
export interface ServedGroup {
  name: string;
  versions: string[];
  preferred: string;
}

/**
 * Groups (without the core group) in the order discovery lists them. The preferred version is
 * the storage version; when the runtime config turns that off, the served version of highest
 * priority (GA, then beta, then alpha).
 */
export function groupsOf(resources: readonly ServedResource[]): ServedGroup[] {
  const byName = new Map<string, ServedGroup>();
  const withStorage = new Set<string>();
  for (const r of resources) {
    if (!r.group) continue;
    let g = byName.get(r.group);
    if (!g) {
      g = { name: r.group, versions: [], preferred: r.version.name };
      byName.set(r.group, g);
    }
    if (!g.versions.includes(r.version.name)) g.versions.push(r.version.name);
    if (r.version.storage) {
      g.preferred = r.version.name;
      withStorage.add(r.group);
    }
  }
  for (const g of byName.values()) if (!withStorage.has(g.name)) g.preferred = [...g.versions].sort(compareVersions)[0] ?? g.preferred;
  for (const g of byName.values()) g.versions.sort((a, b) => (a === g.preferred ? -1 : b === g.preferred ? 1 : 0));
  return [...byName.values()];
}

function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** The served versions of the core group: `["v1"]`, or none when the runtime config turns it off. */
function coreVersions(resources: readonly ServedResource[]): string[] {
  return resources.some((r) => r.group === "" && r.version.name === "v1") ? ["v1"] : [];
}

/** `/api`: the core group's served versions. */
export function apiVersions(resources: readonly ServedResource[], serverAddress: string): object {
  return { kind: "APIVersions", versions: coreVersions(resources), serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

function apiGroup(g: ServedGroup): object {
  return {
    name: g.name,
    versions: g.versions.map((v) => ({ groupVersion: groupVersion(g.name, v), version: v })),
    preferredVersion: { groupVersion: groupVersion(g.name, g.preferred), version: g.preferred },
  };
}

/** `/apis`: every named group. */
export function apiGroupList(resources: readonly ServedResource[]): object {
  return { kind: "APIGroupList", apiVersion: "v1", groups: groupsOf(resources).map(apiGroup) };
}

/** `/apis/<group>`, or undefined when the group is not served. */
export function apiGroupOf(resources: readonly ServedResource[], group: string): object | undefined {
  const g = groupsOf(resources).find((x) => x.name === group);
  return g ? { kind: "APIGroup", apiVersion: "v1", ...apiGroup(g) } : undefined;
}

/**
 * `/api/v1` or `/apis/<group>/<version>`, or undefined when that version is not served. A
 * sub-resource of another kind than its parent names that kind, with its `group` and `version`
 * when they differ from the list's (as the reference lists `pods/eviction`).
 */
export function apiResourceList(resources: readonly ServedResource[], group: string, version: string, domain: string): object | undefined {
  const served = resources.filter((r) => r.group === group && r.version.name === version);
  if (served.length === 0) return undefined;
  const list: object[] = [];
  for (const r of served) {
    const entry: Record<string, unknown> = {
      name: r.type.resource,
      singularName: r.type.singular,
      namespaced: r.namespaced,
      kind: r.type.kind,
      verbs: verbsOf(r),
    };
    if (r.type.shortNames?.length) entry.shortNames = [...r.type.shortNames];
    if (r.type.categories?.length) entry.categories = [...r.type.categories];
    list.push(entry);
    for (const sub of r.type.subresources ?? []) {
      const gvk = subresourceKind(r, sub, domain);
      const other = gvk.group !== group || gvk.version !== version ? { group: gvk.group, version: gvk.version } : {};
      list.push({
        name: `${r.type.resource}/${sub}`,
        singularName: "",
        namespaced: r.namespaced,
        ...other,
        kind: gvk.kind,
        verbs: subresourceVerbsOf(r.type, sub),
      });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: groupVersion(group, version), resources: list };
}

/** The aggregated discovery media type the client asked for, if it asked for one this server has. */
export function aggregatedDiscoveryAccepted(accept: string | null, domain: string): string | undefined {
  if (!accept) return undefined;
  for (const part of accept.split(",")) {
    const media = parseMediaType(part);
    if (!media) continue;
    const { params } = media;
    if (params.as === "APIGroupDiscoveryList" && params.g === `apidiscovery.${domain}` && (params.v === "v2" || params.v === "v2beta1")) {
      return `application/json;g=apidiscovery.${domain};v=${params.v};as=APIGroupDiscoveryList`;
    }
    if (params.as === undefined && ((media.type === "application" && media.subtype === "json") || media.type === "*")) return undefined;
  }
  return undefined;
}

/** The aggregated discovery document of the core group (`legacy`) or of every named group. */
export function aggregatedDiscovery(resources: readonly ServedResource[], legacy: boolean, domain: string, version: string): object {
  const items: object[] = [];
  const groups = legacy ? coreVersions(resources).map((v) => ({ name: "", versions: [v], preferred: v })) : groupsOf(resources);
  for (const g of groups) {
    const versions = g.versions.map((v) => {
      const served = resources.filter((r) => r.group === g.name && r.version.name === v);
      return {
        version: v,
        resources: served.map((r) => {
          const item: Record<string, unknown> = {
            resource: r.type.resource,
            responseKind: { group: r.group, version: v, kind: r.type.kind },
            scope: r.namespaced ? "Namespaced" : "Cluster",
            singularResource: r.type.singular,
            verbs: verbsOf(r),
          };
          if (r.type.shortNames?.length) item.shortNames = [...r.type.shortNames];
          if (r.type.categories?.length) item.categories = [...r.type.categories];
          if (r.type.subresources?.length) {
            item.subresources = r.type.subresources.map((sub) => ({
              subresource: sub,
              responseKind: subresourceKind(r, sub, domain),
              verbs: subresourceVerbsOf(r.type, sub),
            }));
          }
          return item;
        }),
        freshness: "Current",
      };
    });
    items.push({ metadata: g.name ? { name: g.name } : {}, versions });
  }
  return { kind: "APIGroupDiscoveryList", apiVersion: `apidiscovery.${domain}/${version}`, metadata: {}, items };
}
