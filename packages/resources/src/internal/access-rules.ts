/**
 * Rules the access kinds share (admission webhook configurations, SubjectAccessReview,
 * TokenReview, CertificateSigningRequest): fully qualified names, DNS-1035 labels, webhook URLs
 * and service references, PEM blocks, conditions, and small readers of untyped objects.
 * @module
 */
import {
  invalidField,
  labelSelectorFromObject,
  requiredField,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  type FieldError,
  type FieldPath,
  type LabelSelectorObjectOperator,
} from "@orch/meta";
import { checkBase64, decodeBase64 } from "./base64.js";
import { list, record, strings } from "./rules.js";
export { list, strings } from "./rules.js";

/** The object at `object[key]`, created (as `{}`) when absent, so defaults can be written into it. */
export function ensureRecord(object: Record<string, unknown>, key: string): Record<string, unknown> {
  const existing = record(object[key]);
  if (existing) return existing;
  const created: Record<string, unknown> = {};
  object[key] = created;
  return created;
}

/** The details of DNS-1123 subdomain problems of `value` (empty when it is one). */
export function dns1123SubdomainProblems(value: string): string[] {
  return validateDNS1123Subdomain(value, "").map((e) => e.detail);
}

/** The details of DNS-1123 label problems of `value` (empty when it is one). */
export function dns1123LabelProblems(value: string): string[] {
  return validateDNS1123Label(value, "").map((e) => e.detail);
}

const dns1035Pattern = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** The reference's `IsDNS1035Label` messages for `value` (empty when it is one). */
export function dns1035LabelProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push("must be no more than 63 characters");
  if (!dns1035Pattern.test(value)) {
    problems.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return problems;
}

/**
 * The reference's `IsFullyQualifiedName` (webhook names): required, a DNS-1123 subdomain (its
 * problems joined by `,`), with at least three dot-separated segments.
 */
export function validateFullyQualifiedName(name: string, path: FieldPath): FieldError[] {
  if (name === "") return [requiredField(path)];
  const problems = dns1123SubdomainProblems(name);
  if (problems.length) return [invalidField(path, name, problems.join(","))];
  if (name.split(".").length < 3) return [invalidField(path, name, "should be a domain with at least three segments separated by dots")];
  return [];
}

const urlForm = "; desired format: https://host[/path]";

/**
 * The reference's `ValidateWebhookURL`: a parseable URL, scheme `https` (when `forceHttps`), a
 * host, and no user information, fragment or query.
 */
export function validateWebhookURL(path: FieldPath, url: string, forceHttps: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const parts = splitURL(url);
  if (parts === undefined) return [requiredField(path, `url must be a valid URL: parse ${JSON.stringify(url)}: invalid URL${urlForm}`)];
  if (forceHttps && parts.scheme !== "https") errors.push(invalidField(path, parts.scheme, `'https' is the only allowed URL scheme${urlForm}`));
  if (parts.host === "") errors.push(invalidField(path, "", `host must be specified${urlForm}`));
  if (parts.user !== undefined) errors.push(invalidField(path, parts.user, "user information is not permitted in the URL"));
  if (parts.fragment) errors.push(invalidField(path, parts.fragment, "fragments are not permitted in the URL"));
  if (parts.query) errors.push(invalidField(path, parts.query, "query parameters are not permitted in the URL"));
  return errors;
}

interface URLParts {
  scheme: string;
  user?: string;
  host: string;
  query: string;
  fragment: string;
}

// The parts of a URL as Go's url.Parse splits them (a URL without a scheme has an empty scheme
// and host, `https:x` an empty host); undefined for what Go refuses to parse.
function splitURL(url: string): URLParts | undefined {
  for (const ch of url) {
    const code = ch.charCodeAt(0);
    if (code < 0x21 || code === 0x7f) return undefined;
  }
  let rest = url;
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  else if (/^[^/?]*:/.test(rest)) return undefined; // "first path segment in URL cannot contain colon"
  let query = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const parts: URLParts = { scheme: (scheme?.[1] ?? "").toLowerCase(), host: "", query, fragment };
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    const at = authority.lastIndexOf("@");
    if (at >= 0) parts.user = authority.slice(0, at);
    parts.host = authority.slice(at + 1);
  }
  try {
    if (parts.host !== "") new URL(`https://${parts.host}`);
  } catch {
    return undefined;
  }
  return parts;
}

/**
 * The reference's `ValidateWebhookService`: `name` and `namespace` required, `port` 1 to 65535,
 * and `path`, when set and not `/`, starting with `/` and made of DNS-1123 subdomain segments.
 */
export function validateWebhookService(path: FieldPath, service: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const name = typeof service["name"] === "string" ? service["name"] : "";
  const namespace = typeof service["namespace"] === "string" ? service["namespace"] : "";
  if (name === "") errors.push(requiredField(path.child("name"), "service name is required"));
  if (namespace === "") errors.push(requiredField(path.child("namespace"), "service namespace is required"));
  const port = typeof service["port"] === "number" ? service["port"] : 443;
  if (port < 1 || port > 65535) errors.push(invalidField(path.child("port"), port, "port is not valid: must be between 1 and 65535, inclusive"));
  const urlPath = service["path"];
  if (typeof urlPath !== "string" || urlPath === "" || urlPath === "/") return errors;
  const at = path.child("path");
  if (urlPath === "//") return [...errors, invalidField(at, urlPath, "segment[0] may not be empty")];
  if (!urlPath.startsWith("/")) errors.push(invalidField(at, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith("/")) check = check.slice(0, -1);
  check.split("/").forEach((step, i) => {
    if (step === "") {
      errors.push(invalidField(at, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const problem of dns1123SubdomainProblems(step)) errors.push(invalidField(at, urlPath, `segment[${i}]: ${problem}`));
  });
  return errors;
}

/** The field errors of a label selector in object form at `path` (none for `undefined`). */
export function validateSelector(value: unknown, path: FieldPath): FieldError[] {
  const selector = record(value);
  if (!selector) return [];
  const expressions = list(selector["matchExpressions"]).map((e) => {
    const r = record(e) ?? {};
    const expr: { key: string; operator: LabelSelectorObjectOperator; values?: string[] } = {
      key: typeof r["key"] === "string" ? r["key"] : "",
      operator: (typeof r["operator"] === "string" ? r["operator"] : "") as LabelSelectorObjectOperator,
    };
    if (Array.isArray(r["values"])) expr.values = strings(r["values"]);
    return expr;
  });
  const matchLabels: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(selector["matchLabels"]) ?? {})) if (typeof v === "string") matchLabels[k] = v;
  const result = labelSelectorFromObject({ matchLabels, matchExpressions: expressions }, path);
  return result.ok ? [] : [...result.errors];
}

/** One block of a PEM document. */
export interface PEMBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Uint8Array;
}

const pemBegin = /-----BEGIN ([^\r\n-]*)-----\r?\n/;

/**
 * The PEM blocks of `text` in order, as Go's `pem.Decode` finds them one after the other: text
 * before a block is skipped; decoding stops at the first block that does not end properly or
 * whose base64 is invalid.
 */
export function decodePEM(text: string): PEMBlock[] {
  const blocks: PEMBlock[] = [];
  let rest = text;
  for (;;) {
    const begin = pemBegin.exec(rest);
    if (!begin) break;
    const type = begin[1] ?? "";
    const bodyStart = begin.index + begin[0].length;
    const endMarker = `-----END ${type}-----`;
    const end = rest.indexOf(endMarker, bodyStart);
    if (end < 0) break;
    const lines = rest.slice(bodyStart, end).split(/\r?\n/);
    const headers: Record<string, string> = {};
    let i = 0;
    if (lines.some((l) => l.includes(":"))) {
      for (; i < lines.length; i++) {
        const line = lines[i] ?? "";
        const colon = line.indexOf(":");
        if (line.trim() === "") {
          i++;
          break;
        }
        if (colon < 0) break;
        headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
      }
    }
    const body = lines.slice(i).join("").replace(/\s+/g, "");
    const check = checkBase64(body);
    if (!check.ok) break;
    blocks.push({ type, headers, bytes: decodeBase64(body) });
    rest = rest.slice(end + endMarker.length);
  }
  return blocks;
}

/**
 * True when `der` is one DER `SEQUENCE` whose length covers exactly the rest of the bytes, the
 * outer shape of an X.509 certificate or certificate request (the inside is not parsed).
 */
export function isDERSequence(der: Uint8Array): boolean {
  if (der.length < 2 || der[0] !== 0x30) return false;
  const first = der[1] ?? 0;
  let length = first;
  let offset = 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4 || der.length < 2 + count) return false;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[2 + i] ?? 0);
    offset = 2 + count;
  }
  return offset + length === der.length;
}

/** Decodes base64 `value` (Go `[]byte`) to text, or `""` when it is not base64. */
export function bytesText(value: unknown): string {
  if (typeof value !== "string" || value === "") return "";
  if (!checkBase64(value).ok) return "";
  return new TextDecoder().decode(decodeBase64(value));
}
