/**
 * The shape of one Pod Security Standards check (the reference's `policy.Check`): an id, a level
 * and the implementation in force from each version on; the pod as the checks see it; and the
 * message helpers the reference's checks share.
 * @module
 */
import { type JSONRecord, record } from "../internal/json.js";
import { type PodContainer, podContainers } from "../internal/pod-spec.js";
import type { Version } from "./levels.js";

/** A pod (or pod template) as the checks read it, its containers listed once. */
export interface PodView {
  /** `metadata.annotations` (empty when none). */
  readonly annotations: Readonly<Record<string, string>>;
  /** The pod spec (empty when none). */
  readonly spec: JSONRecord;
  /** `spec.securityContext`, when set. */
  readonly securityContext: JSONRecord | undefined;
  /** Init containers, containers and ephemeral containers, in that order. */
  readonly containers: readonly PodContainer[];
  /** The prefix of well-known annotations (`orch.io`; `kubernetes.io` under `k8s.io`). */
  readonly labelDomain: string;
}

/** A pod view of `metadata` and `spec` (of a pod or a template). */
export function podView(metadata: unknown, spec: unknown, labelDomain: string): PodView {
  const s = record(spec) ?? {};
  const annotations = record(record(metadata)?.["annotations"]) ?? {};
  return {
    annotations: annotations as Record<string, string>,
    spec: s,
    securityContext: record(s["securityContext"]),
    containers: podContainers(s),
    labelDomain,
  };
}

/** Why a check refuses a pod: a short reason and a detail naming what is wrong. */
export interface Violation {
  readonly reason: string;
  readonly detail: string;
}

/** One check's verdict: `undefined` when the pod passes. */
export type CheckFn = (pod: PodView) => Violation | undefined;

/** One implementation of a check, in force from `since` (a minor version) until the next. */
export interface VersionedCheck {
  readonly since: Version;
  readonly check: CheckFn;
  /** Baseline checks this restricted check replaces at the restricted level. */
  readonly overrides?: readonly string[];
}

/** A check of the standards. */
export interface Check {
  readonly id: string;
  readonly level: "baseline" | "restricted";
  /** Its implementations, oldest first. */
  readonly versions: readonly VersionedCheck[];
}

/** `singular` when `count` is 1, else `plural`. */
export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `"a", "b"` (the empty string for no items). */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? "" : `"${items.join('", "')}"`;
}

/** `container "a"` or `containers "a", "b"`. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize("container", "containers", names.length)} ${joinQuote(names)}`;
}

/** The distinct values of `values`, sorted (Go's `sets.String.List()`). */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** `pod`, the containers phrase, or both joined by ` and ` (who set something wrong). */
export function settersPhrase(pod: boolean, containers: readonly string[]): string[] {
  const setters = pod ? ["pod"] : [];
  if (containers.length) setters.push(containersPhrase(containers));
  return setters;
}

/** True when the pod declares `spec.os.name: windows` (restricted checks skip such pods from v1.25). */
export function isWindowsPod(pod: PodView): boolean {
  return record(pod.spec["os"])?.["name"] === "windows";
}

/** True when the pod runs in a user namespace (`spec.hostUsers: false`). */
export function inUserNamespace(pod: PodView): boolean {
  return pod.spec["hostUsers"] === false;
}

/** A check implementation that lets Windows pods pass and runs `check` on the others. */
export function exceptWindows(check: CheckFn): CheckFn {
  return (pod) => (isWindowsPod(pod) ? undefined : check(pod));
}

/** A check implementation that lets user-namespace pods pass and runs `check` on the others. */
export function exceptUserNamespace(check: CheckFn): CheckFn {
  return (pod) => (inUserNamespace(pod) ? undefined : check(pod));
}
