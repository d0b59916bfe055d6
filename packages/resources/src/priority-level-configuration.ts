/**
 * PriorityLevelConfiguration (`flowcontrol.apiserver.{domain}/v1beta2`, cluster-scoped,
 * sub-resource `status`): a priority level of API Priority and Fairness. `type` is `Exempt`
 * (only for the level named `exempt`) or `Limited`, and `limited` is set if and only if the type
 * is `Limited`; `assuredConcurrencyShares` (default 30) and the queuing parameters (default 64
 * queues, hand size 8, queue length 50) must be positive.
 * @module
 */
import { FieldPath, forbiddenField, invalidField, notSupportedField, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { flowControlStatusSchemas, statusHooks, validateConditionTypes } from "./internal/cluster-rules.js";
import { record, str } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { int32, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `QueuingConfiguration`. */
export const queuingConfigurationSchema = named(
  z
    .object({
      handSize: int32().optional().describe("The number of queues each flow is dealt; positive, not above queues; default 8."),
      queueLengthLimit: int32().optional().describe("The most requests one queue may hold; extra requests are rejected; default 50."),
      queues: int32().optional().describe("The number of queues of this level (per API server); 1 disables shuffle sharding; default 64."),
    })
    .meta({ description: "QueuingConfiguration holds the configuration parameters for queuing" }),
  "api.flowcontrol.v1beta2.QueuingConfiguration",
);

/** `LimitResponse`. */
export const limitResponseSchema = named(
  z
    .object({
      queuing: queuingConfigurationSchema.optional().describe("Queuing parameters; only when type is Queue."),
      type: z.string().optional().describe("Queue or Reject. Required."),
    })
    .meta({ description: "LimitResponse defines how to handle requests that can not be executed right now.", required: ["type"] }),
  "api.flowcontrol.v1beta2.LimitResponse",
);

/** `LimitedPriorityLevelConfiguration`. */
export const limitedPriorityLevelConfigurationSchema = named(
  z
    .object({
      assuredConcurrencyShares: int32().optional().describe("This level's share of the server's concurrency limit; positive, default 30."),
      borrowingLimitPercent: int32().optional().describe("How many seats this level may borrow from others, in percent of its nominal limit."),
      lendablePercent: int32().optional().describe("The percentage (0 to 100) of this level's nominal limit that others may borrow."),
      limitResponse: limitResponseSchema.optional().describe("What to do with requests that cannot be executed right now."),
    })
    .meta({ description: "LimitedPriorityLevelConfiguration specifies how to handle requests that are subject to limits." }),
  "api.flowcontrol.v1beta2.LimitedPriorityLevelConfiguration",
);

/** `PriorityLevelConfigurationSpec`. */
export const priorityLevelConfigurationSpecSchema = named(
  z
    .object({
      limited: limitedPriorityLevelConfigurationSchema.optional().describe("How requests of this level are limited; set if and only if type is Limited."),
      type: z.string().optional().describe("Exempt or Limited. Required."),
    })
    .meta({ description: "PriorityLevelConfigurationSpec specifies the configuration of a priority level.", required: ["type"] }),
  "api.flowcontrol.v1beta2.PriorityLevelConfigurationSpec",
);

const priorityLevelStatusSchemas = flowControlStatusSchemas("PriorityLevelConfiguration", {
  condition: "PriorityLevelConfigurationCondition defines the condition of priority level.",
  conditionType: "The type of the condition.",
  status: "PriorityLevelConfigurationStatus represents the current state of a priority level.",
  conditions: "The current state of the priority level.",
});
/** `PriorityLevelConfigurationCondition`. */
export const priorityLevelConfigurationConditionSchema = priorityLevelStatusSchemas.condition;
/** `PriorityLevelConfigurationStatus`. */
export const priorityLevelConfigurationStatusSchema = priorityLevelStatusSchemas.status;

/** The zod schema of a PriorityLevelConfiguration in `v1beta2`. */
export const priorityLevelConfigurationV1beta2Schema = kindSchema(
  {
    spec: priorityLevelConfigurationSpecSchema.optional().describe("The specification of the priority level."),
    status: priorityLevelConfigurationStatusSchema.optional().describe("The current status of the priority level."),
  },
  "PriorityLevelConfiguration represents the configuration of a priority level.",
);

/** The supported `spec.type` values (sorted). */
export const priorityLevelTypes = ["Exempt", "Limited"] as const;
/** The supported `limitResponse.type` values (sorted). */
export const limitResponseTypes = ["Queue", "Reject"] as const;
/** The most queues a level may have. */
export const maxQueues = 10_000_000;
/** The most hash bits shuffle sharding may need (`ceil(log2(queues) * handSize)`). */
export const maxHashBits = 60;

/**
 * The defaults of `v1beta2`: `limited.assuredConcurrencyShares` 30 and `lendablePercent` 0;
 * under `limitResponse.queuing`, `queues` 64, `handSize` 8, `queueLengthLimit` 50 (each when
 * unset or 0).
 */
export function defaultPriorityLevelConfiguration(object: APIObject): void {
  const limited = record(record(object["spec"])?.["limited"]);
  if (!limited) return;
  const zero = (v: unknown) => v === undefined || v === 0;
  if (zero(limited["assuredConcurrencyShares"])) limited["assuredConcurrencyShares"] = 30;
  if (limited["lendablePercent"] === undefined) limited["lendablePercent"] = 0;
  const queuing = record(record(limited["limitResponse"])?.["queuing"]);
  if (!queuing) return;
  if (zero(queuing["queues"])) queuing["queues"] = 64;
  if (zero(queuing["handSize"])) queuing["handSize"] = 8;
  if (zero(queuing["queueLengthLimit"])) queuing["queueLengthLimit"] = 50;
}

function num(value: unknown): number {
  return typeof value === "number" ? value : 0;
}

function validateQueuing(queuing: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const length = num(queuing["queueLengthLimit"]);
  if (length <= 0) errors.push(invalidField(path.child("queueLengthLimit"), length, "must be positive"));
  const queues = num(queuing["queues"]);
  if (queues <= 0) errors.push(invalidField(path.child("queues"), queues, "must be positive"));
  else if (queues > maxQueues) errors.push(invalidField(path.child("queues"), queues, `must not be greater than ${maxQueues}`));
  const hand = num(queuing["handSize"]);
  if (hand <= 0) errors.push(invalidField(path.child("handSize"), hand, "must be positive"));
  else if (hand > queues) errors.push(invalidField(path.child("handSize"), hand, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * hand) > maxHashBits) {
    errors.push(
      invalidField(path.child("handSize"), hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${maxHashBits}`),
    );
  }
  return errors;
}

function validateLimited(limited: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const shares = num(limited["assuredConcurrencyShares"]);
  if (shares <= 0) errors.push(invalidField(path.child("assuredConcurrencyShares"), shares, "must be positive"));
  const response = record(limited["limitResponse"]) ?? {};
  const responsePath = path.child("limitResponse");
  const type = str(response["type"]);
  const queuing = record(response["queuing"]);
  if (type === "Reject") {
    if (response["queuing"] !== undefined)
      errors.push(forbiddenField(responsePath.child("queuing"), "must be nil if limited.limitResponse.type is not Limited"));
  } else if (type === "Queue") {
    if (!queuing) errors.push(requiredField(responsePath.child("queuing"), "must not be empty if limited.limitResponse.type is Limited"));
    else errors.push(...validateQueuing(queuing, responsePath.child("queuing")));
  } else errors.push(notSupportedField(responsePath.child("type"), type, limitResponseTypes));
  const lendable = limited["lendablePercent"];
  if (typeof lendable === "number" && (lendable < 0 || lendable > 100)) {
    errors.push(invalidField(path.child("lendablePercent"), lendable, "must be between 0 and 100, inclusive"));
  }
  const borrowing = limited["borrowingLimitPercent"];
  if (typeof borrowing === "number" && borrowing < 0) {
    errors.push(invalidField(path.child("borrowingLimitPercent"), borrowing, "if specified, must be a non-negative integer"));
  }
  return errors;
}

/**
 * The PriorityLevelConfiguration rules beyond metadata, for create, update and status writes:
 * `spec.type` `Exempt` if and only if the name is `exempt`; `Exempt` forbids `spec.limited`;
 * `Limited` requires it, with positive shares, a `Queue` (with positive queuing parameters,
 * hand size not above queues and within 60 entropy bits) or `Reject` (no queuing) response,
 * `lendablePercent` 0 to 100 and `borrowingLimitPercent` not negative; unique non-empty
 * `status.conditions[].type`.
 */
export function validatePriorityLevelConfiguration(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const type = str(spec["type"]);
  if ((object.metadata?.name === "exempt") !== (type === "Exempt")) {
    errors.push(invalidField(path.child("type"), type, "type must be 'Exempt' if and only if name is 'exempt'"));
  }
  if (type === "Exempt") {
    if (spec["limited"] !== undefined) errors.push(forbiddenField(path.child("limited"), "must be nil if the type is not Limited"));
  } else if (type === "Limited") {
    const limited = record(spec["limited"]);
    if (!limited) errors.push(requiredField(path.child("limited"), "must not be empty when type is Limited"));
    else errors.push(...validateLimited(limited, path.child("limited")));
  } else errors.push(notSupportedField(path.child("type"), type, priorityLevelTypes));
  errors.push(...validateConditionTypes(object));
  return errors;
}

const hooks = statusHooks(() => ({}));

function queuingOf(object: APIObject): Record<string, unknown> | undefined {
  return record(record(record(record(object["spec"])?.["limited"])?.["limitResponse"])?.["queuing"]);
}

function queuingCell(key: string) {
  return (object: APIObject) => {
    const value = queuingOf(object)?.[key];
    return typeof value === "number" ? String(value) : "<none>";
  };
}

/** The PriorityLevelConfiguration resource type. */
export const priorityLevelConfigurationType: ResourceType = {
  group: "flowcontrol.apiserver.{domain}",
  resource: "prioritylevelconfigurations",
  singular: "prioritylevelconfiguration",
  kind: "PriorityLevelConfiguration",
  scope: "Cluster",
  versions: [{ name: "v1beta2", schema: priorityLevelConfigurationV1beta2Schema, storage: true }],
  subresources: ["status"],
  strategy: {
    defaults: (object) => defaultPriorityLevelConfiguration(object),
    prepareForCreate: hooks.prepareForCreate,
    prepareForUpdate: hooks.prepareForUpdate,
    validate: (object) => validatePriorityLevelConfiguration(object),
    tableColumns: [
      { name: "Type", type: "string", description: "Exempt or Limited.", priority: 0, cell: (object) => str(record(object["spec"])?.["type"]) },
      {
        name: "AssuredConcurrencyShares",
        type: "string",
        description: "This level's share of the server's concurrency limit.",
        priority: 0,
        cell: (object) => {
          const shares = record(record(object["spec"])?.["limited"])?.["assuredConcurrencyShares"];
          return typeof shares === "number" ? String(shares) : "<none>";
        },
      },
      { name: "Queues", type: "string", description: "The number of queues.", priority: 0, cell: queuingCell("queues") },
      { name: "HandSize", type: "string", description: "The number of queues each flow is dealt.", priority: 0, cell: queuingCell("handSize") },
      { name: "QueueLengthLimit", type: "string", description: "The most requests one queue may hold.", priority: 0, cell: queuingCell("queueLengthLimit") },
    ],
  },
};
