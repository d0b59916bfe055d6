/**
 * The catalog the server serves: resource types with `{domain}` resolved, looked up by group,
 * version and resource, by kind, or by any name a client types (`cm`, `configmap`,
 * `configmaps`), and the groups and versions in the order discovery shows them.
 * @module
 */
import { accessResources } from "./catalog/access.js";
import { clusterResources } from "./catalog/cluster.js";
import { storageResources } from "./catalog/storage.js";
import { workloadsResources } from "./catalog/workloads.js";
import { configMapType } from "./config-map.js";
import { endpointSliceType } from "./endpoint-slice.js";
import { eventType } from "./event.js";
import { eventsEventType } from "./events-event.js";
import { leaseType } from "./lease.js";
import { namespaceType } from "./namespace.js";
import { parseAPIVersion, type GroupVersionKind } from "@orch/meta";
import type { ActionSubresource, ConnectMethod, ResourceType, ResourceVersion } from "./resource-type.js";
import { secretType } from "./secret.js";

/** The built-in kinds: Namespace, ConfigMap, Secret, Event (core `v1`) and Lease (`coordination.{domain}/v1`). */
export const builtinResources: readonly ResourceType[] = [
  namespaceType,
  configMapType,
  secretType,
  eventType,
  leaseType,
  ...workloadsResources,
  ...storageResources,
  ...clusterResources,
  ...accessResources,
  endpointSliceType,
  eventsEventType,
];

/** A resource type as the registry serves it: its resolved group (`coordination.orch.io`, `""` for core). */
export interface RegisteredResource {
  type: ResourceType;
  /** The group with `{domain}` replaced. */
  group: string;
}

/** A resource type at one served version. */
export interface RegisteredVersion extends RegisteredResource {
  version: ResourceVersion;
}

/** One API group as discovery lists it. */
export interface APIGroupInfo {
  /** `""` for the core group. */
  name: string;
  /** Version names, the preferred one first, the rest by the reference's version priority. */
  versions: readonly string[];
  /** The storage version of the group's first resource type that has one, else the first version. */
  preferredVersion: string;
}

/** Replaces `{domain}` in a group name. */
export function resolveGroup(group: string, domain: string): string {
  return group.replaceAll("{domain}", domain);
}

/**
 * The group, version and kind of the body an action sub-resource takes, with `{domain}`
 * resolved: `pods/eviction` is `policy` `v1` Eviction, `serviceaccounts/token`
 * `authentication.orch.io` `v1` TokenRequest.
 */
export function actionKindOf(action: ActionSubresource, domain: string): GroupVersionKind {
  return { ...parseAPIVersion(resolveGroup(action.apiVersion, domain)), kind: action.kind };
}

/** The verb of each method of a connect sub-resource, as discovery lists them (HEAD adds none). */
const connectMethodVerbs: Readonly<Record<ConnectMethod, readonly string[]>> = {
  GET: ["get"],
  POST: ["create"],
  PUT: ["update"],
  PATCH: ["patch"],
  DELETE: ["delete"],
  HEAD: [],
};

/**
 * The verbs sub-resource `sub` of `type` answers: `create` for an action (`pods/eviction`), the
 * verbs of a connect sub-resource's methods (`pods/exec`: `create`, `get`), the
 * verbs its strategy names (Namespace `finalize`: `update`), else `get`, `patch` and `update`
 * (`status`), sorted as discovery lists them.
 */
export function subresourceVerbsOf(type: ResourceType, sub: string): string[] {
  const strategy = type.strategy;
  if (strategy?.actions?.[sub]) return ["create"];
  const connect = strategy?.connect?.[sub];
  if (connect) return [...new Set(connect.methods.flatMap((m) => connectMethodVerbs[m]))].sort();
  return [...(strategy?.subresourceStrategies?.[sub]?.verbs ?? ["get", "update", "patch"])].sort();
}

const versionPattern = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Compares version names as the reference orders them: GA before beta before alpha, higher
 * numbers first, then anything else alphabetically (`v2`, `v1`, `v1beta2`, `v1beta1`, `v1alpha1`, `foo`).
 */
export function compareVersions(a: string, b: string): number {
  const ma = versionPattern.exec(a);
  const mb = versionPattern.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const level = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0);
  if (level(ma) !== level(mb)) return level(mb) - level(ma);
  if (Number(ma[1]) !== Number(mb[1])) return Number(mb[1]) - Number(ma[1]);
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

/**
 * The resource types of one server, with the product domain applied.
 *
 * @example
 * const registry = new ResourceRegistry(builtinResources, "k8s.io");
 * registry.get("coordination.k8s.io", "v1", "leases")?.type.kind // "Lease"
 * registry.find("cm")[0]?.type.kind // "ConfigMap"
 */
export class ResourceRegistry {
  /** The product domain (`orch.io` by default). */
  readonly domain: string;
  /** Every type, in the order given, with its resolved group. */
  readonly resources: readonly RegisteredResource[];
  private readonly byGroupResource = new Map<string, RegisteredResource>();
  private readonly byGroupKind = new Map<string, RegisteredResource>();
  private readonly groupList: readonly APIGroupInfo[];

  /**
   * @throws TypeError when two types share a group and resource, or a group and kind, or a type
   *   has no version, two versions of one name, or more than one storage version.
   */
  constructor(types: readonly ResourceType[], domain = "orch.io") {
    this.domain = domain;
    const resources: RegisteredResource[] = [];
    for (const type of types) {
      const group = resolveGroup(type.group, domain);
      const label = `${type.resource}${group ? `.${group}` : ""}`;
      if (type.versions.length === 0) throw new TypeError(`resource ${label} has no version`);
      const names = new Set(type.versions.map((v) => v.name));
      if (names.size !== type.versions.length) throw new TypeError(`resource ${label} lists a version twice`);
      if (type.versions.filter((v) => v.storage).length > 1) throw new TypeError(`resource ${label} has more than one storage version`);
      const gr = `${group}/${type.resource}`;
      if (this.byGroupResource.has(gr)) throw new TypeError(`resource ${label} is registered twice`);
      const gk = `${group}/${type.kind}`;
      if (this.byGroupKind.has(gk)) throw new TypeError(`kind ${type.kind}${group ? `.${group}` : ""} is registered twice`);
      const registered = { type, group };
      this.byGroupResource.set(gr, registered);
      this.byGroupKind.set(gk, registered);
      resources.push(registered);
    }
    this.resources = resources;
    this.groupList = this.computeGroups();
  }

  private computeGroups(): APIGroupInfo[] {
    const order: string[] = [];
    const members = new Map<string, RegisteredResource[]>();
    for (const r of this.resources) {
      if (!members.has(r.group)) {
        members.set(r.group, []);
        order.push(r.group);
      }
      members.get(r.group)?.push(r);
    }
    // The core group first, the others in the order their first type was given.
    order.sort((a, b) => (a === "" ? -1 : b === "" ? 1 : 0));
    return order.map((name) => {
      const list = members.get(name) ?? [];
      const versions = [...new Set(list.flatMap((r) => r.type.versions.map((v) => v.name)))].sort(compareVersions);
      const storage = list.map((r) => r.type.versions.find((v) => v.storage)?.name).find((v) => v !== undefined);
      const preferredVersion = storage ?? (list[0]?.type.versions[0]?.name as string);
      return { name, versions: [preferredVersion, ...versions.filter((v) => v !== preferredVersion)], preferredVersion };
    });
  }

  /** Every type, in the order given. */
  get types(): readonly ResourceType[] {
    return this.resources.map((r) => r.type);
  }

  /**
   * The resolved group of `type` (`coordination.orch.io`, `""` for core).
   * @throws TypeError when `type` is not registered here.
   */
  groupOf(type: ResourceType): string {
    const found = this.resources.find((r) => r.type === type);
    if (!found) throw new TypeError(`resource type ${type.resource} is not registered`);
    return found.group;
  }

  /** The type serving `resource` in `group` at `version` (resolved group, `""` for core). */
  get(group: string, version: string, resource: string): RegisteredVersion | undefined {
    const found = this.byGroupResource.get(`${group}/${resource}`);
    const v = found?.type.versions.find((x) => x.name === version);
    return found && v ? { ...found, version: v } : undefined;
  }

  /** The type of `resource` in `group`, whatever the version. */
  byResource(group: string, resource: string): RegisteredResource | undefined {
    return this.byGroupResource.get(`${group}/${resource}`);
  }

  /** The type of `kind` in `group`. */
  byKind(group: string, kind: string): RegisteredResource | undefined {
    return this.byGroupKind.get(`${group}/${kind}`);
  }

  /**
   * The types a client-typed name means: plural, singular, kind or short name, without case, and
   * optionally `<name>.<group>` (`leases.coordination.orch.io`). Several when groups share a name;
   * the core group first.
   */
  find(name: string, group?: string): RegisteredResource[] {
    let wanted = name.toLowerCase();
    let wantedGroup = group;
    if (wantedGroup === undefined) {
      const dot = wanted.indexOf(".");
      if (dot > 0) {
        const candidate = wanted.slice(dot + 1);
        if (this.groupList.some((g) => g.name === candidate)) {
          wantedGroup = candidate;
          wanted = wanted.slice(0, dot);
        }
      }
    }
    const matches = this.resources.filter(
      (r) =>
        (wantedGroup === undefined || r.group === wantedGroup) &&
        (r.type.resource === wanted || r.type.singular === wanted || r.type.kind.toLowerCase() === wanted || (r.type.shortNames ?? []).includes(wanted)),
    );
    return matches.sort((a, b) => (a.group === "" ? -1 : b.group === "" ? 1 : 0));
  }

  /** The groups, core first, then in the order their first type was registered. */
  groups(): readonly APIGroupInfo[] {
    return this.groupList;
  }

  /** One group's discovery entry. */
  group(name: string): APIGroupInfo | undefined {
    return this.groupList.find((g) => g.name === name);
  }

  /** The types served at `group`/`version`, in registration order. */
  resourcesIn(group: string, version: string): RegisteredVersion[] {
    const out: RegisteredVersion[] = [];
    for (const r of this.resources) {
      if (r.group !== group) continue;
      const v = r.type.versions.find((x) => x.name === version);
      if (v) out.push({ ...r, version: v });
    }
    return out;
  }

  /** Every served group version as `{ group, version }`, in discovery order. */
  groupVersions(): { group: string; version: string }[] {
    return this.groupList.flatMap((g) => g.versions.map((version) => ({ group: g.name, version })));
  }
}
