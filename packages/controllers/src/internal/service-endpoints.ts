/**
 * What the `endpoint` and `endpointslice` loops share (the reference's `endpointutil`): which
 * Services select a Pod, whether a Pod belongs in a Service's endpoints, the port a Service port
 * reaches on a Pod (`FindPort`), the endpoint's hostname, and the time of the last change that
 * triggered a write (`TriggerTimeTracker`).
 * @module
 */
import { podsRef, type Informer } from "@orch/client";
import { formatTime, type APIObject } from "@orch/meta";
import { conditionOf } from "./conditions.js";
import { labelDomain } from "./label-domain.js";
import { timeOf } from "./time-of.js";
import type { ControllerContext } from "../controller.js";

/** A Service port as the endpoints loops read it. */
export interface ServicePortView {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
  targetPort?: number | string;
}

interface ServiceSpecView {
  selector?: Record<string, string>;
  ports?: ServicePortView[];
  clusterIP?: string;
  type?: string;
  publishNotReadyAddresses?: boolean;
  ipFamilies?: string[];
}

interface ContainerView {
  ports?: { name?: string; containerPort?: number; protocol?: string }[];
  restartPolicy?: string;
}

interface PodSpecView {
  containers?: ContainerView[];
  initContainers?: ContainerView[];
  hostname?: string;
  subdomain?: string;
  nodeName?: string;
}

interface PodStatusView {
  phase?: string;
  podIP?: string;
  podIPs?: { ip?: string }[];
  conditions?: { type?: string; status?: string; lastTransitionTime?: string }[];
}

/** The spec of a Service, `{}` when absent. */
export function serviceSpecOf(service: APIObject): ServiceSpecView {
  return (service["spec"] as ServiceSpecView | undefined) ?? {};
}

const podSpecOf = (pod: APIObject): PodSpecView => (pod["spec"] as PodSpecView | undefined) ?? {};
const podStatusOf = (pod: APIObject): PodStatusView => (pod["status"] as PodStatusView | undefined) ?? {};

/**
 * The selector of a Service whose endpoints the loops manage: its `spec.selector`, or undefined
 * for a Service without one (its endpoints are someone else's) or of type ExternalName.
 */
export function managedSelector(service: APIObject): Record<string, string> | undefined {
  const spec = serviceSpecOf(service);
  if (spec.type === "ExternalName" || !spec.selector) return undefined;
  return spec.selector;
}

/** True when every pair of `selector` is among `labels` (a Service selector; an empty one selects every Pod). */
export function selects(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** The keys (`namespace/name`) of the managed Services in `pod`'s namespace that select `pod`. */
export function servicesSelecting(services: Informer, pod: APIObject): string[] {
  const namespace = pod.metadata.namespace ?? "";
  const keys: string[] = [];
  for (const service of services.list()) {
    if (service.metadata.namespace !== namespace) continue;
    const selector = managedSelector(service);
    if (selector && selects(selector, pod.metadata.labels)) keys.push(`${namespace}/${service.metadata.name ?? ""}`);
  }
  return keys;
}

/**
 * Queues the keys of the Services (of `services()`) that select each Pod added, changed (before
 * and after the change) or deleted; returns the removal of the handler.
 */
export function queueServicesOfPods(ctx: ControllerContext, services: () => Informer | undefined, add: (key: string) => void): () => void {
  const enqueueFor = (pod: APIObject): void => {
    const informer = services();
    if (informer) for (const key of servicesSelecting(informer, pod)) add(key);
  };
  return ctx.informers.addEventHandler(podsRef, {
    onAdd: enqueueFor,
    onUpdate: (old, pod) => {
      enqueueFor(old);
      enqueueFor(pod);
    },
    onDelete: enqueueFor,
  });
}

/** The Pods of `pods` in `namespace` that `selector` selects. */
export function selectedPods(pods: Informer, namespace: string, selector: Record<string, string>): APIObject[] {
  return pods.list().filter((pod) => pod.metadata.namespace === namespace && selects(selector, pod.metadata.labels));
}

/**
 * Whether `pod` belongs in endpoints (`ShouldPodBeInEndpoints`): it has an IP, has not finished
 * (phase Succeeded or Failed), and is not being deleted unless `includeTerminating`.
 */
export function podBelongsInEndpoints(pod: APIObject, includeTerminating: boolean): boolean {
  const status = podStatusOf(pod);
  if (!status.podIP && (status.podIPs ?? []).length === 0) return false;
  if (!includeTerminating && pod.metadata.deletionTimestamp !== undefined) return false;
  return status.phase !== "Succeeded" && status.phase !== "Failed";
}

/** The Pod's IPs: `status.podIPs`, or `status.podIP` alone. */
function podIPs(pod: APIObject): string[] {
  const status = podStatusOf(pod);
  const ips = (status.podIPs ?? []).map((p) => p.ip ?? "").filter((ip) => ip !== "");
  return ips.length > 0 ? ips : status.podIP ? [status.podIP] : [];
}

/** `IPv6` for an address with a colon, `IPv4` otherwise. */
export function familyOf(ip: string): "IPv4" | "IPv6" {
  return ip.includes(":") ? "IPv6" : "IPv4";
}

/** The Pod's IP of `family`, undefined when it has none. */
export function podIPOf(pod: APIObject, family: string): string | undefined {
  return podIPs(pod).find((ip) => familyOf(ip) === family);
}

/**
 * The address families of a Service's endpoints: its `spec.ipFamilies`, else the family of its
 * cluster IP, else IPv4.
 */
export function serviceFamilies(service: APIObject): ("IPv4" | "IPv6")[] {
  const spec = serviceSpecOf(service);
  const families = (spec.ipFamilies ?? []).filter((f): f is "IPv4" | "IPv6" => f === "IPv4" || f === "IPv6");
  if (families.length > 0) return families;
  if (spec.clusterIP && spec.clusterIP !== "None") return [familyOf(spec.clusterIP)];
  return ["IPv4"];
}

/**
 * The port `servicePort` reaches on `pod` (`FindPort`): a numeric `targetPort` (the service
 * port itself when unset), or the container port of that name and protocol (of a container or
 * a sidecar init container); undefined when the Pod has no such port.
 */
export function findPort(pod: APIObject, servicePort: ServicePortView): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === "number") return target;
  if (target === undefined || target === "") return undefined;
  const protocol = servicePort.protocol ?? "TCP";
  const spec = podSpecOf(pod);
  const sidecars = (spec.initContainers ?? []).filter((c) => c.restartPolicy === "Always");
  for (const container of [...(spec.containers ?? []), ...sidecars]) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? "TCP") === protocol && typeof port.containerPort === "number") return port.containerPort;
    }
  }
  return undefined;
}

/** The hostname of `pod` in `service`'s endpoints: its `spec.hostname` when its `spec.subdomain` is the Service's name. */
export function endpointHostname(pod: APIObject, service: APIObject): string | undefined {
  const spec = podSpecOf(pod);
  return spec.hostname && spec.subdomain === service.metadata.name && pod.metadata.namespace === service.metadata.namespace ? spec.hostname : undefined;
}

/** The `targetRef` of an endpoint for `pod`. */
export function podTargetRef(pod: APIObject): Record<string, string> {
  return { kind: "Pod", namespace: pod.metadata.namespace ?? "", name: pod.metadata.name ?? "", uid: pod.metadata.uid ?? "" };
}

/** `endpoints.<d>/last-change-trigger-time`: when the change that led to the latest write happened. */
export function lastChangeTriggerTimeAnnotation(domain: string): string {
  return `endpoints.${labelDomain(domain)}/last-change-trigger-time`;
}

/** `endpoints.<d>/over-capacity`: `truncated` on an Endpoints cut to its capacity. */
export function overCapacityAnnotation(domain: string): string {
  return `endpoints.${labelDomain(domain)}/over-capacity`;
}

/** `service.<d>/headless`: set (empty) on the endpoints of a headless Service. */
export function headlessServiceLabel(domain: string): string {
  return `service.${labelDomain(domain)}/headless`;
}

/** True for a Service whose cluster IP is `None`. */
export function isHeadless(service: APIObject): boolean {
  return serviceSpecOf(service).clusterIP === "None";
}

/** When the Pod last changed as endpoints see it: its `Ready` condition's transition (0 without one). */
function podTriggerTime(pod: APIObject): number {
  return timeOf(conditionOf(pod, "Ready")?.["lastTransitionTime"]) ?? 0;
}

/**
 * The reference's `TriggerTimeTracker`: per Service, the times of the Service (its creation) and
 * of its Pods (their Ready transitions) seen at the previous sync. The trigger time of the first
 * sync of a Service is its creation; of a later one, the earliest of the times that moved on
 * since (undefined when none did).
 */
export class TriggerTimeTracker {
  readonly #seen = new Map<string, { service: number; pods: Map<string, number> }>();

  /** The trigger time (RFC 3339) of a sync of `service` (key `key`) over `pods`, recording what it saw. */
  compute(key: string, service: APIObject, pods: readonly APIObject[]): string | undefined {
    const previous = this.#seen.get(key);
    let earliest: number | undefined;
    const seenPods = new Map<string, number>();
    for (const pod of pods) {
      const time = podTriggerTime(pod);
      if (time === 0) continue;
      seenPods.set(pod.metadata.name ?? "", time);
      if (time > (previous?.pods.get(pod.metadata.name ?? "") ?? 0)) earliest = Math.min(earliest ?? time, time);
    }
    const created = service.metadata.creationTimestamp;
    const serviceTime = timeOf(created) ?? 0;
    if (serviceTime > (previous?.service ?? 0)) earliest = Math.min(earliest ?? serviceTime, serviceTime);
    this.#seen.set(key, { service: serviceTime, pods: seenPods });
    if (!previous) return created;
    return earliest === undefined ? undefined : formatTime(earliest);
  }

  /** Forgets a Service that is gone. */
  forget(key: string): void {
    this.#seen.delete(key);
  }
}

/** Splits `namespace/name`. */
export function splitKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return slash < 0 ? ["", key] : [key.slice(0, slash), key.slice(slash + 1)];
}
