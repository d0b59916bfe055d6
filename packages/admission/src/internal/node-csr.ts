/**
 * The subject common name of a PKCS#10 certificate request, read with a minimal DER walker
 * (NodeRestriction checks the CN of kubelet CSRs; the signature is not checked, as the
 * reference's `ParseCSR` does not).
 * @module
 */

/** One DER element: its tag, and where its content starts and ends in the buffer. */
interface Element {
  tag: number;
  start: number;
  end: number;
}

const truncated = "asn1: syntax error: data truncated";

/** The element at `offset` of `der`, within `limit`. */
function elementAt(der: Uint8Array, offset: number, limit: number): Element {
  if (offset + 2 > limit) throw new Error(truncated);
  const tag = der[offset] as number;
  let length = der[offset + 1] as number;
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || start + count > limit) throw new Error("asn1: structure error: length too large");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[start + i] as number);
    start += count;
  }
  if (start + length > limit) throw new Error(truncated);
  return { tag, start, end: start + length };
}

/** The elements inside the constructed element `parent`. */
function childrenOf(der: Uint8Array, parent: Element): Element[] {
  const out: Element[] = [];
  for (let offset = parent.start; offset < parent.end; ) {
    const e = elementAt(der, offset, parent.end);
    out.push(e);
    offset = e.end;
  }
  return out;
}

const sequence = 0x30;
const set = 0x31;
const oid = 0x06;
/** DER of OID 2.5.4.3 (commonName). */
const commonNameOID = [0x55, 0x04, 0x03];

function expect(e: Element | undefined, tag: number): Element {
  if (!e || e.tag !== tag) throw new Error("asn1: structure error: tags don't match");
  return e;
}

/** The text of a string element (UTF8, Printable, IA5, T61; BMP as UTF-16BE). */
function textOf(der: Uint8Array, e: Element): string {
  const bytes = der.subarray(e.start, e.end);
  if (e.tag === 0x1e) {
    let s = "";
    for (let i = 0; i + 1 < bytes.length; i += 2) s += String.fromCharCode(((bytes[i] as number) << 8) | (bytes[i + 1] as number));
    return s;
  }
  return new TextDecoder().decode(bytes);
}

/** The DER bytes of the first `CERTIFICATE REQUEST` PEM block of `pem`. */
function derOf(pem: string): Uint8Array {
  const match = /-----BEGIN CERTIFICATE REQUEST-----([\s\S]*?)-----END CERTIFICATE REQUEST-----/.exec(pem);
  if (!match) throw new Error("PEM block type must be CERTIFICATE REQUEST");
  const binary = atob((match[1] ?? "").replace(/\s+/g, ""));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * The subject common name of the PEM certificate request `pem` (the last CN attribute, as Go's
 * `pkix.Name.CommonName`), `""` when it has none.
 * @throws Error when `pem` holds no parsable `CERTIFICATE REQUEST` block.
 */
export function csrCommonName(pem: string): string {
  const der = derOf(pem);
  const outer = expect(elementAt(der, 0, der.length), sequence);
  const info = expect(childrenOf(der, outer)[0], sequence);
  const subject = expect(childrenOf(der, info)[1], sequence);
  let commonName = "";
  for (const rdn of childrenOf(der, subject)) {
    for (const attribute of childrenOf(der, expect(rdn, set))) {
      const [type, value] = childrenOf(der, expect(attribute, sequence));
      const id = expect(type, oid);
      const bytes = der.subarray(id.start, id.end);
      if (value && bytes.length === commonNameOID.length && commonNameOID.every((b, i) => bytes[i] === b)) commonName = textOf(der, value);
    }
  }
  return commonName;
}
