/**
 * SelfSubjectReview (`authentication.{domain}/v1`, cluster-scoped, virtual: only `create`):
 * answers the caller's own user information, as authentication found it (`kubectl auth whoami`).
 * @module
 */
import type { APIObject } from "@orch/meta";
import { z } from "zod";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";
import { userInfoSchema } from "./token-review.js";

/** `SelfSubjectReviewStatus`: the caller's user information. */
export const selfSubjectReviewStatusSchema = named(
  z
    .object({
      userInfo: userInfoSchema.optional().describe("User attributes of the user making this request."),
    })
    .meta({ description: "SelfSubjectReviewStatus is filled by the kube-apiserver and sent back to a user." }),
  "api.authentication.v1.SelfSubjectReviewStatus",
);

/** The zod schema of a SelfSubjectReview in `v1`. */
export const selfSubjectReviewV1Schema = kindSchema(
  {
    status: selfSubjectReviewStatusSchema.optional().describe("Status is filled in by the server with the user attributes."),
  },
  "SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request. When using impersonation, users will receive the user info of the user being impersonated.",
);

/**
 * The answer to a SelfSubjectReview: `status.userInfo` is the caller (`ctx.user`), with `uid`,
 * `groups` and `extra` left out when empty, as the reference's JSON does; the body's own
 * `status` is ignored. A review made where no user is known answers no user information.
 */
export function evaluateSelfSubjectReview(object: APIObject, ctx: StrategyContext): APIObject {
  const user = ctx.user;
  const userInfo: Record<string, unknown> = {};
  if (user) {
    userInfo["username"] = user.name;
    if (user.uid) userInfo["uid"] = user.uid;
    if (user.groups.length > 0) userInfo["groups"] = [...user.groups];
    if (user.extra && Object.keys(user.extra).length > 0) userInfo["extra"] = structuredClone(user.extra);
  }
  return { ...object, status: { userInfo } };
}

/** The SelfSubjectReview resource type: virtual, `create` only, answered from the request's user. */
export const selfSubjectReviewType: ResourceType = {
  group: "authentication.{domain}",
  resource: "selfsubjectreviews",
  singular: "selfsubjectreview",
  kind: "SelfSubjectReview",
  scope: "Cluster",
  versions: [{ name: "v1", schema: selfSubjectReviewV1Schema, storage: true }],
  verbs: ["create"],
  virtual: true,
  strategy: {
    evaluate: (object, ctx) => evaluateSelfSubjectReview(object, ctx),
  },
};
