/**
 * The level/version evaluator (the reference's check registry): for every minor version up to the
 * newest one any check names, the list of checks in force at the baseline and at the restricted
 * level (restricted = its own checks plus the baseline checks none of them overrides), ordered by
 * check id, baseline first. Compiled once; evaluating a pod is one array lookup and the checks.
 * @module
 */
import type { Check, CheckFn, PodView, Violation } from "./check.js";
import { hostChecks } from "./checks-host.js";
import { privilegeChecks } from "./checks-privilege.js";
import { profileChecks } from "./checks-profiles.js";
import { volumeChecks } from "./checks-volumes.js";
import type { LevelVersion, Version } from "./levels.js";

/** Every check of the Pod Security Standards. */
export const defaultChecks: readonly Check[] = [...hostChecks, ...volumeChecks, ...privilegeChecks, ...profileChecks];

type ActiveCheck = Check["versions"][number];

/** The implementation of `check` in force at `version`, if any. */
function activeAt(check: Check, version: Version): ActiveCheck | undefined {
  let active: ActiveCheck | undefined;
  for (const v of check.versions) if (v.since <= version) active = v;
  return active;
}

function byID(a: Check, b: Check): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Evaluates pods against a level and version. */
export class Evaluator {
  /** The newest version any check names: `latest` and newer versions evaluate as this one. */
  readonly maxVersion: Version;
  private readonly baseline: (readonly CheckFn[])[] = [];
  private readonly restricted: (readonly CheckFn[])[] = [];

  /**
   * @param checks the checks (the standards' by default).
   * @throws Error when two checks share an id.
   */
  constructor(checks: readonly Check[] = defaultChecks) {
    const ids = new Set(checks.map((c) => c.id));
    if (ids.size !== checks.length) throw new Error("multiple checks registered for one ID");
    const baselineChecks = checks.filter((c) => c.level === "baseline").sort(byID);
    const restrictedChecks = checks.filter((c) => c.level === "restricted").sort(byID);
    this.maxVersion = Math.max(0, ...checks.flatMap((c) => c.versions.map((v) => v.since)));
    for (let version = 0; version <= this.maxVersion; version++) {
      const baselineActive = baselineChecks.map((c) => ({ id: c.id, active: activeAt(c, version) }));
      const restrictedActive = restrictedChecks.flatMap((c) => activeAt(c, version) ?? []);
      const overridden = new Set(restrictedActive.flatMap((v) => v.overrides ?? []));
      const baselineFns = baselineActive.flatMap((c) => (c.active ? [c.active.check] : []));
      this.baseline.push(baselineFns);
      this.restricted.push([
        ...baselineActive.flatMap((c) => (c.active && !overridden.has(c.id) ? [c.active.check] : [])),
        ...restrictedActive.map((v) => v.check),
      ]);
    }
  }

  /** The checks in force for `lv` (none for privileged). */
  checksFor(lv: LevelVersion): readonly CheckFn[] {
    if (lv.level === "privileged") return [];
    const version = Math.min(lv.version, this.maxVersion);
    return (lv.level === "baseline" ? this.baseline : this.restricted)[version] ?? [];
  }

  /** The violations of `pod` against `lv`, in check order (empty when it passes). */
  evaluate(lv: LevelVersion, pod: PodView): Violation[] {
    const out: Violation[] = [];
    for (const check of this.checksFor(lv)) {
      const v = check(pod);
      if (v) out.push(v);
    }
    return out;
  }
}

const unknownReason = "unknown forbidden reason";

/** The reasons of `violations` joined by `, ` (the per-pod namespace warning). */
export function forbiddenReasons(violations: readonly Violation[]): string {
  return violations.map((v) => v.reason || unknownReason).join(", ");
}

/** `reason (detail), reason (detail)` (the enforce, audit and warn messages). */
export function forbiddenDetail(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.reason || unknownReason}${v.detail ? ` (${v.detail})` : ""}`).join(", ");
}
