/**
 * DaemonSet (`apps/v1`, namespaced, short name `ds`, sub-resource `status`; no `scale`): one pod
 * per node. Defaults (`updateStrategy` RollingUpdate with `maxUnavailable` 1 and `maxSurge` 0,
 * `revisionHistoryLimit` 10, the template as a Pod), validation (selector required, matching the
 * template's labels, immutable on update; the update strategy) and kubectl's columns DESIRED,
 * CURRENT, READY, UP-TO-DATE, AVAILABLE, NODE SELECTOR.
 * @module
 */
import { FieldPath, invalidField, notSupportedField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { workloadConditions } from "./deployment.js";
import {
  childObject,
  defaultTemplate,
  podTemplateSpecSchema,
  setDefault,
  specOf,
  statusCount,
  validateSelectorUpdate,
  validateWorkloadSpec,
  workloadLabelSelectorSchema,
} from "./internal/apps-common.js";
import { statusHooks } from "./internal/cluster-rules.js";
import { record, str } from "./internal/rules.js";
import { intOrString } from "./internal/workloads-common.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { int32, int64, named, optionalString } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `DaemonSetUpdateStrategy`. */
export const daemonSetUpdateStrategySchema = named(
  z
    .object({
      rollingUpdate: z
        .object({
          maxSurge: intOrString().optional().describe("The maximum number of nodes with an existing available DaemonSet pod that can have an updated pod."),
          maxUnavailable: intOrString().optional().describe("The maximum number of DaemonSet pods that can be unavailable during the update."),
        })
        .meta({ description: "Spec to control the desired behavior of daemon set rolling update." })
        .optional()
        .describe('Rolling update config params. Present only if type = "RollingUpdate".'),
      type: optionalString('Type of daemon set update. Can be "RollingUpdate" or "OnDelete". Default is RollingUpdate.'),
    })
    .meta({ description: "DaemonSetUpdateStrategy is a struct used to control the update strategy for a DaemonSet." }),
  "api.apps.v1.DaemonSetUpdateStrategy",
);

/** `DaemonSetSpec`. */
export const daemonSetSpecSchema = named(
  z
    .object({
      minReadySeconds: int32().optional().describe("The minimum number of seconds for which a newly created DaemonSet pod should be ready."),
      revisionHistoryLimit: int32().optional().describe("The number of old history to retain to allow rollback. Defaults to 10."),
      selector: workloadLabelSelectorSchema.optional().describe("A label query over pods that are managed by the daemon set."),
      template: podTemplateSpecSchema.optional().describe("An object that describes the pod that will be created."),
      updateStrategy: daemonSetUpdateStrategySchema.optional().describe("An update strategy to replace existing DaemonSet pods with new pods."),
    })
    .meta({ description: "DaemonSetSpec is the specification of a daemon set.", required: ["selector", "template"] }),
  "api.apps.v1.DaemonSetSpec",
);

/** `DaemonSetStatus`. */
export const daemonSetStatusSchema = named(
  z
    .object({
      collisionCount: int32().optional().describe("Count of hash collisions for the DaemonSet."),
      conditions: workloadConditions("DaemonSet"),
      currentNumberScheduled: int32().optional().describe("The number of nodes that are running at least 1 daemon pod and are supposed to."),
      desiredNumberScheduled: int32().optional().describe("The total number of nodes that should be running the daemon pod."),
      numberAvailable: int32().optional().describe("The number of nodes that should be running the daemon pod and have available pods."),
      numberMisscheduled: int32().optional().describe("The number of nodes that are running the daemon pod, but are not supposed to."),
      numberReady: int32().optional().describe("The number of nodes that should be running the daemon pod and have ready pods."),
      numberUnavailable: int32().optional().describe("The number of nodes that should be running the daemon pod and have none available."),
      observedGeneration: int64().optional().describe("The most recent generation observed by the daemon set controller."),
      updatedNumberScheduled: int32().optional().describe("The total number of nodes that are running updated daemon pod."),
    })
    .meta({
      description: "DaemonSetStatus represents the current status of a daemon set.",
      required: ["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"],
    }),
  "api.apps.v1.DaemonSetStatus",
);

/** The zod schema of a DaemonSet in `apps/v1`. */
export const daemonSetV1Schema = kindSchema(
  {
    spec: daemonSetSpecSchema.optional().describe("The desired behavior of this daemon set."),
    status: daemonSetStatusSchema.optional().describe("The current status of this daemon set."),
  },
  "DaemonSet represents the configuration of a daemon set.",
);

/**
 * The reference's DaemonSet defaults: `updateStrategy.type` RollingUpdate with `maxUnavailable` 1
 * and `maxSurge` 0, `revisionHistoryLimit` 10, and the pod template's defaults.
 */
export function defaultDaemonSet(object: APIObject): void {
  const spec = specOf(object);
  const strategy = childObject(spec, "updateStrategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy["type"] === "RollingUpdate") {
    const rolling = childObject(strategy, "rollingUpdate");
    setDefault(rolling, "maxUnavailable", 1);
    setDefault(rolling, "maxSurge", 0);
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  defaultTemplate(spec);
}

const updateStrategyTypes = ["OnDelete", "RollingUpdate"];

/**
 * The DaemonSet rules: those every workload shares (without replicas), `updateStrategy.type`
 * (RollingUpdate or OnDelete), non-negative `minReadySeconds` and `revisionHistoryLimit`.
 */
export function validateDaemonSet(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const errors = validateWorkloadSpec(object, ctx, { replicas: false, kind: "daemonset" });
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const type = str(record(spec["updateStrategy"])?.["type"]);
  if (!updateStrategyTypes.includes(type)) errors.push(notSupportedField(path.child("updateStrategy").child("type"), type, updateStrategyTypes));
  for (const f of ["minReadySeconds", "revisionHistoryLimit"]) {
    const v = spec[f];
    if (typeof v === "number" && v < 0) errors.push(invalidField(path.child(f), v, "must be greater than or equal to 0"));
  }
  return errors;
}

/** The node selector of a DaemonSet's template as kubectl prints it (`<none>` when empty). */
function nodeSelectorCell(object: APIObject): string {
  const selector = record(record(record(record(object["spec"])?.["template"])?.["spec"])?.["nodeSelector"]) ?? {};
  const pairs = Object.entries(selector).map(([k, v]) => `${k}=${String(v)}`);
  return pairs.length ? pairs.join(",") : "<none>";
}

/** The DaemonSet resource type. */
export const daemonSetType: ResourceType = {
  group: "apps",
  resource: "daemonsets",
  singular: "daemonset",
  kind: "DaemonSet",
  scope: "Namespaced",
  shortNames: ["ds"],
  categories: ["all"],
  subresources: ["status"],
  versions: [{ name: "v1", schema: daemonSetV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultDaemonSet(object),
    ...statusHooks(() => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 })),
    validate: (object, ctx) => validateDaemonSet(object, ctx),
    validateUpdate: (object, old) => validateSelectorUpdate(object, old),
    tableColumns: [
      { name: "Desired", type: "integer", description: "Number of desired pods", priority: 0, cell: (o) => statusCount(o, "desiredNumberScheduled") },
      { name: "Current", type: "integer", description: "Number of current pods", priority: 0, cell: (o) => statusCount(o, "currentNumberScheduled") },
      { name: "Ready", type: "integer", description: "Number of ready pods", priority: 0, cell: (o) => statusCount(o, "numberReady") },
      { name: "Up-to-date", type: "integer", description: "Number of updated pods", priority: 0, cell: (o) => statusCount(o, "updatedNumberScheduled") },
      { name: "Available", type: "integer", description: "Number of available pods", priority: 0, cell: (o) => statusCount(o, "numberAvailable") },
      { name: "Node Selector", type: "string", description: "The node selector of the pods", priority: 0, cell: (o) => nodeSelectorCell(o) },
    ],
  },
};
