/**
 * SubjectAccessReview (`authorization.{domain}/v1`, cluster-scoped, virtual: only `create`,
 * answered and never stored): asks whether a user or group may perform an action on a resource
 * or a non-resource URL. The schemas of its attributes, spec and status, and the way a review is
 * answered, serve LocalSubjectAccessReview and SelfSubjectAccessReview as well.
 * @module
 */
import { FieldPath, invalidField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { list } from "./internal/access-rules.js";
import { record, str, strings } from "./internal/rules.js";
import type { AccessAttributes, AccessDecision, RequestUser, ResourceType, StrategyContext } from "./resource-type.js";
import { atomicStrings, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `ResourceAttributes`: the resource request an authorizer is asked about. */
export const resourceAttributesSchema = named(
  z
    .object({
      group: z.string().optional().describe('Group is the API Group of the Resource. "*" means all.'),
      name: z.string().optional().describe('Name is the name of the resource being requested for a "get" or deleted for a "delete". "" (empty) means all.'),
      namespace: z
        .string()
        .optional()
        .describe('Namespace is the namespace of the action being requested. "" (empty) is all namespaces for namespace scoped resources.'),
      resource: z.string().optional().describe('Resource is one of the existing resource types. "*" means all.'),
      subresource: z.string().optional().describe('Subresource is one of the existing resource types. "" means none.'),
      verb: z.string().optional().describe('Verb is a kubernetes resource API verb, like: get, list, watch, create, update, delete, proxy. "*" means all.'),
      version: z.string().optional().describe('Version is the API Version of the Resource. "*" means all.'),
    })
    .meta({ description: "ResourceAttributes includes the authorization attributes available for resource requests to the Authorizer interface" }),
  "api.authorization.v1.ResourceAttributes",
);

/** `NonResourceAttributes`: the non-resource request (a URL path and a verb) an authorizer is asked about. */
export const nonResourceAttributesSchema = named(
  z
    .object({
      path: z.string().optional().describe("Path is the URL path of the request"),
      verb: z.string().optional().describe("Verb is the standard HTTP verb"),
    })
    .meta({ description: "NonResourceAttributes includes the authorization attributes available for non-resource requests to the Authorizer interface" }),
  "api.authorization.v1.NonResourceAttributes",
);

/** `SubjectAccessReviewSpec`: exactly one of the attribute kinds, and a user or groups. */
export const subjectAccessReviewSpecSchema = named(
  z
    .object({
      extra: z.record(z.string(), atomicStrings()).optional().describe("Extra corresponds to the user.Info.GetExtra() method from the authenticator."),
      groups: atomicStrings().optional().describe("Groups is the groups you're testing for."),
      nonResourceAttributes: nonResourceAttributesSchema.optional().describe("NonResourceAttributes describes information for a non-resource access request"),
      resourceAttributes: resourceAttributesSchema.optional().describe("ResourceAuthorizationAttributes describes information for a resource access request"),
      uid: z.string().optional().describe("UID information about the requesting user."),
      user: z
        .string()
        .optional()
        .describe(
          'User is the user you\'re testing for. If you specify "User" but not "Groups", then is it interpreted as "What if User were not a member of any groups',
        ),
    })
    .meta({
      description:
        "SubjectAccessReviewSpec is a description of the access request. Exactly one of ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set",
    }),
  "api.authorization.v1.SubjectAccessReviewSpec",
);

/** `SubjectAccessReviewStatus`: the answer. */
export const subjectAccessReviewStatusSchema = named(
  z
    .object({
      allowed: z.boolean().optional().describe("Allowed is required. True if the action would be allowed, false otherwise."),
      denied: z.boolean().optional().describe("Denied is optional. True if the action would be denied, otherwise false."),
      evaluationError: z.string().optional().describe("EvaluationError is an indication that some error occurred during the authorization check."),
      reason: z.string().optional().describe("Reason is optional. It indicates why a request was allowed or denied."),
    })
    .meta({ description: "SubjectAccessReviewStatus", required: ["allowed"] }),
  "api.authorization.v1.SubjectAccessReviewStatus",
);

/** The zod schema of a SubjectAccessReview in `v1`. */
export const subjectAccessReviewV1Schema = kindSchema(
  {
    spec: subjectAccessReviewSpecSchema.optional().describe("Spec holds information about the request being evaluated"),
    status: subjectAccessReviewStatusSchema.optional().describe("Status is filled in by the server and indicates whether the request is allowed or not"),
  },
  "SubjectAccessReview checks whether or not a user or group can perform an action.",
);

/**
 * The attribute rule every access review spec shares (at `path`): not both attribute kinds
 * (`<path>.nonResourceAttributes`: "cannot be specified in combination with
 * resourceAttributes"), and at least one (`<path>.resourceAttributes`).
 */
export function validateAccessReviewAttributes(spec: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const resource = spec["resourceAttributes"];
  const nonResource = spec["nonResourceAttributes"];
  if (resource !== undefined && nonResource !== undefined) {
    errors.push(invalidField(path.child("nonResourceAttributes"), nonResource, "cannot be specified in combination with resourceAttributes"));
  }
  if (resource === undefined && nonResource === undefined) {
    errors.push(invalidField(path.child("resourceAttributes"), null, "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  }
  return errors;
}

/**
 * The reference's `ValidateSubjectAccessReviewSpec` for the spec at `path`: the attribute rule
 * ({@link validateAccessReviewAttributes}), and a user or at least one group (`<path>.user`).
 */
export function validateSubjectAccessReviewSpec(spec: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors = validateAccessReviewAttributes(spec, path);
  const user = typeof spec["user"] === "string" ? spec["user"] : "";
  if (user === "" && list(spec["groups"]).length === 0) errors.push(invalidField(path.child("user"), user, "at least one of user or group must be specified"));
  return errors;
}

/**
 * The rules of a SubjectAccessReview, as the reference's `ValidateSubjectAccessReview`: the
 * spec's (see {@link validateSubjectAccessReviewSpec}), and `metadata` empty (`managedFields`
 * aside): a review is not an object with a name.
 */
export function validateSubjectAccessReview(object: APIObject): FieldError[] {
  const errors = validateSubjectAccessReviewSpec(record(object["spec"]) ?? {}, FieldPath.root("spec"));
  const { managedFields: _managedFields, ...meta } = object.metadata ?? {};
  if (Object.keys(meta).length > 0) errors.push(invalidField(FieldPath.root("metadata"), meta, "must be empty"));
  return errors;
}

/**
 * The reason of every review's answer where no authorizer is plugged in (a strategy run without
 * a server): such a server allows every request, as an embedded server's default
 * (`AlwaysAllow`) does.
 */
export const allowAllReason = "orch: every request is allowed";

/**
 * The question a `ResourceAttributes` or `NonResourceAttributes` asks about `user` (the
 * reference's `ResourceAttributesFrom` and `NonResourceAttributesFrom`): `resourceAttributes`
 * when set (an empty `version` asks about every version, `*`), else `nonResourceAttributes`.
 */
export function accessAttributesFrom(user: RequestUser, spec: Record<string, unknown>): AccessAttributes {
  const resource = record(spec["resourceAttributes"]);
  if (resource) {
    return {
      user,
      verb: str(resource["verb"]),
      resourceRequest: true,
      apiGroup: str(resource["group"]),
      apiVersion: str(resource["version"]) || "*",
      resource: str(resource["resource"]),
      subresource: str(resource["subresource"]),
      namespace: str(resource["namespace"]),
      name: str(resource["name"]),
    };
  }
  const nonResource = record(spec["nonResourceAttributes"]) ?? {};
  return { user, verb: str(nonResource["verb"]), resourceRequest: false, path: str(nonResource["path"]) };
}

/**
 * The user a SubjectAccessReview asks about (the reference's `AuthorizationAttributesFrom`):
 * `spec.user`, `spec.groups`, `spec.uid` and `spec.extra`.
 */
export function subjectOf(spec: Record<string, unknown>): RequestUser {
  const user: RequestUser = { name: str(spec["user"]), groups: strings(spec["groups"]) };
  const uid = str(spec["uid"]);
  if (uid !== "") user.uid = uid;
  const extra = record(spec["extra"]);
  if (extra) user.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, strings(v)]));
  return user;
}

/**
 * A review's `status` for a decision: `allowed` (always present), `denied`, `reason` and
 * `evaluationError` (each only when set, as the reference's JSON leaves them out).
 */
export function accessReviewStatus(decision: AccessDecision): Record<string, unknown> {
  const status: Record<string, unknown> = { allowed: decision.decision === "allow" };
  if (decision.decision === "deny") status["denied"] = true;
  if (decision.reason) status["reason"] = decision.reason;
  if (decision.error) status["evaluationError"] = decision.error;
  return status;
}

/**
 * Asks `ctx.authorize` about `attributes` and answers the review `status`; without an
 * authorizer (no server) every request is allowed with {@link allowAllReason}.
 */
export async function reviewAccess(attributes: AccessAttributes, ctx: StrategyContext): Promise<Record<string, unknown>> {
  if (!ctx.authorize) return { allowed: true, reason: allowAllReason };
  return accessReviewStatus(await ctx.authorize(attributes));
}

/**
 * The answer to a SubjectAccessReview (and a LocalSubjectAccessReview): the server's
 * authorization chain (`ctx.authorize`) asked about the spec's user ({@link subjectOf}) and
 * attributes ({@link accessAttributesFrom}), in `status` ({@link accessReviewStatus}). The
 * body's own `status` is replaced.
 */
export async function evaluateSubjectAccessReview(object: APIObject, ctx: StrategyContext): Promise<APIObject> {
  const spec = record(object["spec"]) ?? {};
  const status = await reviewAccess(accessAttributesFrom(subjectOf(spec), spec), ctx);
  return { ...object, status };
}

/**
 * The SubjectAccessReview resource type: virtual, `create` only, answered by the server's
 * authorizer (see {@link evaluateSubjectAccessReview}).
 */
export const subjectAccessReviewType: ResourceType = {
  group: "authorization.{domain}",
  resource: "subjectaccessreviews",
  singular: "subjectaccessreview",
  kind: "SubjectAccessReview",
  scope: "Cluster",
  versions: [{ name: "v1", schema: subjectAccessReviewV1Schema, storage: true }],
  verbs: ["create"],
  virtual: true,
  strategy: {
    validate: (object) => validateSubjectAccessReview(object),
    evaluate: (object, ctx) => evaluateSubjectAccessReview(object, ctx),
  },
};
