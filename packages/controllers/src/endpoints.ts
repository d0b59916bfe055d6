/**
 * {@link EndpointsController}: the `endpoint` controller, the reference's
 * `pkg/controller/endpoint`. Every Service with a selector (and not of type ExternalName) has an
 * Endpoints object of its name: the Pods it selects that have an IP and are not finished (nor
 * being deleted, unless the Service publishes not-ready addresses), ready ones under
 * `addresses` and the others under `notReadyAddresses`, with the ports each Service port reaches
 * on them (a named `targetPort` resolved against the Pod's container ports; a Pod without it is
 * left out of that port), grouped into subsets of addresses sharing their ports. Each address
 * names its Pod (`targetRef`) and node; a Pod whose `hostname` and `subdomain` name the Service
 * gets its hostname. The Endpoints carry the Service's labels (with `service.<d>/headless` for
 * a headless Service) and `endpoints.<d>/last-change-trigger-time`, the time of the earliest
 * change that led to the write; past 1000 addresses they are truncated and marked
 * `endpoints.<d>/over-capacity: truncated`. The Endpoints of a deleted Service are deleted. Writes that lose
 * a race (409, or a create that finds one) are retried without a log line.
 * @module
 */
import { endpointsRef, podsRef, servicesRef, type Informer } from "@orch/client";
import { isAlreadyExists, isNotFound, jsonEqual, type APIObject } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { QueueController, RetryQuietly } from "./internal/queue-controller.js";
import {
  endpointHostname,
  findPort,
  headlessServiceLabel,
  isHeadless,
  lastChangeTriggerTimeAnnotation,
  managedSelector,
  overCapacityAnnotation,
  podBelongsInEndpoints,
  podIPOf,
  podTargetRef,
  selectedPods,
  serviceFamilies,
  serviceSpecOf,
  queueServicesOfPods,
  splitKey,
  TriggerTimeTracker,
} from "./internal/service-endpoints.js";
import { isPodReady, nodeNameOf } from "./internal/pods.js";
import { refusedAsTerminating } from "./internal/refused-as-terminating.js";

/** An `EndpointPort`. */
interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

/** One address with whether it is ready and the ports it serves. */
interface AddressEntry {
  address: Record<string, unknown>;
  ready: boolean;
  ports: EndpointPort[];
}

const addressOrder = (a: Record<string, unknown>, b: Record<string, unknown>): number => {
  const ipA = String(a["ip"]);
  const ipB = String(b["ip"]);
  if (ipA !== ipB) return ipA < ipB ? -1 : 1;
  const uidA = String((a["targetRef"] as { uid?: string } | undefined)?.uid ?? "");
  const uidB = String((b["targetRef"] as { uid?: string } | undefined)?.uid ?? "");
  return uidA < uidB ? -1 : uidA > uidB ? 1 : 0;
};

const portKey = (p: EndpointPort): string => `${p.name ?? ""}\u0000${p.port}\u0000${p.protocol}`;

/**
 * The subsets of `entries` (the reference's `RepackSubsets`): addresses serving the same ports
 * share a subset; addresses, ports and subsets in a stable order.
 */
export function packSubsets(entries: readonly AddressEntry[]): Record<string, unknown>[] {
  const byAddress = new Map<string, AddressEntry>();
  for (const entry of entries) {
    const id = `${String(entry.address["ip"])}\u0000${String((entry.address["targetRef"] as { uid?: string } | undefined)?.uid ?? "")}`;
    const known = byAddress.get(id);
    if (!known) byAddress.set(id, { address: entry.address, ready: entry.ready, ports: [...entry.ports] });
    else for (const port of entry.ports) if (!known.ports.some((p) => portKey(p) === portKey(port))) known.ports.push(port);
  }
  const groups = new Map<string, { ports: EndpointPort[]; ready: Record<string, unknown>[]; notReady: Record<string, unknown>[] }>();
  for (const entry of byAddress.values()) {
    const ports = [...entry.ports].sort((a, b) => (portKey(a) < portKey(b) ? -1 : portKey(a) > portKey(b) ? 1 : 0));
    const key = ports.map(portKey).join("\u0001");
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ports, ready: [], notReady: [] }));
    (entry.ready ? group.ready : group.notReady).push(entry.address);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, group]) => ({
      ...(group.ready.length > 0 ? { addresses: group.ready.sort(addressOrder) } : {}),
      ...(group.notReady.length > 0 ? { notReadyAddresses: group.notReady.sort(addressOrder) } : {}),
      ...(group.ports.length > 0 ? { ports: group.ports } : {}),
    }));
}

/** The most addresses an Endpoints holds; beyond, the controller truncates it (the reference's `maxCapacity`). */
export const maxEndpointsCapacity = 1000;

/**
 * `subsets` cut to {@link maxEndpointsCapacity} addresses as the reference cuts them: not-ready
 * addresses go first (each subset keeping its share, rounded up); when the ready ones alone are
 * too many, every not-ready one goes and the ready ones are cut by share. Undefined when nothing
 * needs cutting.
 */
export function truncateSubsets(subsets: readonly Record<string, unknown>[]): Record<string, unknown>[] | undefined {
  const count = (subset: Record<string, unknown>, key: string): number => ((subset[key] as unknown[] | undefined) ?? []).length;
  const ready = subsets.reduce((n, s) => n + count(s, "addresses"), 0);
  const notReady = subsets.reduce((n, s) => n + count(s, "notReadyAddresses"), 0);
  if (ready + notReady <= maxEndpointsCapacity) return undefined;
  const cutReady = ready > maxEndpointsCapacity;
  const max = cutReady ? maxEndpointsCapacity : maxEndpointsCapacity - ready;
  const total = cutReady ? ready : notReady;
  let room = max;
  return subsets.map((subset) => {
    const key = cutReady ? "addresses" : "notReadyAddresses";
    const kept = Math.min(Math.ceil((count(subset, key) / total) * max), room);
    const addresses = ((subset[key] as unknown[] | undefined) ?? []).slice(0, kept);
    room -= addresses.length;
    const out: Record<string, unknown> = { ...subset };
    if (cutReady) delete out["notReadyAddresses"];
    if (addresses.length > 0) out[key] = addresses;
    else delete out[key];
    return out;
  });
}

/** The address entries of `service`'s endpoints over the Pods it selects. */
function addressEntries(service: APIObject, pods: readonly APIObject[]): AddressEntry[] {
  const spec = serviceSpecOf(service);
  const tolerateUnready = spec.publishNotReadyAddresses === true;
  const family = serviceFamilies(service)[0] ?? "IPv4";
  const servicePorts = spec.ports ?? [];
  const entries: AddressEntry[] = [];
  for (const pod of pods) {
    if (!podBelongsInEndpoints(pod, tolerateUnready)) continue;
    const ip = podIPOf(pod, family);
    if (ip === undefined) continue;
    const hostname = endpointHostname(pod, service);
    const nodeName = nodeNameOf(pod) || undefined;
    const address: Record<string, unknown> = {
      ip,
      ...(hostname !== undefined ? { hostname } : {}),
      ...(nodeName !== undefined ? { nodeName } : {}),
      targetRef: podTargetRef(pod),
    };
    const ready = tolerateUnready || isPodReady(pod);
    // A headless Service without ports lists its Pods' addresses alone.
    if (servicePorts.length === 0) {
      if (isHeadless(service)) entries.push({ address, ready, ports: [] });
      continue;
    }
    const ports: EndpointPort[] = [];
    for (const servicePort of servicePorts) {
      const port = findPort(pod, servicePort);
      if (port === undefined) continue;
      ports.push({
        ...(servicePort.name ? { name: servicePort.name } : {}),
        port,
        protocol: servicePort.protocol ?? "TCP",
        ...(servicePort.appProtocol !== undefined ? { appProtocol: servicePort.appProtocol } : {}),
      });
    }
    if (ports.length > 0) entries.push({ address, ready, ports });
  }
  return entries;
}

/** The `endpoint` loop; create one per term of leadership (the {@link ControllerManager} does). */
export class EndpointsController extends QueueController {
  /** `endpoint`. */
  readonly name = "endpoint";
  #services: Informer | undefined;
  #pods: Informer | undefined;
  #endpoints: Informer | undefined;
  readonly #triggerTimes = new TriggerTimeTracker();

  protected watch(ctx: ControllerContext): (() => void)[] {
    const services = this.follow(ctx, servicesRef, { deletes: true });
    this.#services = services.informer;
    this.#pods = ctx.informers.informerFor(podsRef);
    this.#endpoints = ctx.informers.informerFor(endpointsRef);
    const pods = queueServicesOfPods(
      ctx,
      () => this.#services,
      (key) => this.queue.add(key),
    );
    const endpoints = ctx.informers.addEventHandler(endpointsRef, {
      onDelete: (object) => this.queue.add(`${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`),
    });
    return [services.unregister, pods, endpoints];
  }

  protected async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const client = this.client.resource(endpointsRef);
    const service = this.#services?.get(key);
    if (!service) {
      this.#triggerTimes.forget(key);
      try {
        await client.delete(name, { namespace });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      return;
    }
    const selector = managedSelector(service);
    if (!selector || !this.#pods) return;
    const pods = selectedPods(this.#pods, namespace, selector);
    const packed = packSubsets(addressEntries(service, pods));
    const truncated = truncateSubsets(packed);
    const subsets = truncated ?? packed;
    const triggerTime = this.#triggerTimes.compute(key, service, pods);
    const domain = this.client.domain;
    const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
    if (isHeadless(service)) labels[headlessServiceLabel(domain)] = "";
    else delete labels[headlessServiceLabel(domain)];

    const current = this.#endpoints?.get(key);
    const overCapacity = overCapacityAnnotation(domain);
    const capacityNoted = (current?.metadata.annotations?.[overCapacity] === "truncated") === (truncated !== undefined);
    if (current && capacityNoted && jsonEqual(current["subsets"] ?? [], subsets) && jsonEqual(current.metadata.labels ?? {}, labels)) return;
    const annotations: Record<string, string> = { ...(current?.metadata.annotations ?? {}) };
    const annotation = lastChangeTriggerTimeAnnotation(domain);
    if (triggerTime !== undefined) annotations[annotation] = triggerTime;
    else delete annotations[annotation];
    if (truncated) annotations[overCapacity] = "truncated";
    else delete annotations[overCapacity];
    const metadata = {
      ...(current ? structuredClone(current.metadata) : { name, namespace }),
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    };
    if (Object.keys(annotations).length === 0) delete metadata.annotations;
    const object: APIObject = { metadata, ...(subsets.length > 0 ? { subsets } : {}) };
    try {
      if (current) await client.update(object, { fieldManager: "endpoint-controller" });
      else await client.create(object, { fieldManager: "endpoint-controller" });
    } catch (error) {
      // The cache has not seen an Endpoints written meanwhile: retry once it has.
      if (isAlreadyExists(error)) throw new RetryQuietly(`endpoints ${key} exists`);
      // The namespace is going away, and the Service with it.
      if (refusedAsTerminating(error) || isNotFound(error)) return;
      throw error;
    }
  }
}

/** The {@link ControllerDescriptor} of the Endpoints loop: `endpoint`, on by default. */
export const endpointsController: ControllerDescriptor = {
  name: "endpoint",
  enabledByDefault: true,
  create: () => new EndpointsController(),
};
