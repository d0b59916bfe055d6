import { describe, expect, it } from "vitest";
import { jsonEqual } from "./json-equal.js";

describe("jsonEqual", () => {
  it("compares objects member by member in any order, nested", () => {
    expect(jsonEqual({ a: 1, b: { c: [1, { d: "x" }] } }, { b: { c: [1, { d: "x" }] }, a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, b: { c: [1, { d: "x" }] } }, { a: 1, b: { c: [1, { d: "y" }] } })).toBe(false);
  });

  it("counts a member whose value is undefined as absent, on either side", () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(jsonEqual({ a: 1, c: 2 }, { a: 1, b: 2 })).toBe(false);
  });

  it("compares arrays element by element, in order, and never equal to an object", () => {
    expect(jsonEqual([1, 2], [1, 2])).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([1], [1, 2])).toBe(false);
    expect(jsonEqual({ 0: 1 }, [1])).toBe(false);
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
  });

  it("compares scalars and null by value and type", () => {
    expect(jsonEqual("1", 1)).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual({}, null)).toBe(false);
    expect(jsonEqual(null, null)).toBe(true);
    expect(jsonEqual(true, true)).toBe(true);
  });
});
