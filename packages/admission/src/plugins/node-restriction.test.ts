import type { APIObject, OwnerReference } from "@orch/meta";
import {
  certificateSigningRequestType,
  csiNodeType,
  leaseType,
  nodeType,
  persistentVolumeClaimType,
  podType,
  serviceAccountType,
  type AccessAttributes,
  type ResourceType,
} from "@orch/resources";
import { describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../attributes.js";
import { attributesFor, fakeServices, type AttributesInput, type FakeServices } from "../internal/testing.js";
import { nodeRestriction } from "./node-restriction.js";

const kubelet = { name: "system:node:n1", groups: ["system:nodes", "system:authenticated"] };
const resourceSliceType: ResourceType = { ...leaseType, group: "resource.{domain}", resource: "resourceslices", kind: "ResourceSlice", scope: "Cluster" };

const csrN1 = `-----BEGIN CERTIFICATE REQUEST-----
MIHqMIGSAgEAMDAxFTATBgNVBAoMDHN5c3RlbTpub2RlczEXMBUGA1UEAwwOc3lz
dGVtOm5vZGU6bjEwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARA9sCL50wXScg2
DPIiIT/QxqWWffOyKAQOW/C1cSm7VLM8AR26DVDSxlV2hORoXRC7WC2hAN/Us3zH
aHhnVKDaoAAwCgYIKoZIzj0EAwIDRwAwRAIgNqEn94A2S0f5ImB/TNRGyJIsQf0K
z2j9dyQvAlIyY+wCIDJ29OybI9k9LWUTrHVmuRnHyh4UdFXAmzJlnBysnLqG
-----END CERTIFICATE REQUEST-----
`;
const csrN2 = `-----BEGIN CERTIFICATE REQUEST-----
MIHrMIGSAgEAMDAxFTATBgNVBAoMDHN5c3RlbTpub2RlczEXMBUGA1UEAwwOc3lz
dGVtOm5vZGU6bjIwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATQXgHvswmV3487
7ZYt6Var5IxZARbpigL53785VbcC2JXvqbqKTIOQDNuUvbwIO7MR3QiLj9rkr2XK
ddGl3sQtoAAwCgYIKoZIzj0EAwIDSAAwRQIgENI5viEm5foXStITV3CEdZpKSmkX
fHuHudVKJC4SgboCIQDL2/nU7JZeRynwUzl0YoRV2CklEqG8Il4hWYIhctj3Og==
-----END CERTIFICATE REQUEST-----
`;

function pod(name: string, nodeName: string, spec: Record<string, unknown> = {}, metadata: Partial<APIObject["metadata"]> = {}): APIObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "ns", uid: `${name}-uid`, ...metadata },
    spec: { nodeName, containers: [{ name: "c", image: "i" }], ...spec },
  };
}

const nodeOwner = { apiVersion: "v1", kind: "Node", name: "n1", uid: "node-n1-uid", controller: true };
const mirror = (spec: Record<string, unknown> = {}, metadata: Partial<APIObject["metadata"]> = {}) =>
  pod("static", "n1", spec, { annotations: { "orch.io/config.mirror": "hash" }, ownerReferences: [nodeOwner], ...metadata });

function node(name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}): APIObject {
  return { apiVersion: "v1", kind: "Node", metadata: { name, uid: `node-${name}-uid`, labels }, spec };
}

interface Setup {
  services: FakeServices;
  run(input: Omit<AttributesInput, "user"> & { user?: AttributesInput["user"] }): Promise<AdmissionAttributes>;
}

function setup(options: { domain?: string; decide?: (a: AccessAttributes) => "allow" | "noOpinion" } = {}): Setup {
  const services = fakeServices({
    ...(options.domain ? { domain: options.domain } : {}),
    decide: (a) => ({ decision: options.decide?.(a) ?? "noOpinion", reason: "" }),
  });
  services.put("", "nodes", node("n1"));
  services.put("", "pods", pod("mine", "n1"));
  services.put("", "pods", pod("theirs", "n2"));
  const plugin = nodeRestriction({ services, configuration: undefined });
  return {
    services,
    async run(input) {
      const { user, ...rest } = input;
      const attrs = attributesFor({ ...rest, user: user ?? kubelet, ...(options.domain ? { domain: options.domain } : {}) });
      await plugin.admit?.(attrs);
      return attrs;
    },
  };
}

/** The Status a refused admission threw. */
async function refusal(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  const error: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected a refusal").toBeDefined();
  const status = (error as { status: { code: number; reason: string; message: string } }).status;
  return { code: status.code, reason: status.reason, message: status.message };
}

describe("NodeRestriction: who it applies to", () => {
  it("leaves users that are not nodes alone, and a node name without the group", async () => {
    const { run } = setup();
    await expect(run({ operation: "CREATE", type: podType, object: pod("x", "n2"), user: { name: "alice", groups: [] } })).resolves.toBeDefined();
    await expect(run({ operation: "CREATE", type: podType, object: pod("x", "n2"), user: { name: "system:node:n1", groups: [] } })).resolves.toBeDefined();
  });

  it("refuses a node user without a node name", async () => {
    const { run } = setup();
    const r = await refusal(run({ operation: "CREATE", type: podType, object: pod("x", ""), user: { name: "system:node:", groups: ["system:nodes"] } }));
    expect(r).toEqual({ code: 403, reason: "Forbidden", message: 'pods "x" is forbidden: could not determine node from user "system:node:"' });
  });

  it("declares CREATE, UPDATE and DELETE and lets other resources through", async () => {
    const { services, run } = setup();
    expect(nodeRestriction({ services, configuration: undefined }).operations).toEqual(["CREATE", "UPDATE", "DELETE"]);
    await expect(run({ operation: "CREATE", type: serviceAccountType, object: { metadata: { name: "sa", namespace: "ns" } } })).resolves.toBeDefined();
  });
});

describe("NodeRestriction: pods", () => {
  it("allows a mirror pod bound to itself, owned by its Node", async () => {
    const { run } = setup();
    await expect(run({ operation: "CREATE", type: podType, object: mirror() })).resolves.toBeDefined();
  });

  it("refuses pods that are not mirror pods, or bound elsewhere", async () => {
    const { run } = setup();
    expect((await refusal(run({ operation: "CREATE", type: podType, object: pod("p", "n1") }))).message).toBe(
      'pods "p" is forbidden: pod does not have "orch.io/config.mirror" annotation, node "n1" can only create mirror pods',
    );
    const elsewhere = mirror({ nodeName: "n2" });
    expect((await refusal(run({ operation: "CREATE", type: podType, object: elsewhere }))).message).toBe(
      'pods "static" is forbidden: node "n1" can only create pods with spec.nodeName set to itself',
    );
  });

  it("checks the mirror pod's owner reference", async () => {
    const { run } = setup();
    const cases: [OwnerReference[], string][] = [
      [[nodeOwner, { ...nodeOwner, name: "n1b" }], 'node "n1" can only create pods with a single owner reference set to itself'],
      [[], 'node "n1" can only create pods with an owner reference set to itself'],
      [[{ ...nodeOwner, name: "n2" }], 'node "n1" can only create pods with an owner reference set to itself'],
      [[{ ...nodeOwner, kind: "Pod" }], 'node "n1" can only create pods with an owner reference set to itself'],
      [[{ ...nodeOwner, apiVersion: "orch.io/v1" }], 'node "n1" can only create pods with an owner reference set to itself'],
      [[{ ...nodeOwner, controller: false }], 'node "n1" can only create pods with a controller owner reference set to itself'],
      [[{ ...nodeOwner, blockOwnerDeletion: true }], 'node "n1" must not set blockOwnerDeletion on an owner reference'],
      [[{ ...nodeOwner, uid: "stale" }], "node n1 UID mismatch: expected stale got node-n1-uid"],
    ];
    for (const [ownerReferences, why] of cases) {
      const r = await refusal(run({ operation: "CREATE", type: podType, object: mirror({}, { ownerReferences }) }));
      expect(r.message).toBe(`pods "static" is forbidden: ${why}`);
    }
  });

  it("answers 404 when its Node does not exist", async () => {
    const { run } = setup();
    const object = pod("static", "n9", {}, { annotations: { "orch.io/config.mirror": "x" }, ownerReferences: [{ ...nodeOwner, name: "n9" }] });
    const r = await refusal(run({ operation: "CREATE", type: podType, object, user: { name: "system:node:n9", groups: ["system:nodes"] } }));
    expect(r).toMatchObject({ code: 404, reason: "NotFound", message: 'nodes "n9" not found' });
  });

  it("refuses mirror pods that reference other objects", async () => {
    const { run } = setup();
    const env = (valueFrom: Record<string, unknown>) => ({ containers: [{ name: "c", image: "i", env: [{ name: "E", valueFrom }] }] });
    const cases: [Record<string, unknown>, string][] = [
      [{ serviceAccountName: "sa" }, "a service account"],
      [{ imagePullSecrets: [{ name: "pull" }] }, "secrets"],
      [env({ secretKeyRef: { name: "s", key: "k" } }), "secrets"],
      [{ initContainers: [{ name: "i", image: "i", envFrom: [{ secretRef: { name: "s" } }] }] }, "secrets"],
      [{ volumes: [{ name: "v", secret: { secretName: "s" } }] }, "secrets"],
      [{ volumes: [{ name: "v", csi: { driver: "d", nodePublishSecretRef: { name: "s" } } }] }, "secrets"],
      [{ volumes: [{ name: "v", rbd: { monitors: ["m"], image: "i", secretRef: { name: "s" } } }] }, "secrets"],
      [{ volumes: [{ name: "v", projected: { sources: [{ secret: { name: "s" } }] } }] }, "secrets"],
      [env({ configMapKeyRef: { name: "c", key: "k" } }), "configmaps"],
      [{ ephemeralContainers: [{ name: "e", image: "i", envFrom: [{ configMapRef: { name: "c" } }] }] }, "configmaps"],
      [{ volumes: [{ name: "v", configMap: { name: "c" } }] }, "configmaps"],
      [{ volumes: [{ name: "v", projected: { sources: [{ configMap: { name: "c" } }] } }] }, "configmaps"],
      [{ volumes: [{ name: "v", projected: { sources: [{ clusterTrustBundle: { name: "b", path: "p" } }] } }] }, "clustertrustbundles"],
      [{ volumes: [{ name: "v", persistentVolumeClaim: { claimName: "c" } }] }, "persistentvolumeclaims"],
    ];
    for (const [spec, what] of cases) {
      const r = await refusal(run({ operation: "CREATE", type: podType, object: mirror(spec) }));
      expect(r.message).toBe(`pods "static" is forbidden: node "n1" can not create pods that reference ${what}`);
    }
    await expect(run({ operation: "CREATE", type: podType, object: mirror({ volumes: [{ name: "v", emptyDir: {} }] }) })).resolves.toBeDefined();
  });

  it("deletes only pods bound to itself, 404 for a missing pod", async () => {
    const { services, run } = setup();
    const stored = async (name: string) => (await services.get("", "pods", "ns", name)) as APIObject;
    await expect(run({ operation: "DELETE", type: podType, name: "mine", namespace: "ns", oldObject: await stored("mine") })).resolves.toBeDefined();
    await expect(run({ operation: "DELETE", type: podType, name: "mine", namespace: "ns" })).resolves.toBeDefined();
    expect((await refusal(run({ operation: "DELETE", type: podType, name: "theirs", namespace: "ns" }))).message).toBe(
      'pods "theirs" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself',
    );
    expect(await refusal(run({ operation: "DELETE", type: podType, name: "gone", namespace: "ns" }))).toMatchObject({
      code: 404,
      message: 'pods "gone" not found',
    });
  });

  it("refuses updates of pods and other pod sub-resources", async () => {
    const { run } = setup();
    const mine = pod("mine", "n1");
    expect((await refusal(run({ operation: "UPDATE", type: podType, object: mine, oldObject: mine }))).message).toBe(
      'pods "mine" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods',
    );
    const binding = { apiVersion: "v1", kind: "Binding", metadata: { name: "mine", namespace: "ns" }, target: { kind: "Node", name: "n1" } };
    expect((await refusal(run({ operation: "CREATE", type: podType, subresource: "binding", object: binding }))).message).toBe(
      `pods "mine" is forbidden: unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`,
    );
  });

  it("updates the status of its own pods only, keeping labels and claim statuses", async () => {
    const { run } = setup();
    const old = pod("mine", "n1", {}, { labels: { app: "a" } });
    old["status"] = { resourceClaimStatuses: [{ name: "gpu", resourceClaimName: "c1" }] };
    const status = (o: APIObject, change: (x: APIObject) => void) => {
      const copy = structuredClone(o);
      change(copy);
      return copy;
    };
    const running = status(old, (x) => ((x["status"] as Record<string, unknown>)["phase"] = "Running"));
    await expect(run({ operation: "UPDATE", type: podType, subresource: "status", object: running, oldObject: old })).resolves.toBeDefined();

    const theirs = pod("theirs", "n2");
    expect((await refusal(run({ operation: "UPDATE", type: podType, subresource: "status", object: theirs, oldObject: theirs }))).message).toBe(
      'pods "theirs" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself',
    );
    const relabelled = status(old, (x) => (x.metadata.labels = { app: "b" }));
    expect((await refusal(run({ operation: "UPDATE", type: podType, subresource: "status", object: relabelled, oldObject: old }))).message).toBe(
      'pods "mine" is forbidden: node "n1" cannot update labels through pod status',
    );
    const reclaimed = status(old, (x) => (x["status"] = { resourceClaimStatuses: [{ name: "gpu", resourceClaimName: "other" }] }));
    expect((await refusal(run({ operation: "UPDATE", type: podType, subresource: "status", object: reclaimed, oldObject: old }))).message).toBe(
      'pods "mine" is forbidden: node "n1" cannot update resource claim statues',
    );
    const extended = status(old, (x) => ((x["status"] as Record<string, unknown>)["extendedResourceClaimStatus"] = { resourceClaimName: "x" }));
    expect((await refusal(run({ operation: "UPDATE", type: podType, subresource: "status", object: extended, oldObject: old }))).message).toBe(
      'pods "mine" is forbidden: node "n1" cannot update extended resource claim status',
    );
    expect((await refusal(run({ operation: "DELETE", type: podType, subresource: "status", name: "mine", namespace: "ns" }))).message).toBe(
      'pods "mine" is forbidden: unexpected operation "DELETE"',
    );
  });

  it("evicts only its own pods", async () => {
    const { run } = setup();
    const kind = { group: "policy", version: "v1", kind: "Eviction" };
    const eviction = (name: string) => ({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace: "ns" } });
    await expect(run({ operation: "CREATE", type: podType, subresource: "eviction", kind, object: eviction("mine") })).resolves.toBeDefined();
    expect((await refusal(run({ operation: "CREATE", type: podType, subresource: "eviction", kind, object: eviction("theirs") }))).message).toBe(
      'pods "theirs" is forbidden: node n1 can only evict pods with spec.nodeName set to itself',
    );
    expect(await refusal(run({ operation: "CREATE", type: podType, subresource: "eviction", kind, object: eviction("gone") }))).toMatchObject({ code: 404 });
    const unnamed = { apiVersion: "policy/v1", kind: "Eviction", metadata: { namespace: "ns" } };
    expect((await refusal(run({ operation: "CREATE", type: podType, subresource: "eviction", kind, object: unnamed, namespace: "ns" }))).message).toBe(
      "pods is forbidden: could not determine pod from request data",
    );
  });

  it("uses kubernetes.io/config.mirror under domain k8s.io", async () => {
    const { run } = setup({ domain: "k8s.io" });
    const object = mirror({}, { annotations: { "kubernetes.io/config.mirror": "x" } });
    await expect(run({ operation: "CREATE", type: podType, object })).resolves.toBeDefined();
    expect((await refusal(run({ operation: "CREATE", type: podType, object: mirror() }))).message).toContain(
      'pod does not have "kubernetes.io/config.mirror" annotation',
    );
  });
});

describe("NodeRestriction: nodes", () => {
  it("creates and updates only its own Node", async () => {
    const { run } = setup();
    await expect(run({ operation: "CREATE", type: nodeType, object: node("n1", { "orch.io/hostname": "n1" }) })).resolves.toBeDefined();
    expect((await refusal(run({ operation: "CREATE", type: nodeType, object: node("n2") }))).message).toBe(
      'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    );
    const n2 = node("n2");
    expect((await refusal(run({ operation: "UPDATE", type: nodeType, subresource: "status", object: n2, oldObject: n2 }))).message).toBe(
      'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    );
    const n1 = node("n1");
    await expect(
      run({ operation: "UPDATE", type: nodeType, subresource: "status", object: { ...n1, status: { phase: "Running" } }, oldObject: n1 }),
    ).resolves.toBeDefined();
  });

  it("may not delete Nodes, its own included", async () => {
    const { run } = setup();
    expect((await refusal(run({ operation: "DELETE", type: nodeType, name: "n1" }))).message).toBe(
      'nodes "n1" is forbidden: node "n1" is not allowed to delete its own Node object',
    );
    expect((await refusal(run({ operation: "DELETE", type: nodeType, name: "n2" }))).message).toBe(
      'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    );
  });

  it("may not create a Node with a config source, or change it", async () => {
    const { run } = setup();
    const source = { configMap: { name: "c", namespace: "kube-system", kubeletConfigKey: "k" } };
    expect((await refusal(run({ operation: "CREATE", type: nodeType, object: node("n1", {}, { configSource: source }) }))).message).toBe(
      'nodes "n1" is forbidden: node "n1" is not allowed to create pods with a non-nil configSource',
    );
    expect((await refusal(run({ operation: "UPDATE", type: nodeType, object: node("n1", {}, { configSource: source }), oldObject: node("n1") }))).message).toBe(
      'nodes "n1" is forbidden: node "n1" is not allowed to update configSource to a new non-nil configSource',
    );
    // Dropping it (old kubelets do) is fine.
    await expect(run({ operation: "UPDATE", type: nodeType, object: node("n1"), oldObject: node("n1", {}, { configSource: source }) })).resolves.toBeDefined();
  });

  it("may not modify taints or owner references", async () => {
    const { run } = setup();
    const tainted = node("n1", {}, { taints: [{ key: "k", effect: "NoSchedule" }] });
    expect((await refusal(run({ operation: "UPDATE", type: nodeType, object: node("n1"), oldObject: tainted }))).message).toBe(
      'nodes "n1" is forbidden: node "n1" is not allowed to modify taints',
    );
    expect((await refusal(run({ operation: "UPDATE", type: nodeType, object: tainted, oldObject: node("n1") }))).message).toBe(
      'nodes "n1" is forbidden: node "n1" is not allowed to modify taints',
    );
    await expect(run({ operation: "UPDATE", type: nodeType, object: node("n1", {}, { taints: [] }), oldObject: node("n1") })).resolves.toBeDefined();
    const owned = { ...node("n1"), metadata: { ...node("n1").metadata, ownerReferences: [{ apiVersion: "v1", kind: "Namespace", name: "x", uid: "u" }] } };
    expect((await refusal(run({ operation: "UPDATE", type: nodeType, object: owned, oldObject: node("n1") }))).message).toBe(
      'nodes "n1" is forbidden: node "n1" is not allowed to modify ownerReferences',
    );
  });

  it("sets only the kubelet's labels under the domain", async () => {
    const { run } = setup();
    const allowed = {
      "orch.io/hostname": "h",
      "orch.io/arch": "amd64",
      "orch.io/os": "linux",
      "beta.orch.io/arch": "amd64",
      "beta.orch.io/os": "linux",
      "beta.orch.io/instance-type": "big",
      "node.orch.io/instance-type": "big",
      "topology.orch.io/region": "r",
      "topology.orch.io/zone": "z",
      "failure-domain.beta.orch.io/region": "r",
      "failure-domain.beta.orch.io/zone": "z",
      "kubelet.orch.io/anything": "x",
      "node.orch.io/anything": "x",
      "sub.node.orch.io/anything": "x",
      "example.com/mine": "x",
      plain: "x",
    };
    await expect(run({ operation: "CREATE", type: nodeType, object: node("n1", allowed) })).resolves.toBeDefined();
    await expect(run({ operation: "UPDATE", type: nodeType, object: node("n1", allowed), oldObject: node("n1") })).resolves.toBeDefined();
    const forbidden = {
      "node-restriction.orch.io/role": "db",
      "x.node-restriction.orch.io/y": "z",
      "orch.io/role": "x",
      "team.orch.io/z": "x",
      "node-role.orch.io/master": "",
    };
    expect((await refusal(run({ operation: "CREATE", type: nodeType, object: node("n1", { ...allowed, ...forbidden }) }))).message).toBe(
      'nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-restriction.orch.io/role, node-role.orch.io/master, orch.io/role, team.orch.io/z, x.node-restriction.orch.io/y',
    );
    // Removing or changing a restricted label is a modification too; an unchanged one is not.
    expect((await refusal(run({ operation: "UPDATE", type: nodeType, object: node("n1"), oldObject: node("n1", { "orch.io/role": "x" }) }))).message).toBe(
      'nodes "n1" is forbidden: is not allowed to modify labels: orch.io/role',
    );
    const kept = node("n1", { "node-restriction.orch.io/role": "db" });
    await expect(run({ operation: "UPDATE", type: nodeType, object: kept, oldObject: kept })).resolves.toBeDefined();
  });

  it("uses the reference's keys under domain k8s.io", async () => {
    const { run } = setup({ domain: "k8s.io" });
    const allowed = { "kubernetes.io/hostname": "h", "beta.kubernetes.io/arch": "amd64", "kubelet.kubernetes.io/x": "y", "node.kubernetes.io/exclude": "" };
    await expect(run({ operation: "CREATE", type: nodeType, object: node("n1", allowed) })).resolves.toBeDefined();
    expect(
      (
        await refusal(
          run({ operation: "CREATE", type: nodeType, object: node("n1", { "node-restriction.kubernetes.io/a": "b", "k8s.io/x": "y", "orch.io/x": "y" }) }),
        )
      ).message,
    ).toBe('nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: k8s.io/x, node-restriction.kubernetes.io/a');
  });
});

describe("NodeRestriction: claims, tokens, leases, CSI nodes, slices, CSRs", () => {
  const claim = (status: Record<string, unknown>, labels: Record<string, string> = {}): APIObject => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "data", namespace: "ns", resourceVersion: "5", labels },
    spec: { resources: { requests: { storage: "1Gi" } } },
    status,
  });

  it("updates only the resize status of claims", async () => {
    const { run } = setup();
    const old = claim({ phase: "Bound", capacity: { storage: "1Gi" } });
    const resized = {
      ...claim({ phase: "Bound", capacity: { storage: "2Gi" }, conditions: [{ type: "Resizing", status: "True" }], allocatedResources: { storage: "2Gi" } }),
      metadata: { ...old.metadata, resourceVersion: "" },
    };
    await expect(run({ operation: "UPDATE", type: persistentVolumeClaimType, subresource: "status", object: resized, oldObject: old })).resolves.toBeDefined();
    expect(
      (
        await refusal(
          run({ operation: "UPDATE", type: persistentVolumeClaimType, subresource: "status", object: claim({ phase: "Lost" }, { a: "b" }), oldObject: old }),
        )
      ).message,
    ).toBe(
      'persistentvolumeclaims "data" is forbidden: node "n1" is not allowed to update fields other than status.quantity and status.conditions: metadata.labels.a, status.phase',
    );
    expect((await refusal(run({ operation: "UPDATE", type: persistentVolumeClaimType, object: old, oldObject: old }))).message).toBe(
      'persistentvolumeclaims "data" is forbidden: may only update PVC status',
    );
    expect((await refusal(run({ operation: "DELETE", type: persistentVolumeClaimType, subresource: "status", name: "data", namespace: "ns" }))).message).toBe(
      'persistentvolumeclaims "data" is forbidden: unexpected operation "DELETE"',
    );
  });

  const token = (boundObjectRef: Record<string, unknown> | undefined, audiences: string[] = []) => ({
    apiVersion: "authentication.orch.io/v1",
    kind: "TokenRequest",
    metadata: { name: "sa", namespace: "ns" },
    spec: { audiences, ...(boundObjectRef ? { boundObjectRef } : {}) },
  });
  const tokenKind = { group: "authentication.orch.io", version: "v1", kind: "TokenRequest" };
  const ask = (s: Setup, object: APIObject, user?: AttributesInput["user"]) =>
    s.run({
      operation: "CREATE",
      type: serviceAccountType,
      subresource: "token",
      kind: tokenKind,
      object,
      name: "sa",
      namespace: "ns",
      ...(user ? { user } : {}),
    });

  it("asks tokens only bound to a pod on this node", async () => {
    const s = setup();
    const ref = { apiVersion: "v1", kind: "Pod", name: "mine", uid: "mine-uid" };
    s.services.put("", "pods", pod("mine", "n1", { volumes: [{ name: "t", projected: { sources: [{ serviceAccountToken: { path: "t" } }] } }] }));
    await expect(ask(s, token(ref))).resolves.toBeDefined();
    const cases: [Record<string, unknown> | undefined, string][] = [
      [undefined, "node requested token not bound to a pod"],
      [{ ...ref, kind: "Secret" }, "node requested token not bound to a pod"],
      [{ ...ref, apiVersion: "v2" }, "node requested token not bound to a pod"],
      [{ ...ref, name: "" }, "node requested token not bound to a pod"],
      [{ ...ref, uid: "" }, "node requested token with a pod binding without a uid"],
      [
        { ...ref, uid: "old" },
        "the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated",
      ],
      [{ ...ref, name: "theirs", uid: "theirs-uid" }, "node requested token bound to a pod scheduled on a different node"],
    ];
    for (const [bound, why] of cases) expect((await refusal(ask(s, token(bound)))).message).toBe(`serviceaccounts "sa" is forbidden: ${why}`);
    expect(await refusal(ask(s, token({ ...ref, name: "gone" })))).toMatchObject({ code: 404, message: 'pods "gone" not found' });
  });

  it("asks only for audiences its pod uses, unless authorized for the audience", async () => {
    const s = setup({ decide: (a) => (a.verb === "request-serviceaccounts-token-audience" && a.resource === "granted" ? "allow" : "noOpinion") });
    s.services.put("", "pods", {
      ...pod("mine", "n1", {
        volumes: [
          { name: "t", projected: { sources: [{ serviceAccountToken: { path: "t", audience: "vault" } }] } },
          { name: "c", csi: { driver: "inline.csi" } },
          { name: "p", persistentVolumeClaim: { claimName: "data" } },
          { name: "e", ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
      }),
    });
    s.services.put("storage.orch.io", "csidrivers", { metadata: { name: "inline.csi" }, spec: { tokenRequests: [{ audience: "inline-aud" }] } });
    s.services.put("storage.orch.io", "csidrivers", { metadata: { name: "pv.csi" }, spec: { tokenRequests: [{ audience: "pv-aud" }] } });
    s.services.put("storage.orch.io", "csidrivers", { metadata: { name: "eph.csi" }, spec: { tokenRequests: [{ audience: "eph-aud" }] } });
    s.services.put("", "persistentvolumeclaims", { metadata: { name: "data", namespace: "ns" }, spec: { volumeName: "pv1" } });
    s.services.put("", "persistentvolumes", { metadata: { name: "pv1" }, spec: { csi: { driver: "pv.csi", volumeHandle: "h" } } });
    s.services.put("", "persistentvolumeclaims", { metadata: { name: "mine-e", namespace: "ns" }, spec: { volumeName: "pv2" } });
    s.services.put("", "persistentvolumes", { metadata: { name: "pv2" }, spec: { csi: { driver: "eph.csi", volumeHandle: "h" } } });
    const ref = { apiVersion: "v1", kind: "Pod", name: "mine", uid: "mine-uid" };
    for (const audience of ["vault", "inline-aud", "pv-aud", "eph-aud", "granted"]) await expect(ask(s, token(ref, [audience]))).resolves.toBeDefined();
    expect((await refusal(ask(s, token(ref, ["other"])))).message).toBe(
      'serviceaccounts "sa" is forbidden: audience "other" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience',
    );
    expect(await refusal(ask(s, token(ref, [])))).toMatchObject({ message: expect.stringContaining('audience "" not found in pod spec volume') });
    expect((await refusal(ask(s, token(ref, ["vault", "granted"])))).message).toBe('serviceaccounts "sa" is forbidden: node may only request 0 or 1 audiences');
    const question = s.services.asked.find((a) => a.resource === "other");
    expect(question).toMatchObject({
      verb: "request-serviceaccounts-token-audience",
      apiGroup: "",
      namespace: "ns",
      name: "sa",
      resourceRequest: true,
      user: { name: "system:node:n1" },
    });
  });

  it("ignores service account writes other than token requests", async () => {
    const { run } = setup();
    await expect(
      run({
        operation: "UPDATE",
        type: serviceAccountType,
        object: { metadata: { name: "sa", namespace: "ns" } },
        oldObject: { metadata: { name: "sa", namespace: "ns" } },
      }),
    ).resolves.toBeDefined();
  });

  it("writes only its own Lease in the node lease namespace", async () => {
    const { run } = setup();
    const lease = (name: string, namespace = "orch-node-lease") => ({ apiVersion: "coordination.orch.io/v1", kind: "Lease", metadata: { name, namespace } });
    await expect(run({ operation: "CREATE", type: leaseType, object: lease("n1") })).resolves.toBeDefined();
    await expect(run({ operation: "UPDATE", type: leaseType, object: lease("n1"), oldObject: lease("n1") })).resolves.toBeDefined();
    expect((await refusal(run({ operation: "CREATE", type: leaseType, object: lease("n2") }))).message).toBe(
      'leases.coordination.orch.io "n2" is forbidden: can only access node lease with the same name as the requesting node',
    );
    expect((await refusal(run({ operation: "DELETE", type: leaseType, name: "n2", namespace: "orch-node-lease" }))).message).toContain(
      "can only access node lease with the same name",
    );
    expect((await refusal(run({ operation: "CREATE", type: leaseType, object: lease("n1", "default") }))).message).toBe(
      'leases.coordination.orch.io "n1" is forbidden: can only access leases in the "orch-node-lease" system namespace',
    );
  });

  it("uses kube-node-lease and coordination.k8s.io under domain k8s.io", async () => {
    const { run } = setup({ domain: "k8s.io" });
    const lease = (namespace: string) => ({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "n1", namespace } });
    await expect(run({ operation: "CREATE", type: leaseType, object: lease("kube-node-lease") })).resolves.toBeDefined();
    expect((await refusal(run({ operation: "CREATE", type: leaseType, object: lease("orch-node-lease") }))).message).toContain(
      'in the "kube-node-lease" system namespace',
    );
  });

  it("writes only its own CSINode", async () => {
    const { run } = setup();
    const csiNode = (name: string) => ({ apiVersion: "storage.orch.io/v1", kind: "CSINode", metadata: { name }, spec: { drivers: [] } });
    await expect(run({ operation: "CREATE", type: csiNodeType, object: csiNode("n1") })).resolves.toBeDefined();
    await expect(run({ operation: "DELETE", type: csiNodeType, name: "n1" })).resolves.toBeDefined();
    expect((await refusal(run({ operation: "UPDATE", type: csiNodeType, object: csiNode("n2"), oldObject: csiNode("n2") }))).message).toBe(
      'csinodes.storage.orch.io "n2" is forbidden: can only access CSINode with the same name as the requesting node',
    );
  });

  it("creates and deletes only ResourceSlices of its node", async () => {
    const { run } = setup();
    const slice = (nodeName: string) => ({ apiVersion: "resource.orch.io/v1", kind: "ResourceSlice", metadata: { name: `s-${nodeName}` }, spec: { nodeName } });
    await expect(run({ operation: "CREATE", type: resourceSliceType, object: slice("n1") })).resolves.toBeDefined();
    await expect(run({ operation: "DELETE", type: resourceSliceType, name: "s-n1", oldObject: slice("n1") })).resolves.toBeDefined();
    expect((await refusal(run({ operation: "CREATE", type: resourceSliceType, object: slice("n2") }))).message).toBe(
      'resourceslices.resource.orch.io "s-n2" is forbidden: can only create ResourceSlice with the same NodeName as the requesting node',
    );
    expect((await refusal(run({ operation: "DELETE", type: resourceSliceType, name: "s-n2", oldObject: slice("n2") }))).message).toContain(
      "can only delete ResourceSlice with the same NodeName as the requesting node",
    );
  });

  it("requests kubelet certificates only for its own name", async () => {
    const { run } = setup();
    const csr = (request: string, signerName: string) => ({
      apiVersion: "certificates.orch.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name: "csr" },
      spec: { request: btoa(request), signerName, usages: ["client auth"] },
    });
    await expect(
      run({ operation: "CREATE", type: certificateSigningRequestType, object: csr(csrN1, "orch.io/kube-apiserver-client-kubelet") }),
    ).resolves.toBeDefined();
    await expect(run({ operation: "CREATE", type: certificateSigningRequestType, object: csr(csrN1, "orch.io/kubelet-serving") })).resolves.toBeDefined();
    expect((await refusal(run({ operation: "CREATE", type: certificateSigningRequestType, object: csr(csrN2, "orch.io/kubelet-serving") }))).message).toBe(
      'certificatesigningrequests.certificates.orch.io "csr" is forbidden: can only create a node CSR with CN=system:node:n1',
    );
    expect(
      (await refusal(run({ operation: "CREATE", type: certificateSigningRequestType, object: csr("garbage", "orch.io/kubelet-serving") }))).message,
    ).toContain("unable to parse csr: ");
    // Other signers are the signer's business.
    await expect(run({ operation: "CREATE", type: certificateSigningRequestType, object: csr(csrN2, "example.com/custom") })).resolves.toBeDefined();
  });
});
