/**
 * The decision on one write against the quotas of its namespace (the reference's
 * `CheckRequest`): which quotas the object falls under, what a pod must state, whether their
 * usage is known, the write's usage (an UPDATE's change only), and whether adding it keeps every
 * quota within its hard limits. The result is the quotas with their new usage, to be written.
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { record } from "../internal/json.js";
import { admissionForbidden } from "../plugin.js";
import type { QuotaEvaluator } from "./evaluators.js";
import {
  addResourceLists,
  exceededNames,
  maskResourceList,
  negativeNames,
  prettyPrint,
  removeZeros,
  resourceListOf,
  subtractNonNegative,
  subtractResourceLists,
  type ResourceList,
} from "./resource-list.js";
import { formatScopeSelectors, quotaScopeSelectors, type ScopeSelector } from "./scopes.js";
import { matchesScopes } from "./usage.js";

/** One quota as admission sees it: the stored object, its enforced `status.hard`, its running `status.used`. */
export interface QuotaState {
  /** The quota as read (its resourceVersion is the compare-and-swap precondition). */
  readonly object: APIObject;
  readonly name: string;
  readonly hard: ResourceList;
  readonly used: ResourceList;
  readonly selectors: readonly ScopeSelector[];
}

/** The state of a stored quota. */
export function quotaState(object: APIObject): QuotaState {
  const status = record(object["status"]) ?? {};
  return {
    object,
    name: object.metadata.name ?? "",
    hard: resourceListOf(status["hard"]),
    used: resourceListOf(status["used"]),
    selectors: quotaScopeSelectors(object),
  };
}

/** A `limitedResources` entry of the ResourceQuota plugin configuration. */
export interface LimitedResource {
  apiGroup: string;
  resource: string;
  /** Usage names containing one of these need a covering quota. */
  matchContains: string[];
  /** Objects matching one of these scopes need a quota with that scope. */
  matchScopes: ScopeSelector[];
}

/** True when `quota` constrains `object`: it enforces a resource the evaluator measures and its scopes match. */
export function quotaMatches(evaluator: QuotaEvaluator, quota: QuotaState, object: APIObject): boolean {
  return evaluator.matchingResources(quota.hard.keys()).length > 0 && matchesScopes(evaluator, quota.selectors, object);
}

const sortedNames = (names: Iterable<string>) => [...names].sort().join(",");

/** Whether every hard resource among `restricted` has a `status.used` value. */
function hasUsageStats(quota: QuotaState, restricted: readonly string[]): boolean {
  return restricted.every((name) => !quota.hard.has(name) || quota.used.has(name));
}

/** The usage names that a `limitedResources` entry says need a covering quota. */
function limitedNames(usage: ResourceList, limited: readonly LimitedResource[]): string[] {
  const out = new Set<string>();
  for (const entry of limited) {
    for (const [name, q] of usage) if (q.sign() > 0 && entry.matchContains.some((m) => name.includes(m))) out.add(name);
  }
  return [...out];
}

/** The quotas `object` falls under, after their constraints and usage-known checks; and the scopes they cover. */
function pertinentQuotas(quotas: readonly QuotaState[], attrs: AdmissionAttributes, evaluator: QuotaEvaluator, object: APIObject) {
  const indexes: number[] = [];
  const restricted = new Set<string>();
  const coveredScopes: ScopeSelector[] = [];
  quotas.forEach((quota, i) => {
    coveredScopes.push(...quota.selectors.filter((s) => evaluator.matchesScope(s, object)));
    if (!quotaMatches(evaluator, quota, object)) return;
    const names = evaluator.matchingResources(quota.hard.keys());
    const why = evaluator.constraints(names, object);
    if (why) throw admissionForbidden(attrs, `failed quota: ${quota.name}: ${why}`);
    if (!hasUsageStats(quota, names)) throw admissionForbidden(attrs, `status unknown for quota: ${quota.name}, resources: ${sortedNames(names)}`);
    indexes.push(i);
    for (const n of names) restricted.add(n);
  });
  return { indexes, restricted, coveredScopes };
}

/**
 * The write's usage: `change` is the object's usage, or on UPDATE its change since the stored
 * object (never negative, except for evaluators that allow it); `forQuota` charges a quota the
 * stored object did not fall under the object's whole usage.
 */
function writeUsage(attrs: AdmissionAttributes, evaluator: QuotaEvaluator, object: APIObject, now: number) {
  const usage = evaluator.usage(object, now);
  const negative = negativeNames(usage);
  if (negative.length) throw admissionForbidden(attrs, `quota usage is negative for resource(s): ${negative.join(",")}`);
  const whole = removeZeros(usage);
  const old = attrs.oldObject;
  if (attrs.operation !== "UPDATE") return { change: whole, forQuota: () => whole };
  if (!old) throw admissionForbidden(attrs, "unable to get previous usage since prior version of object was not found");
  if (!old.metadata.resourceVersion) return { change: whole, forQuota: () => whole };
  const previous = evaluator.usage(old, now);
  const change = removeZeros(evaluator.negativeDeltas ? subtractResourceLists(usage, previous) : subtractNonNegative(usage, previous));
  return { change, forQuota: (quota: QuotaState) => (quotaMatches(evaluator, quota, old) ? change : whole) };
}

/**
 * Checks one write against `quotas` (the namespace's, as stored): returns them with the usage
 * the write adds (the same array when it adds nothing).
 * @throws StatusError 403 `failed quota: <name>: must specify ...`, `status unknown for quota:
 *   ...`, `exceeded quota: <name>, requested: ..., used: ..., limited: ...`, `insufficient quota
 *   to consume: ...`, `insufficient quota to match these scopes: ...`.
 */
export function checkRequest(
  quotas: readonly QuotaState[],
  attrs: AdmissionAttributes,
  evaluator: QuotaEvaluator,
  now: number,
  limited: readonly LimitedResource[] = [],
): readonly QuotaState[] {
  const object = attrs.object;
  if (!object) return quotas;
  const scoped = limited.filter((l) => l.apiGroup === attrs.resource.group && l.resource === attrs.resource.resource);
  const limitedScopes = limited.flatMap((l) => l.matchScopes.filter((s) => evaluator.matchesScope(s, object)));
  const { indexes, restricted, coveredScopes } = pertinentQuotas(quotas, attrs, evaluator, object);
  const { change, forQuota } = writeUsage(attrs, evaluator, object, now);
  const deltas = new Map(indexes.map((i) => [i, forQuota(quotas[i] as QuotaState)]));
  if (change.size === 0 && [...deltas.values()].every((d) => d.size === 0)) return quotas;

  const uncovered = limitedNames(evaluator.usage(object, now), scoped).filter((n) => !restricted.has(n));
  if (uncovered.length) throw admissionForbidden(attrs, `insufficient quota to consume: ${sortedNames(uncovered)}`);
  const uncoveredScopes = limitedScopes.filter((s) => !coveredScopes.some((c) => c.scopeName === s.scopeName));
  if (uncoveredScopes.length) throw admissionForbidden(attrs, `insufficient quota to match these scopes: ${formatScopeSelectors(uncoveredScopes)}`);

  if (indexes.length === 0) return quotas;
  const out = [...quotas];
  for (const i of indexes) {
    const quota = quotas[i] as QuotaState;
    const requested = maskResourceList(deltas.get(i) ?? new Map(), quota.hard.keys());
    const used = addResourceLists(quota.used, requested);
    const exceeded = exceededNames(maskResourceList(used, requested.keys()), quota.hard);
    if (exceeded.length) {
      throw admissionForbidden(
        attrs,
        `exceeded quota: ${quota.name}, requested: ${prettyPrint(maskResourceList(requested, exceeded))}, used: ${prettyPrint(maskResourceList(quota.used, exceeded))}, limited: ${prettyPrint(maskResourceList(quota.hard, exceeded))}`,
      );
    }
    out[i] = { ...quota, used };
  }
  return out;
}
