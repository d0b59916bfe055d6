/**
 * The front-proxy authenticator: an authenticating proxy, proven by its client certificate,
 * names the user in request headers (the reference's `request/headerrequest` behind
 * `request/x509`'s verifier, the `--requestheader-*` flags).
 * @module
 */
import { systemClock, type Clock } from "@orch/store";
import { AuthenticationError, type AuthenticationRequest, type AuthenticationResult, type Authenticator } from "./authenticator.js";
import type { UserInfo } from "./user.js";
import { commonNameOf, describeCertificate, parseCertificateBundle, verifyClientChain } from "./x509-verify.js";

/** Options of {@link requestHeaderAuthenticator}. */
export interface RequestHeaderAuthenticatorOptions {
  /** The PEM bundle of the CAs that sign the proxy's client certificate (`--requestheader-client-ca-file`). */
  clientCA: string;
  /** The common names the proxy's certificate may have (`--requestheader-allowed-names`); empty or absent: any. */
  allowedNames?: readonly string[];
  /** The headers naming the user, tried in order (`--requestheader-username-headers`, e.g. `X-Remote-User`); at least one. */
  usernameHeaders: readonly string[];
  /** The headers carrying the user's uid, tried in order (`--requestheader-uid-headers`). */
  uidHeaders?: readonly string[];
  /** The headers carrying the user's groups, all of them read (`--requestheader-group-headers`, e.g. `X-Remote-Group`). */
  groupHeaders?: readonly string[];
  /** The prefixes of the headers carrying extra attributes (`--requestheader-extra-headers-prefix`, e.g. `X-Remote-Extra-`). */
  extraHeaderPrefixes?: readonly string[];
  /** The clock the proxy certificate's validity window is checked against; default the system clock. */
  clock?: Clock;
}

/** An HTTP header name (RFC 9110 token); a prefix of one is one too. */
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Authenticates requests forwarded by an authenticating proxy. On every request, before
 * anything else, it reads and then deletes every configured header from `request.headers`
 * (username, uid and group headers, and every header starting with an extra prefix, compared
 * case-insensitively), so nothing later sees them whatever the outcome. Then:
 * - no peer certificate: no opinion (`undefined`);
 * - a proxy certificate that does not verify against `clientCA` ({@link verifyClientChain}), or
 *   whose common name is not in a non-empty `allowedNames`: an {@link AuthenticationError};
 * - no non-empty username header: no opinion;
 * - otherwise the user: the first non-empty value of the username headers, in order; the uid
 *   likewise (omitted when none); as groups, every comma-separated value of every group header;
 *   as extra, for each header with an extra prefix, the rest of its name lower-cased and
 *   percent-decoded (kept as is when the escape is bad) mapped to its comma-separated values
 *   (omitted when there is none).
 *
 * Web `Headers` joins a repeated header's values with `", "`, so groups and extra values are
 * split on commas (a group cannot contain one); the user name and uid are taken whole.
 * @throws Error at construction for a `clientCA` without a certificate, no username header, or an
 *   empty or invalid header name or prefix.
 */
export function requestHeaderAuthenticator(options: RequestHeaderAuthenticatorOptions): Authenticator {
  const roots = parseCertificateBundle(options.clientCA);
  const clock = options.clock ?? systemClock;
  const allowedNames = new Set(options.allowedNames ?? []);
  const usernameHeaders = headerNames(options.usernameHeaders, "usernameHeaders");
  if (usernameHeaders.length === 0) throw new Error("request-header: usernameHeaders must name at least one header");
  const uidHeaders = headerNames(options.uidHeaders ?? [], "uidHeaders");
  const groupHeaders = headerNames(options.groupHeaders ?? [], "groupHeaders");
  const extraPrefixes = headerNames(options.extraHeaderPrefixes ?? [], "extraHeaderPrefixes");

  return {
    async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult> {
      const headers = request.headers;
      // Read first, then strip: the claims must never reach what runs after this authenticator.
      const name = firstValue(headers, usernameHeaders);
      const uid = firstValue(headers, uidHeaders);
      const groups = groupHeaders.flatMap((header) => splitValues(headers.get(header)));
      const extraHeaders = [...new Set(headers.keys())].filter((header) => extraPrefixes.some((prefix) => header.startsWith(prefix)));
      const extra = extraOf(headers, extraHeaders, extraPrefixes);
      for (const header of [...usernameHeaders, ...uidHeaders, ...groupHeaders, ...extraHeaders]) headers.delete(header);

      const chain = request.peerCertificates ?? [];
      if (chain.length === 0) return undefined;
      const [proxy] = await verifyClientChain(chain, roots, clock.now()).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new AuthenticationError(`request-header: verifying client certificate ${describeCertificate(chain[0])} failed: ${reason}`, { cause: error });
      });
      if (proxy === undefined) return undefined;
      const commonName = commonNameOf(proxy);
      if (allowedNames.size > 0 && !allowedNames.has(commonName)) {
        throw new AuthenticationError(`request-header: client certificate CN ${JSON.stringify(commonName)} is not allowed`);
      }

      if (name === undefined) return undefined;
      const user: UserInfo = { name, groups };
      if (uid !== undefined) user.uid = uid;
      if (Object.keys(extra).length > 0) user.extra = extra;
      return { user };
    },
  };
}

/** The configured header names or prefixes, trimmed and lower-cased. */
function headerNames(names: readonly string[], option: string): string[] {
  return names.map((raw) => {
    const name = raw.trim();
    if (!headerName.test(name)) throw new Error(`request-header: ${option}: ${JSON.stringify(raw)} is not a header name`);
    return name.toLowerCase();
  });
}

/** The first non-empty value among `names`, in order. */
function firstValue(headers: Headers, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = headers.get(name);
    if (value !== null && value !== "") return value;
  }
  return undefined;
}

/** A header's values: split on commas (repeats come joined by `", "`), trimmed, empties dropped. */
function splitValues(value: string | null): string[] {
  if (value === null) return [];
  return value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/**
 * The extra attributes of the `extraHeaders` (lower-case names, as `Headers` iterates them):
 * prefixes in order, then headers, so each key's values keep the reference's order.
 */
function extraOf(headers: Headers, extraHeaders: readonly string[], prefixes: readonly string[]): Record<string, string[]> {
  // A Map, not an object, so that a key such as `__proto__` is only a key.
  const extra = new Map<string, string[]>();
  for (const prefix of prefixes) {
    for (const header of extraHeaders) {
      if (!header.startsWith(prefix)) continue;
      const values = splitValues(headers.get(header));
      if (values.length === 0) continue;
      const key = unescapeKey(header.slice(prefix.length));
      extra.set(key, [...(extra.get(key) ?? []), ...values]);
    }
  }
  return Object.fromEntries(extra);
}

/** A percent-encoded extra key decoded (`%2F` → `/`); kept raw when it is not valid percent-encoding. */
function unescapeKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
