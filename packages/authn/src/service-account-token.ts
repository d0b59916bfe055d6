/**
 * Service-account tokens: a {@link TokenAuthenticator} that verifies the JWTs the server issues
 * for ServiceAccounts (the `token` sub-resource, projected volumes) against the server's public
 * keys, checks that the account and the object the token is bound to still exist, and names the
 * account as the user (the reference's `serviceaccount.JWTTokenAuthenticator` with its
 * bound-token validator).
 * @module
 */
import { compactVerify, decodeJwt, decodeProtectedHeader } from "jose";
import { looksLikeCompactJWT } from "./internal/compact-jwt.js";
import type { APIObject } from "@orch/meta";
import { systemClock, type Clock } from "@orch/store";
import { AuthenticationError, type AuthenticationResult, type TokenAuthenticator } from "./authenticator.js";
import type { ObjectGetter } from "./object-getter.js";
import type { UserInfo } from "./user.js";

/** Options of {@link serviceAccountTokenAuthenticator}. */
export interface ServiceAccountTokenAuthenticatorOptions {
  /**
   * The accepted `iss` values (the reference's `--service-account-issuer`, repeatable). A token
   * whose unverified `iss` is none of them is not this authenticator's: it has no opinion.
   */
  issuers: readonly string[];
  /**
   * The public keys tokens verify with (`--service-account-key-file`, see `publicKeysFromPEM`):
   * RSA (`RSASSA-PKCS1-v1_5` or `RSA-PSS`) or ECDSA P-256, P-384, P-521, usable to `verify`. A
   * token is accepted when any key verifies it. An ECDSA key verifies only the `ES*` algorithm of
   * its curve; an RSA key verifies every `RS*` and `PS*` algorithm when it is extractable (it is
   * re-imported for each), otherwise only the algorithm it was imported for. A function is called
   * on each signature verification (not on cached tokens), so it may rotate keys; it should be
   * cheap. A rejection of it refuses the token.
   */
  keys: readonly CryptoKey[] | (() => Promise<readonly CryptoKey[]>);
  /**
   * The server's own audiences (the reference's `--api-audiences`), accepted when the caller of
   * `authenticateToken` passes none. Empty means the {@link issuers}, as the reference's default.
   */
  audiences: readonly string[];
  /** The key of the private claim: `orch.io`, or `kubernetes.io` for the reference's domain. */
  claimKey: string;
  /** Reads the ServiceAccount and the Pod, Secret or Node a token is bound to. */
  getter: ObjectGetter;
  /**
   * Whether the ServiceAccount must still exist with the token's uid (the reference's
   * `--service-account-lookup`). Default true.
   */
  lookup?: boolean;
  /**
   * The prefix of the user's `extra` keys (`pod-name`, `pod-uid`, `node-name`, `node-uid`,
   * `credential-id`). Default `authentication.<claimKey>/` (`authentication.kubernetes.io/`
   * for the reference's domain).
   */
  extraPrefix?: string;
  /**
   * How long, in milliseconds, a verified token and a successful check of its account and bound
   * object are remembered (default 10 000, the reference's token cache; 0 disables caching).
   */
  cacheTTLMs?: number;
  /** The most tokens remembered at once (default 4096); the oldest is dropped first. */
  maxCacheEntries?: number;
  /** The clock `exp`, `nbf`, `iat` and deletion timestamps are measured by (default the system's). */
  clock?: Clock;
}

/** The algorithms a service-account token may be signed with: the reference's `allowedSigningAlgs`. */
export const serviceAccountTokenAlgorithms: readonly string[] = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"];

/**
 * The clock skew tolerated on `exp`, `nbf` and `iat`, and the grace after an object's
 * `deletionTimestamp` during which tokens bound to it still work, in milliseconds: one minute,
 * the reference's `jwt.DefaultLeeway`.
 */
export const serviceAccountTokenLeewayMs = 60_000;

/** The group of every service account. */
export const serviceAccountsGroup = "system:serviceaccounts";

/** The user name of a service account: `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUserName(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The groups of a service account: `system:serviceaccounts` and `system:serviceaccounts:<namespace>`. */
export function serviceAccountGroups(namespace: string): string[] {
  return [serviceAccountsGroup, `${serviceAccountsGroup}:${namespace}`];
}

/** A name and uid in the private claim; `uid` is `""` when the token carries none. */
interface Ref {
  name: string;
  uid: string;
}

/** The claims of a verified token, checked for shape. Times are seconds since the epoch. */
interface TokenClaims {
  aud: string[];
  exp: number;
  nbf: number | undefined;
  iat: number | undefined;
  jti: string;
  namespace: string;
  serviceAccount: Ref;
  pod: Ref | undefined;
  secret: Ref | undefined;
  node: Ref | undefined;
}

/** One remembered token: its verification, and the last successful check of its objects. */
interface CacheEntry {
  verified: Promise<TokenClaims>;
  /** Until when (ms) the verification may be reused: the earlier of `exp` and now plus the TTL. */
  until: number;
  checked: Promise<UserInfo> | undefined;
  /** Until when (ms) {@link checked} may be reused. */
  checkedUntil: number;
}

const defaultCacheTTLMs = 10_000;
const defaultMaxCacheEntries = 4096;

/** The Web Crypto algorithm a key must have to verify `alg`. */
interface KeyAlgorithm {
  name: string;
  hash?: string;
  namedCurve?: string;
}

function keyAlgorithmOf(alg: string): KeyAlgorithm {
  const bits = alg.slice(2);
  if (alg.startsWith("ES")) return { name: "ECDSA", namedCurve: bits === "512" ? "P-521" : `P-${bits}` };
  return { name: alg.startsWith("PS") ? "RSA-PSS" : "RSASSA-PKCS1-v1_5", hash: `SHA-${bits}` };
}

/** RSA keys re-imported for other algorithms, per key and `alg`. */
const reimported = new WeakMap<CryptoKey, Map<string, Promise<CryptoKey | undefined>>>();

/** `key` as a key that verifies `alg`, or `undefined` when it cannot. */
function keyFor(key: CryptoKey, alg: string): Promise<CryptoKey | undefined> | CryptoKey | undefined {
  if (key.type !== "public") return undefined;
  const wanted = keyAlgorithmOf(alg);
  const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name?: string } };
  if (algorithm.name === wanted.name && algorithm.namedCurve === wanted.namedCurve && algorithm.hash?.name === wanted.hash) {
    return key.usages.includes("verify") ? key : undefined;
  }
  const rsa = (name: string) => name === "RSASSA-PKCS1-v1_5" || name === "RSA-PSS";
  if (!rsa(algorithm.name) || !rsa(wanted.name) || !key.extractable) return undefined;
  let forKey = reimported.get(key);
  if (!forKey) reimported.set(key, (forKey = new Map()));
  let derived = forKey.get(alg);
  if (!derived) {
    derived = crypto.subtle
      .exportKey("spki", key)
      .then((spki) => crypto.subtle.importKey("spki", spki, { name: wanted.name, hash: wanted.hash } as RsaHashedImportParams, false, ["verify"]))
      .catch(() => undefined);
    forKey.set(alg, derived);
  }
  return derived;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refuse(message: string): never {
  throw new AuthenticationError(`service account token ${message}`);
}

/** A numeric date claim: `undefined` when absent, a refusal when not a number. */
function numericDate(payload: Record<string, unknown>, claim: string): number | undefined {
  const value = payload[claim];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) refuse(`has an invalid "${claim}" claim`);
  return value;
}

/** A reference in the private claim; `required` ones need a uid too. */
function refOf(claim: Record<string, unknown>, key: string, required: boolean): Ref | undefined {
  const value = claim[key];
  if (value === undefined && !required) return undefined;
  if (!isRecord(value)) refuse(`has no valid "${key}" in its private claim`);
  const name = value["name"];
  const uid = value["uid"] ?? "";
  if (typeof name !== "string" || name === "" || typeof uid !== "string" || (required && uid === "")) {
    refuse(`has no valid "${key}" in its private claim: want a name${required ? " and a uid" : ""}`);
  }
  return { name, uid };
}

/** The claims of a verified payload, refused unless they have the shape the server issues. */
function parseClaims(bytes: Uint8Array, claimKey: string): TokenClaims {
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    refuse("has a payload that is not JSON");
  }
  if (!isRecord(payload)) refuse("has a payload that is not a JSON object");
  const exp = numericDate(payload, "exp");
  if (exp === undefined) refuse(`has no "exp" claim`);
  const rawAud = payload["aud"];
  const aud = typeof rawAud === "string" ? [rawAud] : rawAud;
  if (!Array.isArray(aud) || aud.length === 0 || !aud.every((a): a is string => typeof a === "string")) refuse(`has no valid "aud" claim`);
  const jti = payload["jti"] ?? "";
  if (typeof jti !== "string") refuse(`has an invalid "jti" claim`);
  const claim = payload[claimKey];
  if (!isRecord(claim)) refuse(`has no "${claimKey}" private claim`);
  const namespace = claim["namespace"];
  if (typeof namespace !== "string" || namespace === "") refuse(`has no namespace in its private claim`);
  const serviceAccount = refOf(claim, "serviceaccount", true) as Ref;
  const sub = serviceAccountUserName(namespace, serviceAccount.name);
  if (payload["sub"] !== sub) refuse(`subject ${JSON.stringify(payload["sub"])} does not match its private claim (${sub})`);
  const pod = refOf(claim, "pod", false);
  const secret = refOf(claim, "secret", false);
  const node = refOf(claim, "node", false);
  return { aud, exp, nbf: numericDate(payload, "nbf"), iat: numericDate(payload, "iat"), jti, namespace, serviceAccount, pod, secret, node };
}

/** A copy of `user` a caller may change without changing the cached one. */
function copyOf(user: UserInfo): UserInfo {
  const copy: UserInfo = { ...user, groups: [...user.groups] };
  if (user.extra) copy.extra = Object.fromEntries(Object.entries(user.extra).map(([key, values]) => [key, [...values]]));
  return copy;
}

/** The token's `iss` before any verification, or `undefined` when it is not a JWS-compact JWT. */
function unverifiedIssuer(token: string): string | undefined {
  if (!looksLikeCompactJWT(token)) return undefined;
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A {@link TokenAuthenticator} for service-account JWTs, as the reference's
 * `JWTTokenAuthenticator`:
 *
 * - a token that is not a compact JWS JWT, or whose (unverified) `iss` is not one of
 *   `issuers`, is not its kind: no opinion (`undefined`);
 * - anything else is refused with an {@link AuthenticationError} unless: the header `alg` is
 *   RS/PS/ES 256/384/512 (`none` and HMAC never) and one of the keys verifies the signature;
 *   `exp` is present and not more than one minute past, `nbf` and `iat` not more than one
 *   minute ahead ({@link serviceAccountTokenLeewayMs}); `aud` shares at least one audience with
 *   those accepted (the caller's, else `audiences`, else the issuers); the private claim under
 *   `claimKey` names a namespace and a ServiceAccount name and uid, and `sub` is that account's
 *   user name;
 * - with `lookup` (default true) the ServiceAccount must exist with the token's uid; with or
 *   without it, a bound Secret or Pod (in the account's namespace), or a bound Node (when the
 *   token is bound to no pod), must exist with the token's uid. An object whose `deletionTimestamp` is more than one
 *   minute past is refused, as in the reference; a younger deletion still lets the token through.
 *   The node of a pod-bound token is not read: it is only reported, as in the reference. A
 *   getter that rejects refuses the token (a 401, never a 500).
 *
 * The user is `system:serviceaccount:<ns>:<name>` with the account's uid, groups
 * `system:serviceaccounts` and `system:serviceaccounts:<ns>`, and `extra` under `extraPrefix`:
 * `pod-name` and `pod-uid` (pod-bound), `node-name` and `node-uid` (node- or pod-bound with a
 * node), `credential-id` (`JTI=<jti>`). The result's `audiences` are the token's audiences that
 * were accepted, in the token's order. The `warnafter` claim is not reported.
 *
 * Caching (what keeps authenticated reads close to unauthenticated ones): a token string whose
 * signature and claims verified is remembered until the earlier of its `exp` and `cacheTTLMs`
 * (10 s); a successful check of its account and bound object is remembered for `cacheTTLMs`
 * too, as the reference's 10-second token cache remembers successes. So a deleted or recreated
 * ServiceAccount, Pod, Secret or Node stops its tokens within `cacheTTLMs` (plus the one-minute
 * deletion grace). Time (`exp`, `nbf`, `iat`) and audiences are checked on every call. Failures
 * are not remembered. At most `maxCacheEntries` tokens are kept; the oldest goes first.
 */
export function serviceAccountTokenAuthenticator(options: ServiceAccountTokenAuthenticatorOptions): TokenAuthenticator {
  const issuers: ReadonlySet<string> = new Set(options.issuers);
  const implicitAudiences: readonly string[] = options.audiences.length > 0 ? [...options.audiences] : [...options.issuers];
  const { claimKey, getter } = options;
  const lookup = options.lookup ?? true;
  const extraPrefix = options.extraPrefix ?? `authentication.${claimKey}/`;
  const ttl = options.cacheTTLMs ?? defaultCacheTTLMs;
  const maxEntries = options.maxCacheEntries ?? defaultMaxCacheEntries;
  const clock = options.clock ?? systemClock;
  const allowed: ReadonlySet<string> = new Set(serviceAccountTokenAlgorithms);
  const cache = new Map<string, CacheEntry>();

  async function loadKeys(): Promise<readonly CryptoKey[]> {
    if (typeof options.keys !== "function") return options.keys;
    try {
      return await options.keys();
    } catch (error) {
      return refuse(`could not be verified: the verification keys could not be loaded: ${messageOf(error)}`);
    }
  }

  async function verify(token: string): Promise<TokenClaims> {
    let alg: unknown;
    let b64: unknown;
    try {
      ({ alg, b64 } = decodeProtectedHeader(token));
    } catch (error) {
      refuse(`has an invalid header: ${messageOf(error)}`);
    }
    if (typeof alg !== "string" || !allowed.has(alg))
      refuse(`is signed with algorithm ${JSON.stringify(alg)}: want one of ${serviceAccountTokenAlgorithms.join(", ")}`);
    if (b64 !== undefined) refuse("has an unencoded payload");
    const candidates = (await Promise.all((await loadKeys()).map((key) => keyFor(key, alg)))).filter((key) => key !== undefined);
    if (candidates.length === 0) refuse(`is signed with ${alg}: no verification key for it`);
    const failures: string[] = [];
    for (const key of candidates) {
      let payload: Uint8Array;
      try {
        ({ payload } = await compactVerify(token, key, { algorithms: [alg] }));
      } catch (error) {
        failures.push(messageOf(error));
        continue;
      }
      return parseClaims(payload, claimKey);
    }
    return refuse(`signature is invalid: ${[...new Set(failures)].join("; ")}`);
  }

  /** Reads an object, turning a store failure into a refusal. */
  async function read(resource: string, namespace: string, name: string): Promise<APIObject | undefined> {
    try {
      return await getter("", resource, namespace, name);
    } catch (error) {
      return refuse(`could not be checked: reading ${resource} ${JSON.stringify(namespace ? `${namespace}/${name}` : name)}: ${messageOf(error)}`);
    }
  }

  /** Refuses the token unless the object of `ref` exists with its uid and is not long deleted. */
  async function checkObject(kind: string, resource: string, namespace: string, ref: Ref, now: number): Promise<void> {
    const object = await read(resource, namespace, ref.name);
    const shown = JSON.stringify(namespace ? `${namespace}/${ref.name}` : ref.name);
    if (!object) refuse(`has been invalidated: ${kind} ${shown} not found`);
    const uid = object.metadata?.uid ?? "";
    if (uid !== ref.uid) refuse(`has been invalidated: ${kind} ${shown} has uid ${JSON.stringify(uid)}, the token names ${JSON.stringify(ref.uid)}`);
    const deletion = object.metadata?.deletionTimestamp;
    if (deletion !== undefined && Date.parse(deletion) < now - serviceAccountTokenLeewayMs) {
      refuse(`has been invalidated: ${kind} ${shown} has been deleted`);
    }
  }

  /** Checks the account and the bound object, then builds the user. */
  async function check(claims: TokenClaims, now: number): Promise<UserInfo> {
    const { namespace, serviceAccount, pod, secret, node } = claims;
    if (lookup) await checkObject("service account", "serviceaccounts", namespace, serviceAccount, now);
    if (secret) await checkObject("secret", "secrets", namespace, secret, now);
    if (pod) await checkObject("pod", "pods", namespace, pod, now);
    else if (node) await checkObject("node", "nodes", "", node, now);
    const extra: Record<string, string[]> = {};
    if (pod && pod.uid !== "") {
      extra[`${extraPrefix}pod-name`] = [pod.name];
      extra[`${extraPrefix}pod-uid`] = [pod.uid];
    }
    if (claims.jti !== "") extra[`${extraPrefix}credential-id`] = [`JTI=${claims.jti}`];
    if (node) {
      extra[`${extraPrefix}node-name`] = [node.name];
      if (node.uid !== "") extra[`${extraPrefix}node-uid`] = [node.uid];
    }
    const user: UserInfo = { name: serviceAccountUserName(namespace, serviceAccount.name), uid: serviceAccount.uid, groups: serviceAccountGroups(namespace) };
    if (Object.keys(extra).length > 0) user.extra = extra;
    return user;
  }

  function remember(token: string, entry: CacheEntry): void {
    if (ttl <= 0) return;
    if (cache.size >= maxEntries) {
      const now = clock.now();
      for (const [key, old] of cache) if (old.until <= now) cache.delete(key);
      while (cache.size >= maxEntries) {
        const oldest = cache.keys().next();
        if (oldest.done) break;
        cache.delete(oldest.value);
      }
    }
    cache.set(token, entry);
  }

  return {
    async authenticateToken(token: string, audiences: readonly string[]): Promise<AuthenticationResult> {
      const now = clock.now();
      let entry = cache.get(token);
      if (entry && entry.until <= now) {
        cache.delete(token);
        entry = undefined;
      }
      if (!entry) {
        const iss = unverifiedIssuer(token);
        if (iss === undefined || !issuers.has(iss)) return undefined;
        const fresh: CacheEntry = { verified: verify(token), until: now + ttl, checked: undefined, checkedUntil: 0 };
        fresh.verified.then(
          (claims) => {
            fresh.until = Math.min(fresh.until, claims.exp * 1000);
          },
          () => {
            if (cache.get(token) === fresh) cache.delete(token);
          },
        );
        remember(token, fresh);
        entry = fresh;
      }
      const claims = await entry.verified;

      if (now > claims.exp * 1000 + serviceAccountTokenLeewayMs) refuse("has expired");
      if (claims.nbf !== undefined && now + serviceAccountTokenLeewayMs < claims.nbf * 1000) refuse("is not valid yet");
      if (claims.iat !== undefined && now + serviceAccountTokenLeewayMs < claims.iat * 1000) refuse("is issued in the future");

      const accepted = audiences.length > 0 ? audiences : implicitAudiences;
      const matched = claims.aud.filter((aud) => accepted.includes(aud));
      if (matched.length === 0) refuse(`audiences ${JSON.stringify(claims.aud)} are invalid for the target audiences ${JSON.stringify(accepted)}`);

      let checking = entry.checked;
      if (checking === undefined || entry.checkedUntil <= now) {
        const current = entry;
        const started = check(claims, now);
        checking = started;
        current.checked = started;
        current.checkedUntil = now + ttl;
        started.catch(() => {
          if (current.checked === started) {
            current.checked = undefined;
            current.checkedUntil = 0;
          }
        });
      }
      return { user: copyOf(await checking), audiences: matched };
    },
  };
}
