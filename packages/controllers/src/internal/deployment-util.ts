/**
 * The arithmetic of the `deployment` controller (the reference's
 * `pkg/controller/deployment/util`): the pod-template hash, surge and unavailability fenceposts,
 * replica counts over ReplicaSets, revisions and their annotations, the Deployment conditions
 * and the proportions of a scaling. Pure functions over objects as the API serves them.
 * @module
 */
import { formatTime, jsonEqual, type APIObject } from "@orch/meta";
import { labelDomain } from "./label-domain.js";
import { fnv32a, safeEncodeHash } from "./safe-hash.js";
import { timeOf } from "./time-of.js";

/** The label that tells the ReplicaSets (and Pods) of one Deployment template apart. */
export const podTemplateHashLabel = "pod-template-hash";

/** The longest `revision-history` annotation kept, in characters. */
export const maxRevisionHistoryChars = 2000;

/** `progressDeadlineSeconds` meaning "no deadline" (the largest int32). */
const noDeadline = 2 ** 31 - 1;

/** The names of the Deployment annotations for a domain. */
export interface DeploymentAnnotations {
  /** `deployment.<d>/revision`: the revision of a ReplicaSet (and of its Deployment). */
  revision: string;
  /** `deployment.<d>/revision-history`: the earlier revisions a ReplicaSet had. */
  revisionHistory: string;
  /** `deployment.<d>/desired-replicas`: `spec.replicas` of the Deployment when the ReplicaSet was last scaled. */
  desiredReplicas: string;
  /** `deployment.<d>/max-replicas`: that plus the surge. */
  maxReplicas: string;
  /** `kubectl.<d>/last-applied-configuration`, never copied to a ReplicaSet. */
  lastApplied: string;
}

/**
 * The annotation names for `domain`: `deployment.kubernetes.io/...` under `k8s.io` (what kubectl
 * reads for `rollout history` and `rollout undo`), `deployment.<domain>/...` otherwise.
 */
export function deploymentAnnotations(domain: string): DeploymentAnnotations {
  const d = labelDomain(domain);
  return {
    revision: `deployment.${d}/revision`,
    revisionHistory: `deployment.${d}/revision-history`,
    desiredReplicas: `deployment.${d}/desired-replicas`,
    maxReplicas: `deployment.${d}/max-replicas`,
    lastApplied: `kubectl.${d}/last-applied-configuration`,
  };
}

/** The fields of a Deployment spec the controller reads. */
export interface DeploymentSpec {
  replicas?: number;
  selector?: unknown;
  template?: PodTemplate;
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

/** A pod template. */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; [key: string]: unknown };
  spec?: unknown;
}

/** A Deployment condition. */
export interface DeploymentCondition {
  type: string;
  status: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** A Deployment status. */
export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  collisionCount?: number;
  conditions?: DeploymentCondition[];
  [key: string]: unknown;
}

interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  template?: PodTemplate;
  selector?: unknown;
}

interface ReplicaSetStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: { type: string; status: string; lastTransitionTime?: string; reason?: string; message?: string }[];
}

/** The spec of a Deployment. */
export const deploymentSpecOf = (d: APIObject): DeploymentSpec => (d["spec"] as DeploymentSpec | undefined) ?? {};
/** The status of a Deployment. */
export const deploymentStatusOf = (d: APIObject): DeploymentStatus => (d["status"] as DeploymentStatus | undefined) ?? {};
/** The spec of a ReplicaSet. */
export const rsSpecOf = (rs: APIObject): ReplicaSetSpec => (rs["spec"] as ReplicaSetSpec | undefined) ?? {};
/** The status of a ReplicaSet. */
export const rsStatusOf = (rs: APIObject): ReplicaSetStatus => (rs["status"] as ReplicaSetStatus | undefined) ?? {};
/** `spec.replicas` of a Deployment or ReplicaSet (1 when unset, as defaulted). */
export const specReplicas = (o: APIObject): number => (o["spec"] as { replicas?: number } | undefined)?.replicas ?? 1;

/** The JSON of `value` with object keys sorted, so equal objects print the same. */
function canonicalJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJSON(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The `pod-template-hash` of `template` (`ComputeHash`): FNV-32a over the template (as canonical
 * JSON), then over `collisionCount` as 8 little-endian bytes when set, printed in decimal and
 * spelled with the safe alphabet.
 */
export function podTemplateHash(template: PodTemplate, collisionCount?: number): string {
  let hash = fnv32a(new TextEncoder().encode(canonicalJSON(template)));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv32a(bytes, hash);
  }
  return safeEncodeHash(hash);
}

/** The template without the `pod-template-hash` label. */
function withoutHash(template: PodTemplate | undefined): PodTemplate {
  const copy = structuredClone(template ?? {});
  const labels = copy.metadata?.labels;
  if (labels) {
    delete labels[podTemplateHashLabel];
    if (Object.keys(labels).length === 0) delete copy.metadata?.labels;
  }
  return copy;
}

/** The templates are equal but for the `pod-template-hash` label (`EqualIgnoreHash`). */
export function equalIgnoreHash(a: PodTemplate | undefined, b: PodTemplate | undefined): boolean {
  return jsonEqual(withoutHash(a), withoutHash(b));
}

/**
 * An int-or-percent scaled against `total` (`GetScaledValueFromIntOrPercent`): an int as is, a
 * percentage of `total` rounded up or down.
 * @throws Error for a string that is not a percentage.
 */
export function scaledValue(value: number | string | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === "number") return value;
  const match = /^(-?\d+)%$/.exec(value);
  if (!match) throw new Error(`invalid value for IntOrString: invalid value "${value}": must be an integer or a percentage`);
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** Whether the Deployment rolls (`RollingUpdate`) rather than recreates. */
export function isRollingUpdate(d: APIObject): boolean {
  return deploymentSpecOf(d).strategy?.type !== "Recreate";
}

/**
 * The surge (rounded up) and unavailability (rounded down) of a rolling update of `desired`
 * replicas (`ResolveFenceposts`); both zero is read as an unavailability of 1.
 */
export function resolveFenceposts(maxSurge: number | string | undefined, maxUnavailable: number | string | undefined, desired: number): [number, number] {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

/** How many Pods over `spec.replicas` a rolling update may run (0 for Recreate). */
export function maxSurge(d: APIObject): number {
  if (!isRollingUpdate(d)) return 0;
  const rolling = deploymentSpecOf(d).strategy?.rollingUpdate;
  return resolveFenceposts(rolling?.maxSurge, rolling?.maxUnavailable, specReplicas(d))[0];
}

/** How many Pods may be unavailable during a rolling update, at most `spec.replicas` (0 for Recreate or no replicas). */
export function maxUnavailable(d: APIObject): number {
  const replicas = specReplicas(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const rolling = deploymentSpecOf(d).strategy?.rollingUpdate;
  const unavailable = resolveFenceposts(rolling?.maxSurge, rolling?.maxUnavailable, replicas)[1];
  return Math.min(unavailable, replicas);
}

/** The sum of `spec.replicas` of the ReplicaSets. */
export function specReplicaCount(sets: readonly (APIObject | undefined)[]): number {
  return sets.reduce((n, rs) => n + (rs ? specReplicas(rs) : 0), 0);
}

/** The sum of a `status` count of the ReplicaSets. */
export function statusReplicaCount(sets: readonly (APIObject | undefined)[], field: "replicas" | "readyReplicas" | "availableReplicas"): number {
  return sets.reduce((n, rs) => n + (rs ? (rsStatusOf(rs)[field] ?? 0) : 0), 0);
}

/** The ReplicaSets with replicas. */
export function activeReplicaSets(sets: readonly (APIObject | undefined)[]): APIObject[] {
  return sets.filter((rs): rs is APIObject => rs !== undefined && specReplicas(rs) > 0);
}

/** Oldest first, then by name (`ReplicaSetsByCreationTimestamp`). */
export function byCreation(a: APIObject, b: APIObject): number {
  const ta = timeOf(a.metadata.creationTimestamp) ?? 0;
  const tb = timeOf(b.metadata.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata.name ?? "";
  const nb = b.metadata.name ?? "";
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** Larger first, then newer first (`ReplicaSetsBySizeNewer`). */
export function bySizeNewer(a: APIObject, b: APIObject): number {
  return specReplicas(a) !== specReplicas(b) ? specReplicas(b) - specReplicas(a) : byCreation(b, a);
}

/** Larger first, then older first (`ReplicaSetsBySizeOlder`). */
export function bySizeOlder(a: APIObject, b: APIObject): number {
  return specReplicas(a) !== specReplicas(b) ? specReplicas(b) - specReplicas(a) : byCreation(a, b);
}

/** The revision of a ReplicaSet from its annotation; 0 when absent or unreadable. */
export function revisionOf(rs: APIObject, names: DeploymentAnnotations): number {
  const text = rs.metadata.annotations?.[names.revision];
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : 0;
}

/** Lower revision first, then older first (`ReplicaSetsByRevision`). */
export function byRevision(names: DeploymentAnnotations): (a: APIObject, b: APIObject) => number {
  return (a, b) => revisionOf(a, names) - revisionOf(b, names) || byCreation(a, b);
}

/**
 * The ReplicaSet whose template is the Deployment's, the oldest if several
 * (`FindNewReplicaSet`), and all the others (`FindOldReplicaSets`).
 */
export function splitReplicaSets(d: APIObject, sets: readonly APIObject[]): { newRS: APIObject | undefined; oldRSs: APIObject[] } {
  const sorted = [...sets].sort(byCreation);
  const template = deploymentSpecOf(d).template;
  const newRS = sorted.find((rs) => equalIgnoreHash(rsSpecOf(rs).template, template));
  return { newRS, oldRSs: sorted.filter((rs) => rs !== newRS) };
}

/**
 * The replicas the new ReplicaSet may have now (`NewRSNewReplicas`): for a rolling update, up to
 * `spec.replicas` + surge Pods in all; for Recreate, `spec.replicas`.
 */
export function newReplicaSetReplicas(d: APIObject, all: readonly (APIObject | undefined)[], newRS: APIObject): number {
  const replicas = specReplicas(d);
  if (!isRollingUpdate(d)) return replicas;
  const maxTotal = replicas + maxSurge(d);
  const current = specReplicaCount(all);
  if (current >= maxTotal) return specReplicas(newRS);
  return specReplicas(newRS) + Math.min(maxTotal - current, replicas - specReplicas(newRS));
}

/** Sets the desired and max replicas annotations; true when they changed (`SetReplicasAnnotations`). */
export function setReplicasAnnotations(rs: APIObject, desired: number, max: number, names: DeploymentAnnotations): boolean {
  const annotations = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [key, value] of [
    [names.desiredReplicas, String(desired)],
    [names.maxReplicas, String(max)],
  ] as const) {
    if (annotations[key] !== value) {
      annotations[key] = value;
      changed = true;
    }
  }
  return changed;
}

/** Whether the replicas annotations differ from `desired` and `max` (`ReplicasAnnotationsNeedUpdate`). */
export function replicasAnnotationsNeedUpdate(rs: APIObject, desired: number, max: number, names: DeploymentAnnotations): boolean {
  const annotations = rs.metadata.annotations ?? {};
  return annotations[names.desiredReplicas] !== String(desired) || annotations[names.maxReplicas] !== String(max);
}

/** An integer annotation of a ReplicaSet, undefined when absent or unreadable. */
export function intAnnotation(rs: APIObject, key: string): number | undefined {
  const text = rs.metadata.annotations?.[key];
  return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * Copies the Deployment's annotations to the ReplicaSet (but for the revision, replicas and
 * last-applied ones), raises its revision to `newRevision` keeping the one it had in its
 * revision history, and, for a ReplicaSet about to be created (`!exists`), sets its replicas
 * annotations. True when an annotation changed (`SetNewReplicaSetAnnotations`).
 */
export function setNewReplicaSetAnnotations(d: APIObject, rs: APIObject, newRevision: number, exists: boolean, names: DeploymentAnnotations): boolean {
  const skip = new Set([
    names.lastApplied,
    names.revision,
    names.revisionHistory,
    names.desiredReplicas,
    names.maxReplicas,
    "deprecated.deployment.rollback.to",
  ]);
  const annotations = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [key, value] of Object.entries(d.metadata.annotations ?? {})) {
    if (skip.has(key) || annotations[key] === value) continue;
    annotations[key] = value;
    changed = true;
  }
  const oldText = annotations[names.revision];
  if (oldText !== undefined && !/^\d+$/.test(oldText)) return changed;
  const oldRevision = oldText === undefined ? 0 : Number(oldText);
  if (oldRevision < newRevision) {
    annotations[names.revision] = String(newRevision);
    changed = true;
    // Going back to this ReplicaSet: keep the revision it had.
    if (oldText !== undefined) {
      const history = annotations[names.revisionHistory] ?? "";
      if (history === "") annotations[names.revisionHistory] = oldText;
      else {
        const old = history.split(",");
        let total = history.length + oldText.length + 1;
        let start = 0;
        while (total > maxRevisionHistoryChars && start < old.length) total -= (old[start++]?.length ?? 0) + 1;
        if (total <= maxRevisionHistoryChars) annotations[names.revisionHistory] = [...old.slice(start), oldText].join(",");
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, specReplicas(d), specReplicas(d) + maxSurge(d), names)) changed = true;
  return changed;
}

/** A condition stamped `now` (`NewDeploymentCondition`). */
export function newCondition(type: string, status: string, reason: string, message: string, now: number): DeploymentCondition {
  const at = formatTime(now);
  return { type, status, lastUpdateTime: at, lastTransitionTime: at, reason, message };
}

/** The condition of `type`. */
export function conditionOf(status: DeploymentStatus, type: string): DeploymentCondition | undefined {
  return status.conditions?.find((c) => c.type === type);
}

/**
 * Sets `condition` unless one of its type has the same status and reason; keeps the transition
 * time when the status stays (`SetDeploymentCondition`).
 */
export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = conditionOf(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current && current.status === condition.status && current.lastTransitionTime) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

/** Removes the condition of `type`. */
export function removeCondition(status: DeploymentStatus, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
  if (status.conditions.length === 0) delete status.conditions;
}

/** Whether the Deployment has a progress deadline. */
export function hasProgressDeadline(d: APIObject): boolean {
  const seconds = deploymentSpecOf(d).progressDeadlineSeconds;
  return seconds !== undefined && seconds !== noDeadline;
}

/** All replicas updated and available, and the latest generation observed (`DeploymentComplete`). */
export function deploymentComplete(d: APIObject, status: DeploymentStatus): boolean {
  const replicas = specReplicas(d);
  return (
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas &&
    (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 1)
  );
}

/** `status` shows progress over the Deployment's current status (`DeploymentProgressing`). */
export function deploymentProgressing(d: APIObject, status: DeploymentStatus): boolean {
  const old = deploymentStatusOf(d);
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (
    (status.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (status.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (status.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** No progress for `progressDeadlineSeconds` since the Progressing condition was last updated (`DeploymentTimedOut`). */
export function deploymentTimedOut(d: APIObject, status: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const condition = conditionOf(status, "Progressing");
  if (!condition || condition.reason === "NewReplicaSetAvailable") return false;
  if (condition.reason === "ProgressDeadlineExceeded") return true;
  return (timeOf(condition.lastUpdateTime) ?? 0) + (deploymentSpecOf(d).progressDeadlineSeconds ?? 0) * 1000 < now;
}

/** Rounds half away from zero (`RoundToInt32`). */
function roundToInt(x: number): number {
  return x < 0 ? Math.ceil(x - 0.5) : Math.floor(x + 0.5);
}

/**
 * The share of `toAdd` replicas (negative to remove) a ReplicaSet takes in a proportional
 * scaling, bounded by what is left (`GetProportion` over `getReplicaSetFraction`): its size
 * scaled by the new over the old maximum (from its max-replicas annotation, or the Deployment's
 * status replicas).
 */
export function proportionOf(rs: APIObject, d: APIObject, toAdd: number, added: number, names: DeploymentAnnotations): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  let fraction: number;
  if (specReplicas(d) === 0) fraction = -specReplicas(rs);
  else {
    const maxNow = specReplicas(d) + maxSurge(d);
    let maxBefore = intAnnotation(rs, names.maxReplicas) ?? 0;
    if (maxBefore === 0) maxBefore = deploymentStatusOf(d).replicas ?? 0;
    fraction = maxBefore === 0 ? 0 : roundToInt((specReplicas(rs) * maxNow) / maxBefore) - specReplicas(rs);
  }
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/**
 * The new ReplicaSet holds all replicas, its desired annotation says so, and all are available
 * (`IsSaturated`).
 */
export function isSaturated(d: APIObject, rs: APIObject | undefined, names: DeploymentAnnotations): boolean {
  if (!rs) return false;
  const replicas = specReplicas(d);
  return specReplicas(rs) === replicas && intAnnotation(rs, names.desiredReplicas) === replicas && (rsStatusOf(rs).availableReplicas ?? 0) === replicas;
}
