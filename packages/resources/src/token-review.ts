/**
 * TokenReview (`authentication.{domain}/v1`, cluster-scoped, virtual: only `create`, answered
 * and never stored): asks the server to authenticate a bearer token.
 * @module
 */
import { badRequest, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { record } from "./internal/rules.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
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
      audiences: atomicStrings()
        .optional()
        .describe("Audiences are audience identifiers chosen by the authenticator that are compatible with both the TokenReview and token."),
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

/** The error of a review on a server that has no token authenticator (a strategy run without one). */
export const noAuthenticatorError = "token authentication is not configured";

/**
 * The answer to a TokenReview: `status` as the server's token authenticators found it, through
 * `ctx.reviewToken` (absent only where a strategy runs without a server: then unauthenticated
 * with {@link noAuthenticatorError}). `spec.audiences` are the review's; empty means the
 * server's own. As in the reference, the refusal's cause is in `status.error` (the caller of a
 * TokenReview is trusted to read it; a request with that token would only see `Unauthorized`).
 */
export async function evaluateTokenReview(object: APIObject, ctx: StrategyContext): Promise<APIObject> {
  const spec = record(object["spec"]) ?? {};
  const token = typeof spec["token"] === "string" ? spec["token"] : "";
  const audiences = Array.isArray(spec["audiences"]) ? spec["audiences"].filter((a): a is string => typeof a === "string") : [];
  const status = ctx.reviewToken ? await ctx.reviewToken(token, audiences) : { authenticated: false, error: noAuthenticatorError };
  return { ...object, status };
}

/** v1beta1 and v1 TokenReviews have the same fields: conversion is a change of `apiVersion`. */
function withAPIVersion(apiVersion: (object: APIObject) => string): (object: APIObject) => APIObject {
  return (object) => ({ ...object, apiVersion: apiVersion(object) });
}

/** `authentication.<domain>/<version>` of an object's own `apiVersion`, with another version. */
function sameGroup(object: APIObject, version: string): string {
  const group = String(object.apiVersion ?? "").split("/")[0] ?? "";
  return `${group}/${version}`;
}

/**
 * The TokenReview resource type: virtual, `create` only, answered by the server's token
 * authenticators; served in `v1` and `v1beta1` (the version the token webhook speaks by default).
 */
export const tokenReviewType: ResourceType = {
  group: "authentication.{domain}",
  resource: "tokenreviews",
  singular: "tokenreview",
  kind: "TokenReview",
  scope: "Cluster",
  versions: [
    { name: "v1", schema: tokenReviewV1Schema, storage: true },
    {
      name: "v1beta1",
      schema: tokenReviewV1Schema,
      storage: false,
      toStorage: withAPIVersion((o) => sameGroup(o, "v1")),
      fromStorage: withAPIVersion((o) => sameGroup(o, "v1beta1")),
    },
  ],
  verbs: ["create"],
  virtual: true,
  strategy: {
    validate: (object) => validateTokenReview(object),
    evaluate: (object, ctx) => evaluateTokenReview(object, ctx),
  },
};
