/**
 * Bearer tokens in the `Authorization` header, and the request authenticator over
 * {@link TokenAuthenticator}s.
 * @module
 */
import { AuthenticationError, type AuthenticationRequest, type AuthenticationResult, type Authenticator, type TokenAuthenticator } from "./authenticator.js";

/** The longest bearer token accepted, in bytes of the header value (16 KiB). */
export const maxBearerTokenLength = 16 * 1024;

/**
 * The bearer token of a request: `undefined` when there is no `Authorization: Bearer` header (no
 * opinion); a string otherwise.
 * @throws AuthenticationError for a `Bearer` header whose token is empty, longer than
 *   {@link maxBearerTokenLength}, or not printable ASCII (a token must fit an HTTP header).
 */
export function bearerTokenOf(headers: Headers): string | undefined {
  const value = headers.get("authorization");
  if (value === null) return undefined;
  const match = /^\s*bearer(?:\s+|$)(.*)$/i.exec(value);
  if (!match) return undefined;
  const token = (match[1] ?? "").trim();
  if (token === "") throw new AuthenticationError("invalid bearer token: empty");
  if (token.length > maxBearerTokenLength) throw new AuthenticationError(`invalid bearer token: longer than ${maxBearerTokenLength} bytes`);
  // Printable ASCII without spaces: what an HTTP token68 or an opaque header token may hold.
  if (!/^[\x21-\x7e]+$/.test(token)) throw new AuthenticationError("invalid bearer token: not printable ASCII");
  return token;
}

/** Options of {@link bearerTokenAuthenticator}. */
export interface BearerTokenOptions {
  /** The audiences the server accepts tokens for (the reference's `--api-audiences`); default none. */
  audiences?: readonly string[];
}

/**
 * A request authenticator that reads the bearer token and asks each token authenticator in
 * turn, as the reference's token union does: the first user wins; when none accepts it, the
 * token is refused, whether an authenticator refused it or none recognised it (a presented
 * credential is never anonymous).
 */
export function bearerTokenAuthenticator(tokens: readonly TokenAuthenticator[], options: BearerTokenOptions = {}): Authenticator {
  const audiences = options.audiences ?? [];
  return {
    async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult> {
      const token = bearerTokenOf(request.headers);
      if (token === undefined) return undefined;
      // The client's signal is not handed on: reading it costs the adapter an AbortController per
      // request, and the remote token authenticators bound their own calls with timeouts.
      const result = await authenticateToken(tokens, token, audiences);
      if (!result) throw new AuthenticationError("invalid bearer token: no authenticator recognised it");
      return result;
    },
  };
}

/**
 * Runs `token` through `tokens` in order: the first user; `undefined` when none recognised it;
 * when none accepted it and some refused it, their refusals as one {@link AuthenticationError}.
 * Shared by the request path and TokenReview.
 */
export async function authenticateToken(
  tokens: readonly TokenAuthenticator[],
  token: string,
  audiences: readonly string[],
  signal?: AbortSignal,
): Promise<AuthenticationResult> {
  let refusals: string[] | undefined;
  for (const authenticator of tokens) {
    try {
      const result = await authenticator.authenticateToken(token, audiences, signal);
      if (result) return result;
    } catch (error) {
      (refusals ??= []).push(error instanceof Error ? error.message : String(error));
    }
  }
  if (refusals !== undefined) throw new AuthenticationError(refusals.join("; "));
  return undefined;
}
