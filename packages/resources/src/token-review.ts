/**
 * TokenReview (`authentication.{domain}/v1`, cluster-scoped, virtual: only `create`, answered
 * and never stored): asks the server to authenticate a bearer token.
 * @module
 */
import { badRequest, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { record } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { atomicStrings, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";


/** `TokenReviewSpec`: the token, and the audiences it must be valid for. */
export const tokenReviewSpecSchema = named(
  z
    .object({
      audiences: atomicStrings().optional().describe("Audiences is a list of the identifiers that the resource server presented with the token identifies as."),
      token: z.string().optional().describe("Token is the opaque bearer token."),
    })
    .meta({ description: "TokenReviewSpec is a description of the token authentication request." }),
  "api.authentication.v1.TokenReviewSpec",
);

/** `UserInfo`: who the token belongs to. */
export const userInfoSchema = named(
  z
    .object({
      extra: z.record(z.string(), atomicStrings()).optional().describe("Any additional information provided by the authenticator."),
      groups: atomicStrings().optional().describe("The names of groups this user is a part of."),
      uid: z.string().optional().describe("A unique value that identifies this user across time."),
      username: z.string().optional().describe("The name that uniquely identifies this user among all active users."),
    })
    .meta({ description: "UserInfo holds the information about the user needed to implement the user.Info interface." }),
  "api.authentication.v1.UserInfo",
);

/** `TokenReviewStatus`: the answer. */
export const tokenReviewStatusSchema = named(
  z
    .object({
      audiences: atomicStrings().optional().describe("Audiences are audience identifiers chosen by the authenticator that are compatible with both the TokenReview and token."),
      authenticated: z.boolean().optional().describe("Authenticated indicates that the token was associated with a known user."),
      error: z.string().optional().describe("Error indicates that the token couldn't be checked"),
      user: userInfoSchema.optional().describe("User is the UserInfo associated with the provided token."),
    })
    .meta({ description: "TokenReviewStatus is the result of the token authentication request." }),
  "api.authentication.v1.TokenReviewStatus",
);

/** The zod schema of a TokenReview in `v1`. */
export const tokenReviewV1Schema = kindSchema(
  {
    spec: tokenReviewSpecSchema.optional().describe("Spec holds information about the request being evaluated"),
    status: tokenReviewStatusSchema.optional().describe("Status is filled in by the server and indicates whether the request can be authenticated."),
  },
  "TokenReview attempts to authenticate a token to a known user.",
);

/**
 * The rule of a TokenReview: `spec.token` must be given. As in the reference this is not a field
 * error but a 400.
 * @throws StatusError 400 BadRequest `token must be supplied` when `spec.token` is empty.
 */
export function validateTokenReview(object: APIObject): FieldError[] {
  const token = record(object["spec"])?.["token"];
  if (typeof token !== "string" || token === "") throw badRequest("token must be supplied");
  return [];
}

/** The error every review answers until authenticators are plugged in. */
export const noAuthenticatorError = "token authentication is not configured";

/**
 * The answer of the placeholder authenticator: `status.authenticated` false with error
 * {@link noAuthenticatorError}, whatever the token. The authentication issue plugs the real
 * authenticators in through the same `strategy.evaluate` hook; until then no token is accepted.
 */
export function evaluateTokenReview(object: APIObject): APIObject {
  return { ...object, status: { authenticated: false, error: noAuthenticatorError } };
}

/** The TokenReview resource type: virtual, `create` only, answered by `strategy.evaluate`. */
export const tokenReviewType: ResourceType = {
  group: "authentication.{domain}",
  resource: "tokenreviews",
  singular: "tokenreview",
  kind: "TokenReview",
  scope: "Cluster",
  versions: [{ name: "v1", schema: tokenReviewV1Schema, storage: true }],
  verbs: ["create"],
  virtual: true,
  strategy: {
    validate: (object) => validateTokenReview(object),
    // The authentication issue replaces this placeholder with the configured authenticators.
    evaluate: (object) => evaluateTokenReview(object),
  },
};
