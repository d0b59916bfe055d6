/**
 * {@link EndpointSliceController}: the `endpointslice` controller, the reference's
 * `pkg/controller/endpointslice`. Every Service with a selector (and not of type ExternalName)
 * has EndpointSlices of its address families, labelled with the service-name label
 * (`<d>/service-name`) and `endpointslice.<d>/managed-by: endpointslice-controller.<domain>`,
 * owned by the Service (so that the garbage collector deletes them with it) and named from
 * `<service>-`. Each endpoint is a Pod the Service selects that has an IP of the slice's family
 * and is not finished: its address, `conditions` (`serving` from its Ready condition,
 * `terminating` from its deletionTimestamp, `ready` when serving and not terminating, or always
 * when the Service publishes not-ready addresses), `targetRef`, `nodeName`, the node's zone
 * (`topology.<d>/zone`, read when the Pod's endpoint is computed) and hostname.
 * Endpoints with the same ports share slices of at most 100; a Service without endpoints keeps
 * one empty slice. Slices carry `endpoints.<d>/last-change-trigger-time`. Writes that lose a
 * race (409) are retried without a log line.
 * @module
 */
import { endpointSlicesRef, nodesRef, podsRef, servicesRef, type Informer } from "@orch/client";
import { isNotFound, jsonEqual, type APIObject } from "@orch/meta";
import { endpointSliceControllerName, endpointSliceManagedByLabel, serviceNameLabel } from "@orch/resources";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { newControllerRef } from "./internal/controller-ref.js";
import { QueueController, RetryQuietly } from "./internal/queue-controller.js";
import {
  endpointHostname,
  findPort,
  headlessServiceLabel,
  isHeadless,
  lastChangeTriggerTimeAnnotation,
  managedSelector,
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
import { labelDomain } from "./internal/label-domain.js";
import { isPodReady, nodeNameOf } from "./internal/pods.js";
import { refusedAsTerminating } from "./internal/refused-as-terminating.js";

/** The most endpoints the controller puts in one slice (the reference's `--max-endpoints-per-slice` default). */
export const maxEndpointsPerSlice = 100;

/** How long a write the cache has not seen yet holds back the next sync of its Service. */
const pendingTimeoutMs = 5 * 60_000;

/** What one slice should hold. */
interface DesiredSlice {
  addressType: string;
  ports: Record<string, unknown>[];
  endpoints: Record<string, unknown>[];
}

/**
 * The slices `service` should have over the Pods it selects: by address family, then by the
 * ports their endpoints serve, at most {@link maxEndpointsPerSlice} endpoints each, in a stable
 * order; one empty slice when there is no endpoint. `zoneOf` answers the zone of a node (its
 * `topology.<d>/zone` label), for each endpoint's `zone`.
 */
export function desiredSlices(
  service: APIObject,
  pods: readonly APIObject[],
  zoneOf: (nodeName: string) => string | undefined = () => undefined,
): DesiredSlice[] {
  const spec = serviceSpecOf(service);
  const publishNotReady = spec.publishNotReadyAddresses === true;
  const families = serviceFamilies(service);
  const groups = new Map<string, DesiredSlice>();
  for (const family of families) {
    for (const pod of pods) {
      if (!podBelongsInEndpoints(pod, true)) continue;
      const ip = podIPOf(pod, family);
      if (ip === undefined) continue;
      const ports: Record<string, unknown>[] = [];
      for (const servicePort of spec.ports ?? []) {
        const port = findPort(pod, servicePort);
        if (port === undefined) continue;
        ports.push({
          name: servicePort.name ?? "",
          port,
          protocol: servicePort.protocol ?? "TCP",
          ...(servicePort.appProtocol !== undefined ? { appProtocol: servicePort.appProtocol } : {}),
        });
      }
      const serving = isPodReady(pod);
      const terminating = pod.metadata.deletionTimestamp !== undefined;
      const hostname = endpointHostname(pod, service);
      const nodeName = nodeNameOf(pod) || undefined;
      const zone = nodeName === undefined ? undefined : zoneOf(nodeName);
      const endpoint: Record<string, unknown> = {
        addresses: [ip],
        conditions: { ready: publishNotReady || (serving && !terminating), serving, terminating },
        ...(hostname !== undefined ? { hostname } : {}),
        targetRef: podTargetRef(pod),
        ...(nodeName !== undefined ? { nodeName } : {}),
        ...(zone !== undefined ? { zone } : {}),
      };
      const key = `${family}\u0000${JSON.stringify(ports)}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { addressType: family, ports, endpoints: [] }));
      group.endpoints.push(endpoint);
    }
  }
  const slices: DesiredSlice[] = [];
  const ordered = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, group] of ordered) {
    const endpoints = group.endpoints.sort((a, b) => {
      const x = String((a["addresses"] as string[])[0]);
      const y = String((b["addresses"] as string[])[0]);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    for (let i = 0; i < endpoints.length; i += maxEndpointsPerSlice) {
      slices.push({ addressType: group.addressType, ports: group.ports, endpoints: endpoints.slice(i, i + maxEndpointsPerSlice) });
    }
  }
  if (slices.length === 0) slices.push({ addressType: families[0] ?? "IPv4", ports: [], endpoints: [] });
  return slices;
}

/** The `endpointslice` loop; create one per term of leadership (the {@link ControllerManager} does). */
export class EndpointSliceController extends QueueController {
  /** `endpointslice`. */
  readonly name = "endpointslice";
  #services: Informer | undefined;
  #pods: Informer | undefined;
  #slices: Informer | undefined;
  #nodes: Informer | undefined;
  readonly #triggerTimes = new TriggerTimeTracker();
  /** Per Service key, the slices written but not yet in the cache: name to `present` (created) or `absent` (deleted), and since when. */
  readonly #pending = new Map<string, Map<string, { expect: "present" | "absent"; since: number }>>();

  protected watch(ctx: ControllerContext): (() => void)[] {
    const services = this.follow(ctx, servicesRef, { deletes: true });
    this.#services = services.informer;
    this.#pods = ctx.informers.informerFor(podsRef);
    this.#slices = ctx.informers.informerFor(endpointSlicesRef);
    this.#nodes = ctx.informers.informerFor(nodesRef);
    const pods = queueServicesOfPods(
      ctx,
      () => this.#services,
      (key) => this.queue.add(key),
    );
    const domain = ctx.client.domain;
    const enqueueOwner = (slice: APIObject): void => {
      const labels = slice.metadata.labels ?? {};
      const service = labels[serviceNameLabel(domain)];
      if (service && labels[endpointSliceManagedByLabel(domain)] === endpointSliceControllerName(domain)) {
        this.queue.add(`${slice.metadata.namespace ?? ""}/${service}`);
      }
    };
    const slices = ctx.informers.addEventHandler(endpointSlicesRef, {
      onAdd: enqueueOwner,
      onUpdate: (_old, slice) => enqueueOwner(slice),
      onDelete: enqueueOwner,
    });
    return [services.unregister, pods, slices];
  }

  /** True when the cache has seen every write of the Service's slices (or they timed out). */
  #cacheCaughtUp(key: string, namespace: string): boolean {
    const pending = this.#pending.get(key);
    if (!pending) return true;
    const now = this.clock.now();
    for (const [name, wait] of pending) {
      const present = this.#slices?.get(`${namespace}/${name}`) !== undefined;
      if (present === (wait.expect === "present") || now - wait.since > pendingTimeoutMs) pending.delete(name);
    }
    if (pending.size === 0) this.#pending.delete(key);
    return pending.size === 0;
  }

  #expect(key: string, name: string, expect: "present" | "absent"): void {
    let pending = this.#pending.get(key);
    if (!pending) this.#pending.set(key, (pending = new Map()));
    pending.set(name, { expect, since: this.clock.now() });
  }

  protected async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const service = this.#services?.get(key);
    if (!service) {
      // The garbage collector deletes the slices with their owner.
      this.#triggerTimes.forget(key);
      this.#pending.delete(key);
      return;
    }
    const selector = managedSelector(service);
    if (!selector || !this.#pods || service.metadata.deletionTimestamp !== undefined) return;
    if (!this.#cacheCaughtUp(key, namespace)) throw new RetryQuietly(`endpointslices of ${key} are not in the cache yet`);
    const domain = this.client.domain;
    const nameLabel = serviceNameLabel(domain);
    const managedBy = endpointSliceManagedByLabel(domain);
    const controllerName = endpointSliceControllerName(domain);
    const pods = selectedPods(this.#pods, namespace, selector);
    const zoneLabel = `topology.${labelDomain(domain)}/zone`;
    const desired = desiredSlices(service, pods, (node) => this.#nodes?.get(node)?.metadata.labels?.[zoneLabel] || undefined);
    const triggerTime = this.#triggerTimes.compute(key, service, pods);

    const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
    delete labels[nameLabel];
    delete labels[managedBy];
    if (isHeadless(service)) labels[headlessServiceLabel(domain)] = "";
    else delete labels[headlessServiceLabel(domain)];
    labels[nameLabel] = name;
    labels[managedBy] = controllerName;
    const ownerRef = newControllerRef(service, "v1", "Service");
    const existing = (this.#slices?.list() ?? []).filter(
      (s) => s.metadata.namespace === namespace && s.metadata.labels?.[nameLabel] === name && s.metadata.labels[managedBy] === controllerName,
    );
    existing.sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1));
    const unused = [...existing];
    const client = this.client.resource(endpointSlicesRef);
    const annotation = lastChangeTriggerTimeAnnotation(domain);
    const withTriggerTime = (annotations: Record<string, string> | undefined): Record<string, string> | undefined => {
      const out = { ...(annotations ?? {}) };
      if (triggerTime !== undefined) out[annotation] = triggerTime;
      return Object.keys(out).length > 0 ? out : undefined;
    };
    const writes: Promise<unknown>[] = [];
    for (const slice of desired) {
      const index = unused.findIndex((s) => s["addressType"] === slice.addressType && jsonEqual(s["ports"] ?? [], slice.ports));
      const match = index >= 0 ? unused.splice(index, 1)[0] : undefined;
      if (match) {
        const owned = (match.metadata.ownerReferences ?? []).some((r) => r.uid === ownerRef.uid && r.controller === true);
        if (owned && jsonEqual(match["endpoints"] ?? [], slice.endpoints) && jsonEqual(match.metadata.labels ?? {}, labels)) continue;
        const metadata = { ...structuredClone(match.metadata), labels, ownerReferences: [ownerRef] };
        const annotations = withTriggerTime(metadata.annotations);
        if (annotations) metadata.annotations = annotations;
        writes.push(
          client.update({ ...structuredClone(match), metadata, endpoints: slice.endpoints, ports: slice.ports }, { fieldManager: "endpointslice-controller" }),
        );
        continue;
      }
      const annotations = withTriggerTime(undefined);
      const object: APIObject = {
        metadata: { generateName: `${name}-`, namespace, labels, ...(annotations ? { annotations } : {}), ownerReferences: [ownerRef] },
        addressType: slice.addressType,
        endpoints: slice.endpoints,
        ports: slice.ports,
      };
      writes.push(
        client.create(object, { fieldManager: "endpointslice-controller" }).then((created) => this.#expect(key, created.metadata.name ?? "", "present")),
      );
    }
    for (const stale of unused) {
      const staleName = stale.metadata.name ?? "";
      writes.push(
        client.delete(staleName, { namespace }).then(
          () => this.#expect(key, staleName, "absent"),
          (error: unknown) => {
            if (!isNotFound(error)) throw error;
          },
        ),
      );
    }
    const results = await Promise.allSettled(writes);
    const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failure) {
      // The namespace is going away, and the Service with it.
      if (refusedAsTerminating(failure.reason)) return;
      throw failure.reason;
    }
  }
}

/** The {@link ControllerDescriptor} of the EndpointSlice loop: `endpointslice`, on by default. */
export const endpointSliceController: ControllerDescriptor = {
  name: "endpointslice",
  enabledByDefault: true,
  create: () => new EndpointSliceController(),
};
