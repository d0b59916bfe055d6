import { describe, expect, it } from "vitest";
import type { AuditPolicyError } from "./policy.js";
import { evaluatePolicy, parseAuditPolicy, policyDecision, ruleMatches, type AuditAttributes, type AuditPolicyRule } from "./policy.js";

const alice = { name: "alice", groups: ["dev", "system:authenticated"] };
const get = (over: Partial<AuditAttributes> = {}): AuditAttributes => ({
  user: alice,
  verb: "get",
  resourceRequest: true,
  path: "/api/v1/namespaces/dev/pods/web",
  apiGroup: "",
  resource: "pods",
  subresource: "",
  namespace: "dev",
  name: "web",
  ...over,
});
const nonResource = (path: string): AuditAttributes => ({ user: alice, verb: "get", resourceRequest: false, path });
const rule = (over: Partial<AuditPolicyRule>): AuditPolicyRule => ({ level: "Metadata", ...over });

describe("ruleMatches", () => {
  it("matches users, userGroups and verbs", () => {
    expect(ruleMatches(rule({ users: ["alice"] }), get())).toBe(true);
    expect(ruleMatches(rule({ users: ["bob"] }), get())).toBe(false);
    expect(ruleMatches(rule({ userGroups: ["ops", "dev"] }), get())).toBe(true);
    expect(ruleMatches(rule({ userGroups: ["ops"] }), get())).toBe(false);
    expect(ruleMatches(rule({ verbs: ["get", "list"] }), get())).toBe(true);
    expect(ruleMatches(rule({ verbs: ["create"] }), get())).toBe(false);
  });

  it("matches resources by group, name, sub-resource and wildcard", () => {
    const log = get({ subresource: "log" });
    expect(ruleMatches(rule({ resources: [{ group: "", resources: ["pods"] }] }), get())).toBe(true);
    expect(ruleMatches(rule({ resources: [{ group: "", resources: ["pods"] }] }), log)).toBe(false);
    expect(ruleMatches(rule({ resources: [{ group: "", resources: ["pods/log"] }] }), log)).toBe(true);
    expect(ruleMatches(rule({ resources: [{ group: "", resources: ["pods/*"] }] }), log)).toBe(true);
    expect(ruleMatches(rule({ resources: [{ group: "", resources: ["*/log"] }] }), log)).toBe(true);
    expect(ruleMatches(rule({ resources: [{ group: "", resources: ["*"] }] }), log)).toBe(true);
    expect(ruleMatches(rule({ resources: [{ group: "" }] }), log)).toBe(true);
    expect(ruleMatches(rule({ resources: [{ group: "apps", resources: ["*"] }] }), get())).toBe(false);
    expect(ruleMatches(rule({ resources: [{ resources: ["pods"], resourceNames: ["web"] }] }), get())).toBe(true);
    expect(ruleMatches(rule({ resources: [{ resources: ["pods"], resourceNames: ["db"] }] }), get())).toBe(false);
  });

  it("matches namespaces, with '' for cluster-scoped objects", () => {
    expect(ruleMatches(rule({ namespaces: ["dev"] }), get())).toBe(true);
    expect(ruleMatches(rule({ namespaces: ["prod"] }), get())).toBe(false);
    expect(ruleMatches(rule({ namespaces: [""] }), get({ resource: "nodes", namespace: "" }))).toBe(true);
  });

  it("matches nonResourceURLs (a trailing * is a prefix) only for non-resource requests", () => {
    expect(ruleMatches(rule({ nonResourceURLs: ["/healthz"] }), nonResource("/healthz"))).toBe(true);
    expect(ruleMatches(rule({ nonResourceURLs: ["/healthz*"] }), nonResource("/healthz/etcd"))).toBe(true);
    expect(ruleMatches(rule({ nonResourceURLs: ["/version"] }), nonResource("/healthz"))).toBe(false);
    expect(ruleMatches(rule({ nonResourceURLs: ["*"] }), get())).toBe(false);
    expect(ruleMatches(rule({ resources: [{ group: "" }] }), nonResource("/healthz"))).toBe(false);
    expect(ruleMatches(rule({}), nonResource("/healthz"))).toBe(true);
  });
});

describe("evaluatePolicy", () => {
  it("takes the first matching rule, None without one, and merges omitStages", () => {
    const policy = {
      omitStages: ["RequestReceived" as const],
      rules: [rule({ level: "None", users: ["bob"] }), rule({ level: "RequestResponse", verbs: ["get"], omitStages: ["ResponseStarted" as const] }), rule({})],
    };
    expect(evaluatePolicy(policy, get())).toEqual({ level: "RequestResponse", omitStages: ["RequestReceived", "ResponseStarted"] });
    expect(evaluatePolicy(policy, get({ user: { name: "bob", groups: [] } }))).toEqual({ level: "None", omitStages: ["RequestReceived"] });
    expect(evaluatePolicy(policy, get({ verb: "list" })).level).toBe("Metadata");
    expect(evaluatePolicy({ rules: [rule({ users: ["carol"] })] }, get())).toEqual({ level: "None", omitStages: [] });
  });

  it("gives each decision a list of its own, and follows stages changed between requests", () => {
    const policy = { omitStages: ["RequestReceived" as const], rules: [rule({ omitStages: ["ResponseStarted" as const] })] };
    const first = evaluatePolicy(policy, get());
    first.omitStages.push("Panic");
    expect(evaluatePolicy(policy, get()).omitStages).toEqual(["RequestReceived", "ResponseStarted"]);
    policy.omitStages = [];
    expect(evaluatePolicy(policy, get()).omitStages).toEqual(["ResponseStarted"]);
    policy.rules[0]!.omitStages = ["Panic"];
    expect(evaluatePolicy(policy, get()).omitStages).toEqual(["Panic"]);
  });

  it("caps secrets at Metadata unless the matching rule names secrets", () => {
    const secret = get({ resource: "secrets", name: "token" });
    expect(evaluatePolicy({ rules: [rule({ level: "RequestResponse" })] }, secret).level).toBe("Metadata");
    expect(evaluatePolicy({ rules: [rule({ level: "Request", resources: [{ group: "", resources: ["*"] }] })] }, secret).level).toBe("Metadata");
    expect(evaluatePolicy({ rules: [rule({ level: "Request", resources: [{ group: "", resources: ["secrets"] }] })] }, secret).level).toBe("Request");
    expect(evaluatePolicy({ rules: [rule({ level: "None" })] }, secret).level).toBe("None");
    expect(evaluatePolicy({ rules: [rule({ level: "RequestResponse" })] }, get({ resource: "configmaps" })).level).toBe("RequestResponse");
  });
});

describe("policyDecision", () => {
  it("decides as evaluatePolicy, sharing one frozen decision per rule across requests", () => {
    const policy = { omitStages: ["RequestReceived" as const], rules: [rule({ level: "None", users: ["bob"] }), rule({ level: "Request" })] };
    const first = policyDecision(policy, get());
    expect(first).toEqual(evaluatePolicy(policy, get()));
    expect(policyDecision(policy, get({ name: "other" }))).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.omitStages)).toBe(true);
    expect(policyDecision(policy, get({ user: { name: "bob", groups: [] } }))).toEqual({ level: "None", omitStages: ["RequestReceived"] });
    expect(policyDecision({ rules: [] }, get())).toEqual({ level: "None", omitStages: [] });
  });

  it("caps a secret at Metadata with the rule's stages, and follows a level or stages changed between requests", () => {
    const policy = { rules: [rule({ level: "RequestResponse", omitStages: ["Panic" as const] })] };
    expect(policyDecision(policy, get({ resource: "secrets" }))).toEqual({ level: "Metadata", omitStages: ["Panic"] });
    expect(policyDecision(policy, get())).toEqual({ level: "RequestResponse", omitStages: ["Panic"] });
    policy.rules[0]!.level = "Request";
    expect(policyDecision(policy, get()).level).toBe("Request");
    policy.rules[0]!.omitStages = [];
    expect(policyDecision(policy, get()).omitStages).toEqual([]);
  });
});

describe("parseAuditPolicy", () => {
  it("parses YAML and JSON", () => {
    const yaml = `apiVersion: audit.orch.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ["/healthz*"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["configmaps", "pods/log"]
        resourceNames: ["a"]
    namespaces: [dev]
    verbs: [create]
    omitStages: [ResponseStarted]
  - level: Metadata
    users: [alice]
    userGroups: [dev]
`;
    expect(parseAuditPolicy(yaml, "orch.io")).toEqual({
      omitStages: ["RequestReceived"],
      rules: [
        { level: "None", nonResourceURLs: ["/healthz*"] },
        {
          level: "RequestResponse",
          resources: [{ group: "", resources: ["configmaps", "pods/log"], resourceNames: ["a"] }],
          namespaces: ["dev"],
          verbs: ["create"],
          omitStages: ["ResponseStarted"],
        },
        { level: "Metadata", users: ["alice"], userGroups: ["dev"] },
      ],
    });
    const json = JSON.stringify({ apiVersion: "audit.k8s.io/v1", kind: "Policy", rules: [{ level: "Metadata" }] });
    expect(parseAuditPolicy(json, "k8s.io")).toEqual({ rules: [{ level: "Metadata" }] });
  });

  const error = (text: string): AuditPolicyError => {
    try {
      parseAuditPolicy(text, "orch.io");
    } catch (e) {
      return e as AuditPolicyError;
    }
    throw new Error("expected an error");
  };

  it("names the line of what is wrong", () => {
    const head = "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n";
    expect(error(`${head}  - level: Metadata\n  - level: Everything\n`).message).toBe(
      'line 5: rules[1].level: level must be one of None, Metadata, Request, RequestResponse, not "Everything"',
    );
    expect(error(`${head}  - level: Metadata\n    omitStages: [Later]\n`).message).toMatch(/^line 5: rules\[0\]\.omitStages\[0\]: unknown stage "Later"/);
    expect(error(`${head}  - level: Metadata\n    nonResourceURLs: ["/a"]\n    namespaces: [x]\n`).message).toMatch(
      /^line 5: rules\[0\]\.nonResourceURLs: rules cannot apply to both/,
    );
    expect(error(`${head}  - level: Metadata\n    nonResourceURLs: ["/a*/b"]\n`).message).toMatch(/^line 5: .*only at the end/);
    expect(error(`${head}  - level: Metadata\n    verbs: get\n`).message).toBe("line 5: rules[0].verbs: must be a list of strings");
    expect(error(`${head}  - level: Metadata\n    resources: [{group: "", resources: ["a/b/c"]}]\n`).message).toMatch(/^line 5: .*invalid resource "a\/b\/c"/);
    expect(error(`${head}  - level: Metadata\n    user: [a]\n`).message).toBe('line 5: rules[0].user: unknown field "user"');
    expect(error("apiVersion: audit.orch.io/v1\nkind: Pol\n").message).toMatch(/^line 2: kind: kind must be Policy/);
    expect(error("apiVersion: v1\nkind: Policy\n").message).toMatch(/^line 1: apiVersion: apiVersion must be audit.orch.io\/v1/);
    expect(error("kind: Policy\nrules: [\n").line).toBeGreaterThan(0);
    expect(error("- a\n").message).toMatch(/^line 1: an audit policy must be an object/);
  });
});
