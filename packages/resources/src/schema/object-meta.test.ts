import { mergeMarkersOf } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { componentNameOf } from "./fields.js";
import { kindSchema, listSchema, objectMetaSchema, ownerReferenceSchema } from "./object-meta.js";

describe("ObjectMeta schema", () => {
  const shape = objectMetaSchema.shape;

  it.each([
    ["finalizers", { listType: "set", patchStrategy: "merge" }],
    ["ownerReferences", { listType: "map", listMapKeys: ["uid"], patchStrategy: "merge", patchMergeKey: "uid" }],
    ["managedFields", { listType: "atomic" }],
  ] as const)("marks %s as the reference does", (field, markers) => {
    expect(mergeMarkersOf(shape[field])).toEqual(markers);
  });

  it("leaves labels and annotations granular maps and OwnerReference an atomic struct", () => {
    expect(mergeMarkersOf(shape.labels)).toBeUndefined();
    expect(mergeMarkersOf(shape.annotations)).toBeUndefined();
    expect(mergeMarkersOf(ownerReferenceSchema)).toEqual({ structType: "atomic" });
  });

  it("has every field of the ObjectMeta type", () => {
    expect(Object.keys(shape).sort()).toEqual(
      [
        "annotations",
        "creationTimestamp",
        "deletionGracePeriodSeconds",
        "deletionTimestamp",
        "finalizers",
        "generateName",
        "generation",
        "labels",
        "managedFields",
        "name",
        "namespace",
        "ownerReferences",
        "resourceVersion",
        "selfLink",
        "uid",
      ].sort(),
    );
    expect(componentNameOf(objectMetaSchema)).toBe("apimachinery.pkg.apis.meta.v1.ObjectMeta");
  });

  it("builds a kind schema from its fields and a list schema from the kind", () => {
    const widget = kindSchema({ size: z.number().optional() });
    expect(widget.parse({ apiVersion: "v1", kind: "Widget", metadata: { name: "w" }, size: 1, other: 2 })).toEqual({
      apiVersion: "v1",
      kind: "Widget",
      metadata: { name: "w" },
      size: 1,
    });
    expect(listSchema(widget).safeParse({ items: [{ size: 1 }] }).success).toBe(true);
    expect(listSchema(widget).safeParse({}).success).toBe(false);
  });
});
