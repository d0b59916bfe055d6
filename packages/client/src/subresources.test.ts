import { isAlreadyExists, isConflict, isNotFound, type Status } from "@orch/meta";
import type { podV1Schema, tokenRequestV1Schema } from "@orch/resources";
import { APIServer } from "@orch/server";
import { describe, expect, expectTypeOf, it } from "vitest";
import { Client } from "./client.js";
import { inProcessTransport } from "./in-process-transport.js";
import type { SchemaObject } from "./schema-object.js";

type Pod = SchemaObject<typeof podV1Schema>;

const admin = { name: "admin", groups: ["system:masters", "system:authenticated"] };
const ns = { namespace: "default" };

async function setup(options: ConstructorParameters<typeof APIServer>[0] = {}) {
  const server = new APIServer(options);
  const client = new Client({ transport: inProcessTransport(server, { user: admin }) });
  // Pods need their namespace's default service account (made here, whether or not a control loop would).
  await client.serviceAccounts.create({ metadata: { name: "default" } }, ns).catch((error: unknown) => {
    if (!isAlreadyExists(error)) throw error;
  });
  return { server, client };
}

const pod = (name: string): Pod => ({ metadata: { name }, spec: { containers: [{ name: "app", image: "nginx" }] } });

/** `-----BEGIN CERTIFICATE REQUEST-----` around an empty DER sequence: all the catalog checks of a request. */
const csrPem = "-----BEGIN CERTIFICATE REQUEST-----\nMAA=\n-----END CERTIFICATE REQUEST-----\n";

describe("status, on every kind's client", () => {
  it("reads, patches and replaces a pod's status through /status, leaving its spec alone", async () => {
    const { client } = await setup();
    await client.pods.create(pod("p"), ns);
    expect((await client.pods.getStatus("p", ns)).status).toMatchObject({ phase: "Pending" });

    const patched = await client.pods.patchStatus("p", { spec: { nodeName: "ignored" }, status: { phase: "Running" } }, "merge", ns);
    expect(patched.status).toMatchObject({ phase: "Running" });
    expect(patched.spec?.nodeName).toBeUndefined();

    const replaced = await client.pods.updateStatus({ ...patched, status: { ...patched.status, phase: "Succeeded" } });
    expect((await client.pods.get("p", ns)).status).toMatchObject({ phase: "Succeeded" });
    expect(replaced.metadata.resourceVersion).not.toBe(patched.metadata.resourceVersion);
  });

  it("applies a status with server-side apply, filling apiVersion and kind", async () => {
    const { client } = await setup();
    await client.pods.create(pod("p"), ns);
    const applied = await client.pods.patchStatus("p", { metadata: { name: "p" }, status: { phase: "Failed" } }, "apply", {
      ...ns,
      fieldManager: "kubelet",
      force: true,
    });
    expect(applied.status).toMatchObject({ phase: "Failed" });
  });
});

describe("Pod binding and eviction", () => {
  it("binds a pod to a node once (a second binding is a 409 Conflict), then evicts it", async () => {
    const { client } = await setup();
    await client.pods.create(pod("p"), ns);
    const bound = await client.pods.bind("p", { target: { kind: "Node", name: "node-1" } }, ns);
    expectTypeOf(bound).toEqualTypeOf<Status>();
    expect(bound).toMatchObject({ kind: "Status", status: "Success", code: 201 });
    const scheduled = await client.pods.get("p", ns);
    expect(scheduled.spec?.nodeName).toBe("node-1");
    expect(scheduled.status?.conditions).toContainEqual(expect.objectContaining({ type: "PodScheduled", status: "True" }));
    await expect(client.pods.bind("p", { target: { kind: "Node", name: "node-2" } }, ns)).rejects.toSatisfy(isConflict);

    expect(await client.pods.evict("p", {}, ns)).toMatchObject({ status: "Success" });
    await expect(client.pods.get("p", ns)).rejects.toSatisfy(isNotFound);
  });

  it("sends a Binding and an Eviction of the catalog's apiVersion, keeping what the caller set", async () => {
    const { client } = await setup();
    await client.pods.create(pod("p"), ns);
    await expect(client.pods.bind("p", { metadata: { name: "other" }, target: { name: "node-1" } }, ns)).rejects.toMatchObject({
      status: { code: 400, message: "name in URL does not match name in Binding object" },
    });
    await expect(client.pods.evict("p", { apiVersion: "v1", kind: "Pod" }, ns)).rejects.toMatchObject({ status: { code: 400 } });
    expect(await client.pods.evict("p", { deleteOptions: { gracePeriodSeconds: 0 } }, ns)).toMatchObject({ code: 201 });
  });

  it("needs a namespace, like every namespaced call", async () => {
    const { client } = await setup();
    expect(() => client.pods.bind("p", { target: { name: "n" } })).toThrow(TypeError);
  });
});

describe("ServiceAccount token", () => {
  it("issues a token for a service account, as a TokenRequest with the token in its status", async () => {
    const keys = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const { client } = await setup({ serviceAccountTokens: { signingKey: keys.privateKey } });
    await client.serviceAccounts.create({ metadata: { name: "builder" } }, ns);
    const issued = await client.serviceAccounts.createToken("builder", { spec: { audiences: ["api"], expirationSeconds: 3600 } }, ns);
    expectTypeOf(issued).toEqualTypeOf<SchemaObject<typeof tokenRequestV1Schema>>();
    expect(issued).toMatchObject({ apiVersion: "authentication.orch.io/v1", kind: "TokenRequest", spec: { audiences: ["api"], expirationSeconds: 3600 } });
    expect(issued.status?.token?.split(".")).toHaveLength(3);
    await expect(client.serviceAccounts.createToken("missing", {}, ns)).rejects.toSatisfy(isNotFound);
  });
});

describe("CertificateSigningRequest approval", () => {
  it("approves a request through its approval sub-resource, which a plain update cannot do", async () => {
    const { client } = await setup();
    const spec = { signerName: "example.com/signer", usages: ["client auth"], request: btoa(csrPem) };
    const created = await client.certificateSigningRequests.create({ metadata: { name: "req" }, spec });
    const approved = { type: "Approved", status: "True", reason: "Test", message: "approved by the test" };
    const ignored = await client.certificateSigningRequests.update({ ...created, status: { conditions: [approved] } });
    expect(ignored.status?.conditions ?? []).toEqual([]);

    const updated = await client.certificateSigningRequests.updateApproval({ ...ignored, status: { conditions: [approved] } });
    expect(updated.status?.conditions).toEqual([expect.objectContaining({ type: "Approved", status: "True", reason: "Test" })]);
  });
});

describe("Namespace finalize", () => {
  it("removes the finalizer of a terminating namespace, which lets the deletion complete", async () => {
    const { client } = await setup();
    await client.namespaces.create({ metadata: { name: "doomed" } });
    await client.namespaces.delete("doomed");
    const terminating = await client.namespaces.get("doomed");
    expect(terminating.status?.phase).toBe("Terminating");
    expect(terminating.spec?.finalizers).toHaveLength(1);

    const finalized = await client.namespaces.finalize({ ...terminating, spec: { finalizers: [] } });
    expect(finalized.spec?.finalizers ?? []).toEqual([]);
    await expect(client.namespaces.get("doomed")).rejects.toSatisfy(isNotFound);
  });
});

describe("subresource(): the sub-resources no method covers", () => {
  it("gets, patches and updates a sub-resource by name, and posts to an action", async () => {
    const { client } = await setup();
    await client.pods.create(pod("p"), ns);
    const status = client.pods.subresource("p", "status");
    expect(await status.get<Pod>(ns)).toMatchObject({ kind: "Pod", status: { phase: "Pending" } });
    const patched = await status.patch<Pod>({ status: { phase: "Running" } }, "merge", ns);
    expect(patched.status?.phase).toBe("Running");
    const updated = await status.update<Pod>({ ...patched, status: { phase: "Succeeded" } }, ns);
    expect(updated.status?.phase).toBe("Succeeded");
    const evicted = await client.pods.subresource("p", "eviction").create<Status>({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "p" } }, ns);
    expect(evicted.status).toBe("Success");
  });

  it("throws the server's 405 for a verb the sub-resource does not answer, and 404 for one the kind lacks", async () => {
    const { client } = await setup();
    await client.pods.create(pod("p"), ns);
    await expect(client.pods.subresource("p", "binding").get(ns)).rejects.toMatchObject({ status: { code: 405 } });
    await expect(client.pods.subresource("p", "scale").get(ns)).rejects.toSatisfy(isNotFound);
  });
});

describe("the typed accessors", () => {
  it("are made once per client and typed by the catalog's schemas", async () => {
    const { client } = await setup();
    expect(client.pods).toBe(client.pods);
    expect(client.pods).not.toBe((await setup()).client.pods);
    expectTypeOf(client.pods.get).returns.resolves.toEqualTypeOf<Pod>();
    expectTypeOf<Awaited<ReturnType<typeof client.pods.get>>["spec"]>().not.toBeUnknown();
    expectTypeOf(client.serviceAccounts.createToken).toBeFunction();
    // Only the kinds that serve a sub-resource get its method.
    expectTypeOf(client.configMaps).not.toHaveProperty("bind");
    expectTypeOf(client.nodes).not.toHaveProperty("evict");
    const created = await client.clusterRoleBindings.create({
      metadata: { name: "b" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "view" },
      subjects: [],
    });
    expect(created.apiVersion).toBe("rbac.authorization.orch.io/v1");
    expect((await client.validatingWebhookConfigurations.list()).items).toEqual([]);
  });
});

describe("scale, on the kinds that serve it", () => {
  it("reads, replaces and patches a Deployment's replicas through its autoscaling/v1 Scale, refusing a stale resourceVersion", async () => {
    const { client } = await setup();
    const labels = { app: "web" };
    await client.deployments.create(
      {
        metadata: { name: "web" },
        spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "app", image: "nginx" }] } } },
      },
      ns,
    );
    const scale = await client.deployments.getScale("web", ns);
    expect(scale).toMatchObject({ apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "web", namespace: "default" }, spec: { replicas: 1 } });
    expect(scale.status).toMatchObject({ selector: "app=web" });

    const replaced = await client.deployments.updateScale("web", { metadata: { name: "web", namespace: "default" }, spec: { replicas: 3 } }, ns);
    expect(replaced.spec?.replicas).toBe(3);
    expect((await client.deployments.get("web", ns)).spec?.replicas).toBe(3);

    const patched = await client.deployments.patchScale("web", { spec: { replicas: 5 } }, "merge", ns);
    expect(patched.spec?.replicas).toBe(5);

    const stale = { metadata: { name: "web", namespace: "default", resourceVersion: scale.metadata.resourceVersion }, spec: { replicas: 2 } };
    await expect(client.deployments.updateScale("web", stale, ns)).rejects.toSatisfy(isConflict);
    expectTypeOf(client.deployments.getScale).returns.resolves.toHaveProperty("spec");
    expect("getScale" in client.configMaps).toBe(false);
  });
});
