import { type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { localSubjectAccessReviewType, validateLocalSubjectAccessReview } from "./local-subject-access-review.js";
import type { AccessAttributes, StrategyContext } from "./resource-type.js";

const lsar = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { namespace: "ns" }): APIObject => ({
  apiVersion: "authorization.k8s.io/v1",
  kind: "LocalSubjectAccessReview",
  metadata,
  spec,
});
const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);

describe("LocalSubjectAccessReview", () => {
  it("is a virtual, namespaced authorization kind offering only create", () => {
    expect(localSubjectAccessReviewType).toMatchObject({
      group: "authorization.{domain}",
      resource: "localsubjectaccessreviews",
      kind: "LocalSubjectAccessReview",
      scope: "Namespaced",
      virtual: true,
      verbs: ["create"],
    });
  });

  it("accepts a question about its own namespace", () => {
    expect(validateLocalSubjectAccessReview(lsar({ user: "alice", resourceAttributes: { namespace: "ns", verb: "get", resource: "pods" } }))).toEqual([]);
  });

  it.each([
    [
      "another namespace",
      lsar({ user: "alice", resourceAttributes: { namespace: "other", verb: "get" } }),
      [["spec.resourceAttributes.namespace", "FieldValueInvalid", "must match metadata.namespace"]],
    ],
    [
      "no namespace",
      lsar({ user: "alice", resourceAttributes: { verb: "get" } }),
      [["spec.resourceAttributes.namespace", "FieldValueInvalid", "must match metadata.namespace"]],
    ],
    [
      "a non-resource path",
      lsar({ groups: ["g"], nonResourceAttributes: { path: "/", verb: "get" } }),
      [["spec.nonResourceAttributes", "FieldValueInvalid", "disallowed on this kind of request"]],
    ],
    [
      "no user nor groups",
      lsar({ resourceAttributes: { namespace: "ns", verb: "get" } }),
      [["spec.user", "FieldValueInvalid", "at least one of user or group must be specified"]],
    ],
    [
      "a name",
      lsar({ user: "alice", resourceAttributes: { namespace: "ns" } }, { namespace: "ns", name: "x" }),
      [["metadata", "FieldValueInvalid", "must be empty except for namespace"]],
    ],
  ])("refuses %s", (_what, object, expected) => {
    expect(errorsOf(validateLocalSubjectAccessReview(object))).toEqual(expected);
  });

  it("answers with the server's authorizer about the spec's user", async () => {
    const asked: AccessAttributes[] = [];
    const ctx: StrategyContext = {
      domain: "k8s.io",
      now: 0,
      user: { name: "caller", groups: [] },
      authorize: async (attributes) => {
        asked.push(attributes);
        return { decision: "noOpinion", reason: "no RBAC policy matched" };
      },
    };
    const answer = await localSubjectAccessReviewType.strategy?.evaluate?.(
      lsar({ user: "alice", resourceAttributes: { namespace: "ns", verb: "list", resource: "pods" } }),
      ctx,
    );
    expect(answer?.["status"]).toEqual({ allowed: false, reason: "no RBAC policy matched" });
    expect(asked.map((a) => [a.user.name, a.verb, a.namespace, a.resource])).toEqual([["alice", "list", "ns", "pods"]]);
  });
});
