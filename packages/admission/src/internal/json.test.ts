import { describe, expect, it } from "vitest";
import { child, differingPaths, isSet, jsonKind, list, record, records, semanticEqual, str, stringMap, strings } from "./json.js";

describe("JSON readers", () => {
  it("reads objects, arrays and strings defensively", () => {
    expect(record([])).toBeUndefined();
    expect(record(null)).toBeUndefined();
    expect(record({ a: 1 })).toEqual({ a: 1 });
    expect(list("x")).toEqual([]);
    expect(str(1)).toBe("");
    expect(child({ spec: "x" }, "spec")).toEqual({});
    expect(child({ spec: { a: 1 } }, "spec")).toEqual({ a: 1 });
  });

  it("keeps only the elements and entries of the asked type", () => {
    expect(records([{ a: 1 }, "x", null, []])).toEqual([{ a: 1 }]);
    expect(strings(["a", 1, null, "b"])).toEqual(["a", "b"]);
    expect(strings("a")).toEqual([]);
    expect(stringMap({ a: "1", b: 2, c: null })).toEqual({ a: "1" });
  });

  it("counts only undefined and null as unset", () => {
    expect(isSet(undefined)).toBe(false);
    expect(isSet(null)).toBe(false);
    expect(isSet(0)).toBe(true);
    expect(isSet("")).toBe(true);
  });

  it("names JSON types as Go's decoder does", () => {
    expect([[], true, null, 1, "s", {}].map(jsonKind)).toEqual(["array", "bool", "null", "number", "string", "object"]);
  });
});

describe("semanticEqual and differingPaths", () => {
  it("treats absent, null, empty lists and empty objects as equal", () => {
    expect(semanticEqual({ a: [], b: null }, { c: {} })).toBe(true);
    expect(semanticEqual({ a: [1] }, { a: [1] })).toBe(true);
    expect(semanticEqual({ a: [1] }, { a: [2] })).toBe(false);
  });

  it("lists the sorted paths that differ", () => {
    expect(differingPaths({ status: { phase: "A" }, spec: { x: 1 } }, { status: { phase: "B" }, spec: { x: 1 }, metadata: { labels: { a: "b" } } })).toEqual([
      "metadata",
      "status.phase",
    ]);
    expect(differingPaths({ a: 1 }, { a: 1, b: [] })).toEqual([]);
  });
});
