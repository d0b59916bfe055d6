import { isBadRequest, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { noAuthenticatorError, tokenReviewType, validateTokenReview } from "./token-review.js";

const ctx = { domain: "orch.io", now: 0 };
const review = (spec: Record<string, unknown>): APIObject => ({ apiVersion: "authentication.orch.io/v1", kind: "TokenReview", metadata: {}, spec });

describe("TokenReview", () => {
  it("is a virtual, cluster-scoped authentication kind offering only create", () => {
    expect(tokenReviewType).toMatchObject({
      group: "authentication.{domain}",
      resource: "tokenreviews",
      kind: "TokenReview",
      scope: "Cluster",
      virtual: true,
      verbs: ["create"],
    });
  });

  it("accepts a token with audiences", () => {
    expect(validateTokenReview(review({ token: "abc", audiences: ["api"] }))).toEqual([]);
  });

  it.each([
    ["no spec", { metadata: {} }],
    ["an empty token", review({ token: "" })],
    ["no token", review({ audiences: ["api"] })],
  ])("refuses %s with 400 token must be supplied, as the reference does", (_what, object) => {
    let thrown: unknown;
    try {
      validateTokenReview(object as APIObject);
    } catch (error) {
      thrown = error;
    }
    expect(isBadRequest(thrown)).toBe(true);
    expect((thrown as Error).message).toBe("token must be supplied");
  });

  it("answers unauthenticated, with the reason, where no token authenticator is supplied", async () => {
    const answer = await tokenReviewType.strategy?.evaluate?.(review({ token: "abc" }), ctx);
    expect(answer).toMatchObject({ spec: { token: "abc" }, status: { authenticated: false, error: noAuthenticatorError } });
  });

  it("answers with what the server's token authenticators found, for the review's audiences", async () => {
    const asked: unknown[] = [];
    const reviewing = {
      ...ctx,
      reviewToken: async (token: string, audiences: readonly string[]) => {
        asked.push([token, audiences]);
        return { authenticated: true, user: { username: "alice", groups: ["dev", "system:authenticated"] }, audiences: ["api"] };
      },
    };
    const answer = await tokenReviewType.strategy?.evaluate?.(review({ token: "abc", audiences: ["api", "other"] }), reviewing);
    expect(asked).toEqual([["abc", ["api", "other"]]]);
    expect(answer?.status).toEqual({ authenticated: true, user: { username: "alice", groups: ["dev", "system:authenticated"] }, audiences: ["api"] });
  });

  it("is served in v1 and v1beta1, converting by apiVersion alone", () => {
    const beta = tokenReviewType.versions.find((v) => v.name === "v1beta1");
    const object = { apiVersion: "authentication.orch.io/v1beta1", kind: "TokenReview", metadata: {}, spec: { token: "t" } };
    const stored = beta?.toStorage?.(object);
    expect(stored).toEqual({ ...object, apiVersion: "authentication.orch.io/v1" });
    expect(beta?.fromStorage?.(stored as APIObject)).toEqual(object);
  });
});
