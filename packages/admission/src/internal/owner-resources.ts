/**
 * The resource an owner reference's `apiVersion` and `kind` name (the reference's
 * `RESTMapper.RESTMappings` as OwnerReferencesPermissionEnforcement uses it): the built-in
 * catalog first, then the reference's plural guess for kinds it does not know.
 * @module
 */
import { parseAPIVersion } from "@orch/meta";
import { builtinResources, ResourceRegistry } from "@orch/resources";

/** One resource a kind maps to, and whether it is namespaced. */
export interface OwnerResource {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
}

/**
 * Maps an owner's `apiVersion` and `kind` to the resources serving it (several when a kind is
 * served by more than one resource); `namespacedDefault` is the scope to assume for a kind whose
 * scope is unknown.
 * @throws Error when `apiVersion` is malformed or `kind` is empty (the mapper's error).
 */
export type OwnerResourceResolver = (apiVersion: string, kind: string, namespacedDefault: boolean) => OwnerResource[];

/**
 * The resource the reference guesses for a kind it cannot look up
 * (`meta.UnsafeGuessKindToResource`): lower case, `…s` → `…ses`, `…y` → `…ies`, else `…s`;
 * kinds ending in `endpoints` stay as they are.
 */
export function guessResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular.endsWith("endpoints")) return singular;
  if (singular.endsWith("s")) return `${singular}es`;
  if (singular.endsWith("y")) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/**
 * A resolver over the server's registry (`lookup`, from `AdmissionServices.resourceForKind`),
 * then the built-in resource types of `domain` (their real resource and scope); a kind outside them (a custom resource, `apps` kinds the catalog does not carry) maps to
 * {@link guessResource} and is taken as namespaced when `namespacedDefault` is.
 */
export function builtinOwnerResolver(
  domain: string,
  lookup?: (group: string, kind: string) => { resource: string; namespaced: boolean } | undefined,
): OwnerResourceResolver {
  const registry = new ResourceRegistry(builtinResources, domain);
  return (apiVersion, kind, namespacedDefault) => {
    const { group, version } = apiVersion === "" ? { group: "", version: "" } : parseGroupVersion(apiVersion);
    if (kind === "") throw new Error(`no matches for kind "" in version ${JSON.stringify(apiVersion)}`);
    const served = lookup?.(group, kind);
    if (served) return [{ group, version, ...served }];
    const known = registry.byKind(group, kind);
    if (known) return [{ group, version, resource: known.type.resource, namespaced: known.type.scope === "Namespaced" }];
    return [{ group, version, resource: guessResource(kind), namespaced: namespacedDefault }];
  };
}

/** `apiVersion` as group and version, with the reference's error for a malformed one. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  try {
    return parseAPIVersion(apiVersion);
  } catch {
    throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
  }
}
