import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Attributes } from "../authorizer.js";
import type { PolicyRule } from "../rbac-types.js";
import { requestOf, ruleAllows } from "../rule-match.js";
import { CompiledRule, compileRules, trimTrailingStars } from "./compiled-rule.js";

const user = { name: "u", groups: [] };
const word = (...values: string[]) => fc.constantFrom(...values);
const list = (values: fc.Arbitrary<string>) => fc.array(values, { maxLength: 3 });

const verb = word("get", "list", "create", "*");
const group = word("", "apps", "*");
const resource = word("pods", "pods/log", "pods/status", "*/status", "*", "pods/*", "deployments", "*/log");
const name = word("a", "b", "");
const url = word("/healthz", "/apis", "/apis/*", "*", "/api*", "/version/");

const rule: fc.Arbitrary<PolicyRule> = fc.record(
  { verbs: list(verb), apiGroups: list(group), resources: list(resource), resourceNames: list(name), nonResourceURLs: list(url) },
  { requiredKeys: ["verbs"] },
);

const attributes: fc.Arbitrary<Attributes> = fc.record({
  user: fc.constant(user),
  verb: word("get", "list", "create", "delete"),
  resourceRequest: fc.boolean(),
  apiGroup: word("", "apps", "batch"),
  resource: word("pods", "deployments", "*"),
  subresource: word("", "log", "status", "*"),
  name: name,
  path: word("/healthz", "/apis", "/apis/apps", "/api", "/apiextra", "/version/", "/"),
});

describe("CompiledRule", () => {
  it("decides every request as ruleAllows decides it on the source rule", () => {
    fc.assert(
      fc.property(rule, attributes, (r, a) => {
        expect(new CompiledRule(r).allows(requestOf(a))).toBe(ruleAllows(a, r));
      }),
      { numRuns: 5000 },
    );
  });

  it("compiles a missing rule list to no rules", () => {
    expect(compileRules(undefined)).toEqual([]);
    expect(compileRules([{ verbs: ["get"] }])).toHaveLength(1);
  });
});

describe("trimTrailingStars", () => {
  it("drops every trailing * and nothing else", () => {
    expect(trimTrailingStars("/apis/**")).toBe("/apis/");
    expect(trimTrailingStars("*")).toBe("");
    expect(trimTrailingStars("/a*b")).toBe("/a*b");
  });
});
