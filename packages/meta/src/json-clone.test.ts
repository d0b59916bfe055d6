import { describe, expect, it } from "vitest";
import { cloneJSON } from "./json-clone.js";

describe("cloneJSON", () => {
  it("copies every level, sharing nothing mutable with the original", () => {
    const original = Object.freeze({ a: Object.freeze([1, Object.freeze({ b: "x" }), null]), c: Object.freeze({ d: true, e: 1.5 }) });
    const copy = cloneJSON(original);
    expect(copy).toEqual(original);
    expect(copy).not.toBe(original);
    expect(copy.a).not.toBe(original.a);
    expect(copy.a[1]).not.toBe(original.a[1]);
    expect(Object.isFrozen(copy) || Object.isFrozen(copy.c)).toBe(false);
    (copy.c as { d: boolean }).d = false;
    expect(original.c.d).toBe(true);
  });

  it("keeps a __proto__ member an own member, without touching the copy's prototype", () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
    const copy = cloneJSON(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "x"]);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"x":1}');
  });

  it("returns primitives as they are", () => {
    for (const v of ["s", 0, -1.25, true, false, null]) expect(cloneJSON(v)).toBe(v);
  });
});
