/**
 * Pod Security Standards levels and versions, and the namespace policy the
 * `pod-security.<domain>/*` labels select (the reference's `api` package of
 * pod-security-admission): parsing with its fail-closed and fail-open rules and its messages.
 * @module
 */
import { FieldPath, invalidField, type FieldError } from "@orch/meta";

/** A Pod Security Standards level. */
export type Level = "privileged" | "baseline" | "restricted";

/** The levels, least strict first. */
export const levels: readonly Level[] = ["privileged", "baseline", "restricted"];

/**
 * A policy version: the minor of `v1.<minor>`, or `Infinity` for `latest` (always newer than any
 * numbered version, even a future one).
 */
export type Version = number;

/** The `latest` version. */
export const latestVersion: Version = Number.POSITIVE_INFINITY;

/** A level at a version (`restricted:v1.25`). */
export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}

/** The three modes of a namespace's policy. */
export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

/** `latest` or `v1.<minor>`. */
export function formatVersion(version: Version): string {
  return version === latestVersion ? "latest" : `v1.${version}`;
}

/** `<level>:<version>` (`restricted:latest`). */
export function formatLevelVersion(lv: LevelVersion): string {
  return `${lv.level}:${formatVersion(lv.version)}`;
}

/** True when both are privileged, or level and version are equal (the reference's `Equivalent`). */
export function equivalentLevelVersions(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === "privileged" && b.level === "privileged") || (a.level === b.level && a.version === b.version);
}

/** True when every mode of `a` is equivalent to that of `b`. */
export function equivalentPolicies(a: Policy, b: Policy): boolean {
  return equivalentLevelVersions(a.enforce, b.enforce) && equivalentLevelVersions(a.audit, b.audit) && equivalentLevelVersions(a.warn, b.warn);
}

/** True when enforce, audit and warn are all privileged. */
export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === "privileged" && p.audit.level === "privileged" && p.warn.level === "privileged";
}

/** -1, 0 or 1 as `a` is less strict than, as strict as, or stricter than `b`. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(levels.indexOf(a) - levels.indexOf(b));
}

/** The message of an invalid level. */
export const levelMessage = `must be one of ${levels.join(", ")}`;
/** The message of an invalid version. */
export const versionMessage = `must be "latest" or "v1.x"`;

/** The level `value` names, or `undefined` when it names none. */
export function parseLevel(value: string): Level | undefined {
  return (levels as readonly string[]).includes(value) ? (value as Level) : undefined;
}

const versionPattern = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** The version `value` names (`latest`, `v1.25`), or `undefined` when it names none. */
export function parseVersion(value: string): Version | undefined {
  if (value === "latest") return latestVersion;
  const match = versionPattern.exec(value);
  if (!match?.[1]) return undefined;
  const minor = Number(match[1]);
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/** The names of the six labels for one label domain (`pod-security.orch.io/enforce`, ...). */
export interface PolicyLabels {
  readonly enforce: string;
  readonly enforceVersion: string;
  readonly audit: string;
  readonly auditVersion: string;
  readonly warn: string;
  readonly warnVersion: string;
  /** The prefix of the audit annotations (`pod-security.orch.io/`). */
  readonly annotationPrefix: string;
}

/** The policy labels under `pod-security.<labelDomain>/`. */
export function policyLabels(labelDomain: string): PolicyLabels {
  const prefix = `pod-security.${labelDomain}/`;
  return {
    enforce: `${prefix}enforce`,
    enforceVersion: `${prefix}enforce-version`,
    audit: `${prefix}audit`,
    auditVersion: `${prefix}audit-version`,
    warn: `${prefix}warn`,
    warnVersion: `${prefix}warn-version`,
    annotationPrefix: prefix,
  };
}

/** A namespace's policy and what was wrong with its labels. */
export interface EvaluatedPolicy {
  readonly policy: Policy;
  /** One error per unparsable label, at `metadata.labels[<label>]`. */
  readonly errors: readonly FieldError[];
}

const labelsPath = FieldPath.root("metadata").child("labels");

/**
 * The policy `labels` select over `defaults` (the reference's `PolicyToEvaluate`). A bad enforce
 * level fails closed (`restricted`), bad audit and warn levels fail open (`privileged`), a bad
 * version means `latest`; each is reported in `errors`. When the enforce level is set (validly)
 * and is stricter than the warn level, and no warn label is set, warn follows enforce (and its
 * version too unless `warn-version` is set).
 */
export function policyFromLabels(labels: Readonly<Record<string, string>> | undefined, defaults: Policy, names: PolicyLabels): EvaluatedPolicy {
  if (!labels) return { policy: defaults, errors: [] };
  const errors: FieldError[] = [];
  const level = (label: string, fallback: Level, onError: Level): Level => {
    const value = labels[label];
    if (value === undefined) return fallback;
    const parsed = parseLevel(value);
    if (parsed === undefined) errors.push(invalidField(labelsPath.key(label), value, levelMessage));
    return parsed ?? onError;
  };
  const version = (label: string, fallback: Version): Version => {
    const value = labels[label];
    if (value === undefined) return fallback;
    const parsed = parseVersion(value);
    if (parsed === undefined) errors.push(invalidField(labelsPath.key(label), value, versionMessage));
    return parsed ?? latestVersion;
  };
  const enforceSet = labels[names.enforce] !== undefined && parseLevel(labels[names.enforce] ?? "") !== undefined;
  const enforce = { level: level(names.enforce, defaults.enforce.level, "restricted"), version: version(names.enforceVersion, defaults.enforce.version) };
  const audit = { level: level(names.audit, defaults.audit.level, "privileged"), version: version(names.auditVersion, defaults.audit.version) };
  let warn: LevelVersion = { level: level(names.warn, defaults.warn.level, "privileged"), version: version(names.warnVersion, defaults.warn.version) };
  if (labels[names.warn] === undefined && enforceSet && compareLevels(enforce.level, warn.level) > 0) {
    warn = { level: enforce.level, version: labels[names.warnVersion] === undefined ? enforce.version : warn.version };
  }
  return { policy: { enforce, audit, warn }, errors };
}
