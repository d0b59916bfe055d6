import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeFieldSelectorValue, parseFieldSelector, unescapeFieldSelectorValue, type FieldSelector } from "./field-selector.js";
import { StatusError } from "./status-error.js";

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return e as StatusError;
  }
  throw new Error("did not throw");
}

describe("escaping", () => {
  it("escapes backslash, comma and equals", () => {
    expect(escapeFieldSelectorValue("plain")).toBe("plain");
    expect(escapeFieldSelectorValue("a=b,c\\d")).toBe("a\\=b\\,c\\\\d");
    expect(unescapeFieldSelectorValue("a\\=b\\,c\\\\d")).toBe("a=b,c\\d");
  });

  it("rejects bad escapes with the reference's messages", () => {
    const cases: [string, string][] = [
      ["a\\b", "invalid field selector: invalid escape sequence: \\b"],
      ["a\\", "invalid field selector: invalid escape sequence: \\"],
      ["a=b", "invalid field selector: unescaped character in value: 61"],
      ["a,b", "invalid field selector: unescaped character in value: 44"],
    ];
    for (const [value, message] of cases) {
      const error = failure(() => unescapeFieldSelectorValue(value));
      expect(error.code).toBe(400);
      expect(error.message).toBe(message);
    }
  });
});

describe("parseFieldSelector", () => {
  it("parses =, == and != joined by commas", () => {
    const s = parseFieldSelector("metadata.name==web,status.phase!=Failed,spec.nodeName=n1");
    expect(s.requirements).toEqual([
      { field: "metadata.name", operator: "=", value: "web" },
      { field: "spec.nodeName", operator: "=", value: "n1" },
      { field: "status.phase", operator: "!=", value: "Failed" },
    ]);
    expect(s.toString()).toBe("metadata.name=web,spec.nodeName=n1,status.phase!=Failed");
  });

  it("unescapes values and splits only at unescaped commas", () => {
    const s = parseFieldSelector("a=x\\,y\\=z,b!=\\\\");
    expect(s.requirements).toEqual([
      { field: "a", operator: "=", value: "x,y=z" },
      { field: "b", operator: "!=", value: "\\" },
    ]);
    expect(s.toString()).toBe("a=x\\,y\\=z,b!=\\\\");
  });

  it("takes fields verbatim and values may be empty", () => {
    expect(parseFieldSelector("a =b").requirements).toEqual([{ field: "a ", operator: "=", value: "b" }]);
    expect(parseFieldSelector("a=").requirements).toEqual([{ field: "a", operator: "=", value: "" }]);
    expect(parseFieldSelector("=b").requirements).toEqual([{ field: "", operator: "=", value: "b" }]);
  });

  it("skips empty terms, and terms with neither field nor value", () => {
    expect(parseFieldSelector("").isEmpty()).toBe(true);
    expect(parseFieldSelector(",,").isEmpty()).toBe(true);
    expect(parseFieldSelector("=,!=,a=b,").toString()).toBe("a=b");
  });

  it("rejects a term without an operator and bad escapes", () => {
    expect(failure(() => parseFieldSelector("a=b,c")).message).toBe("invalid selector: 'a=b,c'; can't understand 'c'");
    expect(failure(() => parseFieldSelector("a=b=c")).message).toBe("invalid field selector: unescaped character in value: 61");
    expect(failure(() => parseFieldSelector("a=\\x")).code).toBe(400);
  });

  it("matches fields, an absent field being the empty string", () => {
    const s = parseFieldSelector("metadata.name=web,status.phase!=Failed");
    expect(s.matches({ "metadata.name": "web", "status.phase": "Running" })).toBe(true);
    expect(s.matches({ "metadata.name": "web" })).toBe(true);
    expect(s.matches({ "metadata.name": "web", "status.phase": "Failed" })).toBe(false);
    expect(s.matches({ "metadata.name": "api" })).toBe(false);
    expect(parseFieldSelector("spec.nodeName=").matches({})).toBe(true);
    expect(parseFieldSelector("constructor=").matches({})).toBe(true);
  });

  it("tells the exact value of a field for single-object watches", () => {
    const s = parseFieldSelector("metadata.namespace=ns,metadata.name=web");
    expect(s.exactValue("metadata.name")).toBe("web");
    expect(parseFieldSelector("metadata.name!=web").exactValue("metadata.name")).toBeUndefined();
    expect(parseFieldSelector("").exactValue("metadata.name")).toBeUndefined();
  });

  it("rejects unsupported fields with a 400", () => {
    const supported = new Set(["metadata.name", "metadata.namespace"]);
    const s = parseFieldSelector("metadata.name=a");
    expect(s.checkSupported(supported)).toBe(s);
    const error = failure(() => parseFieldSelector("metadata.name=a,spec.foo=b").checkSupported(supported));
    expect(error.code).toBe(400);
    expect(error.message).toBe("field label not supported: spec.foo");
  });
});

const fieldArb = fc.stringMatching(/^[a-zA-Z0-9./_-]{1,12}$/);
const valueArb = fc.string({ unit: "grapheme", maxLength: 12 });
const requirementArb = fc.record({ field: fieldArb, operator: fc.constantFrom("=", "==", "!="), value: valueArb });

function matchesDirectly(reqs: { field: string; operator: string; value: string }[], fields: Record<string, string>) {
  return reqs.every((r) => ((fields[r.field] ?? "") === r.value) === (r.operator !== "!="));
}

describe("properties", () => {
  it("unescapes what it escapes, for any string", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => unescapeFieldSelectorValue(escapeFieldSelectorValue(s)) === s));
  });

  it("prints a selector that parses back to the same print and the same matches", () => {
    fc.assert(
      fc.property(fc.array(requirementArb, { maxLength: 5 }), fc.array(fc.dictionary(fieldArb, valueArb), { maxLength: 4 }), (reqs, fieldSets) => {
        const text = reqs.map((r) => `${r.field}${r.operator}${escapeFieldSelectorValue(r.value)}`).join(",");
        const parsed: FieldSelector = parseFieldSelector(text);
        const reparsed = parseFieldSelector(parsed.toString());
        expect(reparsed.toString()).toBe(parsed.toString());
        expect(reparsed.requirements).toEqual(parsed.requirements);
        for (const fields of fieldSets) {
          expect(parsed.matches(fields)).toBe(matchesDirectly(reqs, fields));
          expect(reparsed.matches(fields)).toBe(parsed.matches(fields));
        }
      }),
    );
  });

  it("either parses any string or throws a 400 StatusError", () => {
    const soup = fc.array(fc.constantFrom("a", "=", "!", ",", "\\", " ", "é"), { maxLength: 16 }).map((p) => p.join(""));
    for (const arb of [fc.string({ unit: "binary", maxLength: 40 }), soup]) {
      fc.assert(
        fc.property(arb, (text) => {
          try {
            parseFieldSelector(text);
          } catch (e) {
            expect(e).toBeInstanceOf(StatusError);
            expect((e as StatusError).code).toBe(400);
          }
        }),
      );
    }
  });
});
