/**
 * What PodSecurity tells the writer of a namespace: the warnings about existing pods that would
 * violate a newly stricter enforce level (the reference's `EvaluatePodsInNamespace`: at most
 * 3000 pods and about one second, one pod per controller first, one line per distinct set of
 * reasons naming the first pod and how many others), and the warning that an exempt
 * namespace's labels are ignored.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { str } from "../internal/json.js";
import { podSpecOf } from "../internal/pod-spec.js";
import { podView } from "./check.js";
import { forbiddenReasons, type Evaluator } from "./evaluator.js";
import { equivalentPolicies, formatLevelVersion, fullyPrivileged, type LevelVersion, type Policy, type PolicyLabels } from "./levels.js";

/** What {@link existingPodWarnings} needs besides the pods. */
export interface ExistingPodsOptions {
  readonly evaluator: Evaluator;
  /** The prefix of well-known annotations (`orch.io`). */
  readonly labelDomain: string;
  /** True for a runtime class whose pods are exempt (they are not checked). */
  readonly exemptRuntimeClass: (name: string) => boolean;
  /** Now, in milliseconds. */
  readonly now: () => number;
  /** At most this many pods are checked (3000). */
  readonly maxPods?: number;
  /** Checking stops after this many milliseconds (1000). */
  readonly timeoutMs?: number;
}

/** The controller owner reference's uid of `pod`, if any. */
function controllerUID(pod: APIObject): string | undefined {
  return pod.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;
}

/**
 * The pods to check, in order: those of exempt runtime classes left out, then every pod without
 * a controller and the first pod of each controller, then the other pods of controllers.
 */
export function prioritizePods(pods: readonly APIObject[], exemptRuntimeClass: (name: string) => boolean): APIObject[] {
  const first: APIObject[] = [];
  const rest: APIObject[] = [];
  const seen = new Set<string>();
  for (const pod of pods) {
    const runtimeClass = str(podSpecOf(pod)?.["runtimeClassName"]);
    if (runtimeClass && exemptRuntimeClass(runtimeClass)) continue;
    const uid = controllerUID(pod);
    if (uid === undefined || !seen.has(uid)) {
      if (uid !== undefined) seen.add(uid);
      first.push(pod);
    } else {
      rest.push(pod);
    }
  }
  return [...first, ...rest];
}

/** `<pod>: <reasons>`, `<pod> (and 1 other pod): ...`, `<pod> (and N other pods): ...`. */
function podLine(reasons: string, pod: string, count: number): string {
  if (count <= 1) return `${pod}: ${reasons}`;
  return `${pod} (and ${count - 1} other ${count === 2 ? "pod" : "pods"}): ${reasons}`;
}

/**
 * The warnings for a namespace whose enforce level became `enforce`: a first line when not every
 * pod was checked, `existing pods in namespace "<ns>" violate the new PodSecurity enforce level
 * "<level:version>"` when some pod violates it, then one sorted line per distinct set of reasons.
 */
export function existingPodWarnings(namespace: string, enforce: LevelVersion, pods: readonly APIObject[], options: ExistingPodsOptions): string[] {
  const deadline = options.now() + (options.timeoutMs ?? 1000);
  const prioritized = prioritizePods(pods, options.exemptRuntimeClass);
  const total = prioritized.length;
  const toCheck = prioritized.slice(0, options.maxPods ?? 3000);
  const byReasons = new Map<string, { pod: string; count: number }>();
  let checked = toCheck.length;
  for (const [i, pod] of toCheck.entries()) {
    const violations = options.evaluator.evaluate(enforce, podView(pod.metadata, pod["spec"], options.labelDomain));
    if (violations.length) {
      const reasons = forbiddenReasons(violations);
      const name = pod.metadata.name ?? "";
      const seen = byReasons.get(reasons);
      if (!seen) byReasons.set(reasons, { pod: name, count: 1 });
      else byReasons.set(reasons, { pod: name < seen.pod ? name : seen.pod, count: seen.count + 1 });
    }
    if (options.now() > deadline) {
      checked = i + 1;
      break;
    }
  }
  const warnings: string[] = [];
  if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
  if (byReasons.size)
    warnings.push(
      `existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(formatLevelVersion(enforce))}`,
    );
  const lines = [...byReasons.entries()].map(([reasons, { pod, count }]) => podLine(reasons, pod, count)).sort();
  return [...warnings, ...lines];
}

/**
 * The warning for labels set on an exempt namespace, or `""` when the policy is fully
 * privileged or the same as the defaults: `namespace "<ns>" is exempt from Pod Security, and the
 * policy (enforce=..., audit=..., warn=...) will be ignored`, naming each non-privileged mode
 * whose labels are present.
 */
export function exemptNamespaceWarning(
  namespace: string,
  policy: Policy,
  defaults: Policy,
  labels: Readonly<Record<string, string>>,
  names: PolicyLabels,
): string {
  if (fullyPrivileged(policy) || equivalentPolicies(policy, defaults)) return "";
  const modes: [string, LevelVersion, string, string][] = [
    ["enforce", policy.enforce, names.enforce, names.enforceVersion],
    ["audit", policy.audit, names.audit, names.auditVersion],
    ["warn", policy.warn, names.warn, names.warnVersion],
  ];
  const parts = modes
    .filter(([, lv, level, version]) => lv.level !== "privileged" && (labels[level] !== undefined || labels[version] !== undefined))
    .map(([mode, lv]) => `${mode}=${formatLevelVersion(lv)}`);
  return `namespace ${JSON.stringify(namespace)} is exempt from Pod Security, and the policy (${parts.join(", ")}) will be ignored`;
}
