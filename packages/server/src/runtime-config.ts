/**
 * `--runtime-config`: which group versions and resources a server serves, as the reference's
 * `resourceconfig` merges its overrides over the defaults. A version that is not served is absent
 * from discovery and OpenAPI and answers 404; its objects stay stored (in the storage version).
 * @module
 */
import { ResourceRegistry, type ResourceType, type ResourceVersion } from "@orch/resources";

/**
 * The overrides of `--runtime-config`, key to on/off. Keys: `api/all` (every version),
 * `api/ga`, `api/beta`, `api/alpha` (versions of that maturity: `v1`, `v1beta1`, `v1alpha1`),
 * `<group>/<version>`, `<group>/<version>/<resource>`; the core group is `v1` or `api/v1`
 * (`v1/<resource>`, `api/v1/<resource>`). `api/legacy` is accepted and ignored.
 */
export type RuntimeConfig = Readonly<Record<string, boolean>>;

/** Whether `version` of `resource` in `group` (resolved, `""` for core) is served. */
export type ServedPredicate = (group: string, resource: string, version: ResourceVersion) => boolean;

/** The keys that address versions by maturity, weakest first: a later one overrides an earlier. */
const maturityKeys: readonly (readonly [string, (version: string) => boolean])[] = [
  ["api/all", () => true],
  ["api/ga", (v) => /^v\d+$/.test(v)],
  ["api/beta", (v) => /^v\d+beta\d+$/.test(v)],
  ["api/alpha", (v) => /^v\d+alpha\d+$/.test(v)],
];

/** The key with the core group's spellings (`v1`, `api/v1`, and their `/<resource>`) as `/v1...`. */
function normalizeLegacy(key: string): string {
  if (key === "v1" || key.startsWith("v1/")) return `/${key}`;
  if (key === "api/v1" || (key.startsWith("api/v1/") && key.split("/").length === 3)) return key.slice(3);
  return key;
}

/**
 * Resolves `config` against the catalog of `registry`, as the reference's kube-apiserver does at
 * start: a version is served when the most specific key that addresses it says so
 * (`<group>/<version>/<resource>`, then `<group>/<version>`, then `api/alpha`, `api/beta`,
 * `api/ga`, then `api/all`), else when it is on by default (`enabledByDefault`, true when absent).
 *
 * @throws TypeError with the reference's message for a key of the wrong shape
 *   (`runtime-config invalid key <key>`), a group the catalog lacks (`unknown api groups <g>`), a
 *   version the group lacks (`group version <g>/<v> that has not been registered`), a resource
 *   that is not lower case, a value that is not a boolean, and `api/all=false` given alone
 *   (`invalid key with only api/all=false`: a server that serves nothing). A resource the version
 *   lacks is not an error (it has no effect), as in the reference.
 * @example
 * const served = runtimeConfigPredicate(registry, { "api/all": false, "coordination.orch.io/v1": true });
 */
export function runtimeConfigPredicate(registry: ResourceRegistry, config: RuntimeConfig = {}): ServedPredicate {
  const keys = Object.keys(config).filter((key) => key !== "api/legacy");
  for (const key of keys) {
    if (typeof config[key] !== "boolean") throw new TypeError(`invalid value ${key}=${String(config[key])}`);
  }
  if (keys.length === 1 && keys[0] === "api/all" && config["api/all"] === false) throw new TypeError("invalid key with only api/all=false");
  const maturity = maturityKeys.filter(([key]) => key in config).map(([key, matches]) => ({ matches, on: config[key] as boolean }));
  const byVersion = new Map<string, boolean>();
  const byResource = new Map<string, boolean>();
  const unknownGroups: string[] = [];
  const unknownVersions: string[] = [];
  for (const key of keys) {
    if (maturityKeys.some(([k]) => k === key)) continue;
    const tokens = normalizeLegacy(key).split("/");
    if (tokens.length !== 2 && tokens.length !== 3) throw new TypeError(`runtime-config invalid key ${key}`);
    const [group, version, resource] = tokens as [string, string, string | undefined];
    const info = registry.group(group);
    if (!info) {
      unknownGroups.push(group);
      continue;
    }
    if (!info.versions.includes(version)) {
      unknownVersions.push(group ? `${group}/${version}` : version);
      continue;
    }
    if (resource === undefined) byVersion.set(`${group}/${version}`, config[key] as boolean);
    else if (resource.toLowerCase() !== resource) {
      throw new TypeError(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not "${resource}"`);
    } else byResource.set(`${group}/${version}/${resource}`, config[key] as boolean);
  }
  if (unknownGroups.length > 0) throw new TypeError(`unknown api groups ${unknownGroups.join(",")}`);
  if (unknownVersions.length > 0) throw new TypeError(`group version ${unknownVersions[0] as string} that has not been registered`);
  return (group, resource, version) => {
    const explicit = byResource.get(`${group}/${version.name}/${resource}`) ?? byVersion.get(`${group}/${version.name}`);
    if (explicit !== undefined) return explicit;
    let on = version.enabledByDefault ?? true;
    for (const m of maturity) if (m.matches(version.name)) on = m.on;
    return on;
  };
}

/**
 * The catalog of `registry` with only the versions `served` keeps (types with none left out), for
 * what is generated from a registry (the OpenAPI documents). `registry` itself when every
 * version is served.
 */
export function servedRegistry(registry: ResourceRegistry, served: ServedPredicate): ResourceRegistry {
  let changed = false;
  const types: ResourceType[] = [];
  for (const { type, group } of registry.resources) {
    const versions = type.versions.filter((v) => served(group, type.resource, v));
    if (versions.length !== type.versions.length) changed = true;
    if (versions.length === type.versions.length) types.push(type);
    else if (versions.length > 0) types.push({ ...type, versions });
  }
  return changed ? new ResourceRegistry(types, registry.domain) : registry;
}
