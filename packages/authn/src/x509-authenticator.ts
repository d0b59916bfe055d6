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
  return {
    async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult> {
      const chain = request.peerCertificates ?? [];
      if (chain.length === 0) return undefined;
      const [leaf] = await verifyClientChain(chain, roots, clock.now()).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new AuthenticationError(`verifying certificate ${describeCertificate(chain[0])} failed: ${reason}`, { cause: error });
      });
      if (leaf === undefined) return undefined;
      const name = commonNameOf(leaf);
      if (name === "") return undefined;
      return { user: { name, groups: organizationsOf(leaf) } };
    },
  };
}
