/**
 * A quota's usage computed from the objects of its namespace (the reference's
 * `CalculateUsage`): every evaluator that measures some of the quota's hard resources sums the
 * usage of the objects matching the quota's scopes; the quota controller writes the result as
 * `status.used`.
 * @module
 */
import { parseQuantity, type APIObject } from "@orch/meta";
import { record } from "../internal/json.js";
import type { QuotaEvaluator } from "./evaluators.js";
import { QuotaRegistry } from "./evaluators.js";
import { addInto, maskResourceList, resourceListJSON, resourceListOf, type ResourceList } from "./resource-list.js";
import { quotaScopeSelectors, type ScopeSelector } from "./scopes.js";

/**
 * The objects of the quota's namespace, by resolved group and resource, in their stored form;
 * `undefined` for a resource the caller does not serve (its names are then left out).
 */
export type QuotaObjects = (group: string, resource: string) => readonly APIObject[] | undefined;

/** What usage depends on besides the objects. */
export interface QuotaUsageContext {
  /** The product domain (`orch.io`). */
  domain: string;
  /** Now, in ms since the epoch (pods stuck terminating stop counting). */
  now: number;
}

/** A resource a quota's usage is measured from. */
export interface QuotaResource {
  /** The resolved group (`""` for core). */
  group: string;
  /** The resource (`pods`). */
  resource: string;
}

const registries = new Map<string, QuotaRegistry>();

/** The evaluators of `domain`, shared. */
export function quotaRegistry(domain: string): QuotaRegistry {
  let registry = registries.get(domain);
  if (!registry) {
    registry = new QuotaRegistry(domain);
    registries.set(domain, registry);
  }
  return registry;
}

function hardNames(quota: APIObject): string[] {
  return Object.keys(record(record(quota["spec"])?.["hard"]) ?? {});
}

/** True when `object` satisfies every scope requirement (none: everything matches). */
export function matchesScopes(evaluator: QuotaEvaluator, selectors: readonly ScopeSelector[], object: APIObject): boolean {
  return selectors.every((s) => evaluator.matchesScope(s, object));
}

/** The resources whose objects `quota`'s `spec.hard` counts (what to list to compute its usage). */
export function quotaResources(quota: APIObject, domain: string): QuotaResource[] {
  return quotaRegistry(domain)
    .forNames(hardNames(quota))
    .map((e) => ({ group: e.group, resource: e.resource }));
}

function computeUsage(quota: APIObject, objects: QuotaObjects, context: QuotaUsageContext): ResourceList {
  const names = hardNames(quota);
  const selectors = quotaScopeSelectors(quota);
  const used: ResourceList = new Map();
  const measured = new Set<string>();
  for (const evaluator of quotaRegistry(context.domain).forNames(names)) {
    const items = objects(evaluator.group, evaluator.resource);
    if (!items) continue;
    const tracked = evaluator.matchingResources(names);
    const sum: ResourceList = new Map();
    for (const object of items) if (matchesScopes(evaluator, selectors, object)) addInto(sum, evaluator.usage(object, context.now));
    for (const name of tracked) {
      measured.add(name);
      used.set(name, sum.get(name) ?? parseQuantity("0"));
    }
  }
  return maskResourceList(used, measured);
}

/**
 * `status.used` of `quota` computed from the objects of its namespace: for every resource of
 * `spec.hard` some evaluator measures (and `objects` knows), the total over the objects matching
 * the quota's scopes (`0` when none). Resources nothing measures are left out.
 *
 * @example
 * quotaUsage(quota, (group, resource) => (resource === "pods" ? pods : []), { domain: "orch.io", now: Date.now() });
 * // { pods: "3", "requests.cpu": "1500m" }
 */
export function quotaUsage(quota: APIObject, objects: QuotaObjects, context: QuotaUsageContext): Record<string, string> {
  return resourceListJSON(computeUsage(quota, objects, context));
}

/**
 * The status the quota controller writes: `hard` = `spec.hard`, `used` = the computed usage over
 * the quota's previous `status.used` (kept for what nothing measures), restricted to the hard
 * resources.
 */
export function quotaStatus(
  quota: APIObject,
  objects: QuotaObjects,
  context: QuotaUsageContext,
): { hard: Record<string, string>; used: Record<string, string> } {
  const hard = resourceListOf(record(quota["spec"])?.["hard"]);
  const used = resourceListOf(record(quota["status"])?.["used"]);
  for (const [name, q] of computeUsage(quota, objects, context)) used.set(name, q);
  return { hard: resourceListJSON(hard), used: resourceListJSON(maskResourceList(used, hard.keys())) };
}
