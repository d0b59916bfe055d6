/**
 * Field selectors: the `fieldSelector` query grammar of the reference system
 * (`k8s.io/apimachinery/pkg/fields`): `field=value`, `field==value`, `field!=value`, joined by
 * `,` (AND), with `\,`, `\=` and `\\` escaping those characters inside values. Fields are taken
 * verbatim (no trimming, as in the reference); each kind says which fields it supports.
 * @module
 */
import { badRequest } from "./status-error.js";

/** `=` (also written `==`) or `!=`. */
export type FieldSelectorOperator = "=" | "!=";

/** One requirement of a field selector; a selector is the AND of its requirements. */
export interface FieldSelectorRequirement {
  readonly field: string;
  readonly operator: FieldSelectorOperator;
  /** The unescaped value. */
  readonly value: string;
}

/** The field values of one object, keyed by field label (`metadata.name`, `spec.nodeName`). */
export type Fields = Readonly<Record<string, string>>;

/**
 * Escapes `\`, `,` and `=` with a backslash so that any string can stand as a selector value.
 * @example
 * escapeFieldSelectorValue("a=b,c") // "a\\=b\\,c"
 */
export function escapeFieldSelectorValue(value: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x5c || c === 0x2c || c === 0x3d) {
      out += `${value.slice(from, i)}\\${value[i]}`;
      from = i + 1;
    }
  }
  return from === 0 ? value : out + value.slice(from);
}

/**
 * Reverses {@link escapeFieldSelectorValue}.
 * @throws StatusError 400 BadRequest for an escape other than `\\`, `\,`, `\=`
 *   (`invalid field selector: invalid escape sequence: \x`), a trailing lone backslash, or an
 *   unescaped `,` or `=` (`invalid field selector: unescaped character in value: 61`, the
 *   reference printing the character's code).
 */
export function unescapeFieldSelectorValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = "";
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c !== "\\" && c !== "," && c !== "=") throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === "\\") {
      inSlash = true;
    } else if (c === "," || c === "=") {
      throw badRequest(`invalid field selector: unescaped character in value: ${c.charCodeAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw badRequest("invalid field selector: invalid escape sequence: \\");
  return out;
}

// Go compares strings bytewise; code point order is the same order for UTF-8.
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    // A surrogate (a code point above U+FFFF) sorts after every other BMP character.
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function printRequirement(r: FieldSelectorRequirement): string {
  return `${r.field}${r.operator}${escapeFieldSelectorValue(r.value)}`;
}

/**
 * An immutable, parsed field selector. Build one with {@link parseFieldSelector}.
 *
 * @example
 * const s = parseFieldSelector("metadata.name=web,status.phase!=Failed");
 * s.exactValue("metadata.name"); // "web"
 */
export class FieldSelector {
  /** The requirements in canonical order (by their printed form). */
  readonly requirements: readonly FieldSelectorRequirement[];
  private readonly text: string;

  /**
   * A selector of `requirements` as they are (values unescaped); {@link parseFieldSelector}
   * builds one from text.
   */
  constructor(requirements: readonly FieldSelectorRequirement[]) {
    const printed = requirements.map((r) => ({ r: Object.freeze({ ...r }), text: printRequirement(r) }));
    printed.sort((a, b) => compareCodePoints(a.text, b.text));
    this.requirements = Object.freeze(printed.map((p) => p.r));
    this.text = printed.map((p) => p.text).join(",");
  }

  /** True when `fields` satisfy every requirement; an absent field counts as the empty string. */
  matches(fields: Fields): boolean {
    const reqs = this.requirements;
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i] as FieldSelectorRequirement;
      const got = fields[r.field];
      const actual = typeof got === "string" ? got : "";
      if ((actual === r.value) !== (r.operator === "=")) return false;
    }
    return true;
  }

  /** True for a selector with no requirements: it matches everything. */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /**
   * The value `field` must equal when the selector requires `field=value` (the first such
   * requirement); else undefined. `metadata.name=<n>` makes a watch or list of one object.
   */
  exactValue(field: string): string | undefined {
    for (const r of this.requirements) if (r.field === field && r.operator === "=") return r.value;
    return undefined;
  }

  /**
   * Checks that every field of the selector is one the kind supports, and returns the selector.
   * @throws StatusError 400 BadRequest `field label not supported: <field>` for the first that is not.
   */
  checkSupported(supported: ReadonlySet<string>): this {
    for (const r of this.requirements) {
      if (!supported.has(r.field)) throw badRequest(`field label not supported: ${r.field}`);
    }
    return this;
  }

  /** The canonical text: values escaped, `==` written `=`, requirements sorted, joined by `,`. */
  toString(): string {
    return this.text;
  }
}

// Splits at commas that are not escaped; escapes stay in the terms.
function splitTerms(text: string): string[] {
  if (text.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inSlash) inSlash = false;
    else if (c === 0x5c) inSlash = true;
    else if (c === 0x2c) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

// The first operator in the term splits it; `!=` and `==` are tried before `=`.
function splitTerm(term: string): [string, "!=" | "==" | "=", string] | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term.startsWith("!=", i)) return [term.slice(0, i), "!=", term.slice(i + 2)];
    if (term.startsWith("==", i)) return [term.slice(0, i), "==", term.slice(i + 2)];
    if (term.charCodeAt(i) === 0x3d) return [term.slice(0, i), "=", term.slice(i + 1)];
  }
  return undefined;
}

const emptySelector = new FieldSelector([]);

/**
 * Parses the `fieldSelector` query grammar: terms `field=value`, `field==value` or
 * `field!=value` joined by `,`; empty terms are skipped and `""` selects everything. Terms are
 * checked in sorted order, as in the reference, so the first error reported is the same.
 *
 * @throws StatusError 400 BadRequest for a term without an operator
 *   (`invalid selector: 'a,b'; can't understand 'a'`) or a value with a bad escape.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort(compareCodePoints);
  const requirements: FieldSelectorRequirement[] = [];
  for (const part of parts) {
    if (part === "") continue;
    const split = splitTerm(part);
    if (!split) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const [field, op, raw] = split;
    const value = unescapeFieldSelectorValue(raw);
    // The reference drops a term whose field and value are both empty.
    if (field === "" && value === "") continue;
    requirements.push({ field, operator: op === "!=" ? "!=" : "=", value });
  }
  return requirements.length === 0 ? emptySelector : new FieldSelector(requirements);
}
