/**
 * OpenID Connect ID tokens (the reference's `--oidc-*` flags): a {@link TokenAuthenticator} that
 * verifies JWTs issued by one OIDC provider against the keys the provider publishes, and maps
 * their claims to a user.
 * @module
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyOptions, type LocalJWKSet } from "jose";
import { systemClock, type Clock } from "@orch/store";
import { AuthenticationError, type AuthenticationResult, type TokenAuthenticator } from "./authenticator.js";
import type { HTTPClient, HTTPResponse } from "./http-client.js";
import { looksLikeCompactJWT } from "./internal/compact-jwt.js";
import { untilAborted } from "./until-aborted.js";

/** Options of {@link oidcAuthenticator}: the reference's `--oidc-*` flags. */
export interface OIDCAuthenticatorOptions {
  /**
   * The issuer: an `https://` URL without query, fragment or user information. A token whose
   * `iss` is not exactly this string is not this authenticator's; the provider's discovery
   * document must name exactly this issuer.
   */
  issuerURL: string;
  /** The client ID tokens are issued for: it must be the token's `aud` or one of them. */
  clientID: string;
  /** The claim that names the user (default `sub`). It must be a non-empty string. */
  usernameClaim?: string;
  /**
   * Prepended to the user name. Unset (or empty, as in the reference) means `issuerURL + "#"`,
   * except for the `email` claim where it means none; `-` means none.
   */
  usernamePrefix?: string;
  /** The claim that holds the user's groups: a string or an array of strings. Unset: no groups. */
  groupsClaim?: string;
  /** Prepended to every group (default none). */
  groupsPrefix?: string;
  /** Claims a token must carry, each with exactly this string value. */
  requiredClaims?: Readonly<Record<string, string>>;
  /**
   * The algorithms a token may be signed with (default `["RS256"]`): RS, PS or ES with 256, 384 or
   * 512 bits. `none` and the HMAC algorithms are refused: the keys are public.
   */
  signingAlgorithms?: readonly string[];
  /** How the discovery document and the key set are fetched (`httpsClient` from `@orch/node`). */
  http: HTTPClient;
  /** The clock tokens' `exp` and `nbf` and the refetch intervals are measured by (default the system's). */
  clock?: Clock;
  /** Receives one line per discovery and key fetch, successful or not. */
  log?: (message: string) => void;
}

/** Algorithms a provider may sign with: the reference's `allowedSigningAlgs`. */
const allowedSigningAlgorithms: ReadonlySet<string> = new Set(["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"]);

/** The least time between two fetches of the key set, and between two discovery attempts. */
const refetchIntervalMs = 10_000;

/** How far in the future a token's `nbf` may be (the reference's OIDC library allows 5 minutes of skew). */
const notBeforeLeewaySeconds = 5 * 60;

/** How long one fetch of the discovery document or the key set may take. */
const fetchTimeoutMs = 30_000;

/**
 * A {@link TokenAuthenticator} for the ID tokens of one OIDC provider, as the reference's OIDC
 * authenticator:
 * - a token that is not a JWT, or whose (unverified) `iss` is not `issuerURL`, gets no opinion,
 *   so other JWT authenticators may try it;
 * - on the first token of the issuer, the provider's discovery document
 *   (`<issuerURL>/.well-known/openid-configuration`) and key set (`jwks_uri`) are fetched, once
 *   for all concurrent callers; until that succeeds every token of the issuer is refused as "not
 *   initialized", and a failed attempt is retried by a token arriving 10 s or more later;
 * - a token signed with a key the set does not hold (a new `kid`: key rotation) makes the key set
 *   be fetched again, at most once per 10 s, and verified once more;
 * - the token must be signed with one of `signingAlgorithms`, be for `clientID`, carry `exp` and
 *   not be expired nor before its `nbf` (5 minutes of skew allowed);
 * - the user is `usernamePrefix` + the `usernameClaim` claim, in the `groupsClaim` groups, each
 *   prefixed with `groupsPrefix`; `requiredClaims` must match.
 *
 * The result has no `audiences`: tokens are for the API server itself. `system:authenticated` is
 * not added (the union does). The `audiences` argument is not read. An aborted `signal` stops the
 * caller waiting, not a fetch other callers share. Refusals are {@link AuthenticationError}s
 * whose message is for the log only. There is nothing to close: no timers run between tokens.
 * @throws TypeError when the options are invalid (an issuer that is not `https://`, an empty
 *   client ID, `none`, an HMAC or an unknown signing algorithm).
 */
export function oidcAuthenticator(options: OIDCAuthenticatorOptions): TokenAuthenticator {
  const config = configOf(options);
  const clock = options.clock ?? systemClock;
  const keys = new IssuerKeys(config.issuerURL, options.http, clock, options.log ?? (() => {}));
  const algorithms = config.algorithms;

  const verifyWith = async (token: string, keySet: LocalJWKSet): Promise<JWTPayload> => {
    const verifyOptions: JWTVerifyOptions = {
      algorithms: [...algorithms],
      issuer: config.issuerURL,
      audience: config.clientID,
      requiredClaims: ["exp"],
      currentDate: new Date(clock.now()),
      clockTolerance: notBeforeLeewaySeconds,
    };
    let payload: JWTPayload;
    try {
      payload = (await jwtVerify(token, keySet, verifyOptions)).payload;
    } catch (error) {
      if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
      // No kid, and several keys of the token's kind: the one that verifies it signed it.
      payload = await verifyWithAny(token, error, verifyOptions);
    }
    // The skew is for nbf only: a token is expired from its exp on, as in the reference.
    if (typeof payload.exp === "number" && payload.exp <= Math.floor(clock.now() / 1000))
      throw new errors.JWTExpired('"exp" claim timestamp check failed', payload, "exp", "check_failed");
    return payload;
  };

  const verify = async (token: string): Promise<JWTPayload> => {
    const keySet = await keys.current();
    const header = headerOf(token);
    try {
      return await verifyWith(token, keySet);
    } catch (error) {
      if (!isUnknownKey(error, header)) throw refusal(error, header, algorithms);
      const notFetched = await keys.refetch();
      const fresh = keys.keySet;
      if (fresh === undefined || fresh === keySet) {
        throw new AuthenticationError(`oidc: verify token: ${describe(error, header, algorithms)}; keys not fetched again: ${notFetched ?? "unchanged"}`);
      }
      try {
        return await verifyWith(token, fresh);
      } catch (again) {
        throw refusal(again, header, algorithms);
      }
    }
  };

  return {
    async authenticateToken(token: string, _audiences: readonly string[], signal?: AbortSignal): Promise<AuthenticationResult> {
      if (!looksLikeCompactJWT(token)) return undefined;
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        return undefined;
      }
      if (unverified.iss !== config.issuerURL) return undefined;
      signal?.throwIfAborted();
      const payload = await untilAborted(verify(token), signal);
      const user = { name: usernameOf(payload, config), groups: groupsOf(payload, config) };
      checkRequiredClaims(payload, config);
      return { user };
    },
  };
}

/** The validated options. */
interface Config {
  issuerURL: string;
  clientID: string;
  usernameClaim: string;
  usernamePrefix: string;
  groupsClaim: string | undefined;
  groupsPrefix: string;
  requiredClaims: [string, string][];
  algorithms: readonly string[];
}

function configOf(options: OIDCAuthenticatorOptions): Config {
  const issuerURL = options.issuerURL;
  let url: URL;
  try {
    url = new URL(issuerURL);
  } catch {
    throw new TypeError(`oidc: issuerURL ${JSON.stringify(issuerURL)} is not a URL`);
  }
  if (url.protocol !== "https:") throw new TypeError(`oidc: issuerURL ${JSON.stringify(issuerURL)} must use https, not ${url.protocol.replace(/:$/, "")}`);
  if (issuerURL.includes("?") || issuerURL.includes("#"))
    throw new TypeError(`oidc: issuerURL ${JSON.stringify(issuerURL)} must not have a query or a fragment`);
  if (url.username !== "" || url.password !== "") throw new TypeError(`oidc: issuerURL ${JSON.stringify(issuerURL)} must not have user information`);
  if (typeof options.clientID !== "string" || options.clientID === "") throw new TypeError("oidc: clientID is required");
  const usernameClaim = options.usernameClaim ?? "sub";
  if (usernameClaim === "") throw new TypeError("oidc: usernameClaim must not be empty");
  const algorithms = options.signingAlgorithms ?? ["RS256"];
  if (algorithms.length === 0) throw new TypeError("oidc: signingAlgorithms must not be empty");
  for (const alg of algorithms) {
    if (alg.toLowerCase() === "none" || /^HS/i.test(alg))
      throw new TypeError(`oidc: signing algorithm ${JSON.stringify(alg)} is not allowed: tokens must be signed with the provider's private key`);
    if (!allowedSigningAlgorithms.has(alg))
      throw new TypeError(`oidc: signing algorithm ${JSON.stringify(alg)} is not supported; supported: ${[...allowedSigningAlgorithms].join(", ")}`);
  }
  const prefix = options.usernamePrefix ?? "";
  const usernamePrefix = prefix === "-" ? "" : prefix !== "" ? prefix : usernameClaim === "email" ? "" : `${issuerURL}#`;
  return {
    issuerURL,
    clientID: options.clientID,
    usernameClaim,
    usernamePrefix,
    groupsClaim: options.groupsClaim === "" ? undefined : options.groupsClaim,
    groupsPrefix: options.groupsPrefix ?? "",
    requiredClaims: Object.entries(options.requiredClaims ?? {}),
    algorithms: [...algorithms],
  };
}

/**
 * The provider's key set: found through discovery on first use, fetched again when a token names
 * a key it does not hold. Every fetch is shared by the callers that arrive while it runs.
 */
class IssuerKeys {
  readonly #issuerURL: string;
  readonly #http: HTTPClient;
  readonly #clock: Clock;
  readonly #log: (message: string) => void;
  #jwksURI: string | undefined;
  #keySet: LocalJWKSet | undefined;
  #initialising: Promise<void> | undefined;
  #failure: { message: string; at: number } | undefined;
  /** When the key set was last fetched, or a fetch of it began. */
  #fetchedAt = Number.NEGATIVE_INFINITY;
  #refetching: Promise<string | undefined> | undefined;

  constructor(issuerURL: string, http: HTTPClient, clock: Clock, log: (message: string) => void) {
    this.#issuerURL = issuerURL;
    this.#http = http;
    this.#clock = clock;
    this.#log = log;
  }

  /** The key set now held; `undefined` before initialisation succeeded. */
  get keySet(): LocalJWKSet | undefined {
    return this.#keySet;
  }

  /**
   * The key set, initialising first when needed.
   * @throws AuthenticationError when discovery or the first key fetch failed (now or less than 10 s ago).
   */
  async current(): Promise<LocalJWKSet> {
    if (this.#keySet) return this.#keySet;
    if (!this.#initialising && (this.#failure === undefined || this.#clock.now() - this.#failure.at >= refetchIntervalMs)) {
      this.#initialising = this.#initialise().finally(() => (this.#initialising = undefined));
    }
    if (this.#initialising) await this.#initialising;
    if (this.#keySet) return this.#keySet;
    throw new AuthenticationError(
      `oidc: authenticator for issuer ${JSON.stringify(this.#issuerURL)} is not initialized: ${this.#failure?.message ?? "initialisation failed"}`,
    );
  }

  /**
   * Fetches the key set again, unless it was fetched less than 10 s ago; joins a fetch under way.
   * Resolves with why no new key set was fetched, or `undefined` when one was.
   */
  refetch(): Promise<string | undefined> {
    if (this.#refetching) return this.#refetching;
    const jwksURI = this.#jwksURI;
    if (jwksURI === undefined) return Promise.resolve("the issuer is not initialized");
    const since = this.#clock.now() - this.#fetchedAt;
    if (since < refetchIntervalMs)
      return Promise.resolve(`they were fetched ${Math.max(0, Math.round(since / 1000))} s ago, less than ${refetchIntervalMs / 1000} s`);
    this.#refetching = this.#fetchKeys(jwksURI)
      .then(
        ({ keySet, count }) => {
          this.#keySet = keySet;
          this.#log(`oidc: fetched ${count} keys of issuer ${this.#issuerURL} from ${jwksURI}`);
          return undefined;
        },
        (error: unknown) => {
          const message = messageOf(error);
          this.#log(`oidc: fetching the keys of issuer ${this.#issuerURL} failed: ${message}`);
          return message;
        },
      )
      .finally(() => (this.#refetching = undefined));
    return this.#refetching;
  }

  async #initialise(): Promise<void> {
    const attemptAt = this.#clock.now();
    try {
      const discoveryURL = `${this.#issuerURL.replace(/\/$/, "")}/.well-known/openid-configuration`;
      const document = await getJSONObject(this.#http, discoveryURL, "discovery document", "application/json");
      if (document["issuer"] !== this.#issuerURL) {
        throw new Error(
          `issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.#issuerURL)} got ${JSON.stringify(document["issuer"])}`,
        );
      }
      const jwksURI = document["jwks_uri"];
      if (typeof jwksURI !== "string" || !isHTTPSURL(jwksURI))
        throw new Error(`discovery document ${discoveryURL}: jwks_uri ${JSON.stringify(jwksURI)} is not an https URL`);
      const { keySet, count } = await this.#fetchKeys(jwksURI);
      this.#jwksURI = jwksURI;
      this.#keySet = keySet;
      this.#failure = undefined;
      this.#log(`oidc: initialized issuer ${this.#issuerURL} with ${count} keys from ${jwksURI}`);
    } catch (error) {
      this.#failure = { message: messageOf(error), at: attemptAt };
      this.#log(`oidc: initializing issuer ${this.#issuerURL} failed: ${this.#failure.message}`);
    }
  }

  async #fetchKeys(jwksURI: string): Promise<{ keySet: LocalJWKSet; count: number }> {
    this.#fetchedAt = this.#clock.now();
    const document = await getJSONObject(this.#http, jwksURI, "key set", "application/jwk-set+json, application/json");
    let keySet: LocalJWKSet;
    try {
      keySet = createLocalJWKSet(document as unknown as Parameters<typeof createLocalJWKSet>[0]);
    } catch (error) {
      throw new Error(`key set ${jwksURI}: ${messageOf(error)}`, { cause: error });
    }
    return { keySet, count: Array.isArray(document["keys"]) ? document["keys"].length : 0 };
  }
}

/** GETs `url` and parses its body as a JSON object. */
async function getJSONObject(http: HTTPClient, url: string, what: string, accept: string): Promise<Record<string, unknown>> {
  let response: HTTPResponse;
  try {
    response = await http(url, { method: "GET", headers: { accept }, signal: AbortSignal.timeout(fetchTimeoutMs) });
  } catch (error) {
    throw new Error(`fetching the ${what} ${url} failed: ${messageOf(error)}`, { cause: error });
  }
  if (response.status !== 200) {
    const body = new TextDecoder().decode(response.body.subarray(0, 200)).trim();
    throw new Error(`fetching the ${what} ${url} failed: status ${response.status}${body === "" ? "" : `: ${body}`}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(response.body));
  } catch {
    throw new Error(`the ${what} ${url} is not JSON (content-type ${JSON.stringify(response.headers.get("content-type") ?? "")})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`the ${what} ${url} is not a JSON object`);
  return value as Record<string, unknown>;
}

function isHTTPSURL(value: string): boolean {
  try {
    return new URL(value).protocol === "https:";
  } catch {
    return false;
  }
}

/** Tries each of several matching keys; when none verifies the token, no key of the set is its key. */
async function verifyWithAny(token: string, candidates: errors.JWKSMultipleMatchingKeys, options: JWTVerifyOptions): Promise<JWTPayload> {
  for await (const key of candidates) {
    try {
      return (await jwtVerify(token, key, options)).payload;
    } catch (error) {
      if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw error;
    }
  }
  throw new errors.JWKSNoMatchingKey("no key of the key set verifies the token");
}

/** The token's `alg` and `kid`, for messages and the choice to fetch keys again. */
interface TokenHeader {
  alg: unknown;
  kid: string | undefined;
}

function headerOf(token: string): TokenHeader {
  try {
    const { alg, kid } = decodeProtectedHeader(token);
    return { alg, kid: typeof kid === "string" ? kid : undefined };
  } catch {
    return { alg: undefined, kid: undefined };
  }
}

/** Whether `error` means the key set does not hold the token's key, so a newer set might. */
function isUnknownKey(error: unknown, header: TokenHeader): boolean {
  return error instanceof errors.JWKSNoMatchingKey || (header.kid === undefined && error instanceof errors.JWSSignatureVerificationFailed);
}

function refusal(error: unknown, header: TokenHeader, algorithms: readonly string[]): AuthenticationError {
  return new AuthenticationError(`oidc: verify token: ${describe(error, header, algorithms)}`);
}

function describe(error: unknown, header: TokenHeader, algorithms: readonly string[]): string {
  if (error instanceof errors.JWTExpired) return "token is expired";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "signature verification failed";
  if (error instanceof errors.JOSEAlgNotAllowed) return `token signed with algorithm ${JSON.stringify(header.alg)}, expected one of ${algorithms.join(", ")}`;
  if (error instanceof errors.JWKSNoMatchingKey)
    return header.kid === undefined ? "no key of the issuer verifies the token" : `no key of the issuer has kid ${JSON.stringify(header.kid)}`;
  return messageOf(error);
}

function usernameOf(payload: JWTPayload, config: Config): string {
  const claim = config.usernameClaim;
  const value = payload[claim];
  if (value === undefined) throw new AuthenticationError(`oidc: username claim ${JSON.stringify(claim)} is not present`);
  if (typeof value !== "string") throw new AuthenticationError(`oidc: username claim ${JSON.stringify(claim)} is not a string`);
  if (value === "") throw new AuthenticationError(`oidc: username claim ${JSON.stringify(claim)} is empty`);
  if (claim === "email" && Object.hasOwn(payload, "email_verified")) {
    // When the provider says whether the address is verified, it must say it is.
    const verified = payload["email_verified"];
    if (verified === false) throw new AuthenticationError("oidc: email not verified");
    if (verified !== true) throw new AuthenticationError('oidc: email not verified: claim "email_verified" is not a boolean');
  }
  return config.usernamePrefix + value;
}

/** Each required claim must be a string of the configured value. */
function checkRequiredClaims(payload: JWTPayload, config: Config): void {
  for (const [name, want] of config.requiredClaims) {
    if (!Object.hasOwn(payload, name)) throw new AuthenticationError(`oidc: required claim ${JSON.stringify(name)} not present in ID token`);
    const got = payload[name];
    if (typeof got !== "string") throw new AuthenticationError(`oidc: required claim ${JSON.stringify(name)} is not a string`);
    if (got !== want)
      throw new AuthenticationError(
        `oidc: required claim ${JSON.stringify(name)} value does not match: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
      );
  }
}

function groupsOf(payload: JWTPayload, config: Config): string[] {
  const claim = config.groupsClaim;
  if (claim === undefined || !Object.hasOwn(payload, claim)) return [];
  const value = payload[claim];
  let groups: string[];
  if (value === null) groups = [];
  else if (typeof value === "string") groups = [value];
  else if (Array.isArray(value) && value.every((g): g is string => typeof g === "string")) groups = value;
  else throw new AuthenticationError(`oidc: groups claim ${JSON.stringify(claim)} is not a string or an array of strings`);
  return groups.map((group) => config.groupsPrefix + group);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
