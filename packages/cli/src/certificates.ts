/**
 * The certificates of `orch-apiserver`: a self-signed CA, a serving certificate signed by it,
 * and an admin client certificate, generated with `@peculiar/x509` over Web Crypto (ECDSA
 * P-256) and kept as PEM files under the data directory, reused while they stay valid.
 *
 * Checking the files on disk uses `node:crypto` only, so a restart with valid files does not
 * load the generator at all.
 * @module
 */
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";

/** The PEM files of {@link ensureCertificates}, by the name of their file under the data directory. */
export interface CertificateSet {
  /** `ca.crt`: the self-signed CA that signs the other two and verifies client certificates. */
  caCert: string;
  /** `ca.key` (PKCS#8). */
  caKey: string;
  /** `apiserver.crt`: the serving certificate, for `localhost`, `127.0.0.1`, `::1` and the bind address. */
  serverCert: string;
  /** `apiserver.key` (PKCS#8). */
  serverKey: string;
  /** `admin.crt`: the client certificate of user `admin` in group `system:masters`. */
  adminCert: string;
  /** `admin.key` (PKCS#8). */
  adminKey: string;
  /** The files written by this call (empty when everything on disk was reused). */
  generated: string[];
}

/** Options of {@link ensureCertificates}. */
export interface EnsureCertificatesOptions {
  /** The IP address the server binds; it goes into the serving certificate's SANs. */
  bindAddress: string;
  /** The current time in ms since the epoch (`Date.now()` by default). */
  now?: number;
}

/** What {@link CertificateAuthority.issue} makes. */
export interface CertificateRequest {
  /** Distinguished name, e.g. `CN=admin, O=system:masters`. */
  subject: string;
  /** DNS subject alternative names (none by default). */
  dns?: string[];
  /** IP subject alternative names (none by default). */
  ips?: string[];
  /**
   * A serving (`serverAuth`) or a client (`clientAuth`) certificate, or one for both (what an etcd
   * member needs under `--client-cert-auth`: its gateway dials the member with it).
   */
  usage: "server" | "client" | "server-and-client";
  /** The current time in ms since the epoch (`Date.now()` by default); validity starts 5 minutes before it. */
  now?: number;
  /** Lifetime in ms (one year by default). */
  lifetime?: number;
}

/** A certificate and its key, as PEM (the key PKCS#8). */
export interface IssuedCertificate {
  /** The certificate. */
  certPem: string;
  /** Its private key. */
  keyPem: string;
}

/** A self-signed CA (ECDSA P-256) that signs certificates with fresh keys; from {@link createCertificateAuthority}. */
export interface CertificateAuthority {
  /** The CA certificate, PEM. */
  readonly certPem: string;
  /** The CA key, PKCS#8 PEM. */
  readonly keyPem: string;
  /** Issues a certificate signed by this CA, with a fresh key. */
  issue(request: CertificateRequest): Promise<IssuedCertificate>;
}

/** The subject and group of the admin client certificate. */
export const adminUser = { name: "admin", group: "system:masters" } as const;

const files = {
  caCert: "ca.crt",
  caKey: "ca.key",
  serverCert: "apiserver.crt",
  serverKey: "apiserver.key",
  adminCert: "admin.crt",
  adminKey: "admin.key",
} as const;

const day = 24 * 3600 * 1000;
const caLifetime = 10 * 365 * day;
const leafLifetime = 365 * day;
/** A certificate closer than this to its end is renewed. */
const renewBefore = 30 * day;

/** The hosts a serving certificate must name for `bindAddress`. */
export function servingHosts(bindAddress: string): { dns: string[]; ips: string[] } {
  const ips = ["127.0.0.1", "::1"];
  if (isIP(bindAddress) !== 0 && !ips.includes(bindAddress)) ips.push(bindAddress);
  return { dns: ["localhost"], ips };
}

interface PemPair {
  certPem: string;
  keyPem: string;
}

interface Pair {
  cert: X509Certificate;
  key: KeyObject;
  certPem: string;
  keyPem: string;
}

async function readPair(dir: string, certFile: string, keyFile: string): Promise<Pair | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([readFile(join(dir, certFile), "utf8"), readFile(join(dir, keyFile), "utf8")]);
    const cert = new X509Certificate(certPem);
    const key = createPrivateKey(keyPem);
    const spki = (k: KeyObject) => k.export({ type: "spki", format: "der" });
    if (!spki(createPublicKey(key)).equals(spki(cert.publicKey))) return undefined;
    return { cert, key, certPem, keyPem };
  } catch {
    return undefined;
  }
}

function current(cert: X509Certificate, now: number): boolean {
  return Date.parse(cert.validFrom) <= now && Date.parse(cert.validTo) - renewBefore > now;
}

function signedBy(cert: X509Certificate, ca: X509Certificate): boolean {
  return cert.checkIssued(ca) && cert.verify(ca.publicKey);
}

function validCA(pair: Pair | undefined, now: number): pair is Pair {
  return pair !== undefined && pair.cert.ca && current(pair.cert, now) && signedBy(pair.cert, pair.cert);
}

function validServing(pair: Pair | undefined, ca: Pair, bindAddress: string, now: number): pair is Pair {
  if (pair === undefined || !current(pair.cert, now) || !signedBy(pair.cert, ca.cert)) return false;
  const { dns, ips } = servingHosts(bindAddress);
  return dns.every((h) => pair.cert.checkHost(h, { subject: "never" }) === h) && ips.every((ip) => pair.cert.checkIP(ip) !== undefined);
}

function validAdmin(pair: Pair | undefined, ca: Pair, now: number): pair is Pair {
  if (pair === undefined || !current(pair.cert, now) || !signedBy(pair.cert, ca.cert)) return false;
  const lines = pair.cert.subject.split("\n");
  return lines.includes(`CN=${adminUser.name}`) && lines.includes(`O=${adminUser.group}`);
}

async function writePair(dir: string, certFile: string, keyFile: string, certPem: string, keyPem: string): Promise<void> {
  const keyPath = join(dir, keyFile);
  await writeFile(keyPath, keyPem, { mode: 0o600 });
  await chmod(keyPath, 0o600);
  await writeFile(join(dir, certFile), certPem, { mode: 0o644 });
}

/**
 * Makes sure `dir` holds a CA, a serving certificate valid for `bindAddress` (plus
 * `localhost`, `127.0.0.1`, `::1`) and an admin client certificate (CN `admin`,
 * O `system:masters`), all current for at least 30 more days; generates what is missing or
 * invalid (keys mode 0600) and returns the PEM of all six files. A new CA re-issues both
 * certificates it signs.
 */
export async function ensureCertificates(dir: string, options: EnsureCertificatesOptions): Promise<CertificateSet> {
  const now = options.now ?? Date.now();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const [caPair, serverPair, adminPair] = await Promise.all([
    readPair(dir, files.caCert, files.caKey),
    readPair(dir, files.serverCert, files.serverKey),
    readPair(dir, files.adminCert, files.adminKey),
  ]);
  const generated: string[] = [];
  const caValid = validCA(caPair, now);
  let server: PemPair | undefined = caValid && validServing(serverPair, caPair, options.bindAddress, now) ? serverPair : undefined;
  let admin: PemPair | undefined = caValid && validAdmin(adminPair, caPair, now) ? adminPair : undefined;
  if (caValid && server && admin) return { ...pems(caPair, server, admin), generated };

  const { Issuer } = await import("./internal/issuer.js");
  const issuer = caValid ? await Issuer.load(caPair.certPem, caPair.keyPem) : await Issuer.create(now, caLifetime);
  const ca = { certPem: issuer.certPem, keyPem: issuer.keyPem };
  if (!caValid) {
    await writePair(dir, files.caCert, files.caKey, ca.certPem, ca.keyPem);
    generated.push(files.caCert, files.caKey);
  }
  const { dns, ips } = servingHosts(options.bindAddress);
  if (!server) {
    server = await issuer.issue({ subject: "CN=orch-apiserver", dns, ips, usage: "server", now, lifetime: leafLifetime });
    await writePair(dir, files.serverCert, files.serverKey, server.certPem, server.keyPem);
    generated.push(files.serverCert, files.serverKey);
  }
  if (!admin) {
    admin = await issuer.issue({ subject: `CN=${adminUser.name}, O=${adminUser.group}`, dns: [], ips: [], usage: "client", now, lifetime: leafLifetime });
    await writePair(dir, files.adminCert, files.adminKey, admin.certPem, admin.keyPem);
    generated.push(files.adminCert, files.adminKey);
  }
  return { ...pems(ca, server, admin), generated };
}

/**
 * A new self-signed CA, valid from 5 minutes before `now` for `lifetime` ms (ten years by
 * default): the one {@link ensureCertificates} makes, for callers that need certificates of their
 * own (tests of TLS to etcd, for one). It loads `@peculiar/x509` on first use.
 * @example
 * ```ts
 * const ca = await createCertificateAuthority();
 * const server = await ca.issue({ subject: "CN=etcd", dns: ["localhost"], ips: ["127.0.0.1"], usage: "server" });
 * const client = await ca.issue({ subject: "CN=orch-apiserver", usage: "client" });
 * ```
 */
export async function createCertificateAuthority(options: { now?: number; lifetime?: number } = {}): Promise<CertificateAuthority> {
  const { Issuer } = await import("./internal/issuer.js");
  const issuer = await Issuer.create(options.now ?? Date.now(), options.lifetime ?? caLifetime);
  return {
    certPem: issuer.certPem,
    keyPem: issuer.keyPem,
    issue: (request) => issuer.issue({ dns: [], ips: [], now: Date.now(), lifetime: leafLifetime, ...request }),
  };
}

function pems(ca: PemPair, server: PemPair, admin: PemPair): Omit<CertificateSet, "generated"> {
  return {
    caCert: ca.certPem,
    caKey: ca.keyPem,
    serverCert: server.certPem,
    serverKey: server.keyPem,
    adminCert: admin.certPem,
    adminKey: admin.keyPem,
  };
}
