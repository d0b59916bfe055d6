import { isBadRequest, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import type { AccessAttributes, StrategyContext } from "./resource-type.js";
import { evaluateSelfSubjectAccessReview, selfSubjectAccessReviewType, validateSelfSubjectAccessReview } from "./self-subject-access-review.js";
import { allowAllReason } from "./subject-access-review.js";

const ssar = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): APIObject => ({
  apiVersion: "authorization.k8s.io/v1",
  kind: "SelfSubjectAccessReview",
  metadata,
  spec,
});
const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const alice = { name: "alice", uid: "u-1", groups: ["dev", "system:authenticated"] };

describe("SelfSubjectAccessReview", () => {
  it("is a virtual, cluster-scoped authorization kind offering only create", () => {
    expect(selfSubjectAccessReviewType).toMatchObject({
      group: "authorization.{domain}",
      resource: "selfsubjectaccessreviews",
      kind: "SelfSubjectAccessReview",
      scope: "Cluster",
      virtual: true,
      verbs: ["create"],
    });
  });

  it.each([
    [
      "both attribute kinds",
      ssar({ resourceAttributes: {}, nonResourceAttributes: {} }),
      [["spec.nonResourceAttributes", "FieldValueInvalid", "cannot be specified in combination with resourceAttributes"]],
    ],
    [
      "no attributes",
      ssar({}),
      [["spec.resourceAttributes", "FieldValueInvalid", "exactly one of nonResourceAttributes or resourceAttributes must be specified"]],
    ],
    ["metadata", ssar({ resourceAttributes: { verb: "get" } }, { name: "x" }), [["metadata", "FieldValueInvalid", "must be empty"]]],
    ["nothing wrong", ssar({ nonResourceAttributes: { path: "/healthz", verb: "get" } }), []],
  ])("validates %s", (_what, object, expected) => {
    expect(errorsOf(validateSelfSubjectAccessReview(object))).toEqual(expected);
  });

  it("asks the server's authorizer about the caller", async () => {
    const asked: AccessAttributes[] = [];
    const ctx: StrategyContext = {
      domain: "k8s.io",
      now: 0,
      user: alice,
      authorize: async (attributes) => {
        asked.push(attributes);
        return { decision: "deny", reason: "Everything is forbidden." };
      },
    };
    const answer = await evaluateSelfSubjectAccessReview(ssar({ resourceAttributes: { namespace: "ns", verb: "create", resource: "pods" } }), ctx);
    expect(answer["status"]).toEqual({ allowed: false, denied: true, reason: "Everything is forbidden." });
    expect(asked).toEqual([
      { user: alice, verb: "create", resourceRequest: true, apiGroup: "", apiVersion: "*", resource: "pods", subresource: "", namespace: "ns", name: "" },
    ]);
  });

  it("answers allowed without an authorizer, and 400 without a caller, as the reference", async () => {
    const answer = await evaluateSelfSubjectAccessReview(ssar({ nonResourceAttributes: { path: "/", verb: "get" } }), {
      domain: "k8s.io",
      now: 0,
      user: alice,
    });
    expect(answer["status"]).toEqual({ allowed: true, reason: allowAllReason });
    const error = await evaluateSelfSubjectAccessReview(ssar({ nonResourceAttributes: { path: "/", verb: "get" } }), { domain: "k8s.io", now: 0 }).catch(
      (e: unknown) => e,
    );
    expect(isBadRequest(error)).toBe(true);
    expect((error as { message: string }).message).toBe("no user present on request");
  });
});
