/**
 * The checks on a container's privileges: privileged containers, capabilities (baseline: only
 * the default set may be added; restricted from v1.22: drop ALL, add only NET_BIND_SERVICE),
 * privilege escalation (restricted from v1.8), /proc mounts (baseline relaxed for user-namespace
 * pods from v1.35, the restricted level keeping the strict form), and the user a pod runs as
 * (restricted: runAsNonRoot, runAsUser 0 from v1.23; both relaxed for user-namespace pods from
 * v1.35).
 * @module
 */
import { isSet, type JSONRecord, list, record, str } from "../internal/json.js";
import {
  containersPhrase,
  exceptUserNamespace,
  exceptWindows,
  joinQuote,
  settersPhrase,
  sortedSet,
  type Check,
  type PodView,
  type Violation,
} from "./check.js";

const capabilitiesBaselineID = "capabilities_baseline";
const procMountID = "procMount";

function privileged(pod: PodView): Violation | undefined {
  const bad = pod.containers.filter((c) => c.securityContext?.["privileged"] === true).map((c) => c.name);
  return bad.length ? { reason: "privileged", detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` } : undefined;
}

/** The capabilities a container may add at the baseline level (the runtime's default set). */
const defaultCapabilities = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

function capabilitiesOf(context: JSONRecord | undefined): JSONRecord | undefined {
  return record(context?.["capabilities"]);
}

/** The capabilities of an `add` or `drop` list; an entry that is not a string counts as `""` (and so is never allowed). */
function capabilityNames(value: unknown): string[] {
  return list(value).map(str);
}

function capabilitiesBaseline(pod: PodView): Violation | undefined {
  const bad: string[] = [];
  const added = new Set<string>();
  for (const c of pod.containers) {
    const extra = capabilityNames(capabilitiesOf(c.securityContext)?.["add"]).filter((cap) => !defaultCapabilities.has(cap));
    if (!extra.length) continue;
    bad.push(c.name);
    for (const cap of extra) added.add(cap);
  }
  if (!bad.length) return undefined;
  return {
    reason: "non-default capabilities",
    detail: `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add`,
  };
}

function capabilitiesRestricted(pod: PodView): Violation | undefined {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbidden = new Set<string>();
  for (const c of pod.containers) {
    const caps = capabilitiesOf(c.securityContext);
    if (!caps) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!capabilityNames(caps["drop"]).includes("ALL")) missingDropAll.push(c.name);
    const extra = capabilityNames(caps["add"]).filter((cap) => cap !== "NET_BIND_SERVICE");
    if (!extra.length) continue;
    addingForbidden.push(c.name);
    for (const cap of extra) forbidden.add(cap);
  }
  const details: string[] = [];
  if (missingDropAll.length) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length)
    details.push(`${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`);
  return details.length ? { reason: "unrestricted capabilities", detail: details.join("; ") } : undefined;
}

function allowPrivilegeEscalation(pod: PodView): Violation | undefined {
  const bad = pod.containers.filter((c) => c.securityContext?.["allowPrivilegeEscalation"] !== false).map((c) => c.name);
  return bad.length
    ? { reason: "allowPrivilegeEscalation != false", detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` }
    : undefined;
}

function procMount(pod: PodView): Violation | undefined {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const c of pod.containers) {
    const value = c.securityContext?.["procMount"];
    if (!isSet(value) || value === "Default") continue;
    bad.push(c.name);
    types.add(str(value));
  }
  if (!bad.length) return undefined;
  return { reason: "procMount", detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` };
}

function runAsNonRoot(pod: PodView): Violation | undefined {
  const podValue = pod.securityContext?.["runAsNonRoot"];
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of pod.containers) {
    const value = c.securityContext?.["runAsNonRoot"];
    if (typeof value === "boolean") {
      if (!value) explicit.push(c.name);
    } else if (podValue !== true) {
      implicit.push(c.name);
    }
  }
  const setters = settersPhrase(podValue === false, explicit);
  if (setters.length) return { reason: "runAsNonRoot != true", detail: `${setters.join(" and ")} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length) return { reason: "runAsNonRoot != true", detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  return undefined;
}

function runAsUser(pod: PodView): Violation | undefined {
  const bad = pod.containers.filter((c) => c.securityContext?.["runAsUser"] === 0).map((c) => c.name);
  const setters = settersPhrase(pod.securityContext?.["runAsUser"] === 0, bad);
  return setters.length ? { reason: "runAsUser=0", detail: `${setters.join(" and ")} must not set runAsUser=0` } : undefined;
}

/** The privilege checks. */
export const privilegeChecks: readonly Check[] = [
  { id: "privileged", level: "baseline", versions: [{ since: 0, check: privileged }] },
  { id: capabilitiesBaselineID, level: "baseline", versions: [{ since: 0, check: capabilitiesBaseline }] },
  {
    id: "capabilities_restricted",
    level: "restricted",
    versions: [
      { since: 22, check: capabilitiesRestricted, overrides: [capabilitiesBaselineID] },
      { since: 25, check: exceptWindows(capabilitiesRestricted), overrides: [capabilitiesBaselineID] },
    ],
  },
  {
    id: "allowPrivilegeEscalation",
    level: "restricted",
    versions: [
      { since: 8, check: allowPrivilegeEscalation },
      { since: 25, check: exceptWindows(allowPrivilegeEscalation) },
    ],
  },
  {
    id: procMountID,
    level: "baseline",
    versions: [
      { since: 0, check: procMount },
      { since: 35, check: exceptUserNamespace(procMount) },
    ],
  },
  { id: "procMount_restricted", level: "restricted", versions: [{ since: 35, check: procMount, overrides: [procMountID] }] },
  {
    id: "runAsNonRoot",
    level: "restricted",
    versions: [
      { since: 0, check: runAsNonRoot },
      { since: 35, check: exceptUserNamespace(runAsNonRoot) },
    ],
  },
  {
    id: "runAsUser",
    level: "restricted",
    versions: [
      { since: 23, check: runAsUser },
      { since: 35, check: exceptUserNamespace(runAsUser) },
    ],
  },
];
