import { type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { allowAllReason, subjectAccessReviewType, validateSubjectAccessReview } from "./subject-access-review.js";

const ctx = { domain: "orch.io", now: 0 };
const sar = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): APIObject => ({
  apiVersion: "authorization.orch.io/v1",
  kind: "SubjectAccessReview",
  metadata,
  spec,
});
const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);

describe("SubjectAccessReview", () => {
  it("is a virtual, cluster-scoped authorization kind offering only create", () => {
    expect(subjectAccessReviewType).toMatchObject({
      group: "authorization.{domain}",
      resource: "subjectaccessreviews",
      kind: "SubjectAccessReview",
      scope: "Cluster",
      virtual: true,
      verbs: ["create"],
    });
  });

  it.each([
    ["resource attributes and a user", { user: "alice", resourceAttributes: { verb: "get", resource: "pods", namespace: "ns" } }],
    ["non-resource attributes and groups", { groups: ["system:masters"], nonResourceAttributes: { path: "/healthz", verb: "get" } }],
  ])("accepts %s", (_what, spec) => {
    expect(validateSubjectAccessReview(sar(spec))).toEqual([]);
  });

  it.each([
    [
      "both attribute kinds",
      sar({ user: "alice", resourceAttributes: { verb: "get" }, nonResourceAttributes: { path: "/", verb: "get" } }),
      [["spec.nonResourceAttributes", "FieldValueInvalid", "cannot be specified in combination with resourceAttributes"]],
    ],
    ["no attributes", sar({ user: "alice" }), [["spec.resourceAttributes", "FieldValueInvalid", "exactly one of nonResourceAttributes or resourceAttributes must be specified"]]],
    ["neither user nor groups", sar({ resourceAttributes: { verb: "get" }, groups: [] }), [["spec.user", "FieldValueInvalid", "at least one of user or group must be specified"]]],
    ["metadata", sar({ user: "alice", resourceAttributes: { verb: "get" } }, { name: "x" }), [["metadata", "FieldValueInvalid", "must be empty"]]],
  ])("refuses %s", (_what, object, expected) => {
    expect(errorsOf(validateSubjectAccessReview(object))).toEqual(expected);
  });

  it("answers every review with allowed until the authorization issue plugs the authorizer in", async () => {
    const answer = await subjectAccessReviewType.strategy?.evaluate?.(sar({ user: "alice", resourceAttributes: { verb: "delete", resource: "nodes" } }), ctx);
    expect(answer).toMatchObject({ spec: { user: "alice" }, status: { allowed: true, reason: allowAllReason } });
    expect(allowAllReason).toBe("orch: every request is allowed");
  });
});
