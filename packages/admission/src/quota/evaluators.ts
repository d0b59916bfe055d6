/**
 * Quota evaluators (the reference's `pkg/quota/v1/evaluator/core` and `generic`): for one
 * resource, which quota resource names it feeds, which writes change usage, how an object
 * matches a quota's scopes, what one object uses, and what a pod must state when a quota
 * constrains its compute resources. Pods, services and persistentvolumeclaims have their own;
 * configmaps, secrets, replicationcontrollers and resourcequotas count under their legacy names
 * too; every other resource counts as `count/<resource>[.<group>]`.
 * @module
 */
import { newQuantity, parseQuantity, validateQualifiedName, type APIObject } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { labelDomain } from "../internal/domain.js";
import { isSet, type JSONRecord, list, record, str } from "../internal/json.js";
import { podSpecOf } from "../internal/pod-spec.js";
import { containerResources, podLimits, podRequests } from "./pod-resources.js";
import { addInto, resourceListOf, type ResourceList } from "./resource-list.js";
import { selectorMatchesValue, type ScopeSelector } from "./scopes.js";

/** What quota knows about one resource. */
export interface QuotaEvaluator {
  /** The resolved group (`""` for core). */
  readonly group: string;
  /** The resource. */
  readonly resource: string;
  /** True when the write may change usage (CREATE; UPDATE for services, claims, pod resizes). */
  handles(attrs: AdmissionAttributes): boolean;
  /** The names among `names` this evaluator measures. */
  matchingResources(names: Iterable<string>): string[];
  /** True when `object` satisfies one scope requirement (evaluators without scopes: never). */
  matchesScope(selector: ScopeSelector, object: APIObject): boolean;
  /** What `object` uses (`now` in ms, for pods stuck terminating). */
  usage(object: APIObject, now: number): ResourceList;
  /** Why `object` cannot be admitted under a quota constraining `required`, or `undefined`. */
  constraints(required: readonly string[], object: APIObject): string | undefined;
  /** An UPDATE's delta may be negative (a pod resized down gives back what it held). */
  readonly negativeDeltas: boolean;
}

/** `count/<resource>` for core, `count/<resource>.<group>` otherwise. */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** The group and resource of a `count/<resource>[.<group>]` name, or `undefined`. */
export function parseObjectCountName(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith("count/")) return undefined;
  const rest = name.slice("count/".length);
  const dot = rest.indexOf(".");
  const resource = dot < 0 ? rest : rest.slice(0, dot);
  if (!resource) return undefined;
  return { group: dot < 0 ? "" : rest.slice(dot + 1), resource };
}

const one = () => newQuantity(1);

const noScope = () => false;
const noConstraint = () => undefined;

function createOnly(attrs: AdmissionAttributes): boolean {
  return attrs.operation === "CREATE" && attrs.subresource === "";
}

function createOrUpdate(attrs: AdmissionAttributes): boolean {
  return (attrs.operation === "CREATE" || attrs.operation === "UPDATE") && attrs.subresource === "";
}

/** An object-count evaluator: every object uses 1 of `count/<resource>[.<group>]` (and of `alias`). */
export function objectCountEvaluator(group: string, resource: string, alias?: string): QuotaEvaluator {
  const names = [objectCountName(group, resource), ...(alias ? [alias] : [])];
  return {
    group,
    resource,
    negativeDeltas: false,
    handles: createOnly,
    matchingResources: (input) => [...input].filter((n) => names.includes(n)),
    matchesScope: noScope,
    usage: () => new Map(names.map((n) => [n, one()])),
    constraints: noConstraint,
  };
}

/** The core resources that also count under a legacy name. */
export const legacyObjectCountAliases: Readonly<Record<string, string>> = {
  configmaps: "configmaps",
  resourcequotas: "resourcequotas",
  replicationcontrollers: "replicationcontrollers",
  secrets: "secrets",
};

const serviceNames = ["count/services", "services", "services.nodeports", "services.loadbalancers"];

/** The services evaluator: `services`, `count/services`, `services.nodeports`, `services.loadbalancers`. */
export const serviceEvaluator: QuotaEvaluator = {
  group: "",
  resource: "services",
  negativeDeltas: false,
  handles: createOrUpdate,
  matchingResources: (input) => [...input].filter((n) => serviceNames.includes(n)),
  matchesScope: noScope,
  usage(object) {
    const spec = record(object["spec"]) ?? {};
    const ports = list(spec["ports"]);
    const zero = parseQuantity("0");
    const out: ResourceList = new Map([
      ["count/services", one()],
      ["services", one()],
      ["services.loadbalancers", zero],
      ["services.nodeports", zero],
    ]);
    const type = str(spec["type"]);
    if (type === "NodePort") out.set("services.nodeports", newQuantity(ports.length));
    if (type === "LoadBalancer") {
      // Without node port allocation only the ports that name one explicitly count.
      const counted = spec["allocateLoadBalancerNodePorts"] === false ? ports.filter((p) => Number(record(p)?.["nodePort"] ?? 0) !== 0).length : ports.length;
      out.set("services.nodeports", newQuantity(counted));
      out.set("services.loadbalancers", one());
    }
    return out;
  },
  constraints: noConstraint,
};

/** The persistentvolumeclaims evaluator (`storageclass.storage.<domain>` names per class). */
export function persistentVolumeClaimEvaluator(domain: string): QuotaEvaluator {
  const suffix = `.storageclass.storage.${domain}/`;
  const base = ["persistentvolumeclaims", "requests.storage"];
  const classAnnotation = `volume.beta.${labelDomain(domain)}/storage-class`;
  const classOf = (pvc: APIObject) => pvc.metadata.annotations?.[classAnnotation] ?? str(record(pvc["spec"])?.["storageClassName"]);
  return {
    group: "",
    resource: "persistentvolumeclaims",
    negativeDeltas: false,
    handles: createOrUpdate,
    matchingResources: (input) =>
      [...input].filter((n) => n === "count/persistentvolumeclaims" || base.includes(n) || base.some((b) => n.endsWith(suffix + b))),
    matchesScope(selector, pvc) {
      if (selector.scopeName !== "VolumeAttributesClass") return false;
      const status = record(pvc["status"]) ?? {};
      const classes = [
        str(record(pvc["spec"])?.["volumeAttributesClassName"]),
        str(status["currentVolumeAttributesClassName"]),
        str(record(status["modifyVolumeStatus"])?.["targetVolumeAttributesClassName"]),
      ].filter(Boolean);
      if (classes.length === 0) return selectorMatchesValue(selector, undefined);
      return classes.some((c) => selectorMatchesValue(selector, c));
    },
    usage(pvc) {
      const out: ResourceList = new Map([
        ["persistentvolumeclaims", one()],
        ["count/persistentvolumeclaims", one()],
      ]);
      const storageClass = classOf(pvc);
      if (storageClass) out.set(`${storageClass}${suffix}persistentvolumeclaims`, one());
      const storage = claimStorage(pvc);
      if (storage) {
        out.set("requests.storage", storage);
        if (storageClass) out.set(`${storageClass}${suffix}requests.storage`, storage);
      }
      return out;
    },
    constraints: noConstraint,
  };
}

// The claim's request, or the larger allocation the status reports, in whole bytes.
function claimStorage(pvc: APIObject): ReturnType<typeof parseQuantity> | undefined {
  const requested = resourceListOf(record(record(pvc["spec"])?.["resources"])?.["requests"]).get("storage");
  const allocated = resourceListOf(record(pvc["status"])?.["allocatedResources"]).get("storage");
  let result = requested;
  if (allocated && (!result || allocated.cmp(result) > 0)) result = allocated;
  if (!result) return undefined;
  const whole = newQuantity(result.value(), result.format);
  return whole.equals(result) ? result : whole;
}

const podNames = [
  "count/pods",
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
];

/** The pod resources that, when a quota constrains them, every container must request or limit. */
const validationSet = new Set(["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"]);

/** True for a pod that has finished or whose deletion grace period ran out (it no longer counts). */
function terminal(pod: APIObject, now: number): boolean {
  const phase = str(record(pod["status"])?.["phase"]);
  if (phase === "Failed" || phase === "Succeeded") return true;
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  if (deletionTimestamp && typeof deletionGracePeriodSeconds === "number") {
    return now > Date.parse(deletionTimestamp) + deletionGracePeriodSeconds * 1000;
  }
  return false;
}

/** The reference's `IsTerminating`: the pod has a non-negative `activeDeadlineSeconds`. */
export function isTerminatingPod(pod: APIObject | undefined): boolean {
  const deadline = podSpecOf(pod)?.["activeDeadlineSeconds"];
  return typeof deadline === "number" && deadline >= 0;
}

/** True when no container requests or limits a positive amount of cpu or memory. */
export function isBestEffortPod(pod: APIObject): boolean {
  const spec = podSpecOf(pod) ?? {};
  for (const c of [...list(spec["initContainers"]), ...list(spec["containers"])]) {
    const container = record(c) ?? {};
    for (const side of ["requests", "limits"] as const) {
      const list = containerResources(container, side);
      for (const name of ["cpu", "memory"]) if ((list.get(name)?.sign() ?? 0) > 0) return false;
    }
  }
  return true;
}

function crossNamespaceTerm(term: unknown): boolean {
  const t = record(term) ?? {};
  return list(t["namespaces"]).length > 0 || isSet(t["namespaceSelector"]);
}

/** True when a pod (anti-)affinity term names other namespaces or a namespace selector. */
export function usesCrossNamespacePodAffinity(pod: APIObject): boolean {
  const affinity = record(podSpecOf(pod)?.["affinity"]);
  for (const kind of ["podAffinity", "podAntiAffinity"]) {
    const a = record(affinity?.[kind]);
    if (!a) continue;
    if (list(a["requiredDuringSchedulingIgnoredDuringExecution"]).some(crossNamespaceTerm)) return true;
    if (list(a["preferredDuringSchedulingIgnoredDuringExecution"]).some((w) => crossNamespaceTerm(record(w)?.["podAffinityTerm"]))) return true;
  }
  return false;
}

function podMatchesScope(selector: ScopeSelector, pod: APIObject): boolean {
  switch (selector.scopeName) {
    case "Terminating":
      return isTerminatingPod(pod);
    case "NotTerminating":
      return !isTerminatingPod(pod);
    case "BestEffort":
      return isBestEffortPod(pod);
    case "NotBestEffort":
      return !isBestEffortPod(pod);
    case "PriorityClass": {
      const name = str(podSpecOf(pod)?.["priorityClassName"]);
      return selectorMatchesValue(selector, name || undefined);
    }
    case "CrossNamespacePodAffinity":
      return usesCrossNamespacePodAffinity(pod);
    default:
      return false;
  }
}

/** The pods evaluator (compute resources, hugepages, extended resources as `requests.<name>`). */
export function podEvaluator(domain: string): QuotaEvaluator {
  const nativePrefix = `${labelDomain(domain)}/`;
  const isNative = (name: string) => !name.includes("/") || name.includes(nativePrefix);
  const isExtended = (name: string) => !isNative(name) && !name.startsWith("requests.") && validateQualifiedName(`requests.${name}`, "name").length === 0;
  const isExtendedForQuota = (name: string) => !isNative(name) && name.startsWith("requests.");

  // The reference's podComputeUsageHelper.
  const computeUsage = (requests: ResourceList, limits: ResourceList): ResourceList => {
    const out: ResourceList = new Map([["pods", one()]]);
    for (const name of ["cpu", "memory", "ephemeral-storage"]) {
      const request = requests.get(name);
      if (request) {
        out.set(name, request);
        out.set(`requests.${name}`, request);
      }
      const limit = limits.get(name);
      if (limit) out.set(`limits.${name}`, limit);
    }
    for (const [name, request] of requests) {
      if (name.startsWith("hugepages-")) {
        out.set(name, request);
        out.set(`requests.${name}`, request);
      }
      if (isExtended(name)) out.set(`requests.${name}`, request);
    }
    return out;
  };

  return {
    group: "",
    resource: "pods",
    negativeDeltas: true,
    handles(attrs) {
      if (attrs.subresource === "resize") return attrs.operation === "UPDATE";
      if (attrs.subresource !== "") return false;
      if (attrs.operation === "UPDATE") return isTerminatingPod(attrs.oldObject) !== isTerminatingPod(attrs.object);
      return attrs.operation === "CREATE";
    },
    matchingResources: (input) =>
      [...input].filter((n) => podNames.includes(n) || n.startsWith("hugepages-") || n.startsWith("requests.hugepages-") || isExtendedForQuota(n)),
    matchesScope: podMatchesScope,
    usage(pod, now) {
      const out: ResourceList = new Map([["count/pods", one()]]);
      if (terminal(pod, now)) return out;
      const options = { overhead: true, statusResources: true };
      addInto(out, computeUsage(podRequests(pod, options), podLimits(pod, options)));
      return out;
    },
    constraints(required, pod) {
      const wanted = required.filter((n) => validationSet.has(n));
      if (wanted.length === 0) return undefined;
      const missing = new Map<string, Set<string>>();
      const spec = podSpecOf(pod) ?? {};
      for (const c of [...list(spec["containers"]), ...list(spec["initContainers"])]) {
        const container: JSONRecord = record(c) ?? {};
        const have = computeUsage(containerResources(container, "requests"), containerResources(container, "limits"));
        for (const name of wanted) {
          if (have.has(name)) continue;
          const names = missing.get(name) ?? new Set<string>();
          names.add(str(container["name"]));
          missing.set(name, names);
        }
      }
      if (missing.size === 0) return undefined;
      const parts = [...missing.keys()].sort().map((name) => `${name} for: ${[...(missing.get(name) as Set<string>)].sort().join(",")}`);
      return `must specify ${parts.join("; ")}`;
    },
  };
}

/**
 * The evaluators of one domain: the special ones, the legacy aliases, and an object-count
 * evaluator made (and kept) for any other resource.
 */
export class QuotaRegistry {
  readonly #byKey = new Map<string, QuotaEvaluator>();

  /** @param domain the product domain (storage class names, native resource prefix). */
  constructor(readonly domain: string) {
    for (const e of [podEvaluator(domain), serviceEvaluator, persistentVolumeClaimEvaluator(domain)]) this.#byKey.set(`/${e.resource}`, e);
    for (const [resource, alias] of Object.entries(legacyObjectCountAliases)) this.#byKey.set(`/${resource}`, objectCountEvaluator("", resource, alias));
  }

  /** The evaluator of `group`/`resource` (an object-count one unless special). */
  get(group: string, resource: string): QuotaEvaluator {
    const key = `${group}/${resource}`;
    let evaluator = this.#byKey.get(key);
    if (!evaluator) {
      evaluator = objectCountEvaluator(group, resource);
      this.#byKey.set(key, evaluator);
    }
    return evaluator;
  }

  /** The evaluators that measure some of `names`: the known ones, and one per other `count/` name. */
  forNames(names: readonly string[]): QuotaEvaluator[] {
    for (const name of names) {
      const parsed = parseObjectCountName(name);
      if (parsed) this.get(parsed.group, parsed.resource);
    }
    return [...this.#byKey.values()].filter((e) => e.matchingResources(names).length > 0);
  }
}
