import { describe, expect, it } from "vitest";
import { exceedsDepth, jsonTextDepth, maxJSONDepth } from "./json-depth.js";

describe("jsonTextDepth", () => {
  it("counts the nesting of arrays and objects, not brackets inside strings", () => {
    const text = `{"a":[{"b":"[[[{{{"}],"pad":"${"x".repeat(40)}"}`;
    expect(jsonTextDepth(text, 10)).toBe(3);
    expect(jsonTextDepth(`{"a":"\\"[[[[[[[[[[[[[[[[[[[[[[[["}`, 10)).toBe(1);
  });

  it("stops past the limit and skips texts too short to exceed it", () => {
    const deep = "[".repeat(maxJSONDepth + 1) + "]".repeat(maxJSONDepth + 1);
    expect(jsonTextDepth(deep)).toBe(maxJSONDepth + 1);
    const limit = "[".repeat(maxJSONDepth) + "]".repeat(maxJSONDepth);
    expect(jsonTextDepth(limit)).toBe(0);
    expect(jsonTextDepth(limit + " ")).toBe(maxJSONDepth);
  });
});

describe("exceedsDepth", () => {
  it("measures a decoded value without recursion, at any depth", () => {
    let value: unknown = 1;
    for (let i = 0; i < 3 * maxJSONDepth; i++) value = { a: value };
    expect(exceedsDepth(value)).toBe(true);
    expect(exceedsDepth({ a: [{ b: [] }] }, 4)).toBe(false);
    expect(exceedsDepth({ a: [{ b: [] }] }, 3)).toBe(true);
  });

  it("follows a value shared by several parents at the deepest place it is reached", () => {
    const shared = [[1]];
    expect(exceedsDepth({ a: shared, b: { c: { d: shared } } }, 5)).toBe(false);
    expect(exceedsDepth({ a: shared, b: { c: { d: shared } } }, 4)).toBe(true);
  });
});
