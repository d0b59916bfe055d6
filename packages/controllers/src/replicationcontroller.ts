/**
 * {@link ReplicationControllerController}: the `replicationcontroller` controller, the
 * reference's `pkg/controller/replication`, which runs the ReplicaSet loop over core
 * ReplicationControllers (a map selector instead of a label selector object).
 * @module
 */
import { replicationControllersRef } from "@orch/client";
import { labelSelectorFromObject, type APIObject, type LabelSelector } from "@orch/meta";
import type { ControllerDescriptor } from "./controller.js";
import { ReplicaController, type ReplicatedKind } from "./internal/replica-controller.js";

/** The selector of a ReplicationController (`spec.selector`, a label map); undefined when it is invalid. */
function replicationControllerSelector(object: APIObject): LabelSelector | undefined {
  const spec = object["spec"] as { selector?: Record<string, string> } | undefined;
  const converted = labelSelectorFromObject({ matchLabels: spec?.selector ?? {} });
  return converted.ok ? converted.selector : undefined;
}

const replicationControllerKind: ReplicatedKind = {
  ref: replicationControllersRef,
  apiVersion: "v1",
  kind: "ReplicationController",
  fieldManager: "replication-controller",
  selectorOf: replicationControllerSelector,
};

/** The ReplicationController loop; create one per term of leadership (the {@link ControllerManager} does). */
export class ReplicationControllerController extends ReplicaController {
  /** `replicationcontroller`. */
  readonly name = "replicationcontroller";
  protected readonly managed = replicationControllerKind;
}

/** The {@link ControllerDescriptor} of the ReplicationController loop: `replicationcontroller`, on by default. */
export const replicationControllerController: ControllerDescriptor = {
  name: "replicationcontroller",
  enabledByDefault: true,
  create: () => new ReplicationControllerController(),
};
