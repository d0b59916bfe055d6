import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatAPIVersion,
  formatGroupKind,
  formatGroupResource,
  formatGroupVersionKind,
  formatGroupVersionResource,
  gvkOf,
  parseAPIVersion,
  parseGroupKind,
  parseGroupResource,
} from "./gvk.js";
import { StatusError } from "./status-error.js";

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return e as StatusError;
  }
  throw new Error("did not throw");
}

describe("apiVersion", () => {
  it("parses named groups and the core group", () => {
    expect(parseAPIVersion("apps/v1")).toEqual({ group: "apps", version: "v1" });
    expect(parseAPIVersion("coordination.orch.io/v1beta1")).toEqual({ group: "coordination.orch.io", version: "v1beta1" });
    expect(parseAPIVersion("v1")).toEqual({ group: "", version: "v1" });
  });

  it("rejects empty and malformed versions with a 400", () => {
    expect(failure(() => parseAPIVersion("a/b/c")).message).toBe("unexpected GroupVersion string: a/b/c");
    for (const bad of ["", "/", "/v1", "apps/"]) expect(failure(() => parseAPIVersion(bad)).code, bad).toBe(400);
  });

  it("prints what it parses", () => {
    expect(formatAPIVersion({ group: "", version: "v1" })).toBe("v1");
    expect(formatAPIVersion({ group: "apps", version: "v1" })).toBe("apps/v1");
    const part = fc.stringMatching(/^[a-z0-9.]{1,10}$/);
    fc.assert(
      fc.property(fc.option(part), part, (group, version) => {
        const gv = { group: group ?? "", version };
        expect(parseAPIVersion(formatAPIVersion(gv))).toEqual(gv);
      }),
    );
  });
});

describe("gvkOf", () => {
  it("reads apiVersion and kind", () => {
    expect(gvkOf({ apiVersion: "apps/v1", kind: "Deployment" })).toEqual({ group: "apps", version: "v1", kind: "Deployment" });
    expect(gvkOf({ apiVersion: "v1", kind: "ConfigMap" })).toEqual({ group: "", version: "v1", kind: "ConfigMap" });
  });

  it("needs both, as the reference's decoder does", () => {
    expect(failure(() => gvkOf({ apiVersion: "v1" })).message).toBe("Object 'Kind' is missing");
    expect(failure(() => gvkOf({ kind: "Pod" })).message).toBe("Object 'apiVersion' is missing");
    expect(failure(() => gvkOf({ apiVersion: "a/b/c", kind: "Pod" })).code).toBe(400);
  });
});

describe("group resources and kinds", () => {
  it("print and parse as the reference does", () => {
    expect(formatGroupResource({ group: "coordination.orch.io", resource: "leases" })).toBe("leases.coordination.orch.io");
    expect(formatGroupResource({ group: "", resource: "pods" })).toBe("pods");
    expect(formatGroupKind({ group: "coordination.orch.io", kind: "Lease" })).toBe("Lease.coordination.orch.io");
    expect(formatGroupKind({ group: "", kind: "Pod" })).toBe("Pod");
    expect(parseGroupResource("deployments.apps")).toEqual({ group: "apps", resource: "deployments" });
    expect(parseGroupResource("leases.coordination.orch.io")).toEqual({ group: "coordination.orch.io", resource: "leases" });
    expect(parseGroupResource("pods")).toEqual({ group: "", resource: "pods" });
    expect(parseGroupKind("Deployment.apps")).toEqual({ group: "apps", kind: "Deployment" });
    expect(parseGroupKind("Pod")).toEqual({ group: "", kind: "Pod" });
  });

  it("print versioned kinds and resources as the reference's messages do", () => {
    expect(formatGroupVersionKind({ group: "apps", version: "v1", kind: "Deployment" })).toBe("apps/v1, Kind=Deployment");
    expect(formatGroupVersionResource({ group: "", version: "v1", resource: "pods" })).toBe("/v1, Resource=pods");
  });

  it("round-trip resources whose name has no dot", () => {
    const name = fc.stringMatching(/^[a-z]{1,10}$/);
    const group = fc.stringMatching(/^([a-z]{1,6}(\.[a-z]{1,6}){0,3})?$/);
    fc.assert(
      fc.property(name, group, (resource, g) => {
        expect(parseGroupResource(formatGroupResource({ group: g, resource }))).toEqual({ group: g, resource });
      }),
    );
  });
});
