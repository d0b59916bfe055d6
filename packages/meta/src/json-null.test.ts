import { describe, expect, it } from "vitest";
import { hasNullMember } from "./json-null.js";

describe("hasNullMember", () => {
  it("finds a null member at any depth, inside arrays too", () => {
    expect(hasNullMember({ a: null })).toBe(true);
    expect(hasNullMember({ a: { b: [1, { c: null }] } })).toBe(true);
    expect(hasNullMember([{ x: 1 }, { y: null }])).toBe(true);
  });

  it("does not count null array items, or values that are not objects", () => {
    expect(hasNullMember([null, 1, "x"])).toBe(false);
    expect(hasNullMember({ a: [null], b: { c: 0, d: "", e: false } })).toBe(false);
    expect(hasNullMember(null)).toBe(false);
    expect(hasNullMember("null")).toBe(false);
  });
});
