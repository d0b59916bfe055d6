import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fieldElement, formatPath, keyElement, valueElement } from "./field-path.js";
import { FieldSet } from "./field-set.js";
import { decodeFieldsV1, encodeFieldsV1, isEncodedFieldsV1 } from "./fieldsV1.js";
import { fieldSetOf } from "./internal/walk.js";
import { typeInfoOf } from "./type-info.js";
import { widgetSchema } from "./testdata/apply/schemas.js";

const element = fc.oneof(
  fc.constantFrom("a", "b", "c").map(fieldElement),
  fc.constantFrom("x", "y").map((n) => keyElement({ name: n })),
  fc.constantFrom("p", 1, true).map(valueElement),
  fc.integer({ min: 0, max: 2 }).map((i) => `i:${i}`),
);
const pathArb = fc.array(element, { minLength: 1, maxLength: 4 });
const setArb = fc.array(pathArb, { maxLength: 12 }).map((paths) => FieldSet.of(...paths));
const leaves = (s: FieldSet) => new Set([...s.leaves()].map((p) => JSON.stringify(p)));

describe("FieldSet", () => {
  it("has what was inserted, and not its prefixes", () => {
    const s = FieldSet.of(["f:spec", "f:replicas"]);
    expect(s.has(["f:spec", "f:replicas"])).toBe(true);
    expect(s.has(["f:spec"])).toBe(false);
    expect(s.isEmpty()).toBe(false);
    expect(new FieldSet().isEmpty()).toBe(true);
  });

  it("union, difference and intersection agree with the sets of their leaves", () => {
    fc.assert(
      fc.property(setArb, setArb, (a, b) => {
        const la = leaves(a);
        const lb = leaves(b);
        expect(leaves(a.union(b))).toEqual(new Set([...la, ...lb]));
        expect(leaves(a.intersection(b))).toEqual(new Set([...la].filter((x) => lb.has(x))));
        expect(leaves(a.difference(b))).toEqual(new Set([...la].filter((x) => !lb.has(x))));
      }),
    );
  });

  it("obeys the laws of a set algebra", () => {
    fc.assert(
      fc.property(setArb, setArb, setArb, (a, b, c) => {
        expect(a.union(b).equals(b.union(a))).toBe(true);
        expect(a.intersection(b).equals(b.intersection(a))).toBe(true);
        expect(
          a
            .union(b)
            .union(c)
            .equals(a.union(b.union(c))),
        ).toBe(true);
        expect(a.intersection(b.union(c)).equals(a.intersection(b).union(a.intersection(c)))).toBe(true);
        expect(a.difference(b).intersection(b).isEmpty()).toBe(true);
        expect(a.difference(b).union(a.intersection(b)).equals(a)).toBe(true);
        expect(a.union(a).equals(a)).toBe(true);
        expect(a.difference(a).isEmpty()).toBe(true);
      }),
    );
  });

  it("returns a set that already holds all of the other from union, and leaves both operands as they were", () => {
    fc.assert(
      fc.property(setArb, setArb, (a, b) => {
        const before = [leaves(a), leaves(b)];
        const u = a.union(b);
        expect(u.union(b)).toBe(u);
        expect(u.union(a)).toBe(u);
        expect(u.union(a.intersection(b))).toBe(u);
        expect([leaves(a), leaves(b)]).toEqual(before);
      }),
    );
  });

  it("recursiveDifference removes whole subtrees below members", () => {
    const s = FieldSet.of(["f:status", "f:phase"], ["f:spec", "f:replicas"]);
    const r = s.recursiveDifference(FieldSet.of(["f:status"]));
    expect([...r.leaves()]).toEqual([["f:spec", "f:replicas"]]);
  });

  it("leaves iterate in encoded order", () => {
    const s = FieldSet.of(["i:1"], [valueElement("a")], [keyElement({ name: "x" })], ["f:b"], ["f:a"]);
    expect([...s.leaves()].map((p) => p[0])).toEqual(["f:a", "f:b", 'k:{"name":"x"}', 'v:"a"', "i:1"]);
  });
});

describe("FieldsV1", () => {
  it("tells a value it encoded, once frozen, from any other", () => {
    const set = FieldSet.of(["f:a"]);
    const made = encodeFieldsV1(set);
    expect(isEncodedFieldsV1(made)).toBe(false);
    Object.freeze(made);
    expect(isEncodedFieldsV1(made)).toBe(true);
    expect(isEncodedFieldsV1(Object.freeze(JSON.parse(JSON.stringify(made)) as object))).toBe(false);
    expect(isEncodedFieldsV1(Object.freeze({ ...made }))).toBe(false);
    expect(isEncodedFieldsV1(null)).toBe(false);
  });

  it("encodes the elements of a node in order however many there are (fields, keys, values, indexes; fields by text)", () => {
    const names = Array.from({ length: 40 }, (_, i) => `n${(i * 7) % 40}`);
    for (const count of [3, 20, 40]) {
      const set = FieldSet.of(["i:10"], ["i:9"], [valueElement("a")], [keyElement({ name: "x" })], ...names.slice(0, count).map((n) => [fieldElement(n)]));
      const fields = names
        .slice(0, count)
        .map((n) => `f:${n}`)
        .sort();
      expect(Object.keys(encodeFieldsV1(set))).toEqual([...fields, 'k:{"name":"x"}', 'v:"a"', "i:9", "i:10"]);
    }
  });

  it("round-trips any set", () => {
    fc.assert(
      fc.property(setArb, (s) => {
        const encoded = encodeFieldsV1(s);
        const text = JSON.parse(JSON.stringify(encoded)) as Record<string, unknown>;
        expect(decodeFieldsV1(text).equals(s)).toBe(true);
        expect(encodeFieldsV1(decodeFieldsV1(text))).toEqual(encoded);
      }),
    );
  });

  it("encodes a node that is itself a member with '.'", () => {
    const s = FieldSet.of(["f:spec", 'k:{"name":"a"}'], ["f:spec", 'k:{"name":"a"}', "f:image"]);
    expect(encodeFieldsV1(s)).toEqual({ "f:spec": { 'k:{"name":"a"}': { ".": {}, "f:image": {} } } });
  });

  it("canonicalises key order in k: elements", () => {
    const s = decodeFieldsV1({ 'k:{"protocol":"TCP","port":80}': {} });
    expect(s.has(['k:{"port":80,"protocol":"TCP"}'])).toBe(true);
  });

  it.each([
    [{ "x:foo": {} }, "x:foo"],
    [{ "f:a": { "k:{bad": {} } }, "k:{bad"],
    [{ "f:a": { "i:-1": {} } }, "i:-1"],
    [{ "f:a": { "k:[1]": {} } }, "k:[1]"],
    [{ "f:a": "leaf" }, "f:a"],
  ])("refuses malformed input %j with a 400 naming the entry", (input, name) => {
    let error: unknown;
    try {
      decodeFieldsV1(input);
    } catch (e) {
      error = e;
    }
    expect((error as { code: number }).code).toBe(400);
    expect((error as Error).message).toContain(name);
  });
});

describe("fieldSetOf", () => {
  const t = typeInfoOf(widgetSchema);
  it("gives leaves, list entries with '.', and atomic lists and maps as one leaf", () => {
    const s = fieldSetOf(
      { spec: { replicas: 1, args: ["a"], selector: { a: "1" }, tags: ["x"], items: [{ name: "n", value: "v" }], settings: { k: "v" } } },
      t,
    );
    expect(encodeFieldsV1(s)).toEqual({
      "f:spec": {
        "f:args": {},
        "f:items": { 'k:{"name":"n"}': { ".": {}, "f:name": {}, "f:value": {} } },
        "f:replicas": {},
        "f:selector": {},
        "f:settings": { "f:k": {} },
        "f:tags": { 'v:"x"': {} },
      },
    });
  });

  it("prints paths as the reference does", () => {
    expect(formatPath(["f:spec", 'k:{"name":"x","port":80}', "f:image"])).toBe('.spec[name="x",port=80].image');
    expect(formatPath(["f:spec", "f:tags", 'v:"a"'])).toBe('.spec.tags[="a"]');
    expect(formatPath(["f:spec", "i:3"])).toBe(".spec[3]");
  });
});
