/**
 * {@link DaemonSetController}: the `daemonset` controller, the reference's `pkg/controller/daemon`.
 * A DaemonSet runs one Pod (`<set>-<random>`) on every Node its template fits: the template's
 * `nodeSelector` and required node affinity, and the Node's `NoSchedule`/`NoExecute` taints
 * against the template's tolerations plus those every daemon Pod gets (`node.<domain>/not-ready`
 * and `unreachable` NoExecute, `disk-pressure`, `memory-pressure`, `pid-pressure` and
 * `unschedulable` NoSchedule, `network-unavailable` with host networking). Each Pod is bound to
 * its Node the way the reference does it, by a required node affinity term matching the field
 * `metadata.name` (replacing the template's required terms), and labelled with
 * `controller-revision-hash` and `pod-template-generation`.
 *
 * Pods on Nodes the set no longer fits, on Nodes that are gone, and all but the oldest of several
 * on one Node are deleted; a failed Pod is deleted and made again. With the `RollingUpdate`
 * strategy, Pods of an older template are replaced: the unavailable ones at once, the available
 * ones while fewer than `maxUnavailable` (an int or a percentage of the desired number, rounded
 * up; 1 by default) are unavailable. `OnDelete` replaces only deleted Pods. Templates are kept as
 * ControllerRevisions (beyond `revisionHistoryLimit` the oldest unused go). Orphaned Pods are not
 * adopted, and `maxSurge` is not honoured (updates delete before they create).
 * @module
 */
import { daemonSetsRef, nodesRef, podsRef, type Informer } from "@orch/client";
import { jsonEqual, type APIObject } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { nodeMatches, taintsTolerated } from "./internal/node-fit.js";
import { controlledBy, newControllerRef, queueOwners } from "./internal/controller-ref.js";
import { labelDomain } from "./internal/label-domain.js";
import { arr, int, rec, specOf, statusOf } from "./internal/object-fields.js";
import { deletePod, podFromTemplate } from "./internal/pod-control.js";
import { isPodActive, isPodAvailable, isPodReady, isPodTerminal } from "./internal/pods.js";
import { QueueController } from "./internal/queue-controller.js";
import { controllerRevisionHashLabel, ensureRevision, listRevisions, truncateHistory } from "./internal/revisions.js";

/** The label of a DaemonSet Pod that carries the generation of the template it was made from. */
export const podTemplateGenerationLabel = "pod-template-generation";

/** The node a daemon Pod is for: its `nodeName`, else the value of its `metadata.name` node affinity field. */
export function targetNodeName(pod: APIObject): string | undefined {
  const spec = specOf(pod);
  if (typeof spec["nodeName"] === "string" && spec["nodeName"] !== "") return spec["nodeName"];
  const terms = arr(rec(rec(rec(spec["affinity"])?.["nodeAffinity"])?.["requiredDuringSchedulingIgnoredDuringExecution"])?.["nodeSelectorTerms"]);
  for (const term of terms) {
    for (const field of arr(rec(term)?.["matchFields"])) {
      const f = rec(field);
      const values = arr(f?.["values"]);
      if (f?.["key"] === "metadata.name" && f["operator"] === "In" && values.length === 1 && typeof values[0] === "string") return values[0];
    }
  }
  return undefined;
}

/** The tolerations every daemon Pod gets, for `domain`. */
function daemonTolerations(domain: string, hostNetwork: boolean): Record<string, string>[] {
  const d = labelDomain(domain);
  const tolerations = [
    { key: `node.${d}/not-ready`, operator: "Exists", effect: "NoExecute" },
    { key: `node.${d}/unreachable`, operator: "Exists", effect: "NoExecute" },
    { key: `node.${d}/disk-pressure`, operator: "Exists", effect: "NoSchedule" },
    { key: `node.${d}/memory-pressure`, operator: "Exists", effect: "NoSchedule" },
    { key: `node.${d}/pid-pressure`, operator: "Exists", effect: "NoSchedule" },
    { key: `node.${d}/unschedulable`, operator: "Exists", effect: "NoSchedule" },
  ];
  if (hostNetwork) tolerations.push({ key: `node.${d}/network-unavailable`, operator: "Exists", effect: "NoSchedule" });
  return tolerations;
}

/** Adds `extra` to the pod spec's tolerations, each unless an equal one is there. */
function addTolerations(podSpec: Record<string, unknown>, extra: Record<string, string>[]): void {
  const tolerations = arr(podSpec["tolerations"]);
  for (const t of extra) if (!tolerations.some((have) => jsonEqual(have, t))) tolerations.push(t);
  podSpec["tolerations"] = tolerations;
}

/** `maxUnavailable` of `value` (an int or `N%` of `desired`, rounded up), at least 1 when `desired` is not 0. */
export function resolveMaxUnavailable(value: unknown, desired: number): number {
  let n = 1;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && /^\d+%$/.test(value)) n = Math.ceil((Number(value.slice(0, -1)) * desired) / 100);
  return desired > 0 ? Math.max(n, 1) : n;
}

/** The DaemonSet loop; create one per term of leadership (the {@link ControllerManager} does). */
export class DaemonSetController extends QueueController {
  /** `daemonset`. */
  readonly name = "daemonset";
  #sets: Informer | undefined;
  #nodes: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const sets = this.follow(ctx, daemonSetsRef);
    this.#sets = sets.informer;
    this.#nodes = ctx.informers.informerFor(nodesRef);
    const pods = queueOwners(ctx.informers, podsRef, { group: "apps", kind: "DaemonSet" }, (key) => this.queue.add(key));
    const everySet = (): void => {
      for (const s of this.#sets?.list() ?? []) this.queue.add(`${s.metadata.namespace ?? ""}/${s.metadata.name ?? ""}`);
    };
    const nodes = ctx.informers.addEventHandler(nodesRef, {
      onAdd: everySet,
      onUpdate: (old, node) => {
        if (!jsonEqual(old.metadata.labels, node.metadata.labels) || !jsonEqual(old["spec"], node["spec"])) everySet();
      },
      onDelete: everySet,
    });
    return [sets.unregister, pods, nodes];
  }

  protected async sync(key: string): Promise<void> {
    const cached = this.#sets?.get(key);
    if (!cached || cached.metadata.deletionTimestamp) return;
    const set = structuredClone(cached);
    const namespace = set.metadata.namespace ?? "";
    const name = set.metadata.name ?? "";
    const spec = specOf(set);
    const old = statusOf(cached);
    const ref = newControllerRef(set, "apps/v1", "DaemonSet");
    const listed = await listRevisions(this.client, set);
    const { revision, revisions } = await ensureRevision(this.client, set, ref, listed);
    const hash = (revision.metadata.name ?? "").slice(name.length + 1);
    const template = rec(spec["template"]) ?? {};
    const fitSpec = structuredClone(rec(template["spec"]) ?? {});
    addTolerations(fitSpec, daemonTolerations(this.client.domain, fitSpec["hostNetwork"] === true));

    const nodes = this.#nodes?.list() ?? [];
    const wanted = new Set(nodes.filter((n) => nodeMatches(fitSpec, n) && taintsTolerated(fitSpec, n)).map((n) => n.metadata.name ?? ""));
    const pods = (await this.client.resource(podsRef).list({ namespace })).items.filter((p) => controlledBy(p, set.metadata.uid));
    const byNode = new Map<string, APIObject[]>();
    const toDelete: APIObject[] = [];
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      const node = targetNodeName(pod);
      if (node === undefined) {
        toDelete.push(pod);
        continue;
      }
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    const now = this.clock.now();
    const minReady = int(spec["minReadySeconds"], 0);
    const createOn: string[] = [];
    const counts = { current: 0, misscheduled: 0, ready: 0, available: 0, updated: 0 };
    const oldPods: APIObject[] = [];
    for (const node of wanted) {
      const onNode = (byNode.get(node) ?? []).sort((a, b) => (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? ""));
      const failed = onNode.filter(isPodTerminal);
      const alive = onNode.filter(isPodActive);
      toDelete.push(...failed, ...alive.slice(1));
      const pod = alive[0];
      if (!pod) {
        createOn.push(node);
        continue;
      }
      counts.current++;
      if (isPodReady(pod)) counts.ready++;
      if (isPodAvailable(pod, minReady, now)) counts.available++;
      else if (isPodReady(pod)) this.queue.addAfter(key, minReady * 1000);
      if (pod.metadata.labels?.[controllerRevisionHashLabel] === hash) counts.updated++;
      else oldPods.push(pod);
    }
    for (const [node, onNode] of byNode) {
      if (wanted.has(node)) continue;
      counts.misscheduled += onNode.filter(isPodActive).length;
      toDelete.push(...onNode);
    }
    const desired = wanted.size;
    const strategy = rec(spec["updateStrategy"]) ?? {};
    if ((strategy["type"] ?? "RollingUpdate") === "RollingUpdate") {
      const maxUnavailable = resolveMaxUnavailable(rec(strategy["rollingUpdate"])?.["maxUnavailable"], desired);
      let unavailable = desired - counts.available;
      for (const pod of oldPods) {
        if (!isPodAvailable(pod, minReady, now)) toDelete.push(pod);
        else if (unavailable < maxUnavailable) {
          toDelete.push(pod);
          unavailable++;
        }
      }
    }
    for (const pod of toDelete) await deletePod(this.client, pod);
    for (const node of createOn) await this.#createPod(set, node, hash);

    const status: Record<string, unknown> = {
      ...old,
      desiredNumberScheduled: desired,
      currentNumberScheduled: counts.current,
      numberMisscheduled: counts.misscheduled,
      numberReady: counts.ready,
      numberAvailable: counts.available,
      numberUnavailable: Math.max(0, desired - counts.available),
      updatedNumberScheduled: counts.updated,
      observedGeneration: set.metadata.generation ?? 0,
    };
    const live = new Set<string>([revision.metadata.name ?? ""]);
    for (const pod of pods) live.add(`${name}-${pod.metadata.labels?.[controllerRevisionHashLabel] ?? ""}`);
    await truncateHistory(this.client, revisions, live, int(spec["revisionHistoryLimit"], 10));
    if (!jsonEqual(status, old)) await this.client.resource(daemonSetsRef).updateStatus({ ...set, status }, { namespace });
  }

  async #createPod(set: APIObject, node: string, hash: string): Promise<void> {
    const spec = specOf(set);
    const pod = podFromTemplate(spec["template"], set, newControllerRef(set, "apps/v1", "DaemonSet"), {
      labels: { [controllerRevisionHashLabel]: hash, [podTemplateGenerationLabel]: String(set.metadata.generation ?? 0) },
    });
    const podSpec = specOf(pod);
    addTolerations(podSpec, daemonTolerations(this.client.domain, podSpec["hostNetwork"] === true));
    const affinity = rec(podSpec["affinity"]) ?? {};
    const nodeAffinity = rec(affinity["nodeAffinity"]) ?? {};
    nodeAffinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
      nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }],
    };
    podSpec["affinity"] = { ...affinity, nodeAffinity };
    await this.client.resource(podsRef).create(pod, { namespace: set.metadata.namespace ?? "" });
  }
}

/** The {@link ControllerDescriptor} of the DaemonSet loop: `daemonset`, on by default. */
export const daemonSetController: ControllerDescriptor = {
  name: "daemonset",
  enabledByDefault: true,
  create: () => new DaemonSetController(),
};
