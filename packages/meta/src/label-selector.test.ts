import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatFieldError } from "./field-error.js";
import {
  everything,
  labelSelectorFromObject,
  labelSelectorToObject,
  nothing,
  parseLabelSelector,
  type LabelSelector,
  type LabelSelectorOperator,
} from "./label-selector.js";
import { StatusError } from "./status-error.js";

function parseError(text: string): StatusError {
  try {
    parseLabelSelector(text);
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    return e as StatusError;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

function selectorOf(result: ReturnType<typeof labelSelectorFromObject>): LabelSelector {
  if (!result.ok) throw new Error(result.errors.map(formatFieldError).join("; "));
  return result.selector;
}

describe("parseLabelSelector", () => {
  it("parses the reference's good selectors and prints them canonically", () => {
    const cases: [string, string][] = [
      ["", ""],
      ["x=a,y=b,z=c", "x=a,y=b,z=c"],
      ["z=c,x=a", "x=a,z=c"],
      ["x==a", "x==a"],
      ["x!=a,y=b", "x!=a,y=b"],
      ["close-to-end!=a", "close-to-end!=a"],
      ["x>1,z<5", "x>1,z<5"],
      ["\rx", "x"],
      ["this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"],
      ["this-is-another-dns.domain.com/key-with-dash in (so,what)", "this-is-another-dns.domain.com/key-with-dash in (so,what)"],
      ["0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"],
      ["foo  in\t (abc)", "foo in (abc)"],
      ["x notin\n (abc)", "x notin (abc)"],
      ["x in (def,abc,def)", "x in (abc,def)"],
      ["x in (abc,)", "x in (,abc)"],
      ["x in ()", "x in ()"],
      ["x notin ( )", "x notin ()"],
      ["x notin (, a)", "x notin (,a)"],
      ["x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"],
      ["x,y in (a)", "x,y in (a)"],
      ["a ", "a"],
      ["a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"],
      ["notin=in", "notin=in"],
      ["!x,!in", "!in,!x"],
      ["x=", "x="],
      ["x=,y", "x=,y"],
      // The reference lexer reads a 0 byte where a token starts as the end of the input.
      ["k=v \u0000 trailing garbage", "k=v"],
    ];
    for (const [text, printed] of cases) expect(parseLabelSelector(text).toString(), JSON.stringify(text)).toBe(printed);
  });

  it("keeps the order of requirements on one key, as a stable sort by key", () => {
    expect(parseLabelSelector("b=1,a!=2,a=3").toString()).toBe("a!=2,a=3,b=1");
    expect(parseLabelSelector("b=1,a!=2,a=3").requirements).toEqual([
      { key: "a", operator: "!=", values: ["2"] },
      { key: "a", operator: "=", values: ["3"] },
      { key: "b", operator: "=", values: ["1"] },
    ]);
  });

  it("rejects bad syntax with the reference's messages", () => {
    const namePart =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const cases: [string, string][] = [
      ["x,,y", "found ',', expected: identifier after ','"],
      [",x,y", "found ',', expected: !, identifier, or 'end of string'"],
      ["x nott in (y)", "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"],
      ["a in (xyz),", "found '', expected: identifier after ','"],
      ["a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'"],
      ["a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'"],
      ["a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier"],
      ["a in x", "unable to parse requirement: found 'x' expected: '('"],
      ["a in (b", "unable to parse requirement: found '', expected: ',' or ')'"],
      ["a in (b,", "unable to parse requirement: found '', expected: ',', or identifier"],
      ["a in (b,,)", "unable to parse requirement: found ')', expected: ',', or identifier"],
      ["a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
      ["(", "found '(', expected: !, identifier, or 'end of string'"],
      ["!x=a", "found '=', expected: ',' or 'end of string'"],
      ["x==a==b", "found '==', expected: ',' or 'end of string'"],
      ["x=(", "unable to parse requirement: found '(', expected: identifier"],
      ["!", "unable to parse requirement: found '', expected: identifier"],
      ["x<a", `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
      ["app:monolith", `unable to parse requirement: <nil>: Invalid value: "app:monolith": ${namePart}`],
      [
        "x=a||y=b",
        `unable to parse requirement: values[0][x]: Invalid value: "a||y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ],
    ];
    for (const [text, message] of cases) {
      const error = parseError(text);
      expect(error.code, text).toBe(400);
      expect(error.reason).toBe("BadRequest");
      expect(error.message, text).toBe(message);
    }
  });

  it("joins several problems with one requirement as the reference's aggregate does", () => {
    expect(parseError("x>-1").message).toMatch(/^unable to parse requirement: values\[0\]\[x\]: Invalid value: "-1": a valid label/);
    const labelValue =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    expect(parseError("x>-1a").message).toBe(
      `unable to parse requirement: [values[0]: Invalid value: "-1a": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "-1a": ${labelValue}]`,
    );
  });
});

describe("LabelSelector.matches", () => {
  it("matches as the reference's selector tests expect", () => {
    const yes: [string, Record<string, string>][] = [
      ["", { x: "y" }],
      ["x=y", { x: "y" }],
      ["x==y", { x: "y" }],
      ["x=y,z=w", { x: "y", z: "w" }],
      ["x!=y,z!=w", { x: "z", z: "a" }],
      ["notin=in", { notin: "in" }],
      ["x", { x: "z" }],
      ["!x", { y: "z" }],
      ["x>1", { x: "2" }],
      ["x<1", { x: "0" }],
      ["x<1", { x: "-5" }],
      ["x>1", { x: "+0000000000000000000000002" }],
      ["x in (a,b)", { x: "b" }],
      ["x notin (a,b)", { x: "c" }],
      ["x notin (a,b)", {}],
      ["x!=y", {}],
      ["x=", { x: "" }],
      ["x in ()", { x: "" }],
      ["constructor", { constructor: "v" }],
    ];
    for (const [text, labels] of yes) expect(parseLabelSelector(text).matches(labels), `${text} ${JSON.stringify(labels)}`).toBe(true);
    const no: [string, Record<string, string>][] = [
      ["x=z", {}],
      ["x=y", { x: "z" }],
      ["x=y,z=w", { x: "w", z: "w" }],
      ["x!=y,z!=w", { x: "z", z: "w" }],
      ["x", { y: "z" }],
      ["!x", { x: "z" }],
      ["x>1", { x: "0" }],
      ["x<1", { x: "2" }],
      ["x>1", { x: "two" }],
      ["x>1", {}],
      ["x>1", { x: "99999999999999999999" }],
      ["x in (a,b)", { x: "c" }],
      ["x in (a,b)", {}],
      ["x notin (a,b)", { x: "a" }],
      ["x=", {}],
      ["constructor", {}],
      ["toString=x", {}],
    ];
    for (const [text, labels] of no) expect(parseLabelSelector(text).matches(labels), `${text} ${JSON.stringify(labels)}`).toBe(false);
  });

  it("treats undefined labels as none", () => {
    expect(parseLabelSelector("!x").matches(undefined)).toBe(true);
    expect(parseLabelSelector("x").matches(undefined)).toBe(false);
  });

  it("offers everything, nothing and exact values", () => {
    expect(everything().isEmpty()).toBe(true);
    expect(everything().matches({ a: "b" })).toBe(true);
    expect(parseLabelSelector("")).toBe(everything());
    expect(nothing().matches({})).toBe(false);
    expect(nothing().isEmpty()).toBe(false);
    expect(nothing().isNothing()).toBe(true);
    const s = parseLabelSelector("a=1,b in (2),c in (3,4),d!=5");
    expect([s.exactValue("a"), s.exactValue("b"), s.exactValue("c"), s.exactValue("d"), s.exactValue("e")]).toEqual([
      "1",
      "2",
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("is immutable", () => {
    const s = parseLabelSelector("a in (1,2)");
    expect(Object.isFrozen(s.requirements)).toBe(true);
    expect(Object.isFrozen(s.requirements[0])).toBe(true);
    expect(Object.isFrozen(s.requirements[0]?.values)).toBe(true);
  });
});

describe("object form", () => {
  it("converts matchLabels and matchExpressions", () => {
    const s = selectorOf(
      labelSelectorFromObject({
        matchLabels: { app: "web" },
        matchExpressions: [
          { key: "tier", operator: "In", values: ["b", "a"] },
          { key: "env", operator: "NotIn", values: ["dev"] },
          { key: "canary", operator: "DoesNotExist" },
          { key: "owner", operator: "Exists", values: [] },
        ],
      }),
    );
    expect(s.toString()).toBe("app=web,!canary,env notin (dev),owner,tier in (a,b)");
    expect(s.matches({ app: "web", tier: "a", owner: "me" })).toBe(true);
    expect(s.matches({ app: "web", tier: "a", owner: "me", canary: "" })).toBe(false);
  });

  it("refuses a requirement without key or operator with field errors, not a crash", () => {
    const result = labelSelectorFromObject({ matchExpressions: [{} as never, { key: "a", operator: "In", values: [null as never] }] }, "spec.selector");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => `${e.field}: ${e.type}`)).toEqual([
      "spec.selector.matchExpressions[0].operator: FieldValueInvalid",
      "spec.selector.matchExpressions[0].key: FieldValueInvalid",
      "spec.selector.matchExpressions[0].key: FieldValueInvalid",
    ]);
  });

  it("accepts deep-frozen objects as the store holds them", () => {
    const frozen = Object.freeze({
      matchLabels: Object.freeze({ app: "web" }),
      matchExpressions: Object.freeze([Object.freeze({ key: "tier", operator: "In", values: Object.freeze(["a"]) } as const)]),
    });
    expect(selectorOf(labelSelectorFromObject(frozen)).toString()).toBe("app=web,tier in (a)");
  });

  it("makes an empty object select everything and a missing one nothing", () => {
    expect(selectorOf(labelSelectorFromObject({})).isEmpty()).toBe(true);
    expect(selectorOf(labelSelectorFromObject(null)).isNothing()).toBe(true);
    expect(selectorOf(labelSelectorFromObject(undefined)).matches({})).toBe(false);
  });

  it("reports the reference's field errors", () => {
    const result = labelSelectorFromObject(
      {
        matchLabels: { "bad key": "v" },
        matchExpressions: [
          { key: "a", operator: "In" },
          { key: "b", operator: "Exists", values: ["x"] },
          { key: "c", operator: "Gt" as never, values: ["1"] },
          { key: "d", operator: "In", values: ["-bad"] },
        ],
      },
      "spec.selector",
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => `${e.field}: ${e.type}`)).toEqual([
      "spec.selector.matchLabels: FieldValueInvalid",
      "spec.selector.matchExpressions[0].values: FieldValueRequired",
      "spec.selector.matchExpressions[1].values: FieldValueForbidden",
      "spec.selector.matchExpressions[2].operator: FieldValueInvalid",
      "spec.selector.matchExpressions[3].values[0]: FieldValueInvalid",
    ]);
    expect(formatFieldError(result.errors[1]!)).toBe(
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    );
    expect(formatFieldError(result.errors[2]!)).toBe(
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    );
    expect(formatFieldError(result.errors[3]!)).toBe('spec.selector.matchExpressions[2].operator: Invalid value: "Gt": not a valid selector operator');
  });

  it("converts back to the object form", () => {
    expect(labelSelectorToObject(parseLabelSelector("app=web,app=api,tier in (b,a),x!=y,e,!f"))).toEqual({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "app", operator: "In", values: ["api"] },
        { key: "e", operator: "Exists" },
        { key: "f", operator: "DoesNotExist" },
        { key: "tier", operator: "In", values: ["a", "b"] },
        { key: "x", operator: "NotIn", values: ["y"] },
      ],
    });
    expect(labelSelectorToObject(everything())).toEqual({});
    expect(() => labelSelectorToObject(parseLabelSelector("x>1"))).toThrow(`"gt" isn't supported in label selectors`);
    expect(() => labelSelectorToObject(nothing())).toThrow(StatusError);
  });
});

// Generators for the properties: keys and values from small pools, so that requirements share
// keys and generated label maps hit them.
const keyArb = fc.constantFrom("a", "b", "app", "in", "notin", "x.y-z_1", "orch.io/role", "Example-Key");
const valueArb = fc.constantFrom("", "a", "b", "web", "in", "0", "1", "7", "42", "v1.2", "x_y");
const intArb = fc.constantFrom("0", "1", "7", "42", "0009");
const operatorArb = fc.constantFrom<LabelSelectorOperator>("=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt");
const spaceArb = fc.constantFrom("", " ", "  ", "\t", "\n");

const requirementTextArb = fc
  .tuple(keyArb, operatorArb, fc.uniqueArray(valueArb, { minLength: 1, maxLength: 4 }), intArb, spaceArb, spaceArb)
  .map(([key, op, values, int, s1, s2]) => {
    switch (op) {
      case "exists":
        return `${s1}${key}${s2}`;
      case "!":
        return `${s1}!${s2}${key}`;
      case "in":
      case "notin":
        return `${key} ${op}${s1}(${values.join(`,${s2}`)})`;
      case "gt":
        return `${key}${s1}>${s2}${int}`;
      case "lt":
        return `${key}${s1}<${s2}${int}`;
      default:
        return `${key}${s1}${op}${s2}${values[0]}`;
    }
  });
const selectorTextArb = fc.array(requirementTextArb, { maxLength: 6 }).map((rs) => rs.join(","));
const labelsArb = fc.dictionary(keyArb, valueArb, { maxKeys: 6 });

// A direct reading of the reference's Requirement.Matches, to check the compiled matchers.
function oracle(selector: LabelSelector, labels: Record<string, string>): boolean {
  return selector.requirements.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    const v = labels[r.key];
    switch (r.operator) {
      case "=":
      case "==":
      case "in":
        return has && r.values.includes(v as string);
      case "!=":
      case "notin":
        return !has || !r.values.includes(v as string);
      case "exists":
        return has;
      case "!":
        return !has;
      case "gt":
      case "lt": {
        if (!has || !/^[+-]?[0-9]+$/.test(v as string)) return false;
        const n = BigInt(v as string);
        const bound = BigInt(r.values[0] as string);
        return r.operator === "gt" ? n > bound : n < bound;
      }
    }
  });
}

describe("properties", () => {
  it("prints a selector that parses back to the same print and the same matches", () => {
    fc.assert(
      fc.property(selectorTextArb, fc.array(labelsArb, { maxLength: 5 }), (text, labelSets) => {
        const parsed = parseLabelSelector(text);
        const reparsed = parseLabelSelector(parsed.toString());
        expect(reparsed.toString()).toBe(parsed.toString());
        expect(reparsed.requirements).toEqual(parsed.requirements);
        for (const labels of labelSets) {
          expect(reparsed.matches(labels)).toBe(parsed.matches(labels));
          expect(parsed.matches(labels)).toBe(oracle(parsed, labels));
        }
      }),
    );
  });

  it("round-trips through the object form when it has no gt/lt", () => {
    fc.assert(
      fc.property(selectorTextArb, fc.array(labelsArb, { maxLength: 5 }), (text, labelSets) => {
        const parsed = parseLabelSelector(text);
        if (parsed.requirements.some((r) => r.operator === "gt" || r.operator === "lt")) return;
        const back = selectorOf(labelSelectorFromObject(labelSelectorToObject(parsed)));
        for (const labels of labelSets) expect(back.matches(labels)).toBe(parsed.matches(labels));
      }),
    );
  });

  it("either parses any string or throws a 400 StatusError", () => {
    const soup = fc
      .array(fc.constantFrom("a", "b/c", "in", "notin", "(", ")", ",", "=", "==", "!", "!=", ">", "<", " ", "\t", "1", "-", ".", "\u0000", "é"), {
        maxLength: 20,
      })
      .map((parts) => parts.join(""));
    for (const arb of [fc.string({ unit: "binary", maxLength: 60 }), soup]) {
      fc.assert(
        fc.property(arb, (text) => {
          try {
            parseLabelSelector(text);
          } catch (e) {
            expect(e).toBeInstanceOf(StatusError);
            expect((e as StatusError).code).toBe(400);
          }
        }),
        { numRuns: 1000 },
      );
    }
  });
});
