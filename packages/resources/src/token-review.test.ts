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

  it("answers unauthenticated until the authentication issue plugs authenticators in", async () => {
    const answer = await tokenReviewType.strategy?.evaluate?.(review({ token: "abc" }), ctx);
    expect(answer).toMatchObject({ spec: { token: "abc" }, status: { authenticated: false, error: "token authentication is not configured" } });
    expect(noAuthenticatorError).toBe("token authentication is not configured");
  });
});
