/**
 * What the `networking` kinds (Ingress, IngressClass, NetworkPolicy) share: IP addresses and
 * CIDRs (parsed to numbers, for subset checks), wildcard DNS names, the typed local object
 * reference of a backend or class parameters, and the `Exact`/`Prefix` path rules.
 * @module
 */
import { invalidField, pathSegmentNameMessages, requiredField, validateDNS1123Subdomain, type FieldError, type FieldPath } from "@orch/meta";
import { str } from "./rules.js";

/** An IP address as a number of its family's width. */
export interface ParsedIP {
  family: 4 | 6;
  value: bigint;
}

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    value = (value << 8n) | BigInt(Number(p));
  }
  return value;
}

function parseIPv6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(":")) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const g = items[i] ?? "";
      if (i === items.length - 1 && g.includes(".")) {
        const v4 = parseIPv4(g);
        if (v4 === undefined) return undefined;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) out.push(parseInt(g, 16));
      else return undefined;
    }
    return out;
  };
  const head = groupsOf(halves[0] ?? "");
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? "") : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  let value = 0n;
  for (const g of [...head, ...new Array<number>(missing).fill(0), ...tail]) value = (value << 16n) | BigInt(g);
  return value;
}

/** Parses an IPv4 or IPv6 address, or `undefined` when `text` is none. */
export function parseIP(text: string): ParsedIP | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIPv6(text);
  return v6 === undefined ? undefined : { family: 6, value: v6 };
}

/** A CIDR: the family, the network (host bits cleared) and the prefix length. */
export interface ParsedCIDR {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

/** Parses a CIDR (`10.0.0.0/8`, `2001:db8::/64`), or `undefined` when `text` is none. */
export function parseCIDR(text: string): ParsedCIDR | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const ip = parseIP(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const width = ip.family === 4 ? 32 : 128;
  if (prefix > width) return undefined;
  const hostBits = BigInt(width - prefix);
  return { family: ip.family, network: (ip.value >> hostBits) << hostBits, prefix };
}

/** The reference's message for a value that is not a CIDR. */
export const cidrMessage = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/** True when `inner` is a strict subset of `outer`: same family, a longer prefix, inside it. */
export function isStrictSubnet(inner: ParsedCIDR, outer: ParsedCIDR): boolean {
  if (inner.family !== outer.family || inner.prefix <= outer.prefix) return false;
  const hostBits = BigInt((outer.family === 4 ? 32 : 128) - outer.prefix);
  return inner.network >> hostBits === outer.network >> hostBits;
}

const wildcardPattern = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The reference's `IsWildcardDNS1123Subdomain` messages (`*.example.com`). */
export function wildcardDNSMessages(value: string): string[] {
  const messages: string[] = [];
  if (value.length > 253) messages.push("must be no more than 253 characters");
  if (!wildcardPattern.test(value)) {
    messages.push(
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return messages;
}

/** A host name, wildcard (`*.example.com`) or DNS subdomain, as Ingress rules and TLS entries check it. */
export function validateIngressHost(host: string, path: FieldPath): FieldError[] {
  if (host.includes("*")) return wildcardDNSMessages(host).map((m) => invalidField(path, host, m));
  return validateDNS1123Subdomain(host, path);
}

/**
 * The reference's `validateIngressTypedLocalObjectReference` for `ref` at `path` (an Ingress
 * resource backend, IngressClass parameters): `apiGroup` a DNS subdomain when set, `kind` and
 * `name` required path segments.
 */
export function validateTypedLocalObjectReference(ref: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof ref["apiGroup"] === "string") errors.push(...validateDNS1123Subdomain(ref["apiGroup"], path.child("apiGroup")));
  for (const f of ["kind", "name"]) {
    const v = str(ref[f]);
    if (v === "") errors.push(requiredField(path.child(f), `${f} is required`));
    else for (const m of pathSegmentNameMessages(v)) errors.push(invalidField(path.child(f), v, m));
  }
  return errors;
}
