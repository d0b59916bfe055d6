import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configMapType } from "./config-map.js";
import { coreAndCoordination as builtinResources } from "./internal/test-catalog.js";
import { compareVersions, resolveGroup, ResourceRegistry } from "./registry.js";
import type { ResourceType } from "./resource-type.js";

const widget = (versions: { name: string; storage: boolean }[], extra: Partial<ResourceType> = {}): ResourceType => ({
  group: "things.{domain}",
  resource: "widgets",
  singular: "widget",
  kind: "Widget",
  scope: "Namespaced",
  versions: versions.map((v) => ({ ...v, schema: z.object({}) })),
  ...extra,
});

describe("ResourceRegistry", () => {
  const registry = new ResourceRegistry(builtinResources);

  it("resolves {domain} in groups", () => {
    expect(resolveGroup("coordination.{domain}", "k8s.io")).toBe("coordination.k8s.io");
    expect(new ResourceRegistry(builtinResources, "k8s.io").get("coordination.k8s.io", "v1", "leases")?.type.kind).toBe("Lease");
    expect(registry.get("coordination.orch.io", "v1", "leases")?.version.name).toBe("v1");
    expect(registry.groupOf(builtinResources[4] as ResourceType)).toBe("coordination.orch.io");
  });

  it("looks types up by resource, by kind, and not at versions it does not serve", () => {
    expect(registry.byResource("", "configmaps")?.type).toBe(configMapType);
    expect(registry.byKind("", "ConfigMap")?.type).toBe(configMapType);
    expect(registry.get("", "v2", "configmaps")).toBeUndefined();
    expect(registry.byKind("apps", "ConfigMap")).toBeUndefined();
  });

  it.each([
    ["cm", "ConfigMap"],
    ["configmap", "ConfigMap"],
    ["ConfigMaps", "ConfigMap"],
    ["ns", "Namespace"],
    ["ev", "Event"],
    ["lease", "Lease"],
    ["leases.coordination.orch.io", "Lease"],
  ])("finds %s as %s", (name, kind) => {
    expect(registry.find(name).map((r) => r.type.kind)).toEqual([kind]);
  });

  it("lists the core group first, then the others, with their versions", () => {
    expect(registry.groups()).toEqual([
      { name: "", versions: ["v1"], preferredVersion: "v1" },
      { name: "coordination.orch.io", versions: ["v1"], preferredVersion: "v1" },
    ]);
    expect(registry.groupVersions()).toEqual([
      { group: "", version: "v1" },
      { group: "coordination.orch.io", version: "v1" },
    ]);
    expect(registry.resourcesIn("", "v1").map((r) => r.type.resource)).toEqual(["namespaces", "configmaps", "secrets", "events"]);
    expect(registry.types).toHaveLength(5);
  });

  it("prefers the storage version and orders the rest by version priority", () => {
    const r = new ResourceRegistry([
      widget([
        { name: "v1alpha1", storage: false },
        { name: "v1beta1", storage: true },
        { name: "v2", storage: false },
      ]),
    ]);
    expect(r.group("things.orch.io")).toEqual({ name: "things.orch.io", versions: ["v1beta1", "v2", "v1alpha1"], preferredVersion: "v1beta1" });
    expect(["v1alpha1", "foo", "v1", "v1beta2", "v2", "v1beta1"].sort(compareVersions)).toEqual(["v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo"]);
  });

  it.each([
    ["a resource twice", [configMapType, configMapType], "resource configmaps is registered twice"],
    ["a kind twice", [configMapType, { ...configMapType, resource: "cms" }], "kind ConfigMap is registered twice"],
    ["no version", [widget([])], "has no version"],
    [
      "two storage versions",
      [
        widget([
          { name: "v1", storage: true },
          { name: "v2", storage: true },
        ]),
      ],
      "more than one storage version",
    ],
    [
      "a version twice",
      [
        widget([
          { name: "v1", storage: true },
          { name: "v1", storage: false },
        ]),
      ],
      "lists a version twice",
    ],
  ])("rejects %s at construction", (_what, types, message) => {
    expect(() => new ResourceRegistry(types as ResourceType[])).toThrow(message);
  });
});
