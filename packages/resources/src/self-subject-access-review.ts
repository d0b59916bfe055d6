/**
 * SelfSubjectAccessReview (`authorization.{domain}/v1`, cluster-scoped, virtual: only
 * `create`): whether the caller may perform an action (`kubectl auth can-i`). Any user may ask
 * about itself; the answer comes from the server's authorization chain.
 * @module
 */
import { badRequest, FieldPath, invalidField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { record } from "./internal/rules.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";
import {
  accessAttributesFrom,
  nonResourceAttributesSchema,
  resourceAttributesSchema,
  reviewAccess,
  subjectAccessReviewStatusSchema,
  validateAccessReviewAttributes,
} from "./subject-access-review.js";

/** `SelfSubjectAccessReviewSpec`: exactly one of the attribute kinds; the user is the caller. */
export const selfSubjectAccessReviewSpecSchema = named(
  z
    .object({
      nonResourceAttributes: nonResourceAttributesSchema.optional().describe("NonResourceAttributes describes information for a non-resource access request"),
      resourceAttributes: resourceAttributesSchema.optional().describe("ResourceAuthorizationAttributes describes information for a resource access request"),
    })
    .meta({
      description:
        "SelfSubjectAccessReviewSpec is a description of the access request.  Exactly one of ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set",
    }),
  "api.authorization.v1.SelfSubjectAccessReviewSpec",
);

/** The zod schema of a SelfSubjectAccessReview in `v1`. */
export const selfSubjectAccessReviewV1Schema = kindSchema(
  {
    spec: selfSubjectAccessReviewSpecSchema.optional().describe("Spec holds information about the request being evaluated.  user and groups must be empty"),
    status: subjectAccessReviewStatusSchema.optional().describe("Status is filled in by the server and indicates whether the request is allowed or not"),
  },
  'SelfSubjectAccessReview checks whether or the current user can perform an action.  Not filling in a spec.namespace means "in all namespaces".  Self is a special case, because users should always be able to check whether they can perform an action',
);

/**
 * The rules of a SelfSubjectAccessReview, as the reference's `ValidateSelfSubjectAccessReview`:
 * not both attribute kinds (`spec.nonResourceAttributes`), at least one
 * (`spec.resourceAttributes`), and `metadata` empty (`managedFields` aside).
 */
export function validateSelfSubjectAccessReview(object: APIObject): FieldError[] {
  const errors = validateAccessReviewAttributes(record(object["spec"]) ?? {}, FieldPath.root("spec"));
  const { managedFields: _managedFields, ...meta } = object.metadata ?? {};
  if (Object.keys(meta).length > 0) errors.push(invalidField(FieldPath.root("metadata"), meta, "must be empty"));
  return errors;
}

/**
 * The answer to a SelfSubjectAccessReview: `ctx.authorize` asked about the caller (`ctx.user`)
 * and the spec's attributes; `status` as a SubjectAccessReview's. Without an authorizer (no
 * server) every request is allowed, as for a SubjectAccessReview.
 * @throws StatusError 400 `no user present on request` where no caller is known, as the reference.
 */
export async function evaluateSelfSubjectAccessReview(object: APIObject, ctx: StrategyContext): Promise<APIObject> {
  if (!ctx.user) throw badRequest("no user present on request");
  const spec = record(object["spec"]) ?? {};
  const status = await reviewAccess(accessAttributesFrom(ctx.user, spec), ctx);
  return { ...object, status };
}

/** The SelfSubjectAccessReview resource type: virtual, `create` only, answered about the caller. */
export const selfSubjectAccessReviewType: ResourceType = {
  group: "authorization.{domain}",
  resource: "selfsubjectaccessreviews",
  singular: "selfsubjectaccessreview",
  kind: "SelfSubjectAccessReview",
  scope: "Cluster",
  versions: [{ name: "v1", schema: selfSubjectAccessReviewV1Schema, storage: true }],
  verbs: ["create"],
  virtual: true,
  strategy: {
    validate: (object) => validateSelfSubjectAccessReview(object),
    evaluate: (object, ctx) => evaluateSelfSubjectAccessReview(object, ctx),
  },
};
