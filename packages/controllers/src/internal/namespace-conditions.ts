/**
 * The deletion conditions of a terminating Namespace, the reference's
 * `namespaceConditionUpdater`: each pass of the namespace controller sets every one of
 * {@link namespaceDeletionConditionTypes}, `True` with the failure it saw or `False` with the
 * fine reason, touching `lastTransitionTime` only when the status flips.
 * @module
 */
import type { NamespaceContentPass } from "./namespace-content.js";

/** The condition types the namespace controller owns, in the order it writes them. */
export const namespaceDeletionConditionTypes = [
  "NamespaceDeletionDiscoveryFailure",
  "NamespaceDeletionContentFailure",
  "NamespaceContentRemaining",
  "NamespaceFinalizersRemaining",
] as const;

/** One of {@link namespaceDeletionConditionTypes}. */
export type NamespaceDeletionConditionType = (typeof namespaceDeletionConditionTypes)[number];

/** A condition of a Namespace's `status.conditions`. */
export interface NamespaceCondition {
  /** The condition type. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: string;
  /** RFC 3339 time of the last change of `status`. */
  lastTransitionTime?: string;
  /** CamelCase reason. */
  reason?: string;
  /** What happened, for people. */
  message?: string;
}

/** The reason and message of a condition. */
interface Verdict {
  reason: string;
  message: string;
}

/** The `False` variant of each type: nothing went wrong (the reference's `okReasons`, `okMessages`). */
const fine: Record<NamespaceDeletionConditionType, Verdict> = {
  NamespaceDeletionDiscoveryFailure: { reason: "ResourcesDiscovered", message: "All resources successfully discovered" },
  NamespaceDeletionContentFailure: { reason: "ContentDeleted", message: "All content successfully deleted, may be waiting on finalization" },
  NamespaceContentRemaining: { reason: "ContentRemoved", message: "All content successfully removed" },
  NamespaceFinalizersRemaining: { reason: "ContentHasNoFinalizers", message: "All content-preserving finalizers finished" },
};

/** `<key><infix><n><suffix>` per entry, sorted (for stable updates, as the reference). */
function tally(counts: ReadonlyMap<string, number>, infix: string, suffix: string): string {
  return [...counts]
    .filter(([, n]) => n > 0)
    .map(([key, n]) => `${key}${infix}${n}${suffix}`)
    .sort()
    .join(", ");
}

/** The `True` conditions a pass calls for, by type; the types it leaves out are fine. */
export function namespaceDeletionFailures(pass: NamespaceContentPass): Partial<Record<NamespaceDeletionConditionType, Verdict>> {
  const out: Partial<Record<NamespaceDeletionConditionType, Verdict>> = {};
  if (pass.discoveryError !== undefined) {
    out.NamespaceDeletionDiscoveryFailure = { reason: "DiscoveryFailed", message: pass.discoveryError };
  } else if (pass.failedGroups.length > 0) {
    const groups = [...pass.failedGroups].sort();
    out.NamespaceDeletionDiscoveryFailure = {
      reason: "DiscoveryFailed",
      message: `Discovery failed for some groups, ${groups.length} failing: unable to retrieve the complete list of server APIs: ${groups.join(", ")}`,
    };
  }
  if (pass.deleteErrors.length > 0) {
    const errors = [...pass.deleteErrors].sort();
    out.NamespaceDeletionContentFailure = {
      reason: "ContentDeletionFailed",
      message: `Failed to delete all resource types, ${errors.length} remaining: ${errors.join(", ")}`,
    };
  }
  if (pass.remaining.size > 0) {
    out.NamespaceContentRemaining = {
      reason: "SomeResourcesRemain",
      message: `Some resources are remaining: ${tally(pass.remaining, " has ", " resource instances")}`,
    };
  }
  if (pass.finalizers.size > 0) {
    out.NamespaceFinalizersRemaining = {
      reason: "SomeFinalizersRemain",
      message: `Some content in the namespace has finalizers remaining: ${tally(pass.finalizers, " in ", " resource instances")}`,
    };
  }
  return out;
}

/**
 * `conditions` with every type of {@link namespaceDeletionConditionTypes} set: `True` with the
 * verdict of `failures`, else `False` with the fine one. The first condition of a type is
 * updated in place (its `lastTransitionTime` moves to `now` only when its status changes), a
 * missing one is appended with `now`; other types are kept. `changed` is false when nothing
 * differs.
 */
export function withNamespaceDeletionConditions(
  conditions: readonly NamespaceCondition[],
  failures: Partial<Record<NamespaceDeletionConditionType, Verdict>>,
  now: string,
): { conditions: NamespaceCondition[]; changed: boolean } {
  const out = conditions.map((c) => ({ ...c }));
  let changed = false;
  for (const type of namespaceDeletionConditionTypes) {
    const failure = failures[type];
    const next = { type, status: failure ? "True" : "False", ...(failure ?? fine[type]) };
    const old = out.find((c) => c.type === type);
    if (!old) {
      out.push({ ...next, lastTransitionTime: now });
      changed = true;
    } else if (old.status !== next.status || old.reason !== next.reason || old.message !== next.message) {
      if (old.status !== next.status) old.lastTransitionTime = now;
      Object.assign(old, next);
      changed = true;
    }
  }
  return { conditions: out, changed };
}
