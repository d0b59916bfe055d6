/**
 * The first stages of the pipeline: errors become Status responses, oversized bodies are 413,
 * and the path is parsed once into a {@link RequestInfo} every later stage reads (the
 * reference's `WithPanicRecovery`, `WithRequestInfo`).
 * @module
 */
import { requestEntityTooLarge } from "@orch/meta";
import { parseRequestURL, resourceRequestInfo, type ParsedURL, type ResourceRequestInfo } from "../request-info.js";
import { errorResponse } from "../responses.js";
import type { APIResponse } from "../api-request.js";
import { attempt, type Stage } from "./stage.js";

/**
 * What a request asks for: a resource request (with group, version, resource, namespace, name,
 * sub-resource and verb) or a non-resource one (`/version`, `/healthz`, discovery, OpenAPI),
 * whose verb is the lower-cased HTTP method, as the reference's authorizer sees it.
 */
export type RequestInfo =
  | ({ isResourceRequest: true; path: string; parsed: ParsedURL } & ResourceRequestInfo)
  | { isResourceRequest: false; path: string; parsed: ParsedURL; verb: string };

/**
 * The request info of `method` and `url`.
 * @throws StatusError 400 for a path that cannot be decoded.
 */
export function requestInfoOf(method: string, url: string): RequestInfo {
  const parsed = parseRequestURL(url);
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const upper = method.toUpperCase();
  const resource = resourceRequestInfo(upper, parsed);
  if (resource) {
    // Completed in place, not spread into a new object: one object per request, not two.
    const info = resource as ResourceRequestInfo & { isResourceRequest: true; path: string; parsed: ParsedURL };
    info.isResourceRequest = true;
    info.path = path;
    info.parsed = parsed;
    return info;
  }
  // The reference reads HEAD as get, as for resources.
  return { isResourceRequest: false, path, parsed, verb: upper === "HEAD" ? "get" : upper.toLowerCase() };
}

/** Turns anything the rest of the pipeline throws into a Status response (never a stack trace). */
export const withErrorResponses: Stage = (request, next) => {
  // One reaction per request and no async frame; a stage that throws instead of rejecting is
  // answered too.
  return attempt(next, request).then(undefined, asErrorResponse);
};

/** {@link errorResponse} with its defaults, as a rejection handler. */
function asErrorResponse(error: unknown): APIResponse {
  return errorResponse(error);
}

/** Refuses a body over `maxBytes` with 413 before anything reads it. */
export function withBodyLimit(maxBytes: number): Stage {
  return (request, next) => {
    if (request.body && request.body.length > maxBytes) throw requestEntityTooLarge(`limit is ${maxBytes}`);
    return next(request);
  };
}

/** Parses the path into {@link RequestInfo} (400 for a path that cannot be decoded). */
export const withRequestInfo: Stage = (request, next) => {
  request.info ??= requestInfoOf(request.method, request.url);
  return next(request);
};
