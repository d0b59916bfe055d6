/**
 * Label selectors: the `labelSelector` query grammar of the reference system (`k8s.io/
 * apimachinery/pkg/labels`), its canonical print, and the object form of `spec.selector`
 * (`matchLabels`, `matchExpressions`). Parsing is a port of the reference lexer and parser, so
 * what it accepts, how it prints and what its errors say are the same.
 *
 * Matching runs once per listed object, so a selector compiles each requirement into a closure
 * when it is built: equality is one property read and a compare, sets are a `Set` lookup, and
 * `gt`/`lt` bounds are parsed once.
 * @module
 */
import { FieldPath, forbiddenField, formatFieldError, invalidField, requiredField, type FieldError } from "./field-error.js";
import { parseInt64 } from "./internal/int64.js";
import { labelValueMessages, qualifiedNameMessages } from "./internal/name-rules.js";
import { badRequest } from "./status-error.js";
import { validateLabels, validateQualifiedName, type FieldPathLike } from "./validation.js";

/**
 * The operator of a {@link LabelSelectorRequirement}, spelled as the reference spells it:
 * `exists` is a bare key, `!` a `!key`, `gt` and `lt` are `key>n` and `key<n`.
 */
export type LabelSelectorOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

/** One requirement of a label selector; a selector is the AND of its requirements. */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  /** One value for `=`, `==`, `!=`, `gt`, `lt`; one or more for `in`, `notin`; none otherwise. */
  readonly values: readonly string[];
}

/** The operators of the object form's `matchExpressions`. */
export type LabelSelectorObjectOperator = "In" | "NotIn" | "Exists" | "DoesNotExist";

/** One entry of `matchExpressions`. */
export interface LabelSelectorObjectRequirement {
  key: string;
  operator: LabelSelectorObjectOperator;
  values?: string[];
}

/** The object form of a label selector, as in `spec.selector` of a Deployment. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorObjectRequirement[];
}

/** The labels a selector is matched against. */
export type Labels = Readonly<Record<string, string>>;

type Matcher = (labels: Labels) => boolean;

const constructing: unique symbol = Symbol("LabelSelector");
const noLabels: Labels = Object.freeze({});

/**
 * An immutable, parsed label selector. Build one with {@link parseLabelSelector},
 * {@link labelSelectorFromObject}, {@link everything} or {@link nothing}.
 *
 * @example
 * const s = parseLabelSelector("tier in (web,api),!canary");
 * s.matches({ tier: "web" }); // true
 * s.toString(); // "!canary,tier in (api,web)"
 */
export class LabelSelector {
  /** The requirements, sorted by key (stably) as the reference sorts them. */
  readonly requirements: readonly LabelSelectorRequirement[];
  private readonly matchers: readonly Matcher[];
  private readonly text: string;
  private readonly none: boolean;

  /** @internal Use the factory functions; the token keeps construction inside this module. */
  constructor(token: typeof constructing, requirements: readonly LabelSelectorRequirement[], none: boolean) {
    if (token !== constructing) throw new TypeError("use parseLabelSelector or labelSelectorFromObject");
    const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.requirements = Object.freeze(sorted.map((r) => Object.freeze({ key: r.key, operator: r.operator, values: Object.freeze([...r.values]) })));
    this.matchers = Object.freeze(this.requirements.map(compile));
    this.text = none ? "" : this.requirements.map(printRequirement).join(",");
    this.none = none;
  }

  /**
   * True when `labels` satisfy every requirement. Absent labels count as absent: `!=` and
   * `notin` match them, `=`, `in`, `exists`, `gt` and `lt` do not.
   */
  matches(labels: Labels | undefined): boolean {
    if (this.none) return false;
    const ls = labels ?? noLabels;
    const matchers = this.matchers;
    for (let i = 0; i < matchers.length; i++) {
      if (!(matchers[i] as Matcher)(ls)) return false;
    }
    return true;
  }

  /** True for a selector with no requirements: it matches everything. */
  isEmpty(): boolean {
    return !this.none && this.requirements.length === 0;
  }

  /** True for {@link nothing}, the selector of a null object-form selector: it matches nothing. */
  isNothing(): boolean {
    return this.none;
  }

  /**
   * The value `key` must have, when the first requirement on `key` pins it to exactly one value
   * (`key=v`, `key==v`, `key in (v)`); else undefined. As the reference's RequiresExactMatch.
   */
  exactValue(key: string): string | undefined {
    for (const r of this.requirements) {
      if (r.key !== key) continue;
      if ((r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1) return r.values[0];
      return undefined;
    }
    return undefined;
  }

  /**
   * The canonical text: requirements sorted by key, `in`/`notin` values sorted, joined by `,`
   * (`a=b,c in (d,e),!f`). Parsing it gives an equal selector. {@link nothing} prints as `""`.
   */
  toString(): string {
    return this.text;
  }
}

function printRequirement(r: LabelSelectorRequirement): string {
  const values = r.values.length === 1 ? (r.values[0] as string) : [...r.values].sort().join(",");
  switch (r.operator) {
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
    case "in":
      return `${r.key} in (${values})`;
    case "notin":
      return `${r.key} notin (${values})`;
    case "gt":
      return `${r.key}>${values}`;
    case "lt":
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

function compile(r: LabelSelectorRequirement): Matcher {
  const key = r.key;
  switch (r.operator) {
    case "exists":
      return (ls) => typeof ls[key] === "string";
    case "!":
      return (ls) => typeof ls[key] !== "string";
    case "=":
    case "==":
    case "in": {
      if (r.values.length === 1) {
        const value = r.values[0];
        return (ls) => ls[key] === value;
      }
      const set = new Set(r.values);
      return (ls) => {
        const got = ls[key];
        return typeof got === "string" && set.has(got);
      };
    }
    case "!=":
    case "notin": {
      if (r.values.length === 1) {
        const value = r.values[0];
        return (ls) => ls[key] !== value;
      }
      const set = new Set(r.values);
      return (ls) => {
        const got = ls[key];
        return typeof got !== "string" || !set.has(got);
      };
    }
    case "gt":
    case "lt": {
      const raw = r.values.length === 1 ? parseInt64(r.values[0] as string) : undefined;
      if (raw === undefined) return () => false;
      const bound = BigInt(raw);
      const greater = r.operator === "gt";
      return (ls) => {
        const got = ls[key];
        if (typeof got !== "string") return false;
        const n = parseInt64(got);
        if (n === undefined) return false;
        return greater ? n > bound : n < bound;
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The lexer and parser: a port of the reference's, token for token, so that errors read alike.

const enum Tok {
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const literalTokens = new Map<string, Tok>([
  [")", Tok.ClosedPar],
  [",", Tok.Comma],
  ["!", Tok.DoesNotExist],
  ["==", Tok.DoubleEquals],
  ["=", Tok.Equals],
  [">", Tok.GreaterThan],
  ["in", Tok.In],
  ["<", Tok.LessThan],
  ["!=", Tok.NotEquals],
  ["notin", Tok.NotIn],
  ["(", Tok.OpenPar],
]);

const binaryOperators = "in, notin, =, ==, !=, gt, lt";

interface Item {
  tok: Tok;
  lit: string;
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

function isSpecialSymbol(c: number): boolean {
  // = ! ( ) , > <
  return c === 0x3d || c === 0x21 || c === 0x28 || c === 0x29 || c === 0x2c || c === 0x3e || c === 0x3c;
}

/**
 * The reference lexer reads bytes and treats a 0 byte like the end of the input (it ends an
 * identifier, and ends the input where a token would start); this keeps that behaviour.
 */
function lex(s: string): Item[] {
  const items: Item[] = [];
  const n = s.length;
  let pos = 0;
  for (;;) {
    let c = pos < n ? s.charCodeAt(pos++) : 0;
    while (isWhitespace(c)) c = pos < n ? s.charCodeAt(pos++) : 0;
    if (c === 0) {
      items.push({ tok: Tok.EndOfString, lit: "" });
      return items;
    }
    pos--;
    if (isSpecialSymbol(c)) {
      let buffer = "";
      let last: Item | undefined;
      while (pos < n) {
        const ch = s.charCodeAt(pos);
        if (ch === 0) {
          pos++;
          break;
        }
        if (!isSpecialSymbol(ch)) break;
        buffer += s[pos];
        pos++;
        const tok = literalTokens.get(buffer);
        if (tok !== undefined) last = { tok, lit: buffer };
        else if (last) {
          pos--;
          break;
        }
      }
      // Every single special symbol is a token, so `last` is always set here.
      items.push(last ?? { tok: Tok.Identifier, lit: buffer });
    } else {
      const start = pos;
      let end = n;
      while (pos < n) {
        const ch = s.charCodeAt(pos);
        if (ch === 0) {
          end = pos;
          pos++;
          break;
        }
        if (isSpecialSymbol(ch) || isWhitespace(ch)) {
          end = pos;
          break;
        }
        pos++;
        end = pos;
      }
      const lit = s.slice(start, end);
      items.push({ tok: literalTokens.get(lit) ?? Tok.Identifier, lit });
    }
  }
}

class ParseFailure {
  constructor(readonly message: string) {}
}

function fail(message: string): never {
  throw new ParseFailure(message);
}

/** The aggregate message of a list of errors, as the reference's utilerrors.Aggregate prints it. */
function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(", ")}]`;
}

// NewRequirement's checks on a parsed requirement. The key was checked while parsing; the
// parser guarantees the value counts, so what remains are gt/lt integers and label values.
function requirementErrors(key: string, operator: LabelSelectorOperator, values: readonly string[]): string[] {
  const errors: string[] = [];
  const valuesPath = FieldPath.root("values");
  if (operator === "gt" || operator === "lt") {
    values.forEach((v, i) => {
      if (parseInt64(v) === undefined) {
        errors.push(formatFieldError(invalidField(valuesPath.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer")));
      }
    });
  }
  values.forEach((v, i) => {
    const msgs = labelValueMessages(v);
    if (msgs.length) errors.push(formatFieldError(invalidField(valuesPath.index(i).key(key), v, msgs.join("; "))));
  });
  return errors;
}

class Parser {
  private position = 0;
  constructor(private readonly items: readonly Item[]) {}

  // In the Values context the keywords `in` and `notin` are identifiers (`in in (notin)`).
  private at(index: number, values: boolean): Item {
    const item = this.items[Math.min(index, this.items.length - 1)] as Item;
    if (values && (item.tok === Tok.In || item.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: item.lit };
    return item;
  }

  private lookahead(values = true): Item {
    return this.at(this.position, values);
  }

  private consume(values = true): Item {
    return this.at(this.position++, values);
  }

  parse(): LabelSelectorRequirement[] {
    const requirements: LabelSelectorRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead();
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          try {
            requirements.push(this.parseRequirement());
          } catch (e) {
            if (e instanceof ParseFailure) fail(`unable to parse requirement: ${e.message}`);
            throw e;
          }
          const next = this.consume();
          if (next.tok === Tok.EndOfString) return requirements;
          if (next.tok === Tok.Comma) {
            const after = this.lookahead();
            if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) {
              fail(`found '${after.lit}', expected: identifier after ','`);
            }
            break;
          }
          return fail(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
        case Tok.EndOfString:
          return requirements;
        default:
          return fail(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelSelectorRequirement {
    const [key, inferred] = this.parseKeyAndInferOperator();
    if (inferred) return this.build(key, inferred, []);
    const operator = this.parseOperator();
    const values = operator === "in" || operator === "notin" ? this.parseValues() : this.parseExactValue();
    return this.build(key, operator, [...new Set(values)].sort());
  }

  private build(key: string, operator: LabelSelectorOperator, values: string[]): LabelSelectorRequirement {
    const errors = requirementErrors(key, operator, values);
    if (errors.length) fail(aggregate(errors));
    return { key, operator, values };
  }

  private parseKeyAndInferOperator(): [string, LabelSelectorOperator | undefined] {
    let operator: LabelSelectorOperator | undefined;
    let item = this.consume();
    if (item.tok === Tok.DoesNotExist) {
      operator = "!";
      item = this.consume();
    }
    if (item.tok !== Tok.Identifier) fail(`found '${item.lit}', expected: identifier`);
    const msgs = qualifiedNameMessages(item.lit);
    // The reference validates the key against a nil field path, which prints as "<nil>".
    if (msgs.length) fail(formatFieldError(invalidField("<nil>", item.lit, msgs.join("; "))));
    const next = this.lookahead().tok;
    if ((next === Tok.EndOfString || next === Tok.Comma) && operator === undefined) operator = "exists";
    return [item.lit, operator];
  }

  private parseOperator(): LabelSelectorOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case Tok.In:
        return "in";
      case Tok.Equals:
        return "=";
      case Tok.DoubleEquals:
        return "==";
      case Tok.GreaterThan:
        return "gt";
      case Tok.LessThan:
        return "lt";
      case Tok.NotIn:
        return "notin";
      case Tok.NotEquals:
        return "!=";
      default:
        return fail(`found '${lit}', expected: ${binaryOperators}`);
    }
  }

  private parseValues(): string[] {
    const open = this.consume();
    if (open.tok !== Tok.OpenPar) fail(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead();
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const values = this.parseIdentifiersList();
        if (this.consume().tok !== Tok.ClosedPar) fail(`found '${lit}', expected: ')'`);
        return values;
      }
      case Tok.ClosedPar:
        this.consume();
        return [""];
      default:
        return fail(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): string[] {
    const values: string[] = [];
    for (;;) {
      const { tok, lit } = this.consume();
      switch (tok) {
        case Tok.Identifier: {
          values.push(lit);
          const next = this.lookahead();
          if (next.tok === Tok.Comma) continue;
          if (next.tok === Tok.ClosedPar) return values;
          return fail(`found '${next.lit}', expected: ',' or ')'`);
        }
        case Tok.Comma: {
          // Empty values: "(,a)", "(a,)", "(a,,b)" all contain "".
          if (values.length === 0) values.push("");
          const next = this.lookahead().tok;
          if (next === Tok.ClosedPar) {
            values.push("");
            return values;
          }
          if (next === Tok.Comma) {
            this.consume();
            values.push("");
          }
          break;
        }
        default:
          return fail(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): string[] {
    const next = this.lookahead().tok;
    if (next === Tok.EndOfString || next === Tok.Comma) return [""];
    const { tok, lit } = this.consume();
    if (tok === Tok.Identifier) return [lit];
    return fail(`found '${lit}', expected: identifier`);
  }
}

const everythingSelector = new LabelSelector(constructing, [], false);
const nothingSelector = new LabelSelector(constructing, [], true);

/** The selector that matches every object (the empty `labelSelector`). */
export function everything(): LabelSelector {
  return everythingSelector;
}

/** The selector that matches no object: what a null object-form selector means. */
export function nothing(): LabelSelector {
  return nothingSelector;
}

/**
 * Parses the `labelSelector` query grammar: `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k`, `!k`, `k>5`, `k<5`, joined by `,` (AND); spaces, tabs and newlines
 * between tokens are ignored, and `""` selects everything. Keys must be qualified names and
 * values label values.
 *
 * @throws StatusError 400 BadRequest for any malformed input, with the reference's message
 *   (`unable to parse requirement: ...`, `found ',', expected: identifier after ','`, ...).
 * @example
 * parseLabelSelector("app=web, tier notin (db)").toString(); // "app=web,tier notin (db)"
 */
export function parseLabelSelector(text: string): LabelSelector {
  let requirements: LabelSelectorRequirement[];
  try {
    requirements = new Parser(lex(text)).parse();
  } catch (e) {
    if (e instanceof ParseFailure) throw badRequest(e.message);
    throw e;
  }
  return requirements.length === 0 ? everythingSelector : new LabelSelector(constructing, requirements, false);
}

/** The result of {@link labelSelectorFromObject}: a selector, or the field errors of the object. */
export type LabelSelectorConversion = { readonly ok: true; readonly selector: LabelSelector } | { readonly ok: false; readonly errors: readonly FieldError[] };

const objectOperators: Record<LabelSelectorObjectOperator, LabelSelectorOperator> = {
  In: "in",
  NotIn: "notin",
  Exists: "exists",
  DoesNotExist: "!",
};

/**
 * Validates and converts the object form of a selector (`spec.selector`), with the field errors
 * of the reference's ValidateLabelSelector under `path`: keys and values as in labels, `In` and
 * `NotIn` need values, `Exists` and `DoesNotExist` must have none, other operators are invalid.
 * An empty object selects everything; `null` or `undefined` selects nothing.
 */
export function labelSelectorFromObject(
  object:
    | {
        readonly matchLabels?: Readonly<Record<string, string>>;
        readonly matchExpressions?: readonly {
          readonly key: string;
          readonly operator: LabelSelectorObjectOperator;
          readonly values?: readonly string[];
        }[];
      }
    | null
    | undefined,
  path: FieldPathLike = "",
): LabelSelectorConversion {
  if (object === null || object === undefined) return { ok: true, selector: nothingSelector };
  const base = typeof path === "string" ? FieldPath.root(path) : path;
  const errors: FieldError[] = [...validateLabels(object.matchLabels, base.child("matchLabels"))];
  const expressions = object.matchExpressions ?? [];
  expressions.forEach((expr, i) => {
    const at = base.child("matchExpressions").index(i);
    // A requirement without a key or an operator has the empty one (Go's zero value, as the
    // reference decodes it), which the checks below refuse with a field error.
    const values: readonly unknown[] = Array.isArray(expr.values) ? expr.values : [];
    const operator: string = typeof expr.operator === "string" ? expr.operator : "";
    if (operator === "In" || operator === "NotIn") {
      if (values.length === 0) errors.push(requiredField(at.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === "Exists" || operator === "DoesNotExist") {
      if (values.length > 0) {
        errors.push(forbiddenField(at.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      errors.push(invalidField(at.child("operator"), operator, "not a valid selector operator"));
    }
    errors.push(...validateQualifiedName(typeof expr.key === "string" ? expr.key : "", at.child("key")));
    values.forEach((value, j) => {
      const text = typeof value === "string" ? value : String(value ?? "");
      for (const msg of labelValueMessages(text)) errors.push(invalidField(at.child("values").index(j), text, msg));
    });
  });
  if (errors.length) return { ok: false, errors };

  const requirements: LabelSelectorRequirement[] = [];
  for (const [key, value] of Object.entries(object.matchLabels ?? {})) {
    requirements.push({ key, operator: "=", values: [value] });
  }
  for (const expr of expressions) {
    requirements.push({ key: expr.key, operator: objectOperators[expr.operator], values: [...(expr.values ?? [])] });
  }
  if (requirements.length === 0) return { ok: true, selector: everythingSelector };
  return { ok: true, selector: new LabelSelector(constructing, requirements, false) };
}

/**
 * The object form of a selector: `=`/`==` go to `matchLabels` (a second value for the same key
 * to an `In`), `!=` becomes `NotIn`, `in`/`notin`/`exists`/`!` their expressions.
 *
 * @throws StatusError 400 BadRequest for `gt`/`lt` requirements and for {@link nothing}, which
 *   the object form cannot express.
 */
export function labelSelectorToObject(selector: LabelSelector): LabelSelectorObject {
  if (selector.isNothing()) throw badRequest("a selector that matches nothing has no object form");
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorObjectRequirement[] = [];
  for (const r of selector.requirements) {
    const values = [...new Set(r.values)].sort();
    switch (r.operator) {
      case "=":
      case "==": {
        const value = values[0] as string;
        if (!Object.hasOwn(matchLabels, r.key)) matchLabels[r.key] = value;
        else if (matchLabels[r.key] !== value) matchExpressions.push({ key: r.key, operator: "In", values: [value] });
        break;
      }
      case "!=":
        matchExpressions.push({ key: r.key, operator: "NotIn", values });
        break;
      case "in":
        matchExpressions.push({ key: r.key, operator: "In", values });
        break;
      case "notin":
        matchExpressions.push({ key: r.key, operator: "NotIn", values });
        break;
      case "exists":
        matchExpressions.push({ key: r.key, operator: "Exists" });
        break;
      case "!":
        matchExpressions.push({ key: r.key, operator: "DoesNotExist" });
        break;
      case "gt":
      case "lt":
        throw badRequest(`"${r.operator}" isn't supported in label selectors`);
    }
  }
  const object: LabelSelectorObject = {};
  if (Object.keys(matchLabels).length) object.matchLabels = matchLabels;
  if (matchExpressions.length) object.matchExpressions = matchExpressions;
  return object;
}
