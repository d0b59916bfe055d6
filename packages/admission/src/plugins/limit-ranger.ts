/**
 * LimitRanger: enforces the namespace's LimitRange objects. On a pod's CREATE (and its `resize`)
 * the mutating step fills each container's missing limits from the `Container` item's `default`
 * and missing requests from its `defaultRequest` (a request still missing takes the container's
 * limit), and records what it set in the annotation `<prefix>/limit-ranger` (`kubernetes.io`
 * under domain `k8s.io`). The validating step checks `Container` min/max/maxLimitRequestRatio
 * per container, `Pod` ones over the pod's totals, and `PersistentVolumeClaim` min/max of the
 * claim's storage request (on CREATE and UPDATE; an UPDATE re-checks only what it changes),
 * refusing with 403 and the reference's messages.
 * @module
 */
import type { APIObject, Quantity } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { labelDomain } from "../internal/domain.js";
import { type JSONRecord, list, record, records, str } from "../internal/json.js";
import { podSpecOf } from "../internal/pod-spec.js";
import { admissionForbidden, type AdmissionPlugin, type PluginFactory } from "../plugin.js";
import { containerResources, podLimits, podRequests } from "../quota/pod-resources.js";
import { quantityOf, resourceListOf, type ResourceList } from "../quota/resource-list.js";

/** One item of a LimitRange's `spec.limits`. */
interface LimitItem {
  type: string;
  min: ResourceList;
  max: ResourceList;
  ratio: ResourceList;
  defaults: JSONRecord;
  defaultRequests: JSONRecord;
}

function limitItems(limitRange: APIObject): LimitItem[] {
  return list(record(limitRange["spec"])?.["limits"]).map((l) => {
    const item = record(l) ?? {};
    return {
      type: str(item["type"]),
      min: resourceListOf(item["min"]),
      max: resourceListOf(item["max"]),
      ratio: resourceListOf(item["maxLimitRequestRatio"]),
      defaults: record(item["default"]) ?? {},
      defaultRequests: record(item["defaultRequest"]) ?? {},
    };
  });
}

const sortedEntries = (list: ResourceList) => [...list].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

// ---- constraints (the reference's minConstraint, maxConstraint, maxRequestConstraint, limitRequestRatioConstraint)

function minConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  if (!req) return `minimum ${name} usage per ${type} is ${enforced.toString()}.  No request is specified`;
  if (enforced.cmp(req) > 0) return `minimum ${name} usage per ${type} is ${enforced.toString()}, but request is ${req.toString()}`;
  if (lim && enforced.cmp(lim) > 0) return `minimum ${name} usage per ${type} is ${enforced.toString()}, but limit is ${lim.toString()}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  if (!lim) return `maximum ${name} usage per ${type} is ${enforced.toString()}.  No limit is specified`;
  if (lim.cmp(enforced) > 0) return `maximum ${name} usage per ${type} is ${enforced.toString()}, but limit is ${lim.toString()}`;
  if (req && req.cmp(enforced) > 0) return `maximum ${name} usage per ${type} is ${enforced.toString()}, but request is ${req.toString()}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList): string | undefined {
  const req = requests.get(name);
  if (!req) return `maximum ${name} usage per ${type} is ${enforced.toString()}.  No request is specified`;
  if (req.cmp(enforced) > 0) return `maximum ${name} usage per ${type} is ${enforced.toString()}, but request is ${req.toString()}`;
  return undefined;
}

const abs = (n: bigint) => (n < 0n ? -n : n);

/** `limit / request` with six decimals, rounded half to even (the reference's message form). */
export function ratioString(limit: Quantity, request: Quantity): string {
  const num = abs(limit.milliValue()) * 1_000_000n;
  const den = abs(request.milliValue());
  let q = num / den;
  const twice = (num % den) * 2n;
  if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  return `${q / 1_000_000n}.${(q % 1_000_000n).toString().padStart(6, "0")}`;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const head = `${name} max limit to request ratio per ${type} is ${enforced.toString()}`;
  if (!req || req.isZero()) return `${head}, but no request is specified or request is 0`;
  if (!lim || lim.isZero()) return `${head}, but no limit is specified or limit is 0`;
  // |limit| > |request| * ratio, in thousandths on both sides.
  if (abs(lim.milliValue()) * 1000n > abs(req.milliValue()) * enforced.milliValue()) return `${head}, but provided ratio is ${ratioString(lim, req)}`;
  return undefined;
}

/** The requests and limits one constraint reads; `old` is the same of the stored object on UPDATE. */
interface Usage {
  requests: ResourceList;
  limits: ResourceList;
}

const same = (a: Quantity | undefined, b: Quantity | undefined) => (a && b ? a.equals(b) : a === b);

/** Min, max and ratio of `item` on `usage`, skipping the resources an UPDATE left as stored. */
function checkItem(item: LimitItem, usage: Usage, old: Usage | undefined): string[] {
  const unchanged = (name: string) =>
    old !== undefined && same(usage.requests.get(name), old.requests.get(name)) && same(usage.limits.get(name), old.limits.get(name));
  const errors: (string | undefined)[] = [];
  for (const [name, q] of sortedEntries(item.min)) if (!unchanged(name)) errors.push(minConstraint(item.type, name, q, usage.requests, usage.limits));
  for (const [name, q] of sortedEntries(item.max)) if (!unchanged(name)) errors.push(maxConstraint(item.type, name, q, usage.requests, usage.limits));
  for (const [name, q] of sortedEntries(item.ratio)) if (!unchanged(name)) errors.push(ratioConstraint(item.type, name, q, usage.requests, usage.limits));
  return errors.filter((e): e is string => e !== undefined);
}

function containersOf(pod: APIObject | undefined, field: "containers" | "initContainers"): JSONRecord[] {
  return records(podSpecOf(pod)?.[field]);
}

const containerUsage = (c: JSONRecord): Usage => ({ requests: containerResources(c, "requests"), limits: containerResources(c, "limits") });

/** The reference's PodValidateLimitFunc for one LimitRange. */
function validatePod(limitRange: APIObject, pod: APIObject, old: APIObject | undefined): string[] {
  const errors: string[] = [];
  for (const item of limitItems(limitRange)) {
    if (item.type === "Container") {
      for (const list of ["containers", "initContainers"] as const) {
        const olds = containersOf(old, list);
        for (const c of containersOf(pod, list)) {
          const previous = old ? olds.find((o) => o["name"] === c["name"]) : undefined;
          errors.push(...checkItem(item, containerUsage(c), previous ? containerUsage(previous) : undefined));
        }
      }
    }
    if (item.type === "Pod") {
      const totals = (p: APIObject): Usage => ({ requests: podRequests(p), limits: podLimits(p) });
      errors.push(...checkItem(item, totals(pod), old ? totals(old) : undefined));
    }
  }
  return errors;
}

/** The reference's PersistentVolumeClaimValidateLimitFunc: storage requests only, limits ignored. */
function validateClaim(limitRange: APIObject, pvc: APIObject, old: APIObject | undefined): string[] {
  const requestsOf = (c: APIObject | undefined) => resourceListOf(record(record(record(c?.["spec"])?.["resources"]))?.["requests"]);
  const requests = requestsOf(pvc);
  const olds = requestsOf(old);
  const unchanged = (name: string) => same(requests.get(name), olds.get(name)) && requests.has(name);
  const errors: (string | undefined)[] = [];
  for (const item of limitItems(limitRange)) {
    if (item.type !== "PersistentVolumeClaim") continue;
    for (const [name, q] of sortedEntries(item.min)) if (!unchanged(name)) errors.push(minConstraint(item.type, name, q, requests, new Map()));
    for (const [name, q] of sortedEntries(item.max)) if (!unchanged(name)) errors.push(maxRequestConstraint(item.type, name, q, requests));
  }
  return errors.filter((e): e is string => e !== undefined);
}

/** The reference's error aggregate: one message as it is, several deduplicated in `[a, b]`. */
function aggregate(errors: readonly string[]): string | undefined {
  const unique = [...new Set(errors)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}

// ---- defaults

/** Fills `container`'s missing limits and requests; returns the annotation parts. */
function mergeContainer(container: JSONRecord, defaults: JSONRecord, defaultRequests: JSONRecord, label: string): string[] {
  const resources = record(container["resources"]) ?? {};
  const limits = { ...(record(resources["limits"]) ?? {}) };
  const requests = { ...(record(resources["requests"]) ?? {}) };
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  const canonical = (v: unknown) => quantityOf(v)?.toString() ?? v;
  for (const [name, v] of Object.entries(defaults)) {
    if (limits[name] !== undefined) continue;
    limits[name] = canonical(v);
    setLimits.push(name);
  }
  for (const [name, v] of Object.entries(defaultRequests)) {
    if (requests[name] !== undefined) continue;
    requests[name] = canonical(v);
    setRequests.push(name);
  }
  // A request still missing defaults to the limit, as the pod's own defaulting does.
  for (const [name, v] of Object.entries(limits)) {
    if (requests[name] !== undefined) continue;
    requests[name] = v;
    setRequests.push(name);
  }
  const name = str(container["name"]);
  const parts: string[] = [];
  if (setRequests.length) parts.push(`${setRequests.sort().join(", ")} request for ${label} ${name}`);
  if (setLimits.length) parts.push(`${setLimits.sort().join(", ")} limit for ${label} ${name}`);
  if (parts.length) container["resources"] = { ...resources, limits, requests };
  return parts;
}

/** The reference's PodMutateLimitFunc for one LimitRange. */
function defaultPod(limitRange: APIObject, pod: APIObject, annotation: string): void {
  const defaults: JSONRecord = {};
  const defaultRequests: JSONRecord = {};
  for (const l of list(record(limitRange["spec"])?.["limits"])) {
    const item = record(l) ?? {};
    if (item["type"] !== "Container") continue;
    Object.assign(defaultRequests, record(item["defaultRequest"]) ?? {});
    Object.assign(defaults, record(item["default"]) ?? {});
  }
  const parts = [
    ...containersOf(pod, "containers").flatMap((c) => mergeContainer(c, defaults, defaultRequests, "container")),
    ...containersOf(pod, "initContainers").flatMap((c) => mergeContainer(c, defaults, defaultRequests, "init container")),
  ];
  if (parts.length === 0) return;
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [annotation]: `LimitRanger plugin set: ${parts.join("; ")}` };
}

// ---- the plugin

/**
 * The writes LimitRanger looks at: pods and claims, no sub-resource but a pod `resize`, and no
 * pod UPDATE otherwise (containers cannot change).
 */
function supports(attrs: AdmissionAttributes): boolean {
  if (attrs.kind.group !== "") return false;
  const kind = attrs.kind.kind;
  if (kind === "Pod" && attrs.subresource === "resize") return attrs.operation === "UPDATE";
  if (attrs.subresource !== "") return false;
  if (kind === "Pod") return attrs.operation === "CREATE";
  return kind === "PersistentVolumeClaim";
}

/** The LimitRanger plugin (mutating and validating; CREATE and UPDATE). */
export const limitRanger: PluginFactory = ({ services }) => {
  const annotation = `${labelDomain(services.domain)}/limit-ranger`;

  /** The namespace's LimitRanges, unless the write is not LimitRanger's business. */
  const limitRanges = async (attrs: AdmissionAttributes): Promise<readonly APIObject[]> => {
    if (!supports(attrs) || !attrs.object) return [];
    // An object being deleted is not held to the limits any more.
    if (attrs.oldObject?.metadata.deletionTimestamp) return [];
    return (await services.list("", "limitranges", attrs.namespace)).items;
  };

  const plugin: AdmissionPlugin = {
    name: "LimitRanger",
    operations: ["CREATE", "UPDATE"],
    handlesResource: (_group, resource) => resource === "pods" || resource === "persistentvolumeclaims",
    async admit(attrs) {
      if (attrs.resource.resource !== "pods") return;
      const object = attrs.object;
      for (const limitRange of await limitRanges(attrs)) if (object) defaultPod(limitRange, object, annotation);
    },
    async validate(attrs) {
      const { resource } = attrs.resource;
      if (resource !== "pods" && resource !== "persistentvolumeclaims") return;
      const object = attrs.object;
      for (const limitRange of await limitRanges(attrs)) {
        if (!object) continue;
        const errors = resource === "pods" ? validatePod(limitRange, object, attrs.oldObject) : validateClaim(limitRange, object, attrs.oldObject);
        const why = aggregate(errors);
        if (why) throw admissionForbidden(attrs, why);
      }
    },
  };
  return plugin;
};
