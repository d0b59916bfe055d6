import type { APIObject, OwnerReference } from "@orch/meta";
import { configMapType, namespaceType, podType, type AccessAttributes } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { guessResource } from "../internal/owner-resources.js";
import { attributesFor, fakeServices, type AttributesInput } from "../internal/testing.js";
import { ownerReferencesPermissionEnforcement } from "./owner-references-permission-enforcement.js";

const owner: OwnerReference = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "rs-uid" };

function configMap(ownerReferences?: OwnerReference[]): APIObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns", ...(ownerReferences ? { ownerReferences } : {}) } };
}

/** A plugin over fake services whose authorizer allows exactly what `allowed` says. */
function setup(allowed: (a: AccessAttributes) => boolean, options: { reason?: string; error?: string } = {}) {
  const services = fakeServices({
    decide: (a) =>
      allowed(a)
        ? { decision: "allow", reason: "" }
        : { decision: "noOpinion", reason: options.reason ?? "", ...(options.error ? { error: options.error } : {}) },
  });
  const plugin = ownerReferencesPermissionEnforcement({ services, configuration: undefined });
  const run = async (input: AttributesInput) => {
    await plugin.validate?.(attributesFor(input));
  };
  return { services, plugin, run };
}

async function message(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  const error: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected a refusal").toBeDefined();
  const status = (error as { status: { code: number; message: string } }).status;
  return { code: status.code, message: status.message };
}

const isFinalizers = (a: AccessAttributes) => a.verb === "update" && a.subresource === "finalizers";

describe("OwnerReferencesPermissionEnforcement", () => {
  it("validates CREATE and UPDATE only", () => {
    const { plugin } = setup(() => true);
    expect(plugin.operations).toEqual(["CREATE", "UPDATE"]);
    expect(plugin.admit).toBeUndefined();
  });

  it("asks nothing when the owner references do not change", async () => {
    const { services, run } = setup(() => false);
    await run({ operation: "CREATE", type: configMapType, object: configMap() });
    await run({ operation: "UPDATE", type: configMapType, object: configMap([owner]), oldObject: configMap([owner]) });
    await run({ operation: "UPDATE", type: configMapType, object: configMap([]), oldObject: configMap() });
    expect(services.asked).toEqual([]);
  });

  it("needs delete on the object to change its owner references on update", async () => {
    const { services, run } = setup((a) => a.verb === "delete");
    await run({ operation: "UPDATE", type: configMapType, object: configMap([owner]), oldObject: configMap() });
    expect(services.asked).toEqual([
      {
        user: { name: "alice", groups: ["system:authenticated"] },
        verb: "delete",
        resourceRequest: true,
        apiGroup: "",
        apiVersion: "v1",
        resource: "configmaps",
        subresource: "",
        namespace: "ns",
        name: "cm",
      },
    ]);
    const denied = setup(() => false, { reason: "no RBAC policy matched" });
    const r = await message(denied.run({ operation: "UPDATE", type: configMapType, object: configMap(), oldObject: configMap([owner]) }));
    expect(r).toEqual({
      code: 403,
      message: `configmaps "cm" is forbidden: cannot set an ownerRef on a resource you can't delete: no RBAC policy matched, <nil>`,
    });
  });

  it("counts a changed field of a reference as a change", async () => {
    const { run } = setup(() => false, { error: "boom" });
    const r = await message(
      run({ operation: "UPDATE", type: configMapType, object: configMap([{ ...owner, controller: true }]), oldObject: configMap([owner]) }),
    );
    expect(r.message).toBe(`configmaps "cm" is forbidden: cannot set an ownerRef on a resource you can't delete: , boom`);
  });

  it("lets a creator set owner references without delete permission", async () => {
    const { services, run } = setup(() => false);
    await run({ operation: "CREATE", type: configMapType, object: configMap([owner]) });
    expect(services.asked).toEqual([]);
  });

  it("needs update on the owner's finalizers to block its deletion", async () => {
    const blocking = { ...owner, blockOwnerDeletion: true };
    const { services, run } = setup((a) => isFinalizers(a) && a.resource === "replicasets");
    await run({ operation: "CREATE", type: configMapType, object: configMap([blocking]) });
    expect(services.asked.map((a) => [a.apiGroup, a.apiVersion, a.resource, a.subresource, a.namespace, a.name])).toEqual([
      ["*", "*", "*", "finalizers", "ns", "*"],
      ["apps", "v1", "replicasets", "finalizers", "ns", "rs"],
    ]);
    const denied = setup(() => false);
    const r = await message(denied.run({ operation: "CREATE", type: configMapType, object: configMap([blocking]) }));
    expect(r).toEqual({
      code: 403,
      message: `configmaps "cm" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`,
    });
  });

  it("asks about one owner only when the caller may update every finalizer", async () => {
    const { services, run } = setup((a) => isFinalizers(a) && a.resource === "*");
    await run({ operation: "CREATE", type: configMapType, object: configMap([{ ...owner, blockOwnerDeletion: true }]) });
    expect(services.asked).toHaveLength(1);
  });

  it("checks only references that newly block (new, or false/unset before), matched by uid", async () => {
    const blocking = { ...owner, blockOwnerDeletion: true };
    const { services, run } = setup((a) => a.verb === "delete");
    await run({
      operation: "UPDATE",
      type: configMapType,
      object: configMap([blocking, { ...owner, uid: "other", name: "x" }]),
      oldObject: configMap([blocking]),
    });
    expect(services.asked.filter(isFinalizers)).toEqual([]);
    await expect(
      run({ operation: "UPDATE", type: configMapType, object: configMap([blocking]), oldObject: configMap([{ ...owner, blockOwnerDeletion: false }]) }),
    ).rejects.toThrow("you can't set finalizers on");
    await expect(
      run({ operation: "UPDATE", type: configMapType, object: configMap([{ ...blocking, uid: "new" }]), oldObject: configMap([blocking]) }),
    ).rejects.toThrow("you can't set finalizers on");
  });

  it("maps built-in kinds to their resource and scope, others by the plural guess", async () => {
    const { services, run } = setup((a) => a.verb === "delete" || (isFinalizers(a) && a.resource !== "*"));
    const refs: OwnerReference[] = [
      { apiVersion: "v1", kind: "Namespace", name: "ns", uid: "1", blockOwnerDeletion: true },
      { apiVersion: "coordination.orch.io/v1", kind: "Lease", name: "l", uid: "2", blockOwnerDeletion: true },
      { apiVersion: "example.com/v1", kind: "Policy", name: "p", uid: "3", blockOwnerDeletion: true },
    ];
    await run({ operation: "CREATE", type: configMapType, object: configMap(refs) });
    expect(services.asked.filter((a) => isFinalizers(a) && a.resource !== "*").map((a) => [a.apiGroup, a.resource, a.namespace])).toEqual([
      ["", "namespaces", ""],
      ["coordination.orch.io", "leases", "ns"],
      ["example.com", "policies", "ns"],
    ]);
  });

  it("takes an unknown owner of a cluster-scoped object as cluster-scoped", async () => {
    const { services, run } = setup((a) => isFinalizers(a) && a.resource !== "*");
    const ns: APIObject = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "team", ownerReferences: [{ apiVersion: "example.com/v1", kind: "Tenant", name: "t", uid: "t", blockOwnerDeletion: true }] },
    };
    await run({ operation: "CREATE", type: namespaceType, object: ns });
    expect(services.asked.at(-1)).toMatchObject({ apiGroup: "example.com", resource: "tenants", namespace: "", name: "t" });
  });

  it("refuses a blocking reference with a malformed apiVersion", async () => {
    const { run } = setup(() => false);
    const r = await message(
      run({ operation: "CREATE", type: configMapType, object: configMap([{ ...owner, apiVersion: "a/b/c", blockOwnerDeletion: true }]) }),
    );
    expect(r.message).toBe(
      `configmaps "cm" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion a/b/c Kind ReplicaSet: unexpected GroupVersion string: a/b/c`,
    );
  });

  it("exempts pods/status", async () => {
    const { services, run } = setup(() => false);
    const p = (refs: OwnerReference[]): APIObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns", ownerReferences: refs } });
    await run({ operation: "UPDATE", type: podType, subresource: "status", object: p([owner]), oldObject: p([]) });
    expect(services.asked).toEqual([]);
    await expect(run({ operation: "UPDATE", type: podType, object: p([owner]), oldObject: p([]) })).rejects.toThrow("cannot set an ownerRef");
  });

  it("guesses plurals as the reference does", () => {
    expect(["Deployment", "Policy", "Ingress", "Endpoints", "ReplicaSet"].map(guessResource)).toEqual([
      "deployments",
      "policies",
      "ingresses",
      "endpoints",
      "replicasets",
    ]);
  });
});
