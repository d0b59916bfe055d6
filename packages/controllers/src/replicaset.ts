/**
 * {@link ReplicaSetController}: the `replicaset` controller, the reference's
 * `pkg/controller/replicaset`. Every ReplicaSet keeps `spec.replicas` Pods from its template
 * (named `<replicaset>-<random>`, controlled by it); the loop itself is shared with the
 * `replicationcontroller` controller.
 * @module
 */
import { replicaSetsRef } from "@orch/client";
import { labelSelectorFromObject, type APIObject, type LabelSelector, type LabelSelectorObject } from "@orch/meta";
import type { ControllerDescriptor } from "./controller.js";
import { ReplicaController, type ReplicatedKind } from "./internal/replica-controller.js";

/** The selector of a ReplicaSet (`spec.selector`, the object form); undefined when it is invalid. */
function replicaSetSelector(object: APIObject): LabelSelector | undefined {
  const spec = object["spec"] as { selector?: LabelSelectorObject } | undefined;
  const converted = labelSelectorFromObject(spec?.selector);
  return converted.ok ? converted.selector : undefined;
}

const replicaSetKind: ReplicatedKind = {
  ref: replicaSetsRef,
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  fieldManager: "replicaset-controller",
  selectorOf: replicaSetSelector,
};

/** The ReplicaSet loop; create one per term of leadership (the {@link ControllerManager} does). */
export class ReplicaSetController extends ReplicaController {
  /** `replicaset`. */
  readonly name = "replicaset";
  protected readonly managed = replicaSetKind;
}

/** The {@link ControllerDescriptor} of the ReplicaSet loop: `replicaset`, on by default. */
export const replicaSetController: ControllerDescriptor = {
  name: "replicaset",
  enabledByDefault: true,
  create: () => new ReplicaSetController(),
};
