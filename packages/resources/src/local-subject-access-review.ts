/**
 * LocalSubjectAccessReview (`authorization.{domain}/v1`, namespaced, virtual: only `create`):
 * SubjectAccessReview in one namespace, so that namespaced policy can allow the check. Its
 * `spec.resourceAttributes.namespace` must be the request's namespace; non-resource questions
 * are not allowed.
 * @module
 */
import { FieldPath, invalidField, type APIObject, type FieldError } from "@orch/meta";
import { record } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { kindSchema } from "./schema/object-meta.js";
import {
  evaluateSubjectAccessReview,
  subjectAccessReviewSpecSchema,
  subjectAccessReviewStatusSchema,
  validateSubjectAccessReviewSpec,
} from "./subject-access-review.js";

/** The zod schema of a LocalSubjectAccessReview in `v1`. */
export const localSubjectAccessReviewV1Schema = kindSchema(
  {
    spec: subjectAccessReviewSpecSchema
      .optional()
      .describe(
        "Spec holds information about the request being evaluated.  spec.namespace must be equal to the namespace you made the request against.  If empty, it is defaulted.",
      ),
    status: subjectAccessReviewStatusSchema.optional().describe("Status is filled in by the server and indicates whether the request is allowed or not"),
  },
  "LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace. Having a namespace scoped resource makes it much easier to grant namespace scoped policy that includes permissions checking.",
);

/**
 * The rules of a LocalSubjectAccessReview, as the reference's
 * `ValidateLocalSubjectAccessReview`: the spec's (see `validateSubjectAccessReviewSpec`),
 * `metadata` empty but for `namespace` (and `managedFields`), `spec.resourceAttributes.namespace`
 * equal to `metadata.namespace` (the server sets it to the request's), and no
 * `spec.nonResourceAttributes`.
 */
export function validateLocalSubjectAccessReview(object: APIObject): FieldError[] {
  const spec = record(object["spec"]) ?? {};
  const errors = validateSubjectAccessReviewSpec(spec, FieldPath.root("spec"));
  const { managedFields: _managedFields, namespace = "", ...meta } = object.metadata ?? {};
  if (Object.keys(meta).length > 0) errors.push(invalidField(FieldPath.root("metadata"), object.metadata, "must be empty except for namespace"));
  const resource = record(spec["resourceAttributes"]);
  if (resource) {
    const asked = typeof resource["namespace"] === "string" ? resource["namespace"] : "";
    if (asked !== namespace) errors.push(invalidField("spec.resourceAttributes.namespace", asked, "must match metadata.namespace"));
  }
  if (spec["nonResourceAttributes"] !== undefined) {
    errors.push(invalidField("spec.nonResourceAttributes", spec["nonResourceAttributes"], "disallowed on this kind of request"));
  }
  return errors;
}

/** The LocalSubjectAccessReview resource type: virtual, `create` only, answered as a SubjectAccessReview. */
export const localSubjectAccessReviewType: ResourceType = {
  group: "authorization.{domain}",
  resource: "localsubjectaccessreviews",
  singular: "localsubjectaccessreview",
  kind: "LocalSubjectAccessReview",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: localSubjectAccessReviewV1Schema, storage: true }],
  verbs: ["create"],
  virtual: true,
  strategy: {
    validate: (object) => validateLocalSubjectAccessReview(object),
    evaluate: (object, ctx) => evaluateSubjectAccessReview(object, ctx),
  },
};
