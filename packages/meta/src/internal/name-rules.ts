/**
 * The name rules of the reference system (`k8s.io/apimachinery/pkg/util/validation`) as
 * functions returning its messages, one string per problem. Public wrappers in
 * `validation.ts` turn them into field errors; the label selector parser joins them with `; `.
 *
 * The checks are hand-written linear scans rather than regular expressions: the reference uses
 * Go's linear-time regexp engine, and a backtracking engine on a long hostile name is not.
 * @module
 */

/** Length in bytes of the UTF-8 encoding of `s`, which is what the reference's `len()` counts. */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

export const dns1123LabelMaxLength = 63;
export const dns1123SubdomainMaxLength = 253;
export const qualifiedNameMaxLength = 63;
export const labelValueMaxLength = 63;

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const qualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** `must be no more than N characters` (the reference counts bytes but says characters). */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** The reference's regex error, examples joined exactly as it joins them (`'a',  or 'b', `). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += " or ";
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

export const emptyError = "must be non-empty";

function isLowerAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
}

function isAlnum(c: number): boolean {
  return isLowerAlnum(c) || (c >= 0x41 && c <= 0x5a);
}

/** `[a-z0-9]([-a-z0-9]*[a-z0-9])?` over `s[from, to)`. */
function matchesDNSLabel(s: string, from: number, to: number): boolean {
  if (to <= from) return false;
  if (!isLowerAlnum(s.charCodeAt(from)) || !isLowerAlnum(s.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = s.charCodeAt(i);
    if (!isLowerAlnum(c) && c !== 0x2d) return false;
  }
  return true;
}

/** True when `s` matches the DNS-1123 label pattern (length not checked). */
export function matchesDNS1123Label(s: string): boolean {
  return matchesDNSLabel(s, 0, s.length);
}

/** True when `s` matches the DNS-1123 subdomain pattern: labels joined by dots (length not checked). */
export function matchesDNS1123Subdomain(s: string): boolean {
  let start = 0;
  for (;;) {
    const dot = s.indexOf(".", start);
    const end = dot === -1 ? s.length : dot;
    if (!matchesDNSLabel(s, start, end)) return false;
    if (dot === -1) return true;
    start = dot + 1;
  }
}

/** `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. */
export function matchesQualifiedNamePart(s: string): boolean {
  const n = s.length;
  if (n === 0 || !isAlnum(s.charCodeAt(0)) || !isAlnum(s.charCodeAt(n - 1))) return false;
  for (let i = 1; i < n - 1; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x2d && c !== 0x5f && c !== 0x2e) return false;
  }
  return true;
}

/** IsDNS1123Label: the messages for a value that is not a lowercase RFC 1123 label. */
export function dns1123LabelMessages(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > dns1123LabelMaxLength) errs.push(maxLenError(dns1123LabelMaxLength));
  if (!matchesDNS1123Label(value)) {
    // A valid subdomain that is not a valid label can only be one with dots.
    if (matchesDNS1123Subdomain(value)) errs.push("must not contain dots");
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"));
  }
  return errs;
}

/** IsDNS1123Subdomain: the messages for a value that is not a lowercase RFC 1123 subdomain. */
export function dns1123SubdomainMessages(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!matchesDNS1123Subdomain(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, "example.com"));
  return errs;
}

/** IsQualifiedName: label keys, annotation keys, finalizers and the like. */
export function qualifiedNameMessages(value: string): string[] {
  // The common case, a plain name (`cpu`, `app`): matching ASCII, so its length is its size.
  if (value.length <= qualifiedNameMaxLength && !value.includes("/") && matchesQualifiedNamePart(value)) return [];
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = value;
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix.length === 0) errs.push(`prefix part ${emptyError}`);
    else for (const msg of dns1123SubdomainMessages(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    errs.push(
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    return errs;
  }
  if (name.length === 0) errs.push(`name part ${emptyError}`);
  else if (utf8Length(name) > qualifiedNameMaxLength) errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  if (!matchesQualifiedNamePart(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")}`);
  }
  return errs;
}

/** IsValidLabelValue: empty, or a qualified name part of at most 63 characters. */
export function labelValueMessages(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > labelValueMaxLength) errs.push(maxLenError(labelValueMaxLength));
  if (value.length !== 0 && !matchesQualifiedNamePart(value)) {
    errs.push(regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"));
  }
  return errs;
}
