/**
 * {@link oidcCredentialSource}: the `oidc` auth provider of a client configuration file, as
 * `client-go` implements it. The `id-token` is the bearer token while it has not expired; then
 * the `refresh-token` buys a new one at the issuer's token endpoint (found by discovery), and
 * the new tokens are written back through `persist`.
 * @module
 */
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { HTTPClient, HTTPResponse } from "@orch/authn";
import type { CredentialSource, Credentials } from "@orch/client";
import { decodeJwt } from "jose";
import { credentialError, type CredentialSubject } from "../internal/credential-error.js";
import { httpsClient } from "../https-client.js";

/** Options of {@link oidcCredentialSource}. */
export interface OIDCCredentialSourceOptions {
  /**
   * The auth provider's `config`: `idp-issuer-url` and `client-id` (required), `client-secret`,
   * `refresh-token`, `id-token`, `idp-certificate-authority` (a file, relative to the
   * configuration file's directory) or `idp-certificate-authority-data` (base64 PEM, which wins).
   * Not modified: refreshed tokens go to `persist`.
   */
  config: Record<string, string>;
  /** The name of the user entry, for error messages. */
  userName: string;
  /** The configuration file the entry is in: named in errors, and the base of a relative `idp-certificate-authority`. */
  configFile?: string;
  /**
   * Called with the whole updated `config` after a refresh (new `id-token`, and new
   * `refresh-token` when the issuer sent one), before the new token is used; a rejection fails
   * the refresh and the old config stays in use.
   */
  persist?: (config: Record<string, string>) => Promise<void>;
  /** How the issuer is reached; by default `httpsClient` trusting the configured IdP CA (or the system roots). */
  httpClient?: HTTPClient;
  /** The time in milliseconds since the epoch, to compare with the token's `exp`; `Date.now` by default. */
  now?: () => number;
}

/** A token expiring within this margin counts as expired (client-go's `expiryDelta`). */
const expirySkewMs = 10_000;
/** The most of an issuer's error body quoted in a message. */
const maxQuotedBody = 200;

function quoted(body: Uint8Array): string {
  const text = new TextDecoder().decode(body).trim();
  return JSON.stringify(text.length > maxQuotedBody ? `${text.slice(0, maxQuotedBody)}...` : text);
}

/** Whether `token` is a JWT whose `exp` is more than the skew ahead of `nowMs`. */
function usable(token: string | undefined, nowMs: number): boolean {
  if (!token) return false;
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === "number" && nowMs + expirySkewMs < exp * 1000;
  } catch {
    // Not a JWT: unusable, so refreshed when a refresh token allows it.
    return false;
  }
}

/** The fields of a token endpoint's answer: JSON, or form-encoded as some providers send. */
function tokenAnswer(response: HTTPResponse): Record<string, unknown> {
  const text = new TextDecoder().decode(response.body);
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("application/x-www-form-urlencoded") || type.startsWith("text/plain")) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("the answer is not a JSON object");
  return parsed as Record<string, unknown>;
}

/**
 * A {@link CredentialSource} for a user with an `oidc` auth provider, as `client-go`'s:
 *
 * - `id-token` is sent while its `exp` is more than 10 s ahead (read with `jose`'s
 *   `decodeJwt`, not verified: the server verifies).
 * - Otherwise (expired, missing, not a JWT, or after a 401 to it) it refreshes: GET
 *   `<idp-issuer-url>/.well-known/openid-configuration` for `token_endpoint`, POST
 *   `grant_type=refresh_token&refresh_token=...` there with the client id and secret (as
 *   golang.org/x/oauth2 does: HTTP basic auth first, then in the form when that fails), take
 *   `id_token` (an answer without one is refused: the provider must return an `id_token` on
 *   refresh), keep a new `refresh_token` when one is sent, and call `persist`.
 * - Concurrent callers share one refresh.
 * - `credentials()` rejects, naming the configuration file, the user entry and the cause,
 *   without `idp-issuer-url` or `client-id`, with no usable `id-token` and no
 *   `refresh-token`, or when discovery, the token request or `persist` fails.
 * - `unauthorized(used)` forces a refresh when `used` is the current `id-token` and resolves
 *   true, or resolves false when there is no `refresh-token` to get another with.
 *
 * @example
 * ```ts
 * const source = oidcCredentialSource({ config: user["auth-provider"].config, userName: "alice", configFile, persist });
 * ```
 */
export function oidcCredentialSource(options: OIDCCredentialSourceOptions): CredentialSource {
  const subject: CredentialSubject = { userName: options.userName, configFile: options.configFile };
  const now = options.now ?? Date.now;
  let config: Record<string, string> = { ...options.config };
  /** The id-token the server refused: not used again, whatever its `exp`. */
  let refused: string | undefined;
  let refreshing: Promise<string> | undefined;
  let client: HTTPClient | undefined = options.httpClient;
  /** The way of sending the client credentials the token endpoint took (oauth2's auth style cache). */
  let clientAuth: "header" | "form" | undefined;

  const fail = (cause: string, error?: unknown): Error =>
    credentialError(subject, `oidc auth provider: ${cause}`, error === undefined ? undefined : { cause: error });

  async function httpClient(): Promise<HTTPClient> {
    if (client) return client;
    let ca: string | undefined;
    const data = config["idp-certificate-authority-data"];
    const file = config["idp-certificate-authority"];
    if (data) ca = Buffer.from(data, "base64").toString("utf8");
    else if (file) {
      const path = options.configFile ? resolve(dirname(options.configFile), file) : resolve(file);
      try {
        ca = await readFile(path, "utf8");
      } catch (error) {
        throw fail(`cannot read idp-certificate-authority ${path}: ${(error as Error).message}`, error);
      }
    }
    client = httpsClient(ca === undefined ? {} : { ca });
    return client;
  }

  async function tokenEndpoint(issuer: string): Promise<string> {
    const wellKnown = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    const get = await httpClient();
    let response: HTTPResponse;
    try {
      response = await get(wellKnown, { method: "GET", headers: { accept: "application/json" } });
    } catch (error) {
      throw fail(`cannot reach ${wellKnown}: ${(error as Error).message}`, error);
    }
    if (response.status !== 200) throw fail(`failed to query metadata endpoint ${wellKnown}: HTTP ${response.status} ${quoted(response.body)}`);
    let endpoint: unknown;
    try {
      endpoint = (JSON.parse(new TextDecoder().decode(response.body)) as { token_endpoint?: unknown }).token_endpoint;
    } catch (error) {
      throw fail(`the discovery document at ${wellKnown} is not JSON`, error);
    }
    if (typeof endpoint !== "string" || endpoint === "") throw fail(`discovery through ${wellKnown} did not return a token_endpoint`);
    return endpoint;
  }

  async function requestTokens(url: string, refreshToken: string, style: "header" | "form"): Promise<HTTPResponse> {
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken });
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    const id = config["client-id"] ?? "";
    const secret = config["client-secret"] ?? "";
    if (style === "header") {
      // RFC 6749 2.3.1: both parts form-encoded before basic auth, as oauth2's url.QueryEscape.
      const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
      headers["authorization"] = `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString("base64")}`;
    } else {
      if (id) form.set("client_id", id);
      if (secret) form.set("client_secret", secret);
    }
    const response = await (await httpClient())(url, { method: "POST", headers, body: form.toString() });
    if (response.status < 200 || response.status > 299) throw new Error(`the token endpoint ${url} answered HTTP ${response.status} ${quoted(response.body)}`);
    return response;
  }

  async function refresh(): Promise<string> {
    const refreshToken = config["refresh-token"];
    if (!refreshToken) throw fail("no valid id-token, and cannot refresh without refresh-token");
    const url = await tokenEndpoint(config["idp-issuer-url"]!);
    let response: HTTPResponse;
    try {
      if (clientAuth) response = await requestTokens(url, refreshToken, clientAuth);
      else {
        try {
          response = await requestTokens(url, refreshToken, "header");
          clientAuth = "header";
        } catch {
          response = await requestTokens(url, refreshToken, "form");
          clientAuth = "form";
        }
      }
    } catch (error) {
      throw fail(`failed to refresh token: ${(error as Error).message}`, error);
    }
    let answer: Record<string, unknown>;
    try {
      answer = tokenAnswer(response);
    } catch (error) {
      throw fail(`failed to refresh token: the token endpoint ${url} sent an unreadable answer: ${(error as Error).message}`, error);
    }
    const idToken = answer["id_token"];
    if (typeof idToken !== "string" || idToken === "") {
      throw fail(
        `the token endpoint ${url} answered the refresh without an id_token: either the scope "openid" wasn't requested upon login, or the provider doesn't support id_tokens as part of the refresh response`,
      );
    }
    const next: Record<string, string> = { ...config, "id-token": idToken };
    const newRefresh = answer["refresh_token"];
    if (typeof newRefresh === "string" && newRefresh !== "") next["refresh-token"] = newRefresh;
    if (options.persist) {
      try {
        await options.persist(next);
      } catch (error) {
        throw fail(`could not persist new tokens: ${(error as Error).message}`, error);
      }
    }
    config = next;
    return idToken;
  }

  return {
    async credentials(): Promise<Credentials> {
      if (!config["idp-issuer-url"]) throw fail("idp-issuer-url is required");
      if (!config["client-id"]) throw fail("client-id is required");
      const current = config["id-token"];
      if (current !== refused && usable(current, now())) return { token: current! };
      refreshing ??= refresh().finally(() => {
        refreshing = undefined;
      });
      return { token: await refreshing };
    },
    unauthorized(used: Credentials): Promise<boolean> {
      if (!config["refresh-token"]) return Promise.resolve(false);
      if (used.token !== undefined && used.token === config["id-token"]) refused = used.token;
      return Promise.resolve(true);
    },
  };
}
