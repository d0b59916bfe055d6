import type { UserInfo } from "@orch/authn";
import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import type { Attributes } from "./authorizer.js";
import { nodeAuthorizer, nodeIdentity, nodeLeaseNamespace, type NodeGraph } from "./node-authorizer.js";

function node(name: string): UserInfo {
  return { name: `system:node:${name}`, groups: ["system:nodes", "system:authenticated"] };
}

const n1 = node("n1");

function pod(namespace: string, name: string, nodeName: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): APIObject {
  const metadata: APIObject["metadata"] = { namespace, name };
  if (annotations) metadata.annotations = annotations;
  return { apiVersion: "v1", kind: "Pod", metadata, spec: { nodeName, ...spec } };
}

/** The pod on n1 that references one object of every kind the authorizer follows. */
const web = pod("dev", "web", "n1", {
  serviceAccountName: "web-sa",
  imagePullSecrets: [{ name: "registry" }],
  initContainers: [{ name: "init", env: [{ name: "A", valueFrom: { secretKeyRef: { name: "init-env-secret", key: "k" } } }] }],
  containers: [
    {
      name: "app",
      env: [
        { name: "B", valueFrom: { configMapKeyRef: { name: "env-config", key: "k" } } },
        { name: "C", valueFrom: { secretKeyRef: { name: "env-secret", key: "k" } } },
        { name: "D", value: "plain" },
      ],
      envFrom: [{ secretRef: { name: "envfrom-secret" } }, { configMapRef: { name: "envfrom-config" } }],
    },
  ],
  ephemeralContainers: [{ name: "debug", envFrom: [{ secretRef: { name: "debug-secret" } }] }],
  volumes: [
    { name: "s", secret: { secretName: "volume-secret" } },
    { name: "c", configMap: { name: "volume-config" } },
    {
      name: "p",
      projected: { sources: [{ secret: { name: "projected-secret" } }, { configMap: { name: "projected-config" } }, { serviceAccountToken: { path: "t" } }] },
    },
    { name: "data", persistentVolumeClaim: { claimName: "data" } },
    { name: "scratch", ephemeral: { volumeClaimTemplate: { spec: {} } } },
    { name: "csi", csi: { driver: "d", nodePublishSecretRef: { name: "csi-secret" } } },
  ],
});

/** A pod on another node, referencing its own objects. */
const other = pod("dev", "other", "n2", {
  serviceAccountName: "other-sa",
  volumes: [
    { name: "s", secret: { secretName: "other-secret" } },
    { name: "c", configMap: { name: "other-config" } },
    { name: "d", persistentVolumeClaim: { claimName: "other-data" } },
  ],
});

/** A mirror pod on n1: it is n1's, but what it names is not. */
const mirror = pod(
  "dev",
  "static-web",
  "n1",
  { serviceAccountName: "mirror-sa", volumes: [{ name: "s", secret: { secretName: "mirror-secret" } }] },
  { "orch.io/config.mirror": "abc" },
);

function pvc(namespace: string, name: string, volumeName?: string): APIObject {
  return { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { namespace, name }, spec: volumeName ? { volumeName } : {} };
}

function pv(name: string, claimRef: { namespace: string; name: string } | undefined, source: Record<string, unknown> = {}): APIObject {
  return { apiVersion: "v1", kind: "PersistentVolume", metadata: { name }, spec: { ...(claimRef ? { claimRef } : {}), ...source } };
}

interface FakeGraph extends NodeGraph {
  /** Every call made, as `method(args)`. */
  calls: string[];
}

function fakeGraph(pods: APIObject[], claims: APIObject[] = [], volumes?: APIObject[]): FakeGraph {
  const calls: string[] = [];
  const graph: FakeGraph = {
    calls,
    // A sloppy server: it returns every pod, the authorizer must check spec.nodeName itself.
    podsOnNode: async (nodeName) => {
      calls.push(`podsOnNode(${nodeName})`);
      return pods;
    },
    getPVC: async (namespace, name) => {
      calls.push(`getPVC(${namespace},${name})`);
      return claims.find((c) => c.metadata.namespace === namespace && c.metadata.name === name);
    },
  };
  if (volumes) {
    graph.getPV = async (name) => {
      calls.push(`getPV(${name})`);
      return volumes.find((v) => v.metadata.name === name);
    };
  }
  return graph;
}

function core(user: UserInfo, verb: string, resource: string, namespace: string, name: string, subresource = ""): Attributes {
  return { user, verb, resourceRequest: true, apiGroup: "", apiVersion: "v1", resource, subresource, namespace, name };
}

const graph = fakeGraph([web, other, mirror], [pvc("dev", "data", "pv-data"), pvc("dev", "web-scratch", "pv-scratch"), pvc("dev", "other-data", "pv-other")]);
const authorizer = nodeAuthorizer(graph);

async function decision(attributes: Attributes, a = authorizer): Promise<string> {
  return (await a.authorize(attributes)).decision;
}

describe("nodeAuthorizer: who it decides for", () => {
  it("has no opinion, without asking the graph, for users that are not nodes", async () => {
    const g = fakeGraph([web]);
    const a = nodeAuthorizer(g);
    expect(await a.authorize(core({ name: "alice", groups: ["system:nodes"] }, "get", "secrets", "dev", "registry"))).toEqual({
      decision: "noOpinion",
      reason: "",
    });
    expect(await decision(core({ name: "system:node:n1", groups: ["system:authenticated"] }, "get", "secrets", "dev", "registry"), a)).toBe("noOpinion");
    expect(await decision(core({ name: "system:masters", groups: ["system:masters"] }, "get", "nodes", "", "n1"), a)).toBe("noOpinion");
    expect(g.calls).toEqual([]);
  });

  it("has no opinion, with a reason, for a node user without a node name", async () => {
    const result = await authorizer.authorize(core({ name: "system:node:", groups: ["system:nodes"] }, "get", "nodes", "", ""));
    expect(result).toEqual({ decision: "noOpinion", reason: 'unknown node for user "system:node:"' });
  });

  it("reads a node's name from its user as the reference does", () => {
    expect(nodeIdentity(n1)).toBe("n1");
    expect(nodeIdentity({ name: "system:node:", groups: ["system:nodes"] })).toBe("");
    expect(nodeIdentity({ name: "system:node:n1", groups: [] })).toBeUndefined();
    expect(nodeIdentity({ name: "n1", groups: ["system:nodes"] })).toBeUndefined();
  });

  it("has no opinion on non-resource paths and on resources it does not subdivide, so RBAC decides", async () => {
    expect(await decision({ user: n1, verb: "get", resourceRequest: false, path: "/healthz" })).toBe("noOpinion");
    expect(await decision(core(n1, "list", "services", "", ""))).toBe("noOpinion");
    expect(await decision(core(n1, "create", "events", "dev", ""))).toBe("noOpinion");
    expect(await decision({ ...core(n1, "get", "secrets", "dev", "registry"), apiGroup: "example.com" })).toBe("noOpinion");
  });

  it("reports that it cannot list a node's rules, and lists nothing, completely, for others", async () => {
    expect(await authorizer.rulesFor(n1, "dev")).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: "node authorizer does not support user rule resolution",
    });
    expect(await authorizer.rulesFor({ name: "alice", groups: [] }, "dev")).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });
});

describe("nodeAuthorizer: secrets and config maps of its pods", () => {
  const referencedSecrets = ["registry", "init-env-secret", "env-secret", "envfrom-secret", "debug-secret", "volume-secret", "projected-secret", "csi-secret"];
  for (const name of referencedSecrets) {
    it(`allows n1 to get the secret ${name} a pod on n1 references`, async () => {
      expect(await authorizer.authorize(core(n1, "get", "secrets", "dev", name))).toEqual({ decision: "allow", reason: "" });
    });
  }

  for (const name of ["env-config", "envfrom-config", "volume-config", "projected-config"]) {
    it(`allows n1 to get the config map ${name} a pod on n1 references`, async () => {
      expect(await decision(core(n1, "get", "configmaps", "dev", name))).toBe("allow");
    });
  }

  it("allows list and watch of one named referenced secret (a metadata.name field selector)", async () => {
    expect(await decision(core(n1, "list", "secrets", "dev", "registry"))).toBe("allow");
    expect(await decision(core(n1, "watch", "configmaps", "dev", "volume-config"))).toBe("allow");
  });

  it("has no opinion on secrets and config maps of pods on other nodes, or of no pod", async () => {
    const result = await authorizer.authorize(core(n1, "get", "secrets", "dev", "other-secret"));
    expect(result).toEqual({ decision: "noOpinion", reason: "no relationship found between node 'n1' and this object" });
    expect(await decision(core(n1, "get", "configmaps", "dev", "other-config"))).toBe("noOpinion");
    expect(await decision(core(n1, "get", "secrets", "dev", "unreferenced"))).toBe("noOpinion");
    expect(await decision(core(node("n2"), "get", "secrets", "dev", "other-secret"))).toBe("allow");
  });

  it("has no opinion on a referenced name in another namespace", async () => {
    expect(await decision(core(n1, "get", "secrets", "prod", "registry"))).toBe("noOpinion");
  });

  it("has no opinion on the secrets a mirror pod names, though the mirror pod itself is the node's", async () => {
    expect(await decision(core(n1, "get", "secrets", "dev", "mirror-secret"))).toBe("noOpinion");
    expect(await decision(core(n1, "create", "serviceaccounts", "dev", "mirror-sa", "token"))).toBe("noOpinion");
    expect(await decision(core(n1, "get", "pods", "dev", "static-web"))).toBe("allow");
  });

  it("has no opinion on writes, lists of every secret, sub-resources and cluster-scoped reads", async () => {
    expect(await authorizer.authorize(core(n1, "update", "secrets", "dev", "registry"))).toEqual({
      decision: "noOpinion",
      reason: "can only read resources of this type",
    });
    expect(await authorizer.authorize(core(n1, "list", "secrets", "dev", ""))).toEqual({ decision: "noOpinion", reason: "No Object name found" });
    expect(await decision(core(n1, "get", "secrets", "dev", "registry", "status"))).toBe("noOpinion");
    expect(await decision(core(n1, "list", "secrets", "", "registry"))).toBe("noOpinion");
  });

  it("has no opinion, with the error, when the graph fails", async () => {
    const failing: NodeGraph = {
      podsOnNode: () => Promise.reject(new Error("store unavailable")),
      getPVC: () => Promise.resolve(undefined),
    };
    const result = await nodeAuthorizer(failing).authorize(core(n1, "get", "secrets", "dev", "registry"));
    expect(result).toEqual({ decision: "noOpinion", reason: "", error: "node authorizer: store unavailable" });
  });

  it("ignores garbage in a pod's spec instead of failing", async () => {
    const junk: APIObject = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: "dev", name: "junk" },
      spec: { nodeName: "n1", volumes: "nope", containers: [null, { env: 3 }], imagePullSecrets: [{ name: 5 }, { name: "pull" }] },
    };
    const a = nodeAuthorizer(fakeGraph([junk]));
    expect(await decision(core(n1, "get", "secrets", "dev", "pull"), a)).toBe("allow");
    expect(await decision(core(n1, "get", "secrets", "dev", "5"), a)).toBe("noOpinion");
  });
});

describe("nodeAuthorizer: claims, volumes and service account tokens", () => {
  it("allows get of the claims its pods name, ephemeral ones as <pod>-<volume>, and update of their status", async () => {
    expect(await decision(core(n1, "get", "persistentvolumeclaims", "dev", "data"))).toBe("allow");
    expect(await decision(core(n1, "get", "persistentvolumeclaims", "dev", "web-scratch"))).toBe("allow");
    expect(await decision(core(n1, "patch", "persistentvolumeclaims", "dev", "data", "status"))).toBe("allow");
    expect(await decision(core(n1, "get", "persistentvolumeclaims", "dev", "other-data"))).toBe("noOpinion");
    expect(await decision(core(n1, "list", "persistentvolumeclaims", "dev", "data"))).toBe("noOpinion");
    expect(await decision(core(n1, "update", "persistentvolumeclaims", "dev", "data"))).toBe("noOpinion");
  });

  it("allows get of the volumes bound to its pods' claims, through the claims' volumeName", async () => {
    expect(await decision(core(n1, "get", "persistentvolumes", "", "pv-data"))).toBe("allow");
    expect(await decision(core(n1, "get", "persistentvolumes", "", "pv-scratch"))).toBe("allow");
    expect(await decision(core(n1, "get", "persistentvolumes", "", "pv-other"))).toBe("noOpinion");
    expect(await decision(core(n1, "list", "persistentvolumes", "", "pv-data"))).toBe("noOpinion");
  });

  it("with getPV, needs the volume's claimRef to name the claim back, and allows the kubelet-visible secrets the volume names", async () => {
    const volumes = [
      pv(
        "pv-data",
        { namespace: "dev", name: "data" },
        {
          csi: {
            driver: "d",
            nodeStageSecretRef: { namespace: "storage", name: "stage-secret" },
            controllerPublishSecretRef: { namespace: "storage", name: "controller-secret" },
          },
        },
      ),
      pv("pv-scratch", { namespace: "dev", name: "someone-else" }, { rbd: { secretRef: { name: "rbd-secret" } } }),
    ];
    const a = nodeAuthorizer(fakeGraph([web], [pvc("dev", "data", "pv-data"), pvc("dev", "web-scratch", "pv-scratch")], volumes));
    expect(await decision(core(n1, "get", "persistentvolumes", "", "pv-data"), a)).toBe("allow");
    expect(await decision(core(n1, "get", "persistentvolumes", "", "pv-scratch"), a)).toBe("noOpinion");
    expect(await decision(core(n1, "get", "secrets", "storage", "stage-secret"), a)).toBe("allow");
    expect(await decision(core(n1, "get", "secrets", "storage", "controller-secret"), a)).toBe("noOpinion");
    expect(await decision(core(n1, "get", "secrets", "dev", "rbd-secret"), a)).toBe("noOpinion");
  });

  it("reads a volume plugin's secret without a namespace in the claim's namespace", async () => {
    const a = nodeAuthorizer(
      fakeGraph(
        [web],
        [pvc("dev", "data", "pv-data")],
        [pv("pv-data", { namespace: "dev", name: "data" }, { cephfs: { secretRef: { name: "ceph-secret" } } })],
      ),
    );
    expect(await decision(core(n1, "get", "secrets", "dev", "ceph-secret"), a)).toBe("allow");
    expect(await decision(core(n1, "get", "secrets", "other", "ceph-secret"), a)).toBe("noOpinion");
  });

  it("allows creating tokens only for the service accounts its pods run as", async () => {
    expect(await decision(core(n1, "create", "serviceaccounts", "dev", "web-sa", "token"))).toBe("allow");
    expect(await decision(core(n1, "create", "serviceaccounts", "dev", "other-sa", "token"))).toBe("noOpinion");
    expect(await decision(core(n1, "get", "serviceaccounts", "dev", "web-sa"))).toBe("noOpinion");
    expect(await decision(core(n1, "create", "serviceaccounts", "dev", "web-sa"))).toBe("noOpinion");
    expect(await decision(core(n1, "create", "serviceaccounts", "dev", "", "token"))).toBe("noOpinion");
  });
});

describe("nodeAuthorizer: its own Node, its Lease and its pods", () => {
  it("allows reading and writing its own Node and its status, and creating it", async () => {
    for (const verb of ["get", "list", "watch", "update", "patch"]) expect(await decision(core(n1, verb, "nodes", "", "n1"))).toBe("allow");
    expect(await decision(core(n1, "update", "nodes", "", "n1", "status"))).toBe("allow");
    expect(await decision(core(n1, "patch", "nodes", "", "n1", "status"))).toBe("allow");
    expect(await decision(core(n1, "create", "nodes", "", ""))).toBe("allow");
    expect(await decision(core(n1, "create", "nodes", "", "n1"))).toBe("allow");
  });

  it("has no opinion on other nodes, on every node, and on deleting its own", async () => {
    expect(await authorizer.authorize(core(n1, "get", "nodes", "", "n2"))).toEqual({
      decision: "noOpinion",
      reason: "node 'n1' cannot read 'n2', only its own Node object",
    });
    expect(await authorizer.authorize(core(n1, "list", "nodes", "", ""))).toEqual({
      decision: "noOpinion",
      reason: "node 'n1' cannot read all nodes, only its own Node object",
    });
    expect(await decision(core(n1, "patch", "nodes", "", "n2"))).toBe("noOpinion");
    expect(await decision(core(n1, "update", "nodes", "", "n2", "status"))).toBe("noOpinion");
    expect(await decision(core(n1, "create", "nodes", "", "n2"))).toBe("noOpinion");
    expect(await decision(core(n1, "delete", "nodes", "", "n1"))).toBe("noOpinion");
    expect(await decision(core(n1, "get", "nodes", "", "n1", "status"))).toBe("noOpinion");
  });

  it("allows its own Lease in orch-node-lease of coordination.orch.io, and creating one", async () => {
    const lease = (verb: string, name: string, namespace = "orch-node-lease"): Attributes => ({
      ...core(n1, verb, "leases", namespace, name),
      apiGroup: "coordination.orch.io",
    });
    for (const verb of ["get", "update", "patch", "delete"]) expect(await decision(lease(verb, "n1"))).toBe("allow");
    expect(await decision(lease("create", ""))).toBe("allow");
    expect(await decision(lease("get", "n2"))).toBe("noOpinion");
    expect(await decision(lease("create", "n2"))).toBe("noOpinion");
    expect(await decision(lease("list", ""))).toBe("noOpinion");
    expect(await decision(lease("get", "n1", "dev"))).toBe("noOpinion");
    expect(await decision({ ...lease("get", "n1"), apiGroup: "coordination.k8s.io" })).toBe("noOpinion");
  });

  it("uses kube-node-lease and coordination.k8s.io, and kubernetes.io/config.mirror, for domain k8s.io", async () => {
    expect(nodeLeaseNamespace("k8s.io")).toBe("kube-node-lease");
    expect(nodeLeaseNamespace("orch.io")).toBe("orch-node-lease");
    const mirrored = pod("dev", "m", "n1", { volumes: [{ name: "s", secret: { secretName: "s1" } }] }, { "kubernetes.io/config.mirror": "x" });
    const a = nodeAuthorizer(fakeGraph([mirrored]), { domain: "k8s.io" });
    expect(await decision({ ...core(n1, "update", "leases", "kube-node-lease", "n1"), apiGroup: "coordination.k8s.io" }, a)).toBe("allow");
    expect(await decision({ ...core(n1, "update", "leases", "orch-node-lease", "n1"), apiGroup: "coordination.k8s.io" }, a)).toBe("noOpinion");
    expect(await decision(core(n1, "get", "secrets", "dev", "s1"), a)).toBe("noOpinion");
  });

  it("allows get, delete, status updates and evictions of the pods bound to it, and nothing of other pods", async () => {
    expect(await decision(core(n1, "get", "pods", "dev", "web"))).toBe("allow");
    expect(await decision(core(n1, "watch", "pods", "dev", "web"))).toBe("allow");
    expect(await decision(core(n1, "delete", "pods", "dev", "web"))).toBe("allow");
    expect(await decision(core(n1, "update", "pods", "dev", "web", "status"))).toBe("allow");
    expect(await decision(core(n1, "patch", "pods", "dev", "web", "status"))).toBe("allow");
    expect(await decision(core(n1, "create", "pods", "dev", "web", "eviction"))).toBe("allow");
    for (const [verb, subresource] of [
      ["get", ""],
      ["delete", ""],
      ["patch", "status"],
      ["create", "eviction"],
    ] as const) {
      expect(await decision(core(n1, verb, "pods", "dev", "other", subresource))).toBe("noOpinion");
    }
  });

  it("has no opinion on listing every pod, creating pods and updating a pod's spec", async () => {
    expect(await authorizer.authorize(core(n1, "list", "pods", "", ""))).toEqual({
      decision: "noOpinion",
      reason: "can only list/watch pods with spec.nodeName field selector",
    });
    expect(await decision(core(n1, "create", "pods", "dev", ""))).toBe("noOpinion");
    expect(await decision(core(n1, "update", "pods", "dev", "web"))).toBe("noOpinion");
    expect(await decision(core(n1, "get", "pods", "dev", "web", "log"))).toBe("noOpinion");
  });
});
