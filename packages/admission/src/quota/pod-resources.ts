/**
 * A pod's aggregate requests and limits, as the reference's `PodRequests`/`PodLimits` compute
 * them: the sum of the regular containers, restartable (sidecar) init containers added to it,
 * the largest of each plain init container (plus the sidecars started before it) taken when
 * bigger, and optionally the pod's `overhead` and the resources the node reports in
 * `status.containerStatuses` (in-place resize).
 * @module
 */
import type { APIObject } from "@orch/meta";
import { type JSONRecord, list, record, str } from "../internal/json.js";
import { podSpecOf } from "../internal/pod-spec.js";
import { addInto, maxInto, resourceListOf, type ResourceList } from "./resource-list.js";

/** What the aggregate takes in beyond the containers' own resources. */
export interface PodResourceOptions {
  /** Add `spec.overhead` (to every request; to the limits the pod sets). */
  overhead?: boolean;
  /** Take the larger of the spec and the resources in `status.containerStatuses` (quota does). */
  statusResources?: boolean;
}

type Side = "requests" | "limits";

/** The container's own `resources.requests` or `resources.limits`. */
export function containerResources(container: JSONRecord, side: Side): ResourceList {
  return resourceListOf(record(container["resources"])?.[side]);
}

function statusesByName(pod: APIObject, field: string): Map<string, JSONRecord> {
  const out = new Map<string, JSONRecord>();
  for (const s of list(record(pod["status"])?.[field])) {
    const status = record(s);
    if (status) out.set(str(status["name"]), status);
  }
  return out;
}

// The reference's determineContainerReqs/Limits: a resize the node found infeasible keeps what
// it runs with; otherwise the larger of the desired and the actual resources counts.
function effective(container: JSONRecord, side: Side, status: JSONRecord | undefined, infeasible: boolean): ResourceList {
  const spec = containerResources(container, side);
  if (!status) return spec;
  const actual = resourceListOf(record(status["resources"])?.[side]);
  const out: ResourceList = infeasible ? new Map() : new Map(spec);
  maxInto(out, actual);
  if (side === "requests") maxInto(out, resourceListOf(status["allocatedResources"]));
  return out;
}

function aggregate(pod: APIObject, side: Side, options: PodResourceOptions): ResourceList {
  const spec = podSpecOf(pod) ?? {};
  const useStatus = options.statusResources === true;
  const infeasible = str(record(pod["status"])?.["resize"]) === "Infeasible";
  const containerStatuses = useStatus ? statusesByName(pod, "containerStatuses") : new Map<string, JSONRecord>();
  const initStatuses = useStatus ? statusesByName(pod, "initContainerStatuses") : new Map<string, JSONRecord>();
  const total: ResourceList = new Map();
  for (const c of list(spec["containers"])) {
    const container = record(c);
    if (container) addInto(total, effective(container, side, containerStatuses.get(str(container["name"])), infeasible));
  }
  const sidecars: ResourceList = new Map();
  const initMax: ResourceList = new Map();
  for (const c of list(spec["initContainers"])) {
    const container = record(c);
    if (!container) continue;
    const own = effective(container, side, initStatuses.get(str(container["name"])), infeasible);
    let peak: ResourceList;
    if (container["restartPolicy"] === "Always") {
      addInto(total, own);
      addInto(sidecars, own);
      peak = sidecars;
    } else {
      peak = new Map(own);
      addInto(peak, sidecars);
    }
    maxInto(initMax, peak);
  }
  maxInto(total, initMax);
  if (options.overhead) {
    for (const [name, q] of resourceListOf(spec["overhead"])) {
      const have = total.get(name);
      if (side === "requests") total.set(name, have ? have.add(q) : q);
      else if (have) total.set(name, have.add(q));
    }
  }
  return total;
}

/** The pod's effective requests. */
export function podRequests(pod: APIObject, options: PodResourceOptions = {}): ResourceList {
  return aggregate(pod, "requests", options);
}

/** The pod's effective limits (a resource no container limits is absent). */
export function podLimits(pod: APIObject, options: PodResourceOptions = {}): ResourceList {
  return aggregate(pod, "limits", options);
}
