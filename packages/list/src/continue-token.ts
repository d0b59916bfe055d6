/**
 * Continue tokens of chunked lists: unpadded base64url of the JSON
 * `{"v":"meta.<domain>/v1","rv":<revision>,"start":"<next key>"}`, as the reference server
 * encodes them. Clients treat them as opaque; the server never trusts them.
 * @module
 */
import { badRequest, type StatusError } from "@orch/meta";
import { decodeBase64Url, encodeBase64Url } from "./internal/base64url.js";

/** What a continue token carries. */
export interface ContinueToken {
  /**
   * The revision of the first chunk, which every later chunk is read at; or -1, meaning "list
   * the rest at the newest revision" (handed out when the original revision was compacted).
   */
  readonly revision: number;
  /**
   * The first key of the next chunk, relative to the listed prefix (the prefix, which ends in
   * `/`, stripped off), e.g. `default/web\u0000`.
   */
  readonly startKey: string;
}

/** Options of the token codec. */
export interface ContinueTokenOptions {
  /** The product domain: tokens are versioned `meta.<domain>/v1`. Default `orch.io`. */
  domain?: string;
}

const defaultDomain = "orch.io";

function tokenVersion(domain: string | undefined): string {
  return `meta.${domain ?? defaultDomain}/v1`;
}

/**
 * Encodes a continue token.
 *
 * @param token the revision (a positive revision, or -1) and the relative start key.
 * @param options the product domain; `k8s.io` gives the tokens of the reference server.
 * @returns the opaque token, safe in a URL query without escaping.
 */
export function encodeContinueToken(token: ContinueToken, options: ContinueTokenOptions = {}): string {
  return encodeBase64Url(JSON.stringify({ v: tokenVersion(options.domain), rv: token.revision, start: token.startKey }));
}

/**
 * Decodes and validates a continue token sent by a client.
 *
 * Checks that it is unpadded base64url of a JSON object whose `v` is `meta.<domain>/v1`, whose
 * `rv` is an integer that is at least 1 or exactly -1, and whose `start` is a non-empty string
 * that is already path-clean (no `..`, `.`, `//` segments, no trailing `/`), so a token can never
 * reach keys outside the listed prefix.
 *
 * @param token the `continue` query parameter.
 * @param options the product domain the token must carry.
 * @returns the revision and the relative start key, as encoded.
 * @throws StatusError 400 BadRequest `invalid continue token: continue key is not valid...` for
 *   anything malformed; never another error.
 */
export function decodeContinueToken(token: string, options: ContinueTokenOptions = {}): ContinueToken {
  const json = decodeBase64Url(token);
  if (json === undefined) throw invalidToken("continue key is not valid: illegal base64 data");
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (e) {
    throw invalidToken(`continue key is not valid: ${(e as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw invalidToken("continue key is not valid: not a JSON object");
  }
  const { v, rv, start } = parsed as Record<string, unknown>;
  const version = tokenVersion(options.domain);
  if (v !== version) {
    throw invalidToken(`continue key is not valid server does not recognize this encoded version ${JSON.stringify(typeof v === "string" ? v : "")}`);
  }
  if (rv !== undefined && (typeof rv !== "number" || !Number.isSafeInteger(rv))) {
    throw invalidToken("continue key is not valid: rv must be an integer");
  }
  if (rv === undefined || rv === 0 || rv < -1) {
    throw invalidToken(`continue key is not valid: incorrect encoded start resourceVersion (version ${version})`);
  }
  if (start !== undefined && typeof start !== "string") {
    throw invalidToken("continue key is not valid: start must be a string");
  }
  if (start === undefined || start === "") {
    throw invalidToken(`continue key is not valid: encoded start key empty (version ${version})`);
  }
  if (!isCleanPath(start.startsWith("/") ? start : `/${start}`)) {
    throw invalidToken(`continue key is not valid: ${start}`);
  }
  return { revision: rv, startKey: start };
}

/** True when the rooted path `p` equals its own path-clean form (Go's `path.Clean`). */
function isCleanPath(p: string): boolean {
  if (p === "/") return true;
  // A rooted, clean path has no empty segment (no `//`, no trailing `/`), no `.` and no `..`.
  let from = 1;
  for (;;) {
    const end = p.indexOf("/", from);
    const segment = end === -1 ? p.slice(from) : p.slice(from, end);
    if (segment === "" || segment === "." || segment === "..") return false;
    if (end === -1) return true;
    from = end + 1;
  }
}

function invalidToken(why: string): StatusError {
  return badRequest(`invalid continue token: ${why}`);
}
