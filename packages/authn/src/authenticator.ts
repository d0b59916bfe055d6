/**
 * The authentication port: an {@link Authenticator} looks at a request's credentials and names
 * the user, has no opinion, or refuses them.
 * @module
 */
import type { UserInfo } from "./user.js";

/**
 * What an authenticator sees of a request: its headers and the TLS peer certificate chain the
 * adapter received (DER, leaf first), nothing else. Authenticators never read the body.
 */
export interface AuthenticationRequest {
  /** The request headers (case-insensitive web `Headers`). */
  readonly headers: Headers;
  /**
   * The client certificate chain as the TLS layer received it, DER-encoded, leaf first; empty or
   * absent when the client sent none. The TLS layer does not verify it: authenticators do.
   */
  readonly peerCertificates?: readonly Uint8Array[];
  /** Aborted when the client goes away: a webhook call may stop early. */
  readonly signal?: AbortSignal;
}

/** A successful authentication: the user, and the audiences the credential was valid for. */
export interface Authenticated {
  /** Who the caller is. */
  user: UserInfo;
  /**
   * The audiences the credential was checked against and is valid for (token authenticators);
   * absent when the credential has no audience.
   */
  audiences?: string[];
}

/**
 * The outcome of one authenticator: a user; `undefined` for no opinion (no credential of its
 * kind, or a token it does not recognise); or a thrown {@link AuthenticationError} for a
 * credential of its kind that is bad (expired, badly signed, refused by a webhook).
 */
export type AuthenticationResult = Authenticated | undefined;

/** Authenticates a request from its credentials (the reference's `authenticator.Request`). */
export interface Authenticator {
  /**
   * The user of `request`, or `undefined` for no opinion.
   * @throws AuthenticationError for a credential of this authenticator's kind that is invalid.
   */
  authenticate(request: AuthenticationRequest): Promise<AuthenticationResult>;
}

/**
 * Authenticates a bearer token (the reference's `authenticator.Token`): static tokens,
 * bootstrap tokens, service-account and OIDC JWTs, the token webhook.
 */
export interface TokenAuthenticator {
  /**
   * The user of `token`, or `undefined` when the token is not of this authenticator's kind.
   * `audiences` are the audiences the server accepts (the TokenReview's `spec.audiences`, or the
   * server's own); a token valid for none of them is refused.
   * @throws AuthenticationError for a token of this kind that is invalid.
   */
  authenticateToken(token: string, audiences: readonly string[], signal?: AbortSignal): Promise<AuthenticationResult>;
}

/**
 * A credential was presented and is bad. The message is for the server's log only: a client is
 * told `Unauthorized` and nothing more.
 */
export class AuthenticationError extends Error {
  override readonly name = "AuthenticationError";
}
