/**
 * The client certificate authenticator (the reference's `request/x509` with
 * `CommonNameUserConversion`, behind `--client-ca-file`).
 * @module
 */
import { systemClock, type Clock } from "@orch/store";
import { AuthenticationError, type AuthenticationRequest, type AuthenticationResult, type Authenticator } from "./authenticator.js";
import { commonNameOf, describeCertificate, organizationsOf, parseCertificateBundle, verifyClientChain } from "./x509-verify.js";

/** Options of {@link x509Authenticator}. */
export interface X509AuthenticatorOptions {
  /** The PEM bundle of the CAs that sign client certificates (the reference's `--client-ca-file`). */
  clientCA: string;
  /** The clock the certificates' validity windows are checked against; default the system clock. */
  clock?: Clock;
}

/**
 * Authenticates a request by its TLS client certificate: the user is the subject's common name
 * (the last CN) in the subject's organizations (every O, in order) as groups; the union adds
 * `system:authenticated`. No peer certificate, or a verified one without a common name, is no
 * opinion (`undefined`); a chain that does not verify against `clientCA` (see
 * {@link verifyClientChain}) is refused with an {@link AuthenticationError}.
 * @throws Error at construction when `clientCA` holds no certificate or a malformed one.
 */
export function x509Authenticator(options: X509AuthenticatorOptions): Authenticator {
  const roots = parseCertificateBundle(options.clientCA);
  const clock = options.clock ?? systemClock;
  // Verified users by the leaf's bytes: an adapter that hands the same chain object to every
  // request of a connection (as `@orch/node` does) pays for verification once per connection.
  // A hit is still checked against the path's validity window.
  const verified = new WeakMap<Uint8Array, { result: AuthenticationResult; notBefore: number; notAfter: number }>();
  return {
    async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult> {
      const chain = request.peerCertificates ?? [];
      const presented = chain[0];
      if (presented === undefined) return undefined;
      const now = clock.now();
      const known = verified.get(presented);
      if (known && now >= known.notBefore && now <= known.notAfter)
        return known.result && { user: { ...known.result.user, groups: [...known.result.user.groups] } };
      const path = await verifyClientChain(chain, roots, now).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new AuthenticationError(`verifying certificate ${describeCertificate(presented)} failed: ${reason}`, { cause: error });
      });
      const leaf = path[0];
      if (leaf === undefined) return undefined;
      const name = commonNameOf(leaf);
      const result: AuthenticationResult = name === "" ? undefined : { user: { name, groups: organizationsOf(leaf) } };
      verified.set(presented, {
        result,
        notBefore: Math.max(...path.map((c) => c.notBefore.getTime())),
        notAfter: Math.min(...path.map((c) => c.notAfter.getTime())),
      });
      return result && { user: { ...result.user, groups: [...result.user.groups] } };
    },
  };
}
