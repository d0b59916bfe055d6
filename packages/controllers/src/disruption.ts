/**
 * {@link DisruptionController}: the `disruption` controller, the reference's
 * `pkg/controller/disruption`. It keeps the status of every PodDisruptionBudget, which the
 * eviction sub-resource reads and counts down:
 *
 * - the Pods of a budget are those of its namespace its selector matches (a missing selector
 *   matches none, an empty one all);
 * - `expectedPods` is their number with an int `minAvailable`; with `maxUnavailable` or a
 *   percentage `minAvailable` it is the sum of the scales of their controllers (each counted
 *   once: a ReplicationController's, a ReplicaSet's or, when a Deployment owns it, the
 *   Deployment's `spec.replicas`, a StatefulSet's, else the controller's `scale` sub-resource);
 * - `desiredHealthy` is `minAvailable` (a percentage of `expectedPods`, rounded up), or
 *   `expectedPods` less `maxUnavailable` (a percentage rounded up), never below 0;
 * - `currentHealthy` counts the ready Pods that are neither being deleted nor listed in
 *   `disruptedPods`; `disruptionsAllowed` is `currentHealthy - desiredHealthy`, never below 0;
 * - an entry of `disruptedPods` (written by an eviction) is dropped once its Pod is gone or being
 *   deleted, or two minutes after the eviction (the budget is looked at again then);
 * - the `DisruptionAllowed` condition is True/`SufficientPods` or False/`InsufficientPods`, and
 *   False/`SyncFailed` with no disruption allowed when the expected Pods cannot be found (a Pod
 *   without a controller, a controller without a scale).
 *
 * `observedGeneration` follows the budget's generation, so evictions wait for the controller.
 * @module
 */
import {
  deploymentsRef,
  podDisruptionBudgetsRef,
  podsRef,
  replicaSetsRef,
  replicationControllersRef,
  statefulSetsRef,
  namespaceIndex,
  type Informer,
  type ResourceRef,
} from "@orch/client";
import { formatTime, isNotFound, jsonEqual, type APIObject, type OwnerReference } from "@orch/meta";
import { setDisruptionAllowedCondition } from "@orch/resources";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { messageOf } from "./internal/message-of.js";
import { controllerRefOf, groupOf } from "./internal/controller-ref.js";
import { int, rec, specOf, statusOf } from "./internal/object-fields.js";
import { isPodReady } from "./internal/pods.js";
import { QueueController } from "./internal/queue-controller.js";
import { selectorOf } from "./internal/selector.js";
import { timeOf } from "./internal/time-of.js";

/** How long an eviction's `disruptedPods` entry waits for its Pod to be deleted (ms; the reference's `DeletionTimeout`). */
export const disruptionDeletionTimeoutMs = 2 * 60_000;

/** The Pods of `namespace` `selector` picks: none for a missing or invalid selector, all for an empty one. */
function selectPods(pods: APIObject[], selector: unknown): APIObject[] {
  const parsed = selectorOf(selector);
  return parsed ? pods.filter((p) => parsed.matches(p.metadata.labels ?? {})) : [];
}

/** `value` (an int or `N%`) against `total`, a percentage rounded up; undefined when malformed. */
export function resolveIntOrPercent(value: unknown, total: number): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const m = /^(\d+)%$/.exec(value);
    if (m) return Math.ceil((Number(m[1]) * total) / 100);
    if (/^\d+$/.test(value)) return Number(value);
  }
  return undefined;
}

/** The core or group-qualified kinds whose scale is read from `spec.replicas`, by `<group>/<Kind>`. */
const scaledKinds: Record<string, ResourceRef> = {
  "/ReplicationController": replicationControllersRef,
  "apps/ReplicaSet": replicaSetsRef,
  "apps/Deployment": deploymentsRef,
  "apps/StatefulSet": statefulSetsRef,
};

/** The PodDisruptionBudget status loop; create one per term of leadership (the {@link ControllerManager} does). */
export class DisruptionController extends QueueController {
  /** `disruption`. */
  readonly name = "disruption";
  #budgets: Informer | undefined;
  #pods: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const budgets = this.follow(ctx, podDisruptionBudgetsRef);
    this.#budgets = budgets.informer;
    this.#pods = ctx.informers.informerFor(podsRef);
    const budgetsOf = (pod: APIObject): void => {
      for (const pdb of this.#budgets?.byIndex(namespaceIndex, pod.metadata.namespace ?? "") ?? []) {
        if (selectPods([pod], specOf(pdb)["selector"]).length > 0) this.queue.add(`${pdb.metadata.namespace ?? ""}/${pdb.metadata.name ?? ""}`);
      }
    };
    const pods = ctx.informers.addEventHandler(podsRef, {
      onAdd: budgetsOf,
      onUpdate: (old, pod) => {
        budgetsOf(old);
        budgetsOf(pod);
      },
      onDelete: budgetsOf,
    });
    // A controller's scale changes what its budgets expect: look at every budget of its namespace.
    const inNamespace = (object: APIObject): void => {
      for (const pdb of this.#budgets?.byIndex(namespaceIndex, object.metadata.namespace ?? "") ?? []) {
        this.queue.add(`${pdb.metadata.namespace ?? ""}/${pdb.metadata.name ?? ""}`);
      }
    };
    const scaled = Object.values(scaledKinds).map((ref) =>
      ctx.informers.addEventHandler(ref, {
        onUpdate: (old, object) => {
          if (specOf(old)["replicas"] !== specOf(object)["replicas"]) inNamespace(object);
        },
        onDelete: inNamespace,
      }),
    );
    return [budgets.unregister, pods, ...scaled];
  }

  /** The scale of the controller `ref` of a Pod in `namespace`, and the uid it is counted by. */
  async #scaleOf(ref: OwnerReference, namespace: string): Promise<{ uid: string; scale: number }> {
    const known = scaledKinds[`${groupOf(ref)}/${ref.kind}`];
    if (known) {
      const owner = await this.client.resource(known).get(ref.name, { namespace });
      if (owner.metadata.uid !== ref.uid) throw new Error(`${ref.kind} ${namespace}/${ref.name} is not the controller of its Pods any more`);
      const deployment = known === replicaSetsRef ? controllerRefOf(owner) : undefined;
      if (deployment && deployment.kind === "Deployment" && groupOf(deployment) === "apps") return this.#scaleOf(deployment, namespace);
      return { uid: ref.uid, scale: int(specOf(owner)["replicas"], 1) };
    }
    const group = groupOf(ref);
    const version = ref.apiVersion.slice(ref.apiVersion.indexOf("/") + 1);
    const plural = `${ref.kind.toLowerCase()}s`;
    const path = `${group ? `/apis/${group}` : "/api"}/${version}/namespaces/${namespace}/${plural}/${ref.name}/scale`;
    try {
      const scale = await this.client.call<APIObject>({ method: "GET", path });
      return { uid: ref.uid, scale: int(specOf(scale)["replicas"]) };
    } catch (error) {
      if (isNotFound(error)) throw new Error(`${ref.kind} ${namespace}/${ref.name} does not implement the scale subresource`, { cause: error });
      throw error;
    }
  }

  /** The sum of the scales of the controllers of `pods`. @throws Error for a Pod without a controller. */
  async #expectedScale(pods: APIObject[], namespace: string): Promise<number> {
    // A Deployment's ReplicaSets count once, as the Deployment.
    const countedAs = new Map<string, string>();
    const scales = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerRefOf(pod);
      if (!ref) throw new Error(`found no controller ref for pod "${pod.metadata.name ?? ""}"`);
      if (countedAs.has(ref.uid)) continue;
      const { uid, scale } = await this.#scaleOf(ref, namespace);
      countedAs.set(ref.uid, uid);
      scales.set(uid, scale);
    }
    return [...scales.values()].reduce((n, s) => n + s, 0);
  }

  protected async sync(key: string): Promise<void> {
    const cached = this.#budgets?.get(key);
    if (!cached) return;
    const pdb = structuredClone(cached);
    const namespace = pdb.metadata.namespace ?? "";
    const spec = specOf(pdb);
    const old = statusOf(cached);
    const now = this.clock.now();
    const pods = selectPods(this.#pods?.byIndex(namespaceIndex, namespace) ?? [], spec["selector"]);
    const status: Record<string, unknown> = { ...old, observedGeneration: pdb.metadata.generation ?? 0 };

    // Evictions the controller has not seen the deletion of yet, until they expire.
    const podsByName = new Map(pods.map((p) => [p.metadata.name ?? "", p]));
    const disrupted: Record<string, string> = {};
    let recheck: number | undefined;
    for (const [name, at] of Object.entries((rec(old["disruptedPods"]) ?? {}) as Record<string, string>)) {
      const pod = podsByName.get(name);
      const since = timeOf(at);
      if (!pod || pod.metadata.deletionTimestamp || since === undefined) continue;
      const expires = since + disruptionDeletionTimeoutMs;
      if (expires <= now) continue;
      disrupted[name] = at;
      recheck = Math.min(recheck ?? expires, expires);
    }
    if (Object.keys(disrupted).length > 0) status["disruptedPods"] = disrupted;
    else delete status["disruptedPods"];
    if (recheck !== undefined) this.queue.addAfter(key, recheck - now + 1);

    let failure: string | undefined;
    let expected = 0;
    let desired = 0;
    try {
      ({ expected, desired } = await this.#desired(spec, pods, namespace));
    } catch (error) {
      failure = messageOf(error);
    }
    const healthy = pods.filter((p) => !p.metadata.deletionTimestamp && !((p.metadata.name ?? "") in disrupted) && isPodReady(p)).length;
    Object.assign(status, {
      currentHealthy: healthy,
      desiredHealthy: desired,
      expectedPods: expected,
      disruptionsAllowed: failure === undefined ? Math.max(0, healthy - desired) : 0,
    });
    if (failure === undefined) setDisruptionAllowedCondition(status, now);
    else this.#syncFailed(status, failure, now);
    if (jsonEqual(status, old)) return;
    try {
      await this.client.resource(podDisruptionBudgetsRef).updateStatus({ ...pdb, status }, { namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** `expectedPods` and `desiredHealthy` of a budget with `spec` over `pods`. */
  async #desired(spec: Record<string, unknown>, pods: APIObject[], namespace: string): Promise<{ expected: number; desired: number }> {
    if (spec["maxUnavailable"] !== undefined) {
      const expected = await this.#expectedScale(pods, namespace);
      const max = resolveIntOrPercent(spec["maxUnavailable"], expected);
      if (max === undefined) throw new Error(`invalid maxUnavailable ${JSON.stringify(spec["maxUnavailable"])}`);
      return { expected, desired: Math.max(0, expected - max) };
    }
    const min = spec["minAvailable"];
    if (typeof min === "number") return { expected: pods.length, desired: min };
    if (typeof min === "string") {
      const expected = await this.#expectedScale(pods, namespace);
      const desired = resolveIntOrPercent(min, expected);
      if (desired === undefined) throw new Error(`invalid minAvailable ${JSON.stringify(min)}`);
      return { expected, desired };
    }
    return { expected: 0, desired: 0 };
  }

  /** The `DisruptionAllowed` condition False/`SyncFailed` with `message`. */
  #syncFailed(status: Record<string, unknown>, message: string, now: number): void {
    const conditions = (Array.isArray(status["conditions"]) ? status["conditions"] : []).map((c) => rec(c) ?? {});
    const i = conditions.findIndex((c) => c["type"] === "DisruptionAllowed");
    const prior = conditions[i];
    const condition = {
      type: "DisruptionAllowed",
      status: "False",
      reason: "SyncFailed",
      message,
      observedGeneration: int(status["observedGeneration"]),
      lastTransitionTime: prior?.["status"] === "False" && typeof prior["lastTransitionTime"] === "string" ? prior["lastTransitionTime"] : formatTime(now),
    };
    if (i < 0) conditions.push(condition);
    else conditions[i] = condition;
    status["conditions"] = conditions;
  }
}

/** The {@link ControllerDescriptor} of the PodDisruptionBudget status loop: `disruption`, on by default. */
export const disruptionController: ControllerDescriptor = {
  name: "disruption",
  enabledByDefault: true,
  create: () => new DisruptionController(),
};
