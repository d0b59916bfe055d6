/**
 * The checks on a pod's kernel security profiles: AppArmor (fields and the deprecated
 * annotations), SELinux options (`container_engine_t` allowed from v1.31), seccomp (baseline:
 * the alpha annotations before v1.19, then no `Unconfined` type; restricted from v1.19: every
 * container must run RuntimeDefault or Localhost) and sysctls outside the safe set (which grows
 * at v1.27, v1.29, v1.32 and v1.37).
 * @module
 */
import { type JSONRecord, list, record, str } from "../internal/json.js";
import {
  containersPhrase,
  exceptWindows,
  joinQuote,
  pluralize,
  settersPhrase,
  sortedSet,
  type Check,
  type CheckFn,
  type PodView,
  type Violation,
} from "./check.js";

const seccompBaselineID = "seccompProfile_baseline";

/** The annotation `key="value"`, as the reference prints it. */
function annotationText(key: string, value: string): string {
  return `${key}=${JSON.stringify(value)}`;
}

function profileType(context: JSONRecord | undefined, field: string): string | undefined {
  const profile = record(context?.[field]);
  return profile ? str(profile["type"]) : undefined;
}

function allowedAppArmorAnnotation(value: string): boolean {
  return value === "" || value === "runtime/default" || value.startsWith("localhost/");
}

const goodProfileTypes = new Set(["RuntimeDefault", "Localhost"]);

function appArmorProfile(pod: PodView): Violation | undefined {
  const badValues = new Set<string>();
  const isBad = (type: string | undefined): boolean => {
    if (type === undefined || goodProfileTypes.has(type)) return false;
    badValues.add(type);
    return true;
  };
  const podBad = isBad(profileType(pod.securityContext, "appArmorProfile"));
  const badContainers = pod.containers.filter((c) => isBad(profileType(c.securityContext, "appArmorProfile"))).map((c) => c.name);
  const setters = settersPhrase(podBad, badContainers);
  const prefix = `container.apparmor.security.beta.${pod.labelDomain}/`;
  const annotations = Object.entries(pod.annotations)
    .filter(([k, v]) => k.startsWith(prefix) && !allowedAppArmorAnnotation(str(v)))
    .map(([k, v]) => annotationText(k, str(v)))
    .sort();
  const values = [...sortedSet(badValues), ...annotations];
  if (annotations.length) setters.push(pluralize("annotation", "annotations", annotations.length));
  if (!setters.length) return undefined;
  return {
    reason: pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", values.length),
    detail: `${setters.join(" and ")} must not set AppArmor profile type to ${joinQuote(values)}`,
  };
}

function seLinuxOptionsWith(allowedTypes: ReadonlySet<string>): CheckFn {
  return (pod) => {
    const badTypes = new Set<string>();
    let setUser = false;
    let setRole = false;
    const isBad = (context: JSONRecord | undefined): boolean => {
      const options = record(context?.["seLinuxOptions"]);
      if (!options) return false;
      const type = str(options["type"]);
      const badType = !allowedTypes.has(type);
      if (badType) badTypes.add(type);
      const user = str(options["user"]) !== "";
      const role = str(options["role"]) !== "";
      setUser ||= user;
      setRole ||= role;
      return badType || user || role;
    };
    const podBad = isBad(pod.securityContext);
    const setters = settersPhrase(
      podBad,
      pod.containers.filter((c) => isBad(c.securityContext)).map((c) => c.name),
    );
    if (!setters.length) return undefined;
    const data: string[] = [];
    if (badTypes.size) data.push(`${pluralize("type", "types", badTypes.size)} ${joinQuote(sortedSet(badTypes))}`);
    if (setUser) data.push("user may not be set");
    if (setRole) data.push("role may not be set");
    return { reason: "seLinuxOptions", detail: `${setters.join(" and ")} set forbidden securityContext.seLinuxOptions: ${data.join("; ")}` };
  };
}

const seLinuxTypesV1Dot0 = ["", "container_t", "container_init_t", "container_kvm_t"];

function validSeccompAnnotation(value: string): boolean {
  return value === "runtime/default" || value === "docker/default" || value.startsWith("localhost/");
}

/** Baseline before v1.19: the alpha seccomp annotations of the pod and its containers. */
function seccompAnnotations(pod: PodView): Violation | undefined {
  const forbidden = new Set<string>();
  const check = (key: string) => {
    const value = pod.annotations[key];
    if (value !== undefined && !validSeccompAnnotation(str(value))) forbidden.add(annotationText(key, str(value)));
  };
  check(`seccomp.security.alpha.${pod.labelDomain}/pod`);
  for (const c of pod.containers) check(`container.seccomp.security.alpha.${pod.labelDomain}/${c.name}`);
  if (!forbidden.size) return undefined;
  return { reason: "seccompProfile", detail: `forbidden ${pluralize("annotation", "annotations", forbidden.size)} ${sortedSet(forbidden).join(", ")}` };
}

/**
 * The seccomp field check; `required` (restricted) also refuses containers that set no valid
 * type when the pod sets none.
 */
function seccompProfileWith(required: boolean): CheckFn {
  return (pod) => {
    const badValues = new Set<string>();
    const podType = profileType(pod.securityContext, "seccompProfile");
    const podBad = podType !== undefined && !goodProfileTypes.has(podType);
    if (podBad) badValues.add(podType);
    const explicit: string[] = [];
    const implicit: string[] = [];
    for (const c of pod.containers) {
      const type = profileType(c.securityContext, "seccompProfile");
      if (type === undefined) {
        if (required && (podType === undefined || podBad)) implicit.push(c.name);
      } else if (!goodProfileTypes.has(type)) {
        explicit.push(c.name);
        badValues.add(type);
      }
    }
    const setters = settersPhrase(podBad, explicit);
    if (setters.length)
      return {
        reason: "seccompProfile",
        detail: `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}`,
      };
    if (implicit.length)
      return {
        reason: "seccompProfile",
        detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
      };
    return undefined;
  };
}

function sysctlsWith(allowed: ReadonlySet<string>): CheckFn {
  return (pod) => {
    const forbidden = list(pod.securityContext?.["sysctls"])
      .map((s) => str(record(s)?.["name"]))
      .filter((name) => !allowed.has(name));
    return forbidden.length ? { reason: "forbidden sysctls", detail: forbidden.join(", ") } : undefined;
  };
}

/** The safe sysctls, by the version that allowed them. */
const safeSysctls: readonly (readonly [number, readonly string[]])[] = [
  [
    0,
    ["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"],
  ],
  [27, ["net.ipv4.ip_local_reserved_ports"]],
  [29, ["net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"]],
  [32, ["net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"]],
  [37, ["net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"]],
];

/** The sysctl check's versions: each one allows the names of its version and every earlier one. */
function sysctlVersions(): Check["versions"] {
  const allowed: string[] = [];
  return safeSysctls.map(([since, names]) => {
    allowed.push(...names);
    return { since, check: sysctlsWith(new Set(allowed)) };
  });
}

const seccompRequired = seccompProfileWith(true);

/** The profile checks. */
export const profileChecks: readonly Check[] = [
  { id: "appArmorProfile", level: "baseline", versions: [{ since: 0, check: appArmorProfile }] },
  {
    id: "seLinuxOptions",
    level: "baseline",
    versions: [
      { since: 0, check: seLinuxOptionsWith(new Set(seLinuxTypesV1Dot0)) },
      { since: 31, check: seLinuxOptionsWith(new Set([...seLinuxTypesV1Dot0, "container_engine_t"])) },
    ],
  },
  {
    id: seccompBaselineID,
    level: "baseline",
    versions: [
      { since: 0, check: seccompAnnotations },
      { since: 19, check: seccompProfileWith(false) },
    ],
  },
  {
    id: "seccompProfile_restricted",
    level: "restricted",
    versions: [
      { since: 19, check: seccompRequired, overrides: [seccompBaselineID] },
      { since: 25, check: exceptWindows(seccompRequired), overrides: [seccompBaselineID] },
    ],
  },
  { id: "sysctls", level: "baseline", versions: sysctlVersions() },
];
