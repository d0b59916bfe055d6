/**
 * A cheap shape check before a JWT is decoded: most bearer tokens that reach the JWT
 * authenticators are not JWTs (static, bootstrap and webhook tokens), and a failed decode costs
 * an exception.
 * @module
 */

/**
 * True when `token` has the shape of a JWS compact serialisation: three base64url parts separated
 * by two dots, the header and payload non-empty (the signature may be empty: an unsigned `alg:
 * none` token is a JWT to refuse, with its cause logged). False means no JWT authenticator has an
 * opinion on it.
 */
export function looksLikeCompactJWT(token: string): boolean {
  const first = token.indexOf(".");
  if (first <= 0) return false;
  const second = token.indexOf(".", first + 1);
  if (second <= first + 1) return false;
  if (token.indexOf(".", second + 1) !== -1) return false;
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
