import type { APIObject } from "@orch/meta";
import { configMapType, namespaceType, nodeType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { namespaceExists } from "./namespace-exists.js";

const cm = (namespace: string): APIObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace } });

function setup(...namespaces: string[]) {
  const services = fakeServices();
  for (const name of namespaces) services.put("", "namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name }, status: { phase: "Terminating" } });
  return namespaceExists({ services, configuration: undefined });
}

describe("NamespaceExists", () => {
  it("validates CREATE, UPDATE and DELETE", () => {
    const plugin = setup();
    expect(plugin.name).toBe("NamespaceExists");
    expect(plugin.operations).toEqual(["CREATE", "UPDATE", "DELETE"]);
    expect(plugin.admit).toBeUndefined();
  });

  it.each([
    ["CREATE", { object: cm("missing") }],
    ["UPDATE", { object: cm("missing"), oldObject: cm("missing") }],
    ["DELETE", { oldObject: cm("missing") }],
  ] as const)('refuses a %s in a missing namespace with 404 namespaces "missing" not found', async (operation, objects) => {
    const plugin = setup();
    await expect(plugin.validate?.(attributesFor({ operation, type: configMapType, ...objects }))).rejects.toMatchObject({
      code: 404,
      reason: "NotFound",
      message: 'namespaces "missing" not found',
    });
  });

  it("lets requests in an existing namespace through, terminating or not", async () => {
    const plugin = setup("here");
    await expect(plugin.validate?.(attributesFor({ operation: "CREATE", type: configMapType, object: cm("here") }))).resolves.toBeUndefined();
  });

  it("leaves Namespace objects and cluster-scoped objects alone", async () => {
    const plugin = setup();
    const namespace: APIObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "new" } };
    await expect(plugin.validate?.(attributesFor({ operation: "CREATE", type: namespaceType, object: namespace }))).resolves.toBeUndefined();
    const node: APIObject = { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } };
    await expect(plugin.validate?.(attributesFor({ operation: "CREATE", type: nodeType, object: node }))).resolves.toBeUndefined();
  });
});
