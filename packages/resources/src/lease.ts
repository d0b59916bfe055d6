/**
 * Lease (`coordination.{domain}/v1`, namespaced, no short name): leader election and
 * heartbeats. Times are micro-times; `leaseDurationSeconds` must be positive and
 * `leaseTransitions` not negative.
 * @module
 */
import { FieldPath, invalidField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { record } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { int32, microTime, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `LeaseSpec`. */
export const leaseSpecSchema = named(
  z
    .object({
      acquireTime: microTime().optional().describe("When the current lease was acquired."),
      holderIdentity: z.string().optional().describe("The identity of the holder of a current lease."),
      leaseDurationSeconds: int32().optional().describe("Seconds candidates wait after the last observed renewal before forcing acquisition."),
      leaseTransitions: int32().optional().describe("The number of transitions of a lease between holders."),
      renewTime: microTime().optional().describe("When the current holder last updated the lease."),
    })
    .meta({ description: "LeaseSpec is a specification of a Lease." }),
  "api.coordination.v1.LeaseSpec",
);

/** The zod schema of a Lease in `v1`. */
export const leaseV1Schema = kindSchema({ spec: leaseSpecSchema.optional().describe("Specification of the Lease.") }, "Lease defines a lease concept.");

/**
 * The Lease rules beyond metadata (pair with `validateObjectMeta`), for create and update alike:
 * `spec.leaseDurationSeconds` greater than 0, `spec.leaseTransitions` not negative.
 */
export function validateLease(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const duration = spec["leaseDurationSeconds"];
  if (typeof duration === "number" && duration <= 0) {
    errors.push(invalidField(path.child("leaseDurationSeconds"), duration, "must be greater than 0"));
  }
  const transitions = spec["leaseTransitions"];
  if (typeof transitions === "number" && transitions < 0) {
    errors.push(invalidField(path.child("leaseTransitions"), transitions, "must be greater than or equal to 0"));
  }
  return errors;
}

/** The Lease resource type. */
export const leaseType: ResourceType = {
  group: "coordination.{domain}",
  resource: "leases",
  singular: "lease",
  kind: "Lease",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: leaseV1Schema, storage: true }],
  strategy: {
    validate: (object) => validateLease(object),
    tableColumns: [
      {
        name: "Holder",
        type: "string",
        description: "The identity of the holder of the lease.",
        priority: 0,
        cell: (object) => {
          const holder = record(object["spec"])?.["holderIdentity"];
          return typeof holder === "string" ? holder : "";
        },
      },
    ],
  },
};
