/**
 * The built-in API Priority and Fairness configuration, as the reference's v1beta2-era
 * bootstrap: the mandatory levels and schemas (`exempt`, `catch-all`), which the server always
 * keeps as written here, and the suggested ones, which it creates when missing and keeps only
 * while their `apf.<domain>/autoupdate-spec` annotation is `"true"`.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { bootstrapTokenNamespace } from "@orch/resources";

/**
 * The annotation that says whether the server keeps a built-in object's spec:
 * `apf.<domain>/autoupdate-spec` (`apf.orch.io/...`), and the reference's own
 * `apf.kubernetes.io/autoupdate-spec` under `k8s.io`.
 */
export function autoUpdateAnnotation(domain: string): string {
  return `apf.${domain === "k8s.io" ? "kubernetes.io" : domain}/autoupdate-spec`;
}

/** The built-in configuration objects of one domain, by kind and by whether they are mandatory. */
export interface BootstrapConfiguration {
  mandatoryPriorityLevels: APIObject[];
  mandatoryFlowSchemas: APIObject[];
  suggestedPriorityLevels: APIObject[];
  suggestedFlowSchemas: APIObject[];
}

type Subject = Record<string, unknown>;
type Rule = Record<string, unknown>;

const user = (name: string): Subject => ({ kind: "User", user: { name } });
const group = (name: string): Subject => ({ kind: "Group", group: { name } });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: "ServiceAccount", serviceAccount: { namespace, name } });
const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): Rule => ({
  verbs,
  apiGroups,
  resources,
  ...(namespaces.length > 0 ? { namespaces } : {}),
  clusterScope,
});
const nonResourceRule = (verbs: string[], nonResourceURLs: string[]): Rule => ({ verbs, nonResourceURLs });
const allResources = resourceRule(["*"], ["*"], ["*"], ["*"], true);
const allNonResources = nonResourceRule(["*"], ["*"]);

/**
 * The built-in configuration under `domain`: levels `exempt`, `catch-all` (mandatory),
 * `system`, `node-high`, `leader-election`, `workload-high`, `workload-low`, `global-default`;
 * schemas `exempt`, `catch-all` (mandatory), `probes`, `system-leader-election`,
 * `endpoint-controller`, `workload-leader-election`, `system-node-high`, `system-nodes`,
 * `kube-controller-manager`, `kube-scheduler`, `kube-system-service-accounts`,
 * `service-accounts`, `global-default`, with the reference's names, precedences, shares and
 * queuing; the users they match are adapted to the domain (`system:orch-controller-manager`
 * under `orch.io`) and to the system namespace (`orch-system`). Each carries the autoupdate
 * annotation set to `"true"`.
 */
export function bootstrapConfiguration(domain: string): BootstrapConfiguration {
  const short = domain === "k8s.io" ? "kube" : (domain.split(".")[0] ?? "orch");
  const systemNamespace = bootstrapTokenNamespace(domain);
  const coordination = `coordination.${domain}`;
  const controllerManager = `system:${short}-controller-manager`;
  const scheduler = `system:${short}-scheduler`;
  const annotations = { [autoUpdateAnnotation(domain)]: "true" };
  const apiVersion = `flowcontrol.apiserver.${domain}/v1beta2`;
  const level = (name: string, spec: Record<string, unknown>): APIObject => ({
    apiVersion,
    kind: "PriorityLevelConfiguration",
    metadata: { name, annotations: { ...annotations } },
    spec,
  });
  const queued = (name: string, shares: number, queues: number, handSize: number): APIObject =>
    level(name, {
      type: "Limited",
      limited: { assuredConcurrencyShares: shares, limitResponse: { type: "Queue", queuing: { queues, handSize, queueLengthLimit: 50 } } },
    });
  const schema = (name: string, priorityLevel: string, precedence: number, distinguisher: string | undefined, rules: Rule[]): APIObject => ({
    apiVersion,
    kind: "FlowSchema",
    metadata: { name, annotations: { ...annotations } },
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence: precedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  });
  const everything = (subjects: Subject[]): Rule => ({ subjects, resourceRules: [allResources], nonResourceRules: [allNonResources] });
  const leaderElectionRule = (namespaces: string[]) =>
    resourceRule(["get", "create", "update"], ["", coordination], ["endpoints", "configmaps", "leases"], namespaces, false);
  return {
    mandatoryPriorityLevels: [
      level("exempt", { type: "Exempt" }),
      level("catch-all", { type: "Limited", limited: { assuredConcurrencyShares: 5, limitResponse: { type: "Reject" } } }),
    ],
    mandatoryFlowSchemas: [
      schema("exempt", "exempt", 1, undefined, [everything([group("system:masters")])]),
      schema("catch-all", "catch-all", 10000, "ByUser", [everything([group("system:unauthenticated"), group("system:authenticated")])]),
    ],
    suggestedPriorityLevels: [
      queued("system", 30, 64, 6),
      queued("node-high", 40, 64, 6),
      queued("leader-election", 10, 16, 4),
      queued("workload-high", 40, 128, 6),
      queued("workload-low", 100, 128, 6),
      queued("global-default", 20, 128, 6),
    ],
    suggestedFlowSchemas: [
      schema("probes", "exempt", 2, undefined, [
        {
          subjects: [group("system:unauthenticated"), group("system:authenticated")],
          nonResourceRules: [nonResourceRule(["get"], ["/healthz", "/readyz", "/livez"])],
        },
      ]),
      schema("system-leader-election", "leader-election", 100, "ByUser", [
        { subjects: [user(controllerManager), user(scheduler), serviceAccount(systemNamespace, "*")], resourceRules: [leaderElectionRule([systemNamespace])] },
      ]),
      schema("endpoint-controller", "workload-high", 150, "ByUser", [
        {
          subjects: [
            user(controllerManager),
            serviceAccount(systemNamespace, "endpoint-controller"),
            serviceAccount(systemNamespace, "endpointslice-controller"),
          ],
          resourceRules: [resourceRule(["get", "create", "update"], [""], ["endpoints"], ["*"], false)],
        },
      ]),
      schema("workload-leader-election", "leader-election", 200, "ByUser", [
        { subjects: [group("system:serviceaccounts")], resourceRules: [leaderElectionRule(["*"])] },
      ]),
      schema("system-node-high", "node-high", 400, "ByUser", [
        {
          subjects: [group("system:nodes")],
          resourceRules: [resourceRule(["*"], [""], ["nodes", "nodes/status"], ["*"], true), resourceRule(["*"], [coordination], ["leases"], ["*"], false)],
        },
      ]),
      schema("system-nodes", "system", 500, "ByUser", [everything([group("system:nodes")])]),
      schema("kube-controller-manager", "workload-high", 800, "ByNamespace", [everything([user(controllerManager)])]),
      schema("kube-scheduler", "workload-high", 800, "ByNamespace", [everything([user(scheduler)])]),
      schema("kube-system-service-accounts", "workload-high", 900, "ByNamespace", [everything([serviceAccount(systemNamespace, "*")])]),
      schema("service-accounts", "workload-low", 9000, "ByUser", [everything([group("system:serviceaccounts")])]),
      schema("global-default", "global-default", 9900, "ByUser", [everything([group("system:unauthenticated"), group("system:authenticated")])]),
    ],
  };
}
