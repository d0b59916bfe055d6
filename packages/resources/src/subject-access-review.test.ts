import { type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import type { AccessAttributes, AccessDecision } from "./resource-type.js";
import {
  accessAttributesFrom,
  accessReviewStatus,
  allowAllReason,
  evaluateSubjectAccessReview,
  subjectAccessReviewType,
  subjectOf,
  validateSubjectAccessReview,
} from "./subject-access-review.js";

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
    [
      "no attributes",
      sar({ user: "alice" }),
      [["spec.resourceAttributes", "FieldValueInvalid", "exactly one of nonResourceAttributes or resourceAttributes must be specified"]],
    ],
    [
      "neither user nor groups",
      sar({ resourceAttributes: { verb: "get" }, groups: [] }),
      [["spec.user", "FieldValueInvalid", "at least one of user or group must be specified"]],
    ],
    ["metadata", sar({ user: "alice", resourceAttributes: { verb: "get" } }, { name: "x" }), [["metadata", "FieldValueInvalid", "must be empty"]]],
  ])("refuses %s", (_what, object, expected) => {
    expect(errorsOf(validateSubjectAccessReview(object))).toEqual(expected);
  });

  it("answers allowed with allowAllReason where no authorizer is plugged in (no server)", async () => {
    const answer = await subjectAccessReviewType.strategy?.evaluate?.(sar({ user: "alice", resourceAttributes: { verb: "delete", resource: "nodes" } }), ctx);
    expect(answer).toMatchObject({ spec: { user: "alice" }, status: { allowed: true, reason: allowAllReason } });
    expect(allowAllReason).toBe("orch: every request is allowed");
  });

  it("asks the server's authorizer about the spec's user and resource attributes", async () => {
    const asked: AccessAttributes[] = [];
    const authorizing = {
      ...ctx,
      user: { name: "caller", groups: ["system:masters"] },
      authorize: async (attributes: AccessAttributes): Promise<AccessDecision> => {
        asked.push(attributes);
        return { decision: "allow", reason: 'RBAC: allowed by RoleBinding "x/ns"' };
      },
    };
    const spec = {
      user: "alice",
      groups: ["dev"],
      uid: "u-1",
      extra: { scopes: ["a"] },
      resourceAttributes: { namespace: "ns", verb: "get", group: "apps", resource: "deployments", subresource: "scale", name: "web" },
    };
    const answer = await subjectAccessReviewType.strategy?.evaluate?.(sar(spec), authorizing);
    expect(answer).toMatchObject({ spec, status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "x/ns"' } });
    expect((answer as APIObject)["status"]).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "x/ns"' });
    expect(asked).toEqual([
      {
        user: { name: "alice", groups: ["dev"], uid: "u-1", extra: { scopes: ["a"] } },
        verb: "get",
        resourceRequest: true,
        apiGroup: "apps",
        apiVersion: "*",
        resource: "deployments",
        subresource: "scale",
        namespace: "ns",
        name: "web",
      },
    ]);
  });

  it("asks about a non-resource path", () => {
    expect(accessAttributesFrom({ name: "bob", groups: [] }, { nonResourceAttributes: { path: "/healthz", verb: "get" } })).toEqual({
      user: { name: "bob", groups: [] },
      verb: "get",
      resourceRequest: false,
      path: "/healthz",
    });
    expect(subjectOf({ groups: ["g"] })).toEqual({ name: "", groups: ["g"] });
  });

  it.each([
    [{ decision: "allow", reason: "" }, { allowed: true }],
    [
      { decision: "deny", reason: "Everything is forbidden." },
      { allowed: false, denied: true, reason: "Everything is forbidden." },
    ],
    [
      { decision: "noOpinion", reason: "", error: "webhook down" },
      { allowed: false, evaluationError: "webhook down" },
    ],
  ] as [AccessDecision, Record<string, unknown>][])("answers the decision %o as the status %o", async (decision, status) => {
    expect(accessReviewStatus(decision)).toEqual(status);
    const answer = await evaluateSubjectAccessReview(sar({ user: "alice", nonResourceAttributes: { path: "/x", verb: "get" } }), {
      ...ctx,
      authorize: async () => decision,
    });
    expect(answer["status"]).toEqual(status);
  });
});
