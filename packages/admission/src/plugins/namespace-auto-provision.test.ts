import { alreadyExists, forbidden, type APIObject } from "@orch/meta";
import { configMapType, namespaceType, nodeType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { namespaceAutoProvision } from "./namespace-auto-provision.js";

const cm = (namespace: string): APIObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace } });
const create = (namespace: string, dryRun = false) => attributesFor({ operation: "CREATE", type: configMapType, object: cm(namespace), dryRun });

function setup() {
  const services = fakeServices();
  return { services, plugin: namespaceAutoProvision({ services, configuration: undefined }) };
}

describe("NamespaceAutoProvision", () => {
  it("admits CREATE only", () => {
    const { plugin } = setup();
    expect(plugin.name).toBe("NamespaceAutoProvision");
    expect(plugin.operations).toEqual(["CREATE"]);
    expect(plugin.validate).toBeUndefined();
  });

  it("creates the missing namespace of a new namespaced object", async () => {
    const { services, plugin } = setup();
    await plugin.admit?.(create("fresh"));
    expect(services.writes).toEqual([
      {
        verb: "create",
        group: "",
        resource: "namespaces",
        object: expect.objectContaining({ apiVersion: "v1", kind: "Namespace", metadata: expect.objectContaining({ name: "fresh" }) }),
      },
    ]);
    expect(await services.get("", "namespaces", "", "fresh")).toBeDefined();
  });

  it("creates nothing when the namespace exists", async () => {
    const { services, plugin } = setup();
    services.put("", "namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "here" } });
    await plugin.admit?.(create("here"));
    expect(services.writes).toEqual([]);
  });

  it("tolerates a namespace someone else created meanwhile (409 AlreadyExists)", async () => {
    const { services, plugin } = setup();
    services.create = async () => {
      throw alreadyExists({ group: "", resource: "namespaces" }, "raced");
    };
    await expect(plugin.admit?.(create("raced"))).resolves.toBeUndefined();
  });

  it("refuses the request with 403 when the namespace cannot be created", async () => {
    const { services, plugin } = setup();
    services.create = async () => {
      throw forbidden({ group: "", resource: "namespaces" }, "locked", "quota exceeded");
    };
    await expect(plugin.admit?.(create("locked"))).rejects.toMatchObject({
      code: 403,
      message: 'configmaps "c" is forbidden: namespaces "locked" is forbidden: quota exceeded',
    });
  });

  it("writes nothing under dry-run", async () => {
    const { services, plugin } = setup();
    await plugin.admit?.(create("dry", true));
    expect(services.writes).toEqual([]);
  });

  it("leaves Namespace objects and cluster-scoped objects alone", async () => {
    const { services, plugin } = setup();
    await plugin.admit?.(
      attributesFor({ operation: "CREATE", type: namespaceType, object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "new" } } }),
    );
    await plugin.admit?.(attributesFor({ operation: "CREATE", type: nodeType, object: { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } } }));
    expect(services.writes).toEqual([]);
  });
});
