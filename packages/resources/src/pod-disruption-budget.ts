/**
 * PodDisruptionBudget (`policy/v1`, namespaced, short name `pdb`, sub-resource `status`): how
 * many pods of a set may be down at once through voluntary disruptions. The reference's
 * validation (`minAvailable` or `maxUnavailable`, not both, each a non-negative integer or a
 * percent up to 100%; the selector; `unhealthyPodEvictionPolicy`), the status rules, kubectl's
 * columns (MIN AVAILABLE, MAX UNAVAILABLE, ALLOWED DISRUPTIONS), and what the eviction of a pod
 * asks of the budgets that select it ({@link checkPodDisruptionBudgets}).
 * @module
 */
import {
  FieldPath,
  duplicateField,
  forbidden,
  formatTime,
  internalError,
  invalidField,
  isConflict,
  labelSelectorFromObject,
  listType,
  mapType,
  notSupportedField,
  patchStrategy,
  requiredField,
  statusError,
  tooLongField,
  validateQualifiedName,
  type APIObject,
  type FieldError,
  type LabelSelectorObject,
} from "@orch/meta";
import { z } from "zod";
import { nonNegative, statusHooks } from "./internal/cluster-rules.js";
import { list, record, str } from "./internal/rules.js";
import { labelSelector } from "./internal/storage-fields.js";
import { intOrString } from "./internal/workloads-common.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { int32, int64, mapOf, named, optionalString, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `Condition` (`meta/v1`): a condition of an object's status in the standard shape. */
export const metaConditionSchema = named(
  z
    .object({
      lastTransitionTime: time().optional().describe("The last time the condition transitioned from one status to another."),
      message: optionalString("A human readable message indicating details about the transition."),
      observedGeneration: int64().optional().describe("The .metadata.generation that the condition was set based upon."),
      reason: optionalString("A programmatic identifier indicating the reason for the condition's last transition."),
      status: optionalString("Status of the condition, one of True, False, Unknown."),
      type: optionalString("Type of condition in CamelCase or in foo.example.com/CamelCase."),
    })
    .meta({
      description: "Condition contains details for one aspect of the current state of this API Resource.",
      required: ["type", "status", "lastTransitionTime", "reason", "message"],
    }),
  "apimachinery.pkg.apis.meta.v1.Condition",
);

/** `PodDisruptionBudgetSpec`. */
export const podDisruptionBudgetSpecSchema = named(
  z
    .object({
      maxUnavailable: intOrString().optional().describe("An eviction is allowed if at most this many pods selected by the selector are unavailable after it."),
      minAvailable: intOrString()
        .optional()
        .describe("An eviction is allowed if at least this many pods selected by the selector are still available after it."),
      selector: patchStrategy(labelSelector(), "replace")
        .optional()
        .describe("Label query over pods whose evictions are managed by the disruption budget. An empty selector selects all pods."),
      unhealthyPodEvictionPolicy: optionalString("When unhealthy running pods may be evicted: IfHealthyBudget (the default) or AlwaysAllow."),
    })
    .meta({ description: "PodDisruptionBudgetSpec is a description of a PodDisruptionBudget." }),
  "api.policy.v1.PodDisruptionBudgetSpec",
);

/** `PodDisruptionBudgetStatus`. */
export const podDisruptionBudgetStatusSchema = named(
  z
    .object({
      conditions: patchStrategy(listType(z.array(metaConditionSchema), "map", ["type"]), "merge", "type")
        .optional()
        .describe("Conditions contain conditions for PDB. The disruption controller sets the DisruptionAllowed condition."),
      currentHealthy: int32().optional().describe("Current number of healthy pods."),
      desiredHealthy: int32().optional().describe("Minimum desired number of healthy pods."),
      disruptedPods: mapType(mapOf(time()), "granular")
        .optional()
        .describe("The pods whose eviction was processed by the API server but not yet observed by the PodDisruptionBudget controller."),
      disruptionsAllowed: int32().optional().describe("Number of pod disruptions that are currently allowed."),
      expectedPods: int32().optional().describe("Total number of pods counted by this disruption budget."),
      observedGeneration: int64().optional().describe("Most recent generation observed when updating this PDB status."),
    })
    .meta({
      description: "PodDisruptionBudgetStatus represents information about the status of a PodDisruptionBudget.",
      required: ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"],
    }),
  "api.policy.v1.PodDisruptionBudgetStatus",
);

/** The zod schema of a PodDisruptionBudget in `policy/v1`. */
export const podDisruptionBudgetV1Schema = kindSchema(
  {
    spec: podDisruptionBudgetSpecSchema.optional().describe("Specification of the desired behavior of the PodDisruptionBudget."),
    status: podDisruptionBudgetStatusSchema.optional().describe("Most recently observed status of the PodDisruptionBudget."),
  },
  "PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods",
);

const percentMessage =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/**
 * The reference's `ValidatePositiveIntOrPercent` and `IsNotMoreThan100Percent` for an
 * int-or-string at `path`: a non-negative integer, or a percent (`[0-9]+%`) up to 100%.
 */
export function validateIntOrPercent(value: unknown, path: FieldPath): FieldError[] {
  if (typeof value === "number") return nonNegative(value, path);
  if (typeof value !== "string") return [];
  if (!/^[0-9]+%$/.test(value)) return [invalidField(path, value, percentMessage)];
  if (Number(value.slice(0, -1)) > 100) return [invalidField(path, value, "must not be greater than 100%")];
  return [];
}

/** The values of `spec.unhealthyPodEvictionPolicy`, sorted as the reference lists them. */
export const unhealthyPodEvictionPolicies = ["AlwaysAllow", "IfHealthyBudget"] as const;

/**
 * The PodDisruptionBudget rules: not both `minAvailable` and `maxUnavailable`; each a
 * non-negative integer or a percent up to 100%; a valid selector; a supported
 * `unhealthyPodEvictionPolicy`.
 */
export function validatePodDisruptionBudget(object: APIObject): FieldError[] {
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const errors: FieldError[] = [];
  if (spec["minAvailable"] !== undefined && spec["maxUnavailable"] !== undefined) {
    errors.push(invalidField(path, spec, "minAvailable and maxUnavailable cannot be both set"));
  }
  errors.push(...validateIntOrPercent(spec["minAvailable"], path.child("minAvailable")));
  errors.push(...validateIntOrPercent(spec["maxUnavailable"], path.child("maxUnavailable")));
  const selector = record(spec["selector"]);
  if (selector) {
    const parsed = labelSelectorFromObject(selector as unknown as LabelSelectorObject, path.child("selector"));
    if (!parsed.ok) errors.push(...parsed.errors);
  }
  const policy = spec["unhealthyPodEvictionPolicy"];
  if (typeof policy === "string" && !(unhealthyPodEvictionPolicies as readonly string[]).includes(policy)) {
    errors.push(notSupportedField(path.child("unhealthyPodEvictionPolicy"), policy, unhealthyPodEvictionPolicies));
  }
  return errors;
}

const conditionReason = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/**
 * The rules of a write to a PodDisruptionBudget's `/status`: non-negative counters, and the
 * conditions as the reference's `ValidateConditions` checks them (type a qualified name and
 * unique, status True, False or Unknown, a `lastTransitionTime`, a CamelCase reason, a
 * non-negative `observedGeneration`).
 */
export function validatePodDisruptionBudgetStatus(object: APIObject): FieldError[] {
  const status = record(object["status"]) ?? {};
  const path = FieldPath.root("status");
  const errors: FieldError[] = [];
  for (const f of ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"]) errors.push(...nonNegative(status[f], path.child(f)));
  const seen = new Set<string>();
  list(status["conditions"]).forEach((item, i) => {
    const c = record(item) ?? {};
    const at = path.child("conditions").index(i);
    const type = str(c["type"]);
    errors.push(...validateQualifiedName(type, at.child("type")));
    if (seen.has(type)) errors.push(duplicateField(at.child("type"), type));
    seen.add(type);
    const st = str(c["status"]);
    if (!["True", "False", "Unknown"].includes(st)) errors.push(notSupportedField(at.child("status"), st, ["False", "True", "Unknown"]));
    if (str(c["lastTransitionTime"]) === "") errors.push(requiredField(at.child("lastTransitionTime"), "must be set"));
    const reason = str(c["reason"]);
    if (reason === "") errors.push(requiredField(at.child("reason"), "must be set"));
    else {
      if (reason.length > 1024) errors.push(tooLongField(at.child("reason"), reason, 1024));
      if (!conditionReason.test(reason)) {
        errors.push(
          invalidField(
            at.child("reason"),
            reason,
            "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
          ),
        );
      }
    }
    errors.push(...nonNegative(c["observedGeneration"], at.child("observedGeneration")));
  });
  return errors;
}

function intOrPercentCell(value: unknown): string {
  return typeof value === "number" || typeof value === "string" ? String(value) : "N/A";
}

/** The PodDisruptionBudget resource type. */
export const podDisruptionBudgetType: ResourceType = {
  group: "policy",
  resource: "poddisruptionbudgets",
  singular: "poddisruptionbudget",
  kind: "PodDisruptionBudget",
  scope: "Namespaced",
  shortNames: ["pdb"],
  subresources: ["status"],
  versions: [{ name: "v1", schema: podDisruptionBudgetV1Schema, storage: true }],
  strategy: {
    ...statusHooks(() => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 })),
    validate: (object) => validatePodDisruptionBudget(object),
    validateStatusUpdate: (object) => validatePodDisruptionBudgetStatus(object),
    tableColumns: [
      {
        name: "Min Available",
        type: "string",
        description: "The minimum number of pods that must be available.",
        priority: 0,
        cell: (o) => intOrPercentCell(record(o["spec"])?.["minAvailable"]),
      },
      {
        name: "Max Unavailable",
        type: "string",
        description: "The maximum number of pods that may be unavailable.",
        priority: 0,
        cell: (o) => intOrPercentCell(record(o["spec"])?.["maxUnavailable"]),
      },
      {
        name: "Allowed Disruptions",
        type: "integer",
        description: "Calculated number of pods that may be disrupted at this time.",
        priority: 0,
        cell: (o) => {
          const v = record(o["status"])?.["disruptionsAllowed"];
          return typeof v === "number" ? v : 0;
        },
      },
    ],
  },
};

/** The reason of an eviction refused by a disruption budget, and its cause type. */
export const evictionRefusedMessage = "Cannot evict pod as it would violate the pod's disruption budget.";

/** How many pods `status.disruptedPods` may hold before evictions are refused (the reference's `MaxDisruptedPodSize`). */
export const maxDisruptedPods = 2000;

function tooManyRequestsForBudget(cause: string, retryAfterSeconds: number) {
  return statusError("TooManyRequests", evictionRefusedMessage, {
    details: { ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}), causes: [{ reason: "DisruptionBudget", message: cause }] },
  });
}

function isPodReady(pod: APIObject): boolean {
  return list(record(pod["status"])?.["conditions"]).some((c) => record(c)?.["type"] === "Ready" && record(c)?.["status"] === "True");
}

function num(value: unknown): number {
  return typeof value === "number" ? value : 0;
}

/** The budgets of `pdbs` that select `pod`: same namespace, a non-empty selector matching its labels. */
export function budgetsSelecting(pod: APIObject, pdbs: readonly APIObject[]): APIObject[] {
  const labels = pod.metadata?.labels ?? {};
  return pdbs.filter((pdb) => {
    if ((pdb.metadata?.namespace ?? "") !== (pod.metadata?.namespace ?? "")) return false;
    const selector = record(record(pdb["spec"])?.["selector"]);
    if (!selector) return false;
    const parsed = labelSelectorFromObject(selector as unknown as LabelSelectorObject);
    // A budget with an empty selector protects nothing from an eviction.
    return parsed.ok && !parsed.selector.isEmpty() && parsed.selector.matches(labels);
  });
}

/**
 * Sets the `DisruptionAllowed` condition of a budget's status from `disruptionsAllowed`
 * (True/SufficientPods above 0, else False/InsufficientPods), with `now` as the transition time
 * when the status changes.
 */
export function setDisruptionAllowedCondition(status: Record<string, unknown>, now: number): void {
  const allowed = num(status["disruptionsAllowed"]) > 0;
  const next = {
    type: "DisruptionAllowed",
    status: allowed ? "True" : "False",
    reason: allowed ? "SufficientPods" : "InsufficientPods",
    message: "",
    observedGeneration: num(status["observedGeneration"]),
  };
  const conditions = list(status["conditions"]).map((c) => record(c) ?? {});
  const i = conditions.findIndex((c) => c["type"] === "DisruptionAllowed");
  const old = conditions[i];
  const lastTransitionTime =
    old && old["status"] === next.status && typeof old["lastTransitionTime"] === "string" ? old["lastTransitionTime"] : formatTime(now);
  const condition = { ...next, lastTransitionTime };
  if (i < 0) conditions.push(condition);
  else conditions[i] = condition;
  status["conditions"] = conditions;
}

const budgetGroup = "policy";
const budgetResource = "poddisruptionbudgets";

/**
 * What the eviction of `pod` asks of the PodDisruptionBudgets that select it, as the reference's
 * eviction sub-resource decides: a pod that is Pending, Succeeded, Failed or being deleted, or
 * that no budget selects, may go; more than one budget is a 500; an unready pod may go under an
 * `AlwaysAllow` policy or while the budget is healthy; otherwise the budget must be observed
 * (`status.observedGeneration` at `generation`, else 429) and allow a disruption (else 429
 * `TooManyRequests` with a `DisruptionBudget` cause), and the eviction counts it down in the
 * budget's status (`disruptionsAllowed` less one, the pod in `disruptedPods`; nothing is written
 * on a dry run). Resolves when the pod may be deleted. Without `ctx.list` (no server) every pod
 * may go.
 * @throws StatusError 429, 500 or 403 as above.
 */
export async function checkPodDisruptionBudgets(pod: APIObject, ctx: StrategyContext): Promise<void> {
  const phase = str(record(pod["status"])?.["phase"]);
  if (phase === "Succeeded" || phase === "Failed" || phase === "Pending" || pod.metadata?.deletionTimestamp) return;
  if (!ctx.list) return;
  const namespace = pod.metadata?.namespace ?? "";
  const podName = pod.metadata?.name ?? "";
  for (let attempt = 0; ; attempt++) {
    const budgets = budgetsSelecting(pod, await ctx.list(budgetGroup, budgetResource, namespace));
    if (budgets.length > 1) throw internalError("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
    const pdb = budgets[0];
    if (!pdb) return;
    const spec = record(pdb["spec"]) ?? {};
    const status = structuredClone(record(pdb["status"]) ?? {});
    const name = pdb.metadata?.name ?? "";
    if (!isPodReady(pod)) {
      if (spec["unhealthyPodEvictionPolicy"] === "AlwaysAllow") return;
      if (num(status["currentHealthy"]) >= num(status["desiredHealthy"]) && num(status["desiredHealthy"]) > 0) return;
    }
    if (num(status["observedGeneration"]) < num(pdb.metadata?.generation)) {
      throw tooManyRequestsForBudget(`The disruption budget ${name} is still being processed by the server.`, 10);
    }
    const allowed = num(status["disruptionsAllowed"]);
    if (allowed < 0) throw forbidden({ group: budgetGroup, resource: "poddisruptionbudget" }, name, "pdb disruptions allowed is negative");
    const disrupted = record(status["disruptedPods"]) ?? {};
    if (Object.keys(disrupted).length > maxDisruptedPods) {
      throw forbidden(
        { group: budgetGroup, resource: "poddisruptionbudget" },
        name,
        "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
      );
    }
    if (allowed === 0) {
      throw tooManyRequestsForBudget(
        `The disruption budget ${name} needs ${num(status["desiredHealthy"])} healthy pods and has ${num(status["currentHealthy"])} currently`,
        0,
      );
    }
    if (ctx.dryRun || !ctx.updateStatus) return;
    status["disruptionsAllowed"] = allowed - 1;
    if (allowed - 1 === 0) setDisruptionAllowedCondition(status, ctx.now);
    status["disruptedPods"] = { ...disrupted, [podName]: formatTime(ctx.now) };
    try {
      await ctx.updateStatus(budgetGroup, budgetResource, { ...pdb, status });
      return;
    } catch (error) {
      // The budget changed meanwhile: decide again on the newer one, as the reference retries.
      if (!isConflict(error) || attempt >= 4) throw error;
    }
  }
}
