/**
 * The defaults and rules of the Pod and container fields whose schemas are in `pod-fields.ts`:
 * probes and lifecycle handlers, security contexts, affinity, topology spread constraints, DNS
 * configuration, resize policies, resource claims, readiness and scheduling gates and host
 * aliases, with the reference's field paths and messages.
 * @module
 */
import {
  duplicateField,
  forbiddenField,
  invalidField,
  notSupportedField,
  requiredField,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  validateQualifiedName,
  type FieldError,
  type FieldPath,
} from "@orch/meta";
import { parseIP } from "./networking-common.js";
import { list, record, records, str, strings } from "./rules.js";
import { validateLabelSelectorObject, validateNodeSelector } from "./storage-fields.js";
import { inclusiveRangeError, validateLocalDescendingPath, validatePortNumber, validatePortNumOrName } from "./workloads-common.js";

/** The message of a value below 0 (the reference's `IsNegativeErrorMsg`). */
export const negativeMessage = "must be greater than or equal to 0";
/** The message of a value not above 0. */
export const notPositiveMessage = "must be greater than zero";
/** The message of an IP address that does not parse. */
export const ipMessage = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

function setDefault(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === 0) target[key] = value;
}

function defaultHTTPGet(handler: Record<string, unknown> | undefined): void {
  const http = record(handler?.["httpGet"]);
  if (!http) return;
  if (http["path"] === undefined || http["path"] === "") http["path"] = "/";
  if (http["scheme"] === undefined || http["scheme"] === "") http["scheme"] = "HTTP";
}

/** The reference's probe defaults, in place: timeout 1, period 10, success 1, failure 3 (zero counts as unset); `httpGet` path `/` and scheme HTTP; `grpc.service` "". */
export function defaultProbe(value: unknown): void {
  const probe = record(value);
  if (!probe) return;
  setDefault(probe, "timeoutSeconds", 1);
  setDefault(probe, "periodSeconds", 10);
  setDefault(probe, "successThreshold", 1);
  setDefault(probe, "failureThreshold", 3);
  defaultHTTPGet(probe);
  const grpc = record(probe["grpc"]);
  if (grpc && grpc["service"] === undefined) grpc["service"] = "";
}

/** The defaults of a container's probes and lifecycle hooks, in place. */
export function defaultContainerHandlers(container: Record<string, unknown>): void {
  for (const key of ["livenessProbe", "readinessProbe", "startupProbe"]) defaultProbe(container[key]);
  const lifecycle = record(container["lifecycle"]);
  defaultHTTPGet(record(lifecycle?.["postStart"]));
  defaultHTTPGet(record(lifecycle?.["preStop"]));
}

function headerNameMessages(name: string): string[] {
  return /^[-A-Za-z0-9!#$%&'*+.^_`|~]+$/.test(name)
    ? []
    : ["a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"];
}

function validateHTTPGet(http: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (str(http["path"]) === "") errors.push(requiredField(path.child("path")));
  errors.push(...validatePortNumOrName(http["port"] ?? 0, path.child("port")));
  const scheme = str(http["scheme"]);
  if (scheme !== "HTTP" && scheme !== "HTTPS") errors.push(notSupportedField(path.child("scheme"), scheme, ["HTTP", "HTTPS"]));
  for (const header of records(http["httpHeaders"])) {
    const name = str(header["name"]);
    for (const m of headerNameMessages(name)) errors.push(invalidField(path.child("httpHeaders"), name, m));
  }
  return errors;
}

/** The handlers a probe may have. */
const probeHandlers = ["exec", "httpGet", "tcpSocket", "grpc"] as const;
/** The handlers a lifecycle hook may have. */
const hookHandlers = ["exec", "httpGet", "tcpSocket", "sleep"] as const;
/** A probe's counts and durations, none negative. */
const probeCounts = ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"] as const;

/**
 * A probe or lifecycle handler (`validateHandler`): exactly one handler of `kinds` (a probe's:
 * exec, httpGet, tcpSocket, grpc; a hook's: exec, httpGet, tcpSocket, sleep), `may not specify
 * more than 1 handler type` on each extra one, `must specify a handler type` when none, each
 * with its rules; a `sleep` between 0 and the pod's grace period.
 */
export function validateHandler(
  handler: Record<string, unknown>,
  kinds: readonly (typeof probeHandlers)[number][] | readonly (typeof hookHandlers)[number][],
  grace: number | undefined,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const kind of kinds) {
    const value = record(handler[kind]);
    if (!value) continue;
    if (count > 0) {
      errors.push(forbiddenField(path.child(kind), "may not specify more than 1 handler type"));
      continue;
    }
    count++;
    const at = path.child(kind);
    if (kind === "exec" && list(value["command"]).length === 0) errors.push(requiredField(at.child("command")));
    if (kind === "httpGet") errors.push(...validateHTTPGet(value, at));
    if (kind === "tcpSocket") errors.push(...validatePortNumOrName(value["port"] ?? 0, at.child("port")));
    if (kind === "grpc") errors.push(...validatePortNumber(value["port"] ?? 0, at.child("port")));
    if (kind === "sleep") {
      const seconds = value["seconds"];
      if (grace !== undefined && typeof seconds === "number" && (seconds < 0 || seconds > grace)) {
        errors.push(invalidField(at, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${grace})`));
      }
    }
  }
  if (count === 0) errors.push(requiredField(path, "must specify a handler type"));
  return errors;
}

/** The kinds of probe: liveness and startup need `successThreshold` 1; readiness may not set `terminationGracePeriodSeconds`. */
export type ProbeKind = "livenessProbe" | "readinessProbe" | "startupProbe";

/** A probe (`validateProbe` and its liveness, readiness and startup variants) at `path`. */
export function validateProbe(kind: ProbeKind, value: unknown, grace: number | undefined, path: FieldPath): FieldError[] {
  const probe = record(value);
  if (!probe) return [];
  const errors = validateHandler(probe, probeHandlers, grace, path);
  for (const key of probeCounts) {
    const count = probe[key];
    // The path is built only for an error: a Deployment of 20 containers has 60 probes.
    if (typeof count === "number" && count < 0) errors.push(invalidField(path.child(key), count, negativeMessage));
  }
  const probeGrace = probe["terminationGracePeriodSeconds"];
  if (typeof probeGrace === "number" && probeGrace <= 0) {
    errors.push(invalidField(path.child("terminationGracePeriodSeconds"), probeGrace, "must be greater than 0"));
  }
  if (kind !== "readinessProbe" && probe["successThreshold"] !== 1) {
    errors.push(invalidField(path.child("successThreshold"), probe["successThreshold"] ?? 0, "must be 1"));
  }
  if (kind === "readinessProbe" && probeGrace !== undefined) {
    errors.push(invalidField(path.child("terminationGracePeriodSeconds"), probeGrace, "must not be set for readinessProbes"));
  }
  return errors;
}

/** A container's `lifecycle`: its postStart and preStop handlers. */
export function validateLifecycle(value: unknown, grace: number | undefined, path: FieldPath): FieldError[] {
  const lifecycle = record(value);
  if (!lifecycle) return [];
  const errors: FieldError[] = [];
  for (const hook of ["postStart", "preStop"]) {
    const handler = record(lifecycle[hook]);
    if (handler) errors.push(...validateHandler(handler, hookHandlers, grace, path.child(hook)));
  }
  return errors;
}

function idMessages(value: unknown): string[] {
  return typeof value === "number" && (value < 0 || value > 2147483647) ? [inclusiveRangeError(0, 2147483647)] : [];
}

function validateID(value: unknown, path: FieldPath): FieldError[] {
  return idMessages(value).map((m) => invalidField(path, value, m));
}

function validateSeccompProfile(value: unknown, path: FieldPath): FieldError[] {
  const profile = record(value);
  if (!profile) return [];
  const errors: FieldError[] = [];
  const type = str(profile["type"]);
  const types = ["Localhost", "RuntimeDefault", "Unconfined"];
  if (type === "") errors.push(requiredField(path.child("type"), "type is required when seccompProfile is set"));
  else if (!types.includes(type)) errors.push(notSupportedField(path.child("type"), type, types));
  const local = profile["localhostProfile"];
  if (type === "Localhost") {
    if (typeof local !== "string") errors.push(requiredField(path.child("localhostProfile"), "must be set when seccomp type is Localhost"));
    else errors.push(...validateLocalDescendingPath(local, path.child("localhostProfile")));
  } else if (local !== undefined) {
    errors.push(invalidField(path.child("localhostProfile"), profile, "can only be set when seccomp type is Localhost"));
  }
  return errors;
}

function validateAppArmorProfile(value: unknown, path: FieldPath): FieldError[] {
  const profile = record(value);
  if (!profile) return [];
  const errors: FieldError[] = [];
  const type = str(profile["type"]);
  const local = profile["localhostProfile"];
  if (type === "Localhost") {
    if (typeof local !== "string") errors.push(requiredField(path.child("localhostProfile"), "must be set when AppArmor type is Localhost"));
    else if (local.trim() !== local) errors.push(invalidField(path.child("localhostProfile"), local, "must not be padded with whitespace"));
    else if (local === "") errors.push(requiredField(path.child("localhostProfile"), "must be set when AppArmor type is Localhost"));
  } else if (type === "RuntimeDefault" || type === "Unconfined") {
    if (local !== undefined) errors.push(invalidField(path.child("localhostProfile"), local, "can only be set when AppArmor type is Localhost"));
  } else if (type === "") {
    errors.push(requiredField(path.child("type"), "type is required when appArmorProfile is set"));
  } else {
    errors.push(notSupportedField(path.child("type"), type, ["Localhost", "RuntimeDefault", "Unconfined"]));
  }
  return errors;
}

function validateWindowsOptions(value: unknown, path: FieldPath): FieldError[] {
  const options = record(value);
  if (!options) return [];
  const errors: FieldError[] = [];
  const specName = options["gmsaCredentialSpecName"];
  if (typeof specName === "string") {
    for (const e of validateDNS1123Subdomain(specName, path.child("gmsaCredentialSpecName"))) errors.push(e);
  }
  const spec = options["gmsaCredentialSpec"];
  if (typeof spec === "string") {
    if (spec === "") errors.push(invalidField(path.child("gmsaCredentialSpec"), spec, "gmsaCredentialSpec cannot be an empty string"));
    else if (spec.length > 64 * 1024) errors.push(invalidField(path.child("gmsaCredentialSpec"), spec, "gmsaCredentialSpec size must be under 64 KiB"));
  }
  const user = options["runAsUserName"];
  if (typeof user === "string") {
    const at = path.child("runAsUserName");
    if (user === "") errors.push(invalidField(at, user, "runAsUserName cannot be an empty string"));
    // eslint-disable-next-line no-control-regex
    else if (/[\x00-\x1f\x7f]/.test(user)) errors.push(invalidField(at, user, "runAsUserName cannot contain control characters"));
    else if (user.split("\\").length > 2) errors.push(invalidField(at, user, "runAsUserName cannot contain more than one backslash"));
  }
  return errors;
}

/**
 * A container's `securityContext` (`ValidateSecurityContext`): `runAsUser` and `runAsGroup`
 * between 0 and 2147483647, `procMount` Default or Unmasked (Unmasked only without the host's
 * user namespace), the seccomp, AppArmor and Windows options, and no privilege escalation
 * switched off together with `privileged` or an added CAP_SYS_ADMIN.
 */
export function validateContainerSecurityContext(value: unknown, hostUsers: boolean, path: FieldPath): FieldError[] {
  const sc = record(value);
  if (!sc) return [];
  const errors = [...validateID(sc["runAsUser"], path.child("runAsUser")), ...validateID(sc["runAsGroup"], path.child("runAsGroup"))];
  const procMount = sc["procMount"];
  if (typeof procMount === "string") {
    if (procMount !== "Default" && procMount !== "Unmasked") errors.push(notSupportedField(path.child("procMount"), procMount, ["Default", "Unmasked"]));
    if (hostUsers && procMount === "Unmasked") errors.push(invalidField(path.child("procMount"), procMount, "`hostUsers` must be false to use `Unmasked`"));
  }
  errors.push(...validateSeccompProfile(sc["seccompProfile"], path.child("seccompProfile")));
  if (sc["allowPrivilegeEscalation"] === false) {
    if (sc["privileged"] === true) errors.push(invalidField(path, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"));
    for (const cap of strings(record(sc["capabilities"])?.["add"])) {
      if (cap === "CAP_SYS_ADMIN") errors.push(invalidField(path, sc, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"));
    }
  }
  errors.push(...validateWindowsOptions(sc["windowsOptions"], path.child("windowsOptions")));
  errors.push(...validateAppArmorProfile(sc["appArmorProfile"], path.child("appArmorProfile")));
  return errors;
}

const sysctlPattern = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
const sysctlMessage = "must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$";

function sysctlNamespace(name: string): "net" | "ipc" | undefined {
  const dotted = name.replaceAll("/", ".");
  if (dotted.startsWith("net.")) return "net";
  if (/^kernel\.(shm|msg)/.test(dotted) || dotted === "kernel.sem" || dotted.startsWith("fs.mqueue.")) return "ipc";
  return undefined;
}

/**
 * The pod's `securityContext` (`validatePodSpecSecurityContext`): user and group IDs in range,
 * sysctl names valid and unique (and not in a namespace shared with the host), the change
 * policies and profiles among their values. `spec` supplies `hostNetwork`, `hostIPC`,
 * `hostPID` and `shareProcessNamespace`.
 */
export function validatePodSecurityContext(value: unknown, spec: Record<string, unknown>, path: FieldPath): FieldError[] {
  const sc = record(value);
  if (!sc) return [];
  const errors = [
    ...validateID(sc["fsGroup"], path.child("fsGroup")),
    ...validateID(sc["runAsUser"], path.child("runAsUser")),
    ...validateID(sc["runAsGroup"], path.child("runAsGroup")),
  ];
  list(sc["supplementalGroups"]).forEach((gid, i) => errors.push(...validateID(gid, path.child("supplementalGroups").index(i))));
  if (spec["shareProcessNamespace"] === true && spec["hostPID"] === true) {
    errors.push(invalidField(path.child("shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled"));
  }
  const names = new Set<string>();
  records(sc["sysctls"]).forEach((s, i) => {
    const at = path.child("sysctls").index(i).child("name");
    const name = str(s["name"]);
    if (name === "") errors.push(requiredField(at));
    else if (name.length > 253 || !sysctlPattern.test(name)) errors.push(invalidField(at, name, sysctlMessage));
    else if (names.has(name)) errors.push(duplicateField(at, name));
    const ns = sysctlNamespace(name);
    if (spec["hostNetwork"] === true && ns === "net") errors.push(invalidField(at, name, "may not be specified when 'hostNetwork' is true"));
    else if (spec["hostIPC"] === true && ns === "ipc") errors.push(invalidField(at, name, "may not be specified when 'hostIPC' is true"));
    names.add(name);
  });
  const change = sc["fsGroupChangePolicy"];
  if (change !== undefined && change !== "Always" && change !== "OnRootMismatch") {
    errors.push(notSupportedField(path.child("fsGroupChangePolicy"), change, ["Always", "OnRootMismatch"]));
  }
  errors.push(...validateSeccompProfile(sc["seccompProfile"], path.child("seccompProfile")));
  errors.push(...validateWindowsOptions(sc["windowsOptions"], path.child("windowsOptions")));
  errors.push(...validateAppArmorProfile(sc["appArmorProfile"], path.child("appArmorProfile")));
  const groups = sc["supplementalGroupsPolicy"];
  if (groups !== undefined && groups !== "Merge" && groups !== "Strict") {
    errors.push(notSupportedField(path.child("supplementalGroupsPolicy"), groups, ["Merge", "Strict"]));
  }
  const seLinux = sc["seLinuxChangePolicy"];
  if (seLinux !== undefined && seLinux !== "MountOption" && seLinux !== "Recursive") {
    errors.push(notSupportedField(path.child("seLinuxChangePolicy"), seLinux, ["MountOption", "Recursive"]));
  }
  return errors;
}

function validateNodeSelectorRequirement(req: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const values = strings(req["values"]);
  const operator = str(req["operator"]);
  if (operator === "In" || operator === "NotIn") {
    if (values.length === 0) errors.push(requiredField(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (operator === "Exists" || operator === "DoesNotExist") {
    if (values.length > 0) errors.push(forbiddenField(path.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  } else if (operator === "Gt" || operator === "Lt") {
    if (values.length !== 1) errors.push(requiredField(path.child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
  } else {
    errors.push(invalidField(path.child("operator"), operator, "not a valid selector operator"));
  }
  errors.push(...validateQualifiedName(str(req["key"]), path.child("key")));
  return errors;
}

function validateNodeSelectorTerm(term: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  records(term["matchExpressions"]).forEach((req, j) => errors.push(...validateNodeSelectorRequirement(req, path.child("matchExpressions").index(j))));
  records(term["matchFields"]).forEach((req, j) => {
    const at = path.child("matchFields").index(j);
    const operator = str(req["operator"]);
    if (operator === "In" || operator === "NotIn") {
      if (strings(req["values"]).length !== 1) {
        errors.push(requiredField(at.child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
      }
    } else {
      errors.push(invalidField(at.child("operator"), operator, "not a valid selector operator"));
    }
    const key = str(req["key"]);
    if (key !== "metadata.name") errors.push(invalidField(at.child("key"), key, "not a valid field selector key"));
    else strings(req["values"]).forEach((v, i) => errors.push(...validateDNS1123Subdomain(v, at.child("values").index(i))));
  });
  return errors;
}

function validateWeight(value: unknown, path: FieldPath): FieldError[] {
  const weight = typeof value === "number" ? value : 0;
  return weight <= 0 || weight > 100 ? [invalidField(path, weight, "must be in the range 1-100")] : [];
}

function validatePodAffinityTerm(term: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors = [
    ...validateLabelSelectorObject(term["labelSelector"], path.child("labelSelector")),
    ...validateLabelSelectorObject(term["namespaceSelector"], path.child("namespaceSelector")),
  ];
  for (const name of strings(term["namespaces"])) errors.push(...validateDNS1123Label(name, path.child("namespace")));
  for (const key of ["matchLabelKeys", "mismatchLabelKeys"]) {
    const keys = strings(term[key]);
    if (keys.length === 0) continue;
    if (!record(term["labelSelector"])) {
      errors.push(forbiddenField(path.child(key), "must not be specified when labelSelector is not set"));
      continue;
    }
    keys.forEach((k, i) => errors.push(...validateQualifiedName(k, path.child(key).index(i))));
  }
  const topologyKey = str(term["topologyKey"]);
  if (topologyKey === "") errors.push(requiredField(path.child("topologyKey"), "can not be empty"));
  errors.push(...validateQualifiedName(topologyKey, path.child("topologyKey")));
  return errors;
}

function validatePodAffinity(value: unknown, path: FieldPath): FieldError[] {
  const affinity = record(value);
  if (!affinity) return [];
  const errors: FieldError[] = [];
  const required = path.child("requiredDuringSchedulingIgnoredDuringExecution");
  records(affinity["requiredDuringSchedulingIgnoredDuringExecution"]).forEach((t, i) => errors.push(...validatePodAffinityTerm(t, required.index(i))));
  const preferred = path.child("preferredDuringSchedulingIgnoredDuringExecution");
  records(affinity["preferredDuringSchedulingIgnoredDuringExecution"]).forEach((t, i) => {
    errors.push(...validateWeight(t["weight"], preferred.index(i).child("weight")));
    errors.push(...validatePodAffinityTerm(record(t["podAffinityTerm"]) ?? {}, preferred.index(i).child("podAffinityTerm")));
  });
  return errors;
}

/**
 * The pod's `affinity` (`validateAffinity`): node affinity's required node selector (at least
 * one term) and preferred terms (weight 1-100), pod affinity and anti-affinity terms (selectors,
 * namespaces, label keys, a topology key) and their weights.
 */
export function validateAffinity(value: unknown, path: FieldPath): FieldError[] {
  const affinity = record(value);
  if (!affinity) return [];
  const errors: FieldError[] = [];
  const node = record(affinity["nodeAffinity"]);
  if (node) {
    const np = path.child("nodeAffinity");
    const required = record(node["requiredDuringSchedulingIgnoredDuringExecution"]);
    if (required) errors.push(...validateNodeSelector(required, np.child("requiredDuringSchedulingIgnoredDuringExecution")));
    const preferred = np.child("preferredDuringSchedulingIgnoredDuringExecution");
    records(node["preferredDuringSchedulingIgnoredDuringExecution"]).forEach((t, i) => {
      errors.push(...validateWeight(t["weight"], preferred.index(i).child("weight")));
      errors.push(...validateNodeSelectorTerm(record(t["preference"]) ?? {}, preferred.index(i).child("preference")));
    });
  }
  errors.push(...validatePodAffinity(affinity["podAffinity"], path.child("podAffinity")));
  errors.push(...validatePodAffinity(affinity["podAntiAffinity"], path.child("podAntiAffinity")));
  return errors;
}

/**
 * The pod's `topologySpreadConstraints` (`validateTopologySpreadConstraints`): `maxSkew` above
 * 0, a topology key, `whenUnsatisfiable` DoNotSchedule or ScheduleAnyway, no two constraints with
 * the same key and action, `minDomains` above 0 and only with DoNotSchedule, the node policies
 * Honor or Ignore, label keys and the label selector.
 */
export function validateTopologySpreadConstraints(value: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const constraints = records(value);
  constraints.forEach((c, i) => {
    const at = path.index(i);
    const maxSkew = typeof c["maxSkew"] === "number" ? c["maxSkew"] : 0;
    if (maxSkew <= 0) errors.push(invalidField(at.child("maxSkew"), maxSkew, notPositiveMessage));
    const key = str(c["topologyKey"]);
    if (key === "") errors.push(requiredField(at.child("topologyKey"), "can not be empty"));
    const action = str(c["whenUnsatisfiable"]);
    const actions = ["DoNotSchedule", "ScheduleAnyway"];
    if (!actions.includes(action)) errors.push(notSupportedField(at.child("whenUnsatisfiable"), action, actions));
    if (constraints.slice(i + 1).some((o) => str(o["topologyKey"]) === key && str(o["whenUnsatisfiable"]) === action)) {
      errors.push(duplicateField(at.child("{topologyKey, whenUnsatisfiable}"), `{${key}, ${action}}`));
    }
    const minDomains = c["minDomains"];
    if (typeof minDomains === "number") {
      if (minDomains <= 0) errors.push(invalidField(at.child("minDomains"), minDomains, notPositiveMessage));
      if (action !== "DoNotSchedule") {
        errors.push(invalidField(at.child("minDomains"), minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`));
      }
    }
    for (const policy of ["nodeAffinityPolicy", "nodeTaintsPolicy"]) {
      const p = c[policy];
      if (p !== undefined && p !== "Honor" && p !== "Ignore") errors.push(notSupportedField(at.child(policy), p, ["Honor", "Ignore"]));
    }
    const matchKeys = strings(c["matchLabelKeys"]);
    if (matchKeys.length > 0 && !record(c["labelSelector"])) {
      errors.push(forbiddenField(at.child("matchLabelKeys"), "must not be specified when labelSelector is not set"));
    } else {
      matchKeys.forEach((k, j) => errors.push(...validateQualifiedName(k, at.child("matchLabelKeys").index(j))));
    }
    errors.push(...validateLabelSelectorObject(c["labelSelector"], at.child("labelSelector")));
  });
  return errors;
}

function validateIP(value: string, path: FieldPath): FieldError[] {
  return parseIP(value) ? [] : [invalidField(path, value, ipMessage)];
}

/**
 * The pod's `dnsConfig` (`validatePodDNSConfig`): required with at least one nameserver when
 * `dnsPolicy` is None; at most 3 nameservers, each an IP; at most 32 search domains and 2048
 * characters, each a DNS subdomain (a trailing dot allowed); every option named.
 */
export function validatePodDNSConfig(value: unknown, dnsPolicy: string, path: FieldPath): FieldError[] {
  const config = record(value);
  if (dnsPolicy === "None") {
    if (!config) return [requiredField(path, "must provide `dnsConfig` when `dnsPolicy` is None")];
    if (list(config["nameservers"]).length === 0) {
      return [requiredField(path.child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None")];
    }
  }
  if (!config) return [];
  const errors: FieldError[] = [];
  const nameservers = strings(config["nameservers"]);
  if (nameservers.length > 3) errors.push(invalidField(path.child("nameservers"), nameservers, "must not have more than 3 nameservers"));
  nameservers.forEach((ns, i) => errors.push(...validateIP(ns, path.child("nameservers").index(i))));
  const searches = strings(config["searches"]);
  if (searches.length > 32) errors.push(invalidField(path.child("searches"), searches, "must not have more than 32 search paths"));
  if (searches.join(" ").length > 2048) {
    errors.push(invalidField(path.child("searches"), searches, "must not have more than 2048 characters (including spaces) in the search list"));
  }
  searches.forEach((s, i) => {
    errors.push(...validateDNS1123Subdomain(s.endsWith(".") ? s.slice(0, -1) : s, path.child("searches").index(i)));
  });
  records(config["options"]).forEach((o, i) => {
    if (str(o["name"]) === "") errors.push(requiredField(path.child("options").index(i), "must not be empty"));
  });
  return errors;
}

/**
 * A container's `resizePolicy` (`validateResizePolicy`): each resource once, cpu or memory, a
 * restart policy NotRequired or RestartContainer, and NotRequired when the pod never restarts.
 */
export function validateResizePolicy(value: unknown, podRestartPolicy: string, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  records(value).forEach((p, i) => {
    const name = str(p["resourceName"]);
    if (seen.has(name)) errors.push(duplicateField(path.index(i), name));
    seen.add(name);
    if (name === "") errors.push(requiredField(path));
    else if (name !== "cpu" && name !== "memory") errors.push(notSupportedField(path, name, ["cpu", "memory"]));
    const policy = str(p["restartPolicy"]);
    if (policy === "") errors.push(requiredField(path));
    else if (policy !== "NotRequired" && policy !== "RestartContainer") errors.push(notSupportedField(path, policy, ["NotRequired", "RestartContainer"]));
    if (podRestartPolicy === "Never" && policy !== "NotRequired") {
      errors.push(invalidField(path, policy, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
    }
  });
  return errors;
}

/**
 * The pod's `resourceClaims` (`validatePodResourceClaims`): unique DNS-label names, exactly one
 * of `resourceClaimName` and `resourceClaimTemplateName`, each a DNS subdomain.
 */
export function validatePodResourceClaims(value: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  records(value).forEach((claim, i) => {
    const at = path.index(i);
    const name = str(claim["name"]);
    if (name === "") errors.push(requiredField(at.child("name")));
    else if (names.has(name)) errors.push(duplicateField(at.child("name"), name));
    else {
      errors.push(...validateDNS1123Label(name, at.child("name")));
      names.add(name);
    }
    const byName = claim["resourceClaimName"];
    const byTemplate = claim["resourceClaimTemplateName"];
    if (byName !== undefined && byTemplate !== undefined) {
      errors.push(invalidField(at, claim, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"));
    }
    if (byName === undefined && byTemplate === undefined) {
      errors.push(invalidField(at, claim, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"));
    }
    if (typeof byName === "string") errors.push(...validateDNS1123Subdomain(byName, at.child("resourceClaimName")));
    if (typeof byTemplate === "string") errors.push(...validateDNS1123Subdomain(byTemplate, at.child("resourceClaimTemplateName")));
  });
  return errors;
}

/** The pod's `readinessGates`: each `conditionType` a qualified name. */
export function validateReadinessGates(value: unknown, path: FieldPath): FieldError[] {
  return records(value).flatMap((g, i) => validateQualifiedName(str(g["conditionType"]), path.index(i).child("conditionType")));
}

/** The pod's `schedulingGates`: each name a qualified name, no name twice (errors at the item's path, as the reference). */
export function validateSchedulingGates(value: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  records(value).forEach((g, i) => {
    const name = str(g["name"]);
    errors.push(...validateQualifiedName(name, path.index(i)));
    if (seen.has(name)) errors.push(duplicateField(path.index(i), name));
    seen.add(name);
  });
  return errors;
}

/** The pod's `hostAliases`: each `ip` an IP address, each host name a DNS subdomain. */
export function validateHostAliases(value: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  records(value).forEach((alias, i) => {
    errors.push(...validateIP(str(alias["ip"]), path.index(i).child("ip")));
    strings(alias["hostnames"]).forEach((h, j) => errors.push(...validateDNS1123Subdomain(h, path.index(i).child("hostnames").index(j))));
  });
  return errors;
}

/** The pod's `os.name`: linux or windows. */
export function validateOS(value: unknown, path: FieldPath): FieldError[] {
  const os = record(value);
  if (!os) return [];
  const name = str(os["name"]);
  if (name === "") return [requiredField(path.child("name"))];
  return name === "linux" || name === "windows" ? [] : [notSupportedField(path.child("name"), name, ["linux", "windows"])];
}
