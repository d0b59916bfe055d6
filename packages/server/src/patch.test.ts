import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mergePatch } from "./patch.js";

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
