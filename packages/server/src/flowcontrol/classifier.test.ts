import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { bootstrapConfiguration } from "./bootstrap.js";
import { classify, nonResourceRuleMatches, resourceRuleMatches, sortFlowSchemas, subjectMatches, type RequestDigest } from "./classifier.js";

const b = bootstrapConfiguration("orch.io");
const levels = new Map<string, APIObject>([...b.mandatoryPriorityLevels, ...b.suggestedPriorityLevels].map((o) => [o.metadata.name ?? "", o]));
const all = sortFlowSchemas([...b.mandatoryFlowSchemas, ...b.suggestedFlowSchemas]);

const alice = { name: "alice", groups: ["system:authenticated"] };
const list = (user = alice, namespace = "default"): RequestDigest => ({
  user,
  isResourceRequest: true,
  verb: "list",
  apiGroup: "",
  resource: "configmaps",
  subresource: "",
  namespace,
});

const schema = (name: string, precedence: number, level: string, rules: unknown[], distinguisher?: string): APIObject => ({
  apiVersion: "flowcontrol.apiserver.orch.io/v1beta2",
  kind: "FlowSchema",
  metadata: { name },
  spec: {
    matchingPrecedence: precedence,
    priorityLevelConfiguration: { name: level },
    rules,
    ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
  },
});

describe("classify with the built-in configuration", () => {
  it("sends system:masters to exempt, nodes to system-nodes, others to global-default by user", () => {
    expect(classify(list({ name: "admin", groups: ["system:masters", "system:authenticated"] }), all, levels)?.flowSchema.metadata.name).toBe("exempt");
    expect(classify(list({ name: "system:node:n1", groups: ["system:nodes", "system:authenticated"] }), all, levels)?.priorityLevel.metadata.name).toBe(
      "system",
    );
    const c = classify(list(), all, levels);
    expect(c?.flowSchema.metadata.name).toBe("global-default");
    expect(c?.distinguisher).toBe("alice");
  });

  it("sends probes of anyone to exempt, and a service account of orch-system to workload-high by namespace", () => {
    const probe: RequestDigest = {
      user: { name: "system:anonymous", groups: ["system:unauthenticated"] },
      isResourceRequest: false,
      verb: "get",
      path: "/readyz",
    };
    expect(classify(probe, all, levels)?.priorityLevel.metadata.name).toBe("exempt");
    const sa = { name: "system:serviceaccount:orch-system:foo", groups: ["system:serviceaccounts", "system:authenticated"] };
    const c = classify(list(sa, "apps"), all, levels);
    expect(c?.flowSchema.metadata.name).toBe("kube-system-service-accounts");
    expect(c?.distinguisher).toBe("apps");
    expect(classify(list({ name: "system:serviceaccount:ns:foo", groups: ["system:serviceaccounts"] }), all, levels)?.priorityLevel.metadata.name).toBe(
      "workload-low",
    );
  });

  it("takes the smallest precedence, then the name, and skips a dangling schema for catch-all", () => {
    const rule = {
      subjects: [{ kind: "User", user: { name: "alice" } }],
      resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"] }],
    };
    const mine = sortFlowSchemas([...all, schema("b-mine", 50, "workload-high", [rule]), schema("a-mine", 50, "workload-low", [rule])]);
    expect(classify(list(), mine, levels)?.flowSchema.metadata.name).toBe("a-mine");
    const dangling = sortFlowSchemas([...b.mandatoryFlowSchemas, schema("mine", 50, "absent", [rule])]);
    const mandatoryLevels = new Map(b.mandatoryPriorityLevels.map((o) => [o.metadata.name ?? "", o]));
    expect(classify(list(), dangling, mandatoryLevels)?.flowSchema.metadata.name).toBe("catch-all");
  });
});

describe("subjects", () => {
  it("match users, groups and service accounts by name or *", () => {
    expect(subjectMatches({ kind: "User", user: { name: "alice" } }, alice)).toBe(true);
    expect(subjectMatches({ kind: "User", user: { name: "bob" } }, alice)).toBe(false);
    expect(subjectMatches({ kind: "User", user: { name: "*" } }, alice)).toBe(true);
    expect(subjectMatches({ kind: "Group", group: { name: "system:authenticated" } }, alice)).toBe(true);
    expect(subjectMatches({ kind: "Group", group: { name: "devs" } }, alice)).toBe(false);
    expect(subjectMatches({ kind: "Group", group: { name: "*" } }, alice)).toBe(true);
    const sa = { name: "system:serviceaccount:ns1:builder", groups: [] };
    expect(subjectMatches({ kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "builder" } }, sa)).toBe(true);
    expect(subjectMatches({ kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "*" } }, sa)).toBe(true);
    expect(subjectMatches({ kind: "ServiceAccount", serviceAccount: { namespace: "ns2", name: "*" } }, sa)).toBe(false);
    expect(subjectMatches({ kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "*" } }, alice)).toBe(false);
  });
});

describe("resource rules", () => {
  const rule = { verbs: ["get", "list"], apiGroups: ["apps"], resources: ["deployments", "deployments/scale"], namespaces: ["team-a"] };
  const req = (over: Partial<RequestDigest>): RequestDigest => ({
    user: alice,
    isResourceRequest: true,
    verb: "get",
    apiGroup: "apps",
    resource: "deployments",
    subresource: "",
    namespace: "team-a",
    ...over,
  });

  it("match verb, group, resource (with sub-resource) and namespace", () => {
    expect(resourceRuleMatches(rule, req({}))).toBe(true);
    expect(resourceRuleMatches(rule, req({ subresource: "scale" }))).toBe(true);
    expect(resourceRuleMatches(rule, req({ subresource: "status" }))).toBe(false);
    expect(resourceRuleMatches(rule, req({ verb: "delete" }))).toBe(false);
    expect(resourceRuleMatches(rule, req({ apiGroup: "" }))).toBe(false);
    expect(resourceRuleMatches(rule, req({ namespace: "team-b" }))).toBe(false);
  });

  it("match a request without namespace only with clusterScope; * namespaces match any named one", () => {
    expect(resourceRuleMatches(rule, req({ namespace: "" }))).toBe(false);
    expect(resourceRuleMatches({ ...rule, clusterScope: true }, req({ namespace: "" }))).toBe(true);
    const wild = { verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"] };
    expect(resourceRuleMatches(wild, req({ namespace: "anything", verb: "patch", apiGroup: "x", resource: "y" }))).toBe(true);
    expect(resourceRuleMatches(wild, req({ namespace: "" }))).toBe(false);
  });
});

describe("non-resource rules", () => {
  const req = (verb: string, path: string): RequestDigest => ({ user: alice, isResourceRequest: false, verb, path });
  it("match exact paths, * and prefix globs", () => {
    const rule = { verbs: ["get"], nonResourceURLs: ["/healthz", "/apis/*"] };
    expect(nonResourceRuleMatches(rule, req("get", "/healthz"))).toBe(true);
    expect(nonResourceRuleMatches(rule, req("get", "/healthz/etcd"))).toBe(false);
    expect(nonResourceRuleMatches(rule, req("get", "/apis/apps"))).toBe(true);
    expect(nonResourceRuleMatches(rule, req("get", "/apis"))).toBe(true);
    expect(nonResourceRuleMatches(rule, req("post", "/healthz"))).toBe(false);
    expect(nonResourceRuleMatches({ verbs: ["*"], nonResourceURLs: ["*"] }, req("post", "/anything"))).toBe(true);
  });
});

describe("the built-in configuration under k8s.io", () => {
  it("matches the reference's users, namespace and annotation", () => {
    const k8s = bootstrapConfiguration("k8s.io");
    const leader = k8s.suggestedFlowSchemas.find((o) => o.metadata.name === "system-leader-election");
    expect(JSON.stringify(leader?.["spec"])).toContain("system:kube-controller-manager");
    expect(JSON.stringify(leader?.["spec"])).toContain("kube-system");
    expect(JSON.stringify(leader?.["spec"])).toContain("coordination.k8s.io");
    expect(k8s.mandatoryPriorityLevels[0]?.metadata.annotations).toEqual({ "apf.kubernetes.io/autoupdate-spec": "true" });
  });
});
