/**
 * StatefulSet (`apps/v1`, namespaced, short name `sts`, sub-resources `status` and `scale`): pods
 * with stable identities. Defaults (`replicas` 1, `podManagementPolicy` OrderedReady,
 * `updateStrategy` RollingUpdate with `partition` 0, `revisionHistoryLimit` 10, the claim
 * retention policy Retain, the template as a Pod), validation (selector required, matching the
 * template's labels; the policies; on update only `replicas`, `ordinals`, `template`,
 * `updateStrategy`, `persistentVolumeClaimRetentionPolicy` and `minReadySeconds` may change) and
 * kubectl's READY column.
 * @module
 */
import { FieldPath, invalidField, listType, notSupportedField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { workloadConditions } from "./deployment.js";
import {
  childObject,
  defaultTemplate,
  podTemplateSpecSchema,
  replicasScale,
  setDefault,
  specCount,
  specOf,
  statusCount,
  validateSelectorUpdate,
  validateWorkloadSpec,
  workloadLabelSelectorSchema,
} from "./internal/apps-common.js";
import { statusHooks } from "./internal/cluster-rules.js";
import { jsonEqual, record, str } from "./internal/rules.js";
import { intOrString } from "./internal/workloads-common.js";
import { persistentVolumeClaimV1Schema } from "./persistent-volume-claim.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { int32, int64, named, optionalString } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `StatefulSetUpdateStrategy`. */
export const statefulSetUpdateStrategySchema = named(
  z
    .object({
      rollingUpdate: z
        .object({
          maxUnavailable: intOrString().optional().describe("The maximum number of pods that can be unavailable during the update."),
          partition: int32().optional().describe("Partition indicates the ordinal at which the StatefulSet should be partitioned for updates."),
        })
        .meta({ description: "RollingUpdateStatefulSetStrategy is used to communicate parameter for RollingUpdateStatefulSetStrategyType." })
        .optional()
        .describe("RollingUpdate is used to communicate parameters when Type is RollingUpdateStatefulSetStrategyType."),
      type: optionalString("Type indicates the type of the StatefulSetUpdateStrategy. Default is RollingUpdate."),
    })
    .meta({ description: "StatefulSetUpdateStrategy indicates the strategy that the StatefulSet controller will use to perform updates." }),
  "api.apps.v1.StatefulSetUpdateStrategy",
);

/** `StatefulSetSpec`. */
export const statefulSetSpecSchema = named(
  z
    .object({
      minReadySeconds: int32().optional().describe("Minimum number of seconds for which a newly created pod should be ready."),
      ordinals: z
        .object({ start: int32().optional().describe("The number representing the first replica's index.") })
        .optional()
        .describe("Ordinals controls the numbering of replica indices in a StatefulSet."),
      persistentVolumeClaimRetentionPolicy: z
        .object({
          whenDeleted: optionalString("What happens to PVCs created from volumeClaimTemplates when the StatefulSet is deleted."),
          whenScaled: optionalString("What happens to PVCs created from volumeClaimTemplates when the StatefulSet is scaled down."),
        })
        .optional()
        .describe("The lifecycle of persistent volume claims created from volumeClaimTemplates."),
      podManagementPolicy: optionalString("Controls how pods are created during initial scale up. Default is OrderedReady."),
      replicas: int32().optional().describe("The desired number of replicas of the given Template. Defaults to 1."),
      revisionHistoryLimit: int32().optional().describe("The maximum number of revisions that will be maintained. Defaults to 10."),
      selector: workloadLabelSelectorSchema.optional().describe("A label query over pods that should match the replica count."),
      serviceName: optionalString("The name of the service that governs this StatefulSet."),
      template: podTemplateSpecSchema.optional().describe("Template is the object that describes the pod that will be created."),
      updateStrategy: statefulSetUpdateStrategySchema.optional().describe("The strategy used to update Pods in the StatefulSet."),
      volumeClaimTemplates: listType(z.array(persistentVolumeClaimV1Schema), "atomic")
        .optional()
        .describe("A list of claims that pods are allowed to reference."),
    })
    .meta({ description: "A StatefulSetSpec is the specification of a StatefulSet.", required: ["selector", "template"] }),
  "api.apps.v1.StatefulSetSpec",
);

/** `StatefulSetStatus`. */
export const statefulSetStatusSchema = named(
  z
    .object({
      availableReplicas: int32().optional().describe("Total number of available pods targeted by this statefulset."),
      collisionCount: int32().optional().describe("The count of hash collisions for the StatefulSet."),
      conditions: workloadConditions("StatefulSet"),
      currentReplicas: int32().optional().describe("The number of Pods created by the StatefulSet controller from the currentRevision."),
      currentRevision: optionalString("The version of the StatefulSet used to generate Pods in the sequence [0,currentReplicas)."),
      observedGeneration: int64().optional().describe("The most recent generation observed for this StatefulSet."),
      readyReplicas: int32().optional().describe("The number of pods created for this StatefulSet with a Ready Condition."),
      replicas: int32().optional().describe("The number of Pods created by the StatefulSet controller."),
      updateRevision: optionalString("The version of the StatefulSet used to generate Pods in the sequence [replicas-updatedReplicas,replicas)."),
      updatedReplicas: int32().optional().describe("The number of Pods created by the StatefulSet controller from the updateRevision."),
    })
    .meta({ description: "StatefulSetStatus represents the current state of a StatefulSet.", required: ["replicas"] }),
  "api.apps.v1.StatefulSetStatus",
);

/** The zod schema of a StatefulSet in `apps/v1`. */
export const statefulSetV1Schema = kindSchema(
  {
    spec: statefulSetSpecSchema.optional().describe("Spec defines the desired identities of pods in this set."),
    status: statefulSetStatusSchema.optional().describe("Status is the current status of Pods in this StatefulSet."),
  },
  "StatefulSet represents a set of pods with consistent identities.",
);

/**
 * The reference's StatefulSet defaults: `replicas` 1, `podManagementPolicy` OrderedReady,
 * `updateStrategy.type` RollingUpdate with `rollingUpdate.partition` 0, `revisionHistoryLimit`
 * 10, `persistentVolumeClaimRetentionPolicy` Retain/Retain, and the pod template's defaults.
 */
export function defaultStatefulSet(object: APIObject): void {
  const spec = specOf(object);
  setDefault(spec, "replicas", 1);
  setDefault(spec, "podManagementPolicy", "OrderedReady");
  const strategy = childObject(spec, "updateStrategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy["type"] === "RollingUpdate") setDefault(childObject(strategy, "rollingUpdate"), "partition", 0);
  setDefault(spec, "revisionHistoryLimit", 10);
  const retention = childObject(spec, "persistentVolumeClaimRetentionPolicy");
  setDefault(retention, "whenDeleted", "Retain");
  setDefault(retention, "whenScaled", "Retain");
  defaultTemplate(spec);
}

const podManagementPolicies = ["OrderedReady", "Parallel"];
const updateStrategyTypes = ["OnDelete", "RollingUpdate"];

/**
 * The StatefulSet rules: those every workload shares, `podManagementPolicy` (OrderedReady or
 * Parallel), `updateStrategy.type` (RollingUpdate or OnDelete; `rollingUpdate` only with
 * RollingUpdate, its `partition` not negative), non-negative `minReadySeconds`.
 */
export function validateStatefulSet(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const errors = validateWorkloadSpec(object, ctx, { replicas: true, kind: "statefulset" });
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const policy = str(spec["podManagementPolicy"]);
  if (!podManagementPolicies.includes(policy)) errors.push(notSupportedField(path.child("podManagementPolicy"), policy, podManagementPolicies));
  const strategy = record(spec["updateStrategy"]) ?? {};
  const type = str(strategy["type"]);
  if (!updateStrategyTypes.includes(type)) errors.push(notSupportedField(path.child("updateStrategy").child("type"), type, updateStrategyTypes));
  else if (type === "OnDelete" && strategy["rollingUpdate"] !== undefined) {
    errors.push({
      type: "FieldValueInvalid",
      field: "spec.updateStrategy.rollingUpdate",
      value: strategy["rollingUpdate"],
      detail: "only allowed for updateStrategy 'RollingUpdate'",
    });
  }
  const partition = record(strategy["rollingUpdate"])?.["partition"];
  if (typeof partition === "number" && partition < 0) {
    errors.push(invalidField(path.child("updateStrategy").child("rollingUpdate").child("partition"), partition, "must be greater than or equal to 0"));
  }
  const minReady = spec["minReadySeconds"];
  if (typeof minReady === "number" && minReady < 0) errors.push(invalidField(path.child("minReadySeconds"), minReady, "must be greater than or equal to 0"));
  return errors;
}

const updatableSpecFields = ["replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy", "minReadySeconds"];

/**
 * The rules a StatefulSet update adds: `spec.selector` immutable, and no change of the spec but
 * to the fields the reference lets change (`spec: Forbidden: updates to statefulset spec for
 * fields other than ... are forbidden`).
 */
export function validateStatefulSetUpdate(object: APIObject, old: APIObject): FieldError[] {
  const errors = validateSelectorUpdate(object, old);
  const strip = (o: APIObject) => {
    const s = { ...(record(o["spec"]) ?? {}) };
    for (const f of [...updatableSpecFields, "selector"]) delete s[f];
    return s;
  };
  if (!jsonEqual(strip(object), strip(old))) {
    errors.push({
      type: "FieldValueForbidden",
      field: "spec",
      detail:
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    });
  }
  return errors;
}

/** The StatefulSet resource type. */
export const statefulSetType: ResourceType = {
  group: "apps",
  resource: "statefulsets",
  singular: "statefulset",
  kind: "StatefulSet",
  scope: "Namespaced",
  shortNames: ["sts"],
  categories: ["all"],
  subresources: ["status", "scale"],
  versions: [{ name: "v1", schema: statefulSetV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultStatefulSet(object),
    ...statusHooks(() => ({ replicas: 0, availableReplicas: 0 })),
    validate: (object, ctx) => validateStatefulSet(object, ctx),
    validateUpdate: (object, old) => validateStatefulSetUpdate(object, old),
    scale: replicasScale,
    tableColumns: [
      {
        name: "Ready",
        type: "string",
        description: "Number of the pod with ready state",
        priority: 0,
        cell: (o) => `${statusCount(o, "readyReplicas")}/${specCount(o, "replicas")}`,
      },
    ],
  },
};
