/**
 * Serving the API under a path prefix (`/k8s/api/v1/namespaces` for `/api/v1/namespaces`), as a
 * framework that mounts it beside its own routes does. Shared by the fetch adapter and the
 * `@orch/node` request listener.
 * @module
 */
import { statusError } from "@orch/meta";
import type { APIResponse } from "./api-request.js";
import { errorResponse } from "./responses.js";

/**
 * `basePath` in the form {@link stripBasePath} takes: `""` for none (`undefined`, `""` or `"/"`),
 * else `/seg/seg` with no trailing slash (`"/k8s/"` is `"/k8s"`).
 * @throws TypeError when `basePath` does not start with `/`, or holds `?`, `#` or `//`.
 */
export function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined) return "";
  const trimmed = basePath.replace(/\/+$/, "");
  if (trimmed === "") return "";
  if (!trimmed.startsWith("/") || /[?#]/.test(trimmed) || trimmed.includes("//")) {
    throw new TypeError(`basePath must be a path such as "/k8s", got ${JSON.stringify(basePath)}`);
  }
  return trimmed;
}

/**
 * The path and query of `url` (`/k8s/api/v1?limit=1`) with `basePath` (normalized by
 * {@link normalizeBasePath}) taken off (`/api/v1?limit=1`; the prefix alone is `/`), or
 * `undefined` when the path is not under `basePath` (`/k8sx/api`, `/other`). With no base path,
 * `url` as it is.
 */
export function stripBasePath(url: string, basePath: string): string | undefined {
  if (basePath === "") return url;
  if (!url.startsWith(basePath)) return undefined;
  const rest = url.slice(basePath.length);
  if (rest === "") return "/";
  if (rest.startsWith("/")) return rest;
  if (rest.startsWith("?")) return `/${rest}`;
  return undefined;
}

/** The 404 Status of a path outside the base path: the one any unknown path gets. */
export function outsideBasePath(): APIResponse {
  return errorResponse(statusError("NotFound", "the server could not find the requested resource", { details: {} }));
}
