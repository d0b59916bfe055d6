import { describe, expect, it } from "vitest";
import { keyResource } from "./key-resource.js";

describe("keyResource", () => {
  it("reads the group, resource and name of registry keys", () => {
    expect(keyResource("/registry/core/configmaps/ns/name")).toEqual({ resource: { group: "", resource: "configmaps" }, name: "name" });
    expect(keyResource("/registry/core/namespaces/default")).toEqual({ resource: { group: "", resource: "namespaces" }, name: "default" });
    expect(keyResource("/registry/coordination.orch.io/leases/ns/l")).toEqual({
      resource: { group: "coordination.orch.io", resource: "leases" },
      name: "l",
    });
  });

  it("falls back to the whole key as the name for other shapes", () => {
    for (const key of ["/registry/core/configmaps", "/other/core/configmaps/x", "plain", "/registry/core/configmaps/ns/", ""]) {
      expect(keyResource(key)).toEqual({ resource: { group: "", resource: "" }, name: key });
    }
  });
});
