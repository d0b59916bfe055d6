/**
 * The public keys service-account tokens verify with, read from a PEM file (the reference's
 * `--service-account-key-file`, `keyutil.ParsePublicKeysPEM`).
 * @module
 */
import "reflect-metadata";
import { X509Certificate } from "@peculiar/x509";

const rsaEncryption = "1.2.840.113549.1.1.1";
const ecPublicKey = "1.2.840.10045.2.1";
const curveOIDs: Readonly<Record<string, string>> = {
  "1.2.840.10045.3.1.7": "P-256",
  "1.3.132.0.34": "P-384",
  "1.3.132.0.35": "P-521",
};
/** The OID contents (without tag and length) of the supported curves. */
const curveIdentifiers: Readonly<Record<string, Bytes>> = {
  "P-256": Uint8Array.of(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07),
  "P-384": Uint8Array.of(0x2b, 0x81, 0x04, 0x00, 0x22),
  "P-521": Uint8Array.of(0x2b, 0x81, 0x04, 0x00, 0x23),
};

/** DER of the OID `rsaEncryption` and of `NULL`: the AlgorithmIdentifier of an RSA key. */
const rsaAlgorithmIdentifier = [Uint8Array.of(0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01), Uint8Array.of(0x05, 0x00)];
/** DER of the OID `id-ecPublicKey`. */
const ecPublicKeyOID = Uint8Array.of(0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01);

/** Bytes in a buffer of their own (what Web Crypto takes). */
type Bytes = Uint8Array<ArrayBuffer>;

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OCTET_STRING = 0x04;
const OBJECT_IDENTIFIER = 0x06;

/** One DER element: its tag, its content, and the whole encoding. */
interface Element {
  tag: number;
  content: Bytes;
  encoded: Bytes;
}

/** The DER element at `offset` of `bytes` and the offset after it. */
function readElement(bytes: Bytes, offset: number): [Element, number] {
  const tag = bytes[offset];
  let length = bytes[offset + 1];
  if (tag === undefined || length === undefined) throw new Error("truncated DER");
  if ((tag & 0x1f) === 0x1f) throw new Error("unsupported DER tag");
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error("unsupported DER length");
    length = 0;
    for (let i = 0; i < count; i++) {
      const byte = bytes[start + i];
      if (byte === undefined) throw new Error("truncated DER");
      length = length * 256 + byte;
    }
    start += count;
  }
  const end = start + length;
  if (end > bytes.length) throw new Error("truncated DER");
  return [{ tag, content: bytes.subarray(start, end), encoded: bytes.subarray(offset, end) }, end];
}

/** The one element `bytes` holds, which must be of tag `expected` (`what` names it in errors). */
function parse(bytes: Bytes, expected: number, what: string): Element {
  const [element, end] = readElement(bytes, 0);
  if (end !== bytes.length || element.tag !== expected) throw new Error(`not a DER ${what}`);
  return element;
}

/** The elements of a constructed element's content. */
function childrenOf(element: Element): Element[] {
  const out: Element[] = [];
  let offset = 0;
  while (offset < element.content.length) {
    const [child, next] = readElement(element.content, offset);
    out.push(child);
    offset = next;
  }
  return out;
}

/** The dotted form of an OBJECT IDENTIFIER element. */
function oidOf(element: Element | undefined): string {
  if (element?.tag !== OBJECT_IDENTIFIER || element.content.length === 0) throw new Error("not a DER object identifier");
  const parts: number[] = [];
  let value = 0;
  for (const byte of element.content) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  const first = parts.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...parts].join(".");
}

/** The DER encoding of an element of `tag` holding `parts`. */
function encode(tag: number, ...parts: Bytes[]): Bytes {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const header = [tag];
  if (length < 0x80) header.push(length);
  else {
    const bytes: number[] = [];
    for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    header.push(0x80 | bytes.length, ...bytes);
  }
  const out = new Uint8Array(header.length + length);
  out.set(header);
  let offset = header.length;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** A public key to import: SPKI DER and the Web Crypto algorithm. */
interface PublicKeyInfo {
  spki: Bytes;
  algorithm: RsaHashedImportParams | EcKeyImportParams;
}

const rsaAlgorithm: RsaHashedImportParams = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };

function curveOf(element: Element | undefined): string {
  const oid = oidOf(element);
  const curve = curveOIDs[oid];
  if (!curve) throw new Error(`unsupported elliptic curve ${oid}: want P-256, P-384 or P-521`);
  return curve;
}

/** The algorithm of a SubjectPublicKeyInfo (`PUBLIC KEY`, a certificate's key). */
function fromSPKI(spki: Bytes): PublicKeyInfo {
  const [algorithm] = childrenOf(parse(spki, SEQUENCE, "SubjectPublicKeyInfo"));
  if (algorithm?.tag !== SEQUENCE) throw new Error("not a DER SubjectPublicKeyInfo");
  const [oid, parameters] = childrenOf(algorithm);
  const name = oidOf(oid);
  if (name === rsaEncryption) return { spki, algorithm: rsaAlgorithm };
  if (name === ecPublicKey) return { spki, algorithm: { name: "ECDSA", namedCurve: curveOf(parameters) } };
  throw new Error(`unsupported key type ${name}: want RSA or ECDSA`);
}

/** The SubjectPublicKeyInfo of a PKCS#1 `RSAPublicKey`. */
function fromPKCS1Public(der: Bytes): PublicKeyInfo {
  const [modulus, exponent, ...rest] = childrenOf(parse(der, SEQUENCE, "RSAPublicKey"));
  if (modulus?.tag !== INTEGER || exponent?.tag !== INTEGER || rest.length > 0) throw new Error("not a DER RSAPublicKey");
  const publicKey = encode(SEQUENCE, modulus.encoded, exponent.encoded);
  return { spki: encode(SEQUENCE, encode(SEQUENCE, ...rsaAlgorithmIdentifier), encode(BIT_STRING, Uint8Array.of(0), publicKey)), algorithm: rsaAlgorithm };
}

/** The public half of a PKCS#1 `RSAPrivateKey`: its modulus and public exponent. */
function fromPKCS1Private(der: Bytes): PublicKeyInfo {
  const [version, modulus, exponent] = childrenOf(parse(der, SEQUENCE, "RSAPrivateKey"));
  if (version?.tag !== INTEGER || modulus?.tag !== INTEGER || exponent?.tag !== INTEGER) throw new Error("not a DER RSAPrivateKey");
  return fromPKCS1Public(encode(SEQUENCE, modulus.encoded, exponent.encoded));
}

/**
 * The public half of a SEC 1 `ECPrivateKey` on `outerCurve` (from a PKCS#8 wrapper) or on the
 * curve it names: its `publicKey` field, or, when it has none, the point derived by Web Crypto.
 */
async function fromSEC1(der: Bytes, outerCurve?: string): Promise<PublicKeyInfo> {
  const [version, secret, ...fields] = childrenOf(parse(der, SEQUENCE, "ECPrivateKey"));
  if (version?.tag !== INTEGER || secret?.tag !== OCTET_STRING) throw new Error("not a DER ECPrivateKey");
  const parameters = fields.find((field) => field.tag === 0xa0);
  const innerCurve = parameters ? curveOf(childrenOf(parameters)[0]) : undefined;
  if (outerCurve && innerCurve && outerCurve !== innerCurve) throw new Error(`the key names two curves, ${outerCurve} and ${innerCurve}`);
  const namedCurve = outerCurve ?? innerCurve;
  if (!namedCurve) throw new Error("the EC private key names no curve");
  const algorithmIdentifier = encode(SEQUENCE, ecPublicKeyOID, encode(OBJECT_IDENTIFIER, curveIdentifiers[namedCurve] as Bytes));
  const algorithm: EcKeyImportParams = { name: "ECDSA", namedCurve };
  const publicField = fields.find((field) => field.tag === 0xa1);
  const point = publicField ? childrenOf(publicField)[0] : undefined;
  if (point?.tag === BIT_STRING) return { spki: encode(SEQUENCE, algorithmIdentifier, point.encoded), algorithm };
  // No public point: let Web Crypto compute it from the private scalar.
  const pkcs8 = encode(SEQUENCE, encode(INTEGER, Uint8Array.of(0)), algorithmIdentifier, encode(OCTET_STRING, der));
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, algorithm, true, ["sign"]);
  const { kty, crv, x, y } = await crypto.subtle.exportKey("jwk", privateKey);
  const publicKey = await crypto.subtle.importKey("jwk", { kty, crv, x, y } as JsonWebKey, algorithm, true, ["verify"]);
  return { spki: new Uint8Array(await crypto.subtle.exportKey("spki", publicKey)), algorithm };
}

/** The public half of a PKCS#8 `PrivateKeyInfo` holding an RSA or ECDSA key. */
async function fromPKCS8(der: Bytes): Promise<PublicKeyInfo> {
  const [version, algorithm, privateKey] = childrenOf(parse(der, SEQUENCE, "PrivateKeyInfo"));
  if (version?.tag !== INTEGER || algorithm?.tag !== SEQUENCE || privateKey?.tag !== OCTET_STRING) throw new Error("not a DER PrivateKeyInfo");
  const [oid, parameters] = childrenOf(algorithm);
  const name = oidOf(oid);
  if (name === rsaEncryption) return fromPKCS1Private(privateKey.content);
  if (name === ecPublicKey) return fromSEC1(privateKey.content, curveOf(parameters));
  throw new Error(`unsupported key type ${name}: want RSA or ECDSA`);
}

/** The public key of a DER X.509 certificate. */
function fromCertificate(der: Bytes): PublicKeyInfo {
  const certificate = new X509Certificate(der);
  return fromSPKI(new Uint8Array(certificate.publicKey.rawData));
}

/** How each PEM block type yields a public key. */
const readers: Readonly<Record<string, (der: Bytes) => PublicKeyInfo | Promise<PublicKeyInfo>>> = {
  "PUBLIC KEY": fromSPKI,
  "RSA PUBLIC KEY": fromPKCS1Public,
  CERTIFICATE: fromCertificate,
  "PRIVATE KEY": fromPKCS8,
  "RSA PRIVATE KEY": fromPKCS1Private,
  "EC PRIVATE KEY": (der) => fromSEC1(der),
};

/** A PEM block: its type, its headers, and its base64 body. */
interface PEMBlock {
  type: string;
  headers: string[];
  body: string;
}

/** The PEM blocks of `pem`, in order; text between blocks is ignored. */
function pemBlocks(pem: string): PEMBlock[] {
  const blocks: PEMBlock[] = [];
  const pattern = /-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (const match of pem.matchAll(pattern)) {
    const type = match[1] ?? "";
    const lines = (match[2] ?? "").split(/\r?\n/);
    const headers: string[] = [];
    // RFC 1421 headers (`Proc-Type: ...`) end at an empty line.
    if (lines[0]?.includes(":")) {
      while (lines.length > 0 && lines[0] !== "") headers.push(lines.shift() as string);
    }
    blocks.push({ type, headers, body: lines.join("").replace(/\s+/g, "") });
  }
  return blocks;
}

function decodeBase64(body: string): Bytes {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) throw new Error("its body is not base64");
  const binary = atob(body);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The public keys of a PEM file (`--service-account-key-file`), in file order, ready for
 * `serviceAccountTokenAuthenticator`: every block of type `PUBLIC KEY` (SPKI), `RSA PUBLIC KEY`
 * (PKCS#1), `CERTIFICATE` (its subject key), `PRIVATE KEY` (PKCS#8), `RSA PRIVATE KEY` (PKCS#1)
 * or `EC PRIVATE KEY` (SEC 1) gives one key (a private key gives its public half; the private
 * part is never kept). RSA keys are imported as extractable `RSASSA-PKCS1-v1_5` SHA-256 keys (the
 * authenticator re-imports them for the other RS and PS algorithms); ECDSA keys on P-256, P-384
 * or P-521 as extractable `ECDSA` keys of their curve. Keys are usable to `verify` only. Blocks of
 * other types (`EC PARAMETERS`, for instance) are skipped, as in the reference.
 * @throws Error naming the block (its number from 1 and its type) when a key block cannot be
 *   read: encrypted, not base64, malformed DER, a key of another type (Ed25519, DSA) or curve;
 *   or when the file holds no key at all.
 */
export async function publicKeysFromPEM(pem: string): Promise<CryptoKey[]> {
  const keys: CryptoKey[] = [];
  const blocks = pemBlocks(pem);
  for (const [index, block] of blocks.entries()) {
    const reader = readers[block.type];
    if (!reader) continue;
    const name = `PEM block ${index + 1} (${block.type})`;
    try {
      if (block.headers.some((header) => /^Proc-Type:.*ENCRYPTED/i.test(header))) throw new Error("it is encrypted");
      const info = await reader(decodeBase64(block.body));
      keys.push(await crypto.subtle.importKey("spki", info.spki, info.algorithm, true, ["verify"]));
    } catch (error) {
      throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  if (keys.length === 0) throw new Error("data does not contain any valid RSA or ECDSA public keys");
  return keys;
}
