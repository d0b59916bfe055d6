import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sameJSON } from "./same-json.js";

const json = fc.jsonValue({ maxDepth: 4 });

describe("sameJSON", () => {
  it("agrees with comparing JSON.stringify texts", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(sameJSON(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
        expect(sameJSON(a, structuredClone(a))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("sees member order and leaves undefined members out, as the text does", () => {
    expect(sameJSON({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJSON({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJSON([1, undefined], [1, null])).toBe(true);
    expect(sameJSON({ a: [] }, { a: {} })).toBe(false);
  });

  it("skips the named top-level members", () => {
    const skip = new Set(["metadata", "status"]);
    expect(sameJSON({ metadata: { a: 1 }, spec: { x: 1 } }, { spec: { x: 1 }, status: {} }, skip)).toBe(true);
    expect(sameJSON({ metadata: {}, spec: { x: 1 } }, { metadata: {}, spec: { x: 2 } }, skip)).toBe(false);
    const same = { metadata: {}, spec: {} };
    expect(sameJSON(same, same, skip)).toBe(true);
  });
});
