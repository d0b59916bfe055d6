/**
 * The authentication stage (the reference's `WithAuthentication`): names the caller from its
 * credentials, or answers 401.
 * @module
 */
import { anonymous, AuthenticationError, type Authenticator } from "@orch/authn";
import { unauthorized, type StatusError } from "@orch/meta";
import type { MetricsRecorder } from "../metrics.js";
import { attempt, type ServerRequest, type Stage } from "./stage.js";

/** Options of {@link withAuthentication}. */
export interface AuthenticationStageOptions {
  /**
   * A request no authenticator has an opinion on is served as `system:anonymous` (true, the
   * default, as the reference's `--anonymous-auth`); false answers it 401.
   */
  anonymous?: boolean;
  /** Receives one line per refused request, with the cause a client is never told. */
  log?: (message: string) => void;
  /**
   * Counts and times each authentication (`authentication_attempts`,
   * `authentication_duration_seconds`): `success` (anonymous included), `failure` (no
   * credential and no anonymous access) or `error` (a credential was refused). Nothing is
   * measured without it.
   */
  metrics?: MetricsRecorder;
  /** A monotonic clock in milliseconds; `performance.now()` by default. */
  now?: () => number;
}

/**
 * Authenticates each request with `authenticator` (a union, usually). A request that arrives
 * with `user` set was authenticated by a trusted in-process caller and keeps it. A credential
 * that is presented and refused is 401 `Unauthorized` (the cause goes to `log` only, never to
 * the client, and never falls back to anonymous); after a success the `Authorization` header is
 * removed, so no later stage or handler sees the credential.
 */
export function withAuthentication(authenticator: Authenticator, options: AuthenticationStageOptions = {}): Stage {
  const allowAnonymous = options.anonymous ?? true;
  const log = options.log ?? (() => undefined);
  const metrics = options.metrics;
  const now = options.now ?? (() => performance.now());
  const refused = (request: ServerRequest, why: string): StatusError => {
    log(`Unable to authenticate the request ${request.method} ${request.info?.path ?? request.url}: ${why}`);
    return unauthorized();
  };
  // No async frame: a request pays one reaction to its authenticator's answer, nothing more.
  const authenticate = (request: ServerRequest) => authenticator.authenticate(request);
  return (request, next) => {
    if (request.user) return next(request);
    const started = metrics ? now() : 0;
    // The request itself is the authenticators' view of it: its `signal` may be a lazy getter
    // (the node adapter makes the AbortController only when asked), read only if needed.
    return attempt(authenticate, request).then(
      (result) => {
        metrics?.authenticated(result || allowAnonymous ? "success" : "failure", Math.max(0, now() - started) / 1000);
        if (result) {
          request.user = result.user;
          if (result.audiences) request.audiences = result.audiences;
          request.headers.delete("authorization");
        } else if (allowAnonymous) {
          request.user = anonymous();
        } else {
          throw refused(request, "no credentials and anonymous requests are disabled");
        }
        return next(request);
      },
      (error: unknown) => {
        metrics?.authenticated("error", Math.max(0, now() - started) / 1000);
        if (!(error instanceof AuthenticationError)) throw error;
        throw refused(request, error.message);
      },
    );
  };
}
