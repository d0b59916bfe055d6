/**
 * The request pipeline's shape, modelled on the reference's handler chain: each stage is a
 * function of the request and the next handler, and {@link chain} composes them in order.
 * @module
 */
import type { UserInfo } from "@orch/authn";
import type { APIRequest, APIResponse } from "../api-request.js";
import type { RequestInfo } from "./request-info-stage.js";

/**
 * A request inside the pipeline: the {@link APIRequest} an adapter made, plus what the stages
 * found out about it so far.
 */
export interface ServerRequest extends APIRequest {
  /** What the path asks for; set by `withRequestInfo`, the first stage. */
  info?: RequestInfo;
  /**
   * The audiences the caller's credential was valid for, as its authenticator reported them;
   * set by `withAuthentication`.
   */
  audiences?: string[];
  /**
   * The caller who impersonates `user`, when the request carried `Impersonate-*` headers; set by
   * `withImpersonation` (the audit record keeps both).
   */
  impersonator?: UserInfo;
}

/** The rest of the pipeline, from a stage's point of view; also the innermost handler. */
export type Handler = (request: ServerRequest) => Promise<APIResponse>;

/**
 * One stage: does its part and calls `next` (or answers itself, ending the request there).
 * A stage may throw a `StatusError`; the outermost stage turns it into a Status response.
 */
export type Stage = (request: ServerRequest, next: Handler) => Promise<APIResponse>;

/** Composes `stages` (outermost first) in front of `handler`. */
export function chain(stages: readonly Stage[], handler: Handler): Handler {
  let next = handler;
  for (let i = stages.length - 1; i >= 0; i--) {
    const stage = stages[i] as Stage;
    const inner = next;
    next = (request) => stage(request, inner);
  }
  return next;
}

/**
 * `fn(arg)`, with a synchronous throw turned into a rejection: how a stage without an async
 * frame calls the next handler (or its authenticator) and treats both kinds of failure alike.
 */
export function attempt<A, R>(fn: (arg: A) => Promise<R>, arg: A): Promise<R> {
  try {
    return fn(arg);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** The user the pipeline serves `request` as; throws when no authentication stage ran first. */
export function userOf(request: ServerRequest): UserInfo {
  if (!request.user) throw new TypeError("no user: the authentication stage must run before this one");
  return request.user;
}
