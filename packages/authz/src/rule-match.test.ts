import { describe, expect, it } from "vitest";
import type { Attributes } from "./authorizer.js";
import type { PolicyRule } from "./rbac-types.js";
import { apiGroupMatches, nonResourceURLMatches, requestOf, resourceMatches, resourceNameMatches, ruleAllows, verbMatches } from "./rule-match.js";

const user = { name: "alice", groups: ["system:authenticated"] };

function resourceRequest(verb: string, apiGroup: string, resource: string, extra: Partial<Attributes> = {}): Attributes {
  return { user, verb, resourceRequest: true, apiGroup, apiVersion: "v1", resource, subresource: "", namespace: "default", name: "", ...extra };
}

describe("verbMatches", () => {
  it("matches a listed verb or *, and nothing for an empty list", () => {
    expect(verbMatches({ verbs: ["get", "list"] }, "list")).toBe(true);
    expect(verbMatches({ verbs: ["get", "list"] }, "watch")).toBe(false);
    expect(verbMatches({ verbs: ["*"] }, "approve")).toBe(true);
    expect(verbMatches({ verbs: [] }, "get")).toBe(false);
  });
});

describe("apiGroupMatches", () => {
  it('matches the core group only through "" or *', () => {
    expect(apiGroupMatches({ verbs: [], apiGroups: [""] }, "")).toBe(true);
    expect(apiGroupMatches({ verbs: [], apiGroups: ["apps"] }, "")).toBe(false);
    expect(apiGroupMatches({ verbs: [], apiGroups: ["*"] }, "batch")).toBe(true);
    expect(apiGroupMatches({ verbs: [] }, "")).toBe(false);
  });
});

describe("resourceMatches", () => {
  const rule = (...resources: string[]): PolicyRule => ({ verbs: ["get"], resources });

  it("matches every resource and every sub-resource with *", () => {
    expect(resourceMatches(rule("*"), "pods", "")).toBe(true);
    expect(resourceMatches(rule("*"), "pods", "log")).toBe(true);
  });

  it("matches a bare resource only without a sub-resource", () => {
    expect(resourceMatches(rule("pods"), "pods", "")).toBe(true);
    expect(resourceMatches(rule("pods"), "pods", "log")).toBe(false);
  });

  it("matches resource/subresource exactly", () => {
    expect(resourceMatches(rule("pods/log"), "pods", "log")).toBe(true);
    expect(resourceMatches(rule("pods/log"), "pods", "exec")).toBe(false);
    expect(resourceMatches(rule("pods/log"), "pods", "")).toBe(false);
  });

  it("matches */subresource for that sub-resource of every resource, never the resource itself", () => {
    expect(resourceMatches(rule("*/status"), "pods", "status")).toBe(true);
    expect(resourceMatches(rule("*/status"), "deployments", "status")).toBe(true);
    expect(resourceMatches(rule("*/status"), "pods", "")).toBe(false);
    expect(resourceMatches(rule("*/status"), "pods", "log")).toBe(false);
    expect(resourceMatches(rule("*/scale"), "pods", "status")).toBe(false);
  });

  it("has no pods/* form, as the reference: it does not match pods/log", () => {
    expect(resourceMatches(rule("pods/*"), "pods", "log")).toBe(false);
    expect(resourceMatches(rule("pods/*"), "pods", "")).toBe(false);
  });
});

describe("resourceNameMatches", () => {
  it("matches every name when the rule names none, else only the listed names", () => {
    expect(resourceNameMatches({ verbs: ["get"] }, "anything")).toBe(true);
    expect(resourceNameMatches({ verbs: ["get"], resourceNames: [] }, "")).toBe(true);
    expect(resourceNameMatches({ verbs: ["get"], resourceNames: ["a", "b"] }, "b")).toBe(true);
    expect(resourceNameMatches({ verbs: ["get"], resourceNames: ["a", "b"] }, "c")).toBe(false);
  });

  it("does not let a named rule match a collection request (empty name)", () => {
    expect(resourceNameMatches({ verbs: ["list"], resourceNames: ["a"] }, "")).toBe(false);
  });
});

describe("nonResourceURLMatches", () => {
  const rule = (...nonResourceURLs: string[]): PolicyRule => ({ verbs: ["get"], nonResourceURLs });

  it("matches * everywhere and a listed path exactly", () => {
    expect(nonResourceURLMatches(rule("*"), "/metrics")).toBe(true);
    expect(nonResourceURLMatches(rule("/version"), "/version")).toBe(true);
    expect(nonResourceURLMatches(rule("/version"), "/version/")).toBe(false);
  });

  it("treats a trailing * as a prefix, without requiring a path separator", () => {
    expect(nonResourceURLMatches(rule("/apis/*"), "/apis/apps/v1")).toBe(true);
    expect(nonResourceURLMatches(rule("/apis/*"), "/apis/")).toBe(true);
    expect(nonResourceURLMatches(rule("/apis/*"), "/apis")).toBe(false);
    expect(nonResourceURLMatches(rule("/healthz*"), "/healthzzz")).toBe(true);
  });
});

describe("ruleAllows", () => {
  it("allows a resource request when verb, group, resource and name all match", () => {
    const rule: PolicyRule = { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["cluster-info"] };
    expect(ruleAllows(resourceRequest("get", "", "configmaps", { name: "cluster-info" }), rule)).toBe(true);
    expect(ruleAllows(resourceRequest("get", "", "configmaps", { name: "other" }), rule)).toBe(false);
    expect(ruleAllows(resourceRequest("update", "", "configmaps", { name: "cluster-info" }), rule)).toBe(false);
    expect(ruleAllows(resourceRequest("get", "apps", "configmaps", { name: "cluster-info" }), rule)).toBe(false);
  });

  it("combines resource and sub-resource of the request", () => {
    const rule: PolicyRule = { verbs: ["create"], apiGroups: [""], resources: ["pods/eviction"] };
    expect(ruleAllows(resourceRequest("create", "", "pods", { subresource: "eviction" }), rule)).toBe(true);
    expect(ruleAllows(resourceRequest("create", "", "pods"), rule)).toBe(false);
  });

  it("matches a non-resource request on verb and path only, never through resource rules", () => {
    const pathRule: PolicyRule = { verbs: ["get"], nonResourceURLs: ["/healthz"] };
    const everything: PolicyRule = { verbs: ["*"], apiGroups: ["*"], resources: ["*"] };
    const healthz: Attributes = { user, verb: "get", resourceRequest: false, path: "/healthz" };
    expect(ruleAllows(healthz, pathRule)).toBe(true);
    expect(ruleAllows({ ...healthz, verb: "post" }, pathRule)).toBe(false);
    expect(ruleAllows(healthz, everything)).toBe(false);
    expect(ruleAllows(resourceRequest("get", "", "pods"), pathRule)).toBe(false);
  });

  it("reads absent attributes as empty strings", () => {
    const core: PolicyRule = { verbs: ["list"], apiGroups: [""], resources: ["pods"] };
    expect(ruleAllows({ user, verb: "list", resourceRequest: true, resource: "pods" }, core)).toBe(true);
  });
});

describe("requestOf", () => {
  it("joins resource and sub-resource and reads absent fields as empty", () => {
    expect(requestOf({ user, verb: "get", resourceRequest: true, resource: "pods", subresource: "log" })).toEqual({
      verb: "get",
      resourceRequest: true,
      apiGroup: "",
      combinedResource: "pods/log",
      subresource: "log",
      name: "",
      path: "",
    });
  });
});
