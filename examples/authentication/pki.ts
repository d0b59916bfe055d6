/**
 * Certificates for the authentication examples: a throwaway CA, a serving certificate for
 * 127.0.0.1 and client certificates, made with `createCertificateAuthority` from `@orch/cli`
 * (the generator `orch-apiserver` uses for its own certificates; ECDSA P-256).
 * @module
 */
import { createCertificateAuthority, type CertificateAuthority } from "@orch/cli";

export type { CertificateAuthority };

/** A certificate and its key, PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

const day = 24 * 3600 * 1000;

/** A new self-signed CA. */
export function newCA(): Promise<CertificateAuthority> {
  return createCertificateAuthority();
}

/** A serving certificate for `127.0.0.1` signed by `ca`. */
export async function servingCertificate(ca: CertificateAuthority): Promise<KeyPair> {
  const issued = await ca.issue({ subject: "CN=127.0.0.1", ips: ["127.0.0.1"], usage: "server" });
  return { cert: issued.certPem, key: issued.keyPem };
}

/**
 * A client certificate for `subject` (`CN=alice, O=dev`: the user and its groups) signed by
 * `ca`; `expired` makes one whose validity ended yesterday.
 */
export async function clientCertificate(ca: CertificateAuthority, subject: string, options: { expired?: boolean } = {}): Promise<KeyPair> {
  const validity = options.expired ? { now: Date.now() - 2 * day, lifetime: day } : {};
  const issued = await ca.issue({ subject, usage: "client", ...validity });
  return { cert: issued.certPem, key: issued.keyPem };
}
