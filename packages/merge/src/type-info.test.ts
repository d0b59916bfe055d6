import { listType, mapType, patchStrategy, structType } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveType, typeAt, typeInfoOf, unstructured } from "./type-info.js";

describe("typeInfoOf", () => {
  const node: z.ZodType = z.lazy(() => z.object({ name: z.string(), children: listType(z.array(node), "map", ["name"]).optional() }));
  const schema = z.object({
    spec: z
      .object({
        count: z.number().optional(),
        set: listType(z.array(z.string()), "set").optional(),
        keyed: patchStrategy(z.array(z.object({ id: z.string() })), "merge", "id").optional(),
        plain: z.array(z.string()).optional(),
        labels: z.record(z.string(), z.string()).optional(),
        atomicMap: mapType(z.record(z.string(), z.string()), "atomic").nullable().optional(),
        atomicStruct: structType(z.object({ a: z.string() }), "atomic").optional(),
        free: z.record(z.string(), z.unknown()).optional(),
        tree: node.optional(),
      })
      .optional(),
  });
  const t = typeInfoOf(schema);

  it("reads structs, maps, lists and scalars with their markers through wrappers", () => {
    const spec = t.field("spec");
    expect(spec.kind).toBe("struct");
    expect(spec.atomic).toBe(false);
    expect(spec.field("count").kind).toBe("scalar");
    expect(spec.field("set")).toMatchObject({ kind: "list", listType: "set", atomic: false });
    expect(spec.field("keyed")).toMatchObject({ kind: "list", listType: "map", keys: ["id"] });
    expect(spec.field("plain")).toMatchObject({ kind: "list", listType: "atomic", atomic: true });
    expect(spec.field("labels")).toMatchObject({ kind: "map", atomic: false });
    expect(spec.field("atomicMap")).toMatchObject({ kind: "map", atomic: true });
    expect(spec.field("atomicStruct")).toMatchObject({ kind: "struct", atomic: true });
    expect(spec.declares("count")).toBe(true);
    expect(spec.declares("nope")).toBe(false);
  });

  it("follows recursive schemas", () => {
    expect(typeAt(t, ["spec", "tree", "children", 0, "children"])).toMatchObject({ kind: "list", listType: "map", keys: ["name"] });
  });

  it("caches per schema", () => {
    expect(typeInfoOf(schema)).toBe(t);
  });

  it("treats unknown values as unstructured: objects granular with every key a field, lists atomic", () => {
    const free = t.field("spec").field("free");
    expect(free.kind).toBe("struct");
    expect(free.declares("anything")).toBe(true);
    expect(resolveType(unstructured, { a: 1 })).toMatchObject({ kind: "struct", atomic: false });
    expect(resolveType(unstructured, [1])).toMatchObject({ kind: "list", atomic: true });
    expect(resolveType(unstructured, "x").kind).toBe("scalar");
  });

  it("treats a value of the wrong kind as a leaf", () => {
    expect(resolveType(t.field("spec"), "oops").kind).toBe("scalar");
  });
});
