import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepFreeze } from "@orch/store";
import type { APIObject } from "@orch/meta";
import { applyPatch, mergePatch } from "./patch.js";

const json = fc.jsonValue({ maxDepth: 4 });
const object = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 6 });

describe("JSON merge patch (RFC 7386)", () => {
  it("is the identity for an empty patch", () => {
    fc.assert(
      fc.property(object, (target) => {
        expect(mergePatch(target, {})).toEqual(target);
      }),
    );
  });

  it("never changes its target", () => {
    fc.assert(
      fc.property(object, object, (target, patch) => {
        const before = JSON.stringify(target);
        mergePatch(target, patch);
        expect(JSON.stringify(target)).toBe(before);
      }),
    );
  });

  it("deletes keys patched with null and replaces non-object values whole", () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, e: [1, 2] }, { a: null, b: { c: null }, e: [3] })).toEqual({ b: { d: 3 }, e: [3] });
    expect(mergePatch({ a: 1 }, "x")).toBe("x");
  });

  it("is idempotent: applying the same patch twice equals applying it once", () => {
    fc.assert(
      fc.property(object, object, (target, patch) => {
        const once = mergePatch(target, patch);
        expect(mergePatch(once, patch)).toEqual(once);
      }),
    );
  });
});

describe("a merge patch of a stored object", () => {
  const managedFields = [{ manager: "m", operation: "Update" as const, apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:k": {} } } }];
  const stored = deepFreeze({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a", labels: { x: "y" }, managedFields },
    data: { k: "v", other: "o" },
  }) as APIObject;
  const patch = (body: unknown) => applyPatch("application/merge-patch+json", new TextEncoder().encode(JSON.stringify(body)), stored, undefined) as APIObject;

  it("is a mutable copy that shares only the stored managedFields, which it leaves as they were", () => {
    const patched = patch({ data: { k: "w" } });
    expect(patched).toEqual({ ...stored, data: { k: "w", other: "o" } });
    expect(Object.isFrozen(patched) || Object.isFrozen(patched.metadata) || Object.isFrozen(patched.metadata.labels)).toBe(false);
    expect(patched.metadata.managedFields).toBe(managedFields);
    patched.metadata.labels!["z"] = "w";
    expect(stored.metadata.labels).toEqual({ x: "y" });
  });

  it("replaces or removes managedFields when the patch names them", () => {
    expect(patch({ metadata: { managedFields: [{}] } }).metadata.managedFields).toEqual([{}]);
    expect(patch({ metadata: { managedFields: null } }).metadata).toEqual({ name: "a", labels: { x: "y" } });
  });
});
