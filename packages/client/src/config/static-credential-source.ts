/**
 * {@link staticCredentialSource}: credentials that never change (a token or basic
 * authentication written in a configuration file).
 * @module
 */
import type { CredentialSource, Credentials } from "../credentials.js";

/**
 * A {@link CredentialSource} that always gives `credentials`; a 401 is final (nothing fresher
 * can be had).
 *
 * @example
 * httpTransport({ baseURL, credentials: staticCredentialSource({ token }) });
 */
export function staticCredentialSource(credentials: Credentials): CredentialSource {
  const fixed = Promise.resolve(credentials);
  return { credentials: () => fixed };
}
