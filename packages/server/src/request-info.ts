/**
 * Step 1 of the pipeline: what a request path asks for, parsed the way the reference server's
 * RequestInfoFactory does (`/api/v1/namespaces/ns/configmaps/name/status`).
 * @module
 */
import { badRequest } from "@orch/meta";

/** The verb of a resource request. */
export type RequestVerb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

/** A request for a resource (as opposed to `/version`, `/healthz`, discovery roots, ...). */
export interface ResourceRequestInfo {
  /** `api` (core group) or `apis`. */
  prefix: "api" | "apis";
  group: string;
  version: string;
  /** `""` for cluster-scoped and all-namespace requests. */
  namespace: string;
  resource: string;
  /** `""` for collection requests. */
  name: string;
  /** `""` for the main resource. */
  subresource: string;
  /**
   * The path after the sub-resource (`metrics/x` of `pods/p/proxy/metrics/x`), for the
   * sub-resources that take one; absent when there is none.
   */
  subpath?: string;
  verb: RequestVerb;
}

/** The parsed path and query of a request. */
export interface ParsedURL {
  /** Decoded path segments. */
  segments: string[];
  query: URLSearchParams;
}

/**
 * Splits a request URL into decoded path segments and its query.
 * @throws StatusError 400 for a path that cannot be decoded or that holds `.`/`..` segments.
 */
export function parseRequestURL(url: string): ParsedURL {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const query = new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
  const segments: string[] = [];
  for (const raw of path.split("/")) {
    if (raw === "") continue;
    let segment = raw;
    // Only an escape changes a segment when decoded (and only one can fail to decode).
    if (raw.includes("%")) {
      try {
        segment = decodeURIComponent(raw);
      } catch {
        throw badRequest(`the path segment ${JSON.stringify(raw.slice(0, 64))} is not valid percent-encoding`);
      }
    }
    if (segment === "." || segment === ".." || segment.includes("/")) {
      throw badRequest(`the path segment ${JSON.stringify(segment.slice(0, 64))} is not allowed`);
    }
    segments.push(segment);
  }
  return { segments, query };
}

const namespaceSubresources = new Set(["status", "finalize"]);

function isTrue(value: string | null): boolean {
  return value !== null && value !== "false" && value !== "0";
}

/**
 * The resource request a path names, or undefined when it is not one (a discovery root, a
 * non-resource path, or a path too long to be a resource).
 */
export function resourceRequestInfo(method: string, parsed: ParsedURL): ResourceRequestInfo | undefined {
  const s = parsed.segments;
  const n = s.length;
  let prefix: "api" | "apis";
  let group: string;
  let version: string;
  // Where the rest of the path (after the group version) begins; indexes, not slices.
  let at: number;
  if (s[0] === "api" && n >= 3) {
    prefix = "api";
    group = "";
    version = s[1] as string;
    at = 2;
  } else if (s[0] === "apis" && n >= 4) {
    prefix = "apis";
    group = s[1] as string;
    version = s[2] as string;
    at = 3;
  } else {
    return undefined;
  }
  let namespace = "";
  if (s[at] === "namespaces" && n - at > 1) {
    namespace = s[at + 1] as string;
    if (n - at > 2 && !namespaceSubresources.has(s[at + 2] as string)) {
      at += 2;
      // `namespaces/<ns>/namespaces[/...]` names no route (namespaces are cluster-scoped): 404.
      if (s[at] === "namespaces") return undefined;
    }
  }
  if (at >= n) return undefined;
  const resource = s[at] as string;
  const name = s[at + 1] ?? "";
  const subresource = s[at + 2] ?? "";
  let verb: RequestVerb;
  switch (method) {
    case "GET":
    case "HEAD":
      verb = isTrue(parsed.query.get("watch")) ? "watch" : name ? "get" : "list";
      break;
    case "POST":
      verb = "create";
      break;
    case "PUT":
      verb = "update";
      break;
    case "PATCH":
      verb = "patch";
      break;
    case "DELETE":
      verb = name ? "delete" : "deletecollection";
      break;
    default:
      return undefined;
  }
  const info: ResourceRequestInfo = { prefix, group, version, namespace, resource, name, subresource, verb };
  // What follows a sub-resource is its path (a proxy's); the REST layer refuses it for the others.
  if (n - at > 3) info.subpath = s.slice(at + 3).join("/");
  return info;
}
