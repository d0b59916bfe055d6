/**
 * The token webhook authenticator: asks a remote service whether a bearer token is valid by
 * POSTing it a TokenReview, and caches the service's decisions (the reference's webhook token
 * authenticator behind its token cache).
 * @module
 */
import { systemClock, type Clock } from "@orch/store";
import { AuthenticationError, type AuthenticationResult, type TokenAuthenticator } from "./authenticator.js";
import type { HTTPClient, HTTPResponse } from "./http-client.js";
import type { UserInfo } from "./user.js";
import { untilAborted } from "./until-aborted.js";
import { ExpiringCache } from "./expiring-cache.js";

/** Options of {@link tokenWebhookAuthenticator}. */
export interface TokenWebhookOptions {
  /** The webhook's URL: an absolute `https:` (or `http:`) URL the TokenReview is POSTed to. */
  server: string;
  /** How the request is sent: `httpsClient` from `@orch/node` carries the webhook's CA and client certificate. */
  http: HTTPClient;
  /** The product domain: the TokenReview's group is `authentication.<domain>` (default `orch.io`). */
  domain?: string;
  /** The TokenReview version sent and expected back (default `v1beta1`, as the reference's default). */
  version?: "v1beta1" | "v1";
  /** How long a webhook's acceptance is cached, in milliseconds (default 120 000; 0 disables). */
  cacheTTLMs?: number;
  /** How long a webhook's denial is cached, in milliseconds (default 30 000; 0 disables). */
  failureCacheTTLMs?: number;
  /**
   * How long the webhook has to answer, in milliseconds (default 10 000). A webhook that does
   * not answer in time refuses the token; the request is aborted.
   */
  timeoutMs?: number;
  /** The most decisions cached at once (default 4096); the oldest is dropped first. */
  maxCacheEntries?: number;
  /** Time and timers for the cache and the deadline (default the system clock). */
  clock?: Clock;
  /** Receives one line per failed webhook call, naming the webhook URL and the cause (default: dropped). */
  log?: (message: string) => void;
  /** Sent as `Authorization: Bearer <bearerToken>` to the webhook (the webhook kubeconfig's `token`). */
  bearerToken?: string;
}

/** Counters of a {@link TokenWebhookAuthenticator}'s cache, for tests and metrics. */
export interface TokenWebhookCacheStats {
  /** Decisions cached and not yet expired. */
  entries: number;
  /** Calls answered from the cache. */
  hits: number;
  /** Calls the cache could not answer (they waited for a webhook call, new or already under way). */
  misses: number;
  /** TokenReviews sent to the webhook. */
  webhookCalls: number;
}

/** A {@link TokenAuthenticator} backed by a token webhook, with a look at its cache. */
export interface TokenWebhookAuthenticator extends TokenAuthenticator {
  /** The cache's counters now; a fresh object on every call. */
  cacheStats(): TokenWebhookCacheStats;
}

/** A decision of the webhook, as cached: an accepted token's user, or a denial's message. */
type Decision = { accepted: true; user: UserInfo; audiences?: string[] } | { accepted: false; message: string };

/** One webhook call under way, shared by every caller asking about the same token and audiences. */
interface Flight {
  readonly decision: Promise<Decision>;
  readonly controller: AbortController;
  /** Callers still waiting; when the last one goes away, the call is aborted. */
  waiters: number;
}

/** The abort reason of a call whose deadline passed. */
class Deadline extends Error {}

/**
 * A {@link TokenAuthenticator} that asks a webhook about every token, as the reference's
 * `--authentication-token-webhook-config-file` does: it POSTs a TokenReview
 * (`authentication.<domain>/<version>`, with `spec.token` and, when the caller passes audiences,
 * `spec.audiences`) and reads the webhook's TokenReview back.
 *
 * What a caller must know:
 * - It always has an opinion: a token is accepted (a user) or refused (a thrown
 *   {@link AuthenticationError}); never `undefined`.
 * - The answer must be a 2xx JSON TokenReview of the version sent. Anything else (no answer
 *   within `timeoutMs`, a failed connection, another status, a body that is not such a
 *   TokenReview, `authenticated: true` without a user name) refuses the token, logs a line
 *   naming the webhook and the cause, and is not cached: the next call asks again.
 * - `authenticated: false` refuses the token with the webhook's `status.error` and is cached
 *   for `failureCacheTTLMs`; an accepted token is cached for `cacheTTLMs`. Decisions are cached
 *   per token (kept only as its SHA-256) and audience list, and expire by the clock.
 * - Audiences: when the caller passes some, the result's audiences are those the webhook named
 *   in `status.audiences` that the caller asked for (all the caller's when the webhook names
 *   none, as the reference assumes the server's own audiences); none in common refuses the
 *   token. When the caller passes none, the webhook's audiences are not checked and the result
 *   has none.
 * - Identical calls made while a webhook call is under way share it. A caller whose `signal`
 *   aborts is refused at once; the shared call is aborted only when every caller has gone away.
 * - Every result is a fresh object the caller may change.
 *
 * @throws RangeError when `server` is not an absolute http(s) URL or a number option is out of range.
 */
export function tokenWebhookAuthenticator(options: TokenWebhookOptions): TokenWebhookAuthenticator {
  const server = options.server;
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new RangeError(`token webhook: server ${JSON.stringify(server)} is not an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new RangeError(`token webhook: server ${JSON.stringify(server)} is not an http(s) URL`);
  const version = options.version ?? "v1beta1";
  if (version !== "v1beta1" && version !== "v1") throw new RangeError(`token webhook: version must be v1beta1 or v1, got ${JSON.stringify(version)}`);
  const apiVersion = `authentication.${options.domain ?? "orch.io"}/${version}`;
  const cacheTTLMs = nonNegative("cacheTTLMs", options.cacheTTLMs ?? 120_000);
  const failureCacheTTLMs = nonNegative("failureCacheTTLMs", options.failureCacheTTLMs ?? 30_000);
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new RangeError(`token webhook: timeoutMs must be a positive number, got ${timeoutMs}`);
  const maxCacheEntries = options.maxCacheEntries ?? 4096;
  if (!Number.isInteger(maxCacheEntries) || maxCacheEntries < 1)
    throw new RangeError(`token webhook: maxCacheEntries must be a positive integer, got ${maxCacheEntries}`);
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => {});
  const http = options.http;
  const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
  if (options.bearerToken !== undefined && options.bearerToken !== "") headers["Authorization"] = `Bearer ${options.bearerToken}`;

  /** Decisions by cache key, oldest write first (a rewrite moves an entry to the end). */
  const cache = new ExpiringCache<string, Decision>(clock, maxCacheEntries);
  const flights = new Map<string, Flight>();
  const stats = { hits: 0, misses: 0, webhookCalls: 0 };

  /** Refuses the token for a failed call: logs the cause with the webhook's URL. */
  function failure(cause: string): AuthenticationError {
    log(`token webhook ${server}: ${cause}`);
    return new AuthenticationError(`token webhook: ${cause}`);
  }

  /** One TokenReview round trip: the webhook's decision, or a thrown failure (never cached). */
  async function review(token: string, audiences: readonly string[], signal: AbortSignal): Promise<Decision> {
    const spec: { token: string; audiences?: string[] } = { token };
    if (audiences.length > 0) spec.audiences = [...audiences];
    const body = JSON.stringify({ apiVersion, kind: "TokenReview", spec });
    stats.webhookCalls++;
    let response: HTTPResponse;
    try {
      response = await untilAborted(http(server, { method: "POST", headers: { ...headers }, body, signal }), signal);
    } catch (error) {
      if (signal.aborted && signal.reason instanceof Deadline) throw failure(`no answer within ${timeoutMs} ms`);
      if (signal.aborted) throw new AuthenticationError("token webhook: the request was cancelled");
      throw failure(`request failed: ${messageOf(error)}`);
    }
    if (response.status < 200 || response.status > 299) throw failure(`answered HTTP ${response.status}${snippet(response.body)}`);
    let answer: unknown;
    try {
      answer = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(response.body));
    } catch (error) {
      throw failure(`the answer is not JSON: ${messageOf(error)}`);
    }
    if (!isRecord(answer)) throw failure("the answer is not a JSON object");
    if (answer["kind"] !== "TokenReview" || answer["apiVersion"] !== apiVersion) {
      throw failure(
        `the answer is not a ${apiVersion} TokenReview (got kind ${JSON.stringify(answer["kind"])}, apiVersion ${JSON.stringify(answer["apiVersion"])})`,
      );
    }
    const decision = decisionOf(answer["status"], audiences);
    if (typeof decision === "string") throw failure(`malformed TokenReview status: ${decision}`);
    return decision;
  }

  function remember(key: string, decision: Decision): void {
    cache.set(key, decision, decision.accepted ? cacheTTLMs : failureCacheTTLMs);
  }

  function startFlight(key: string, token: string, audiences: readonly string[]): Flight {
    const controller = new AbortController();
    const cancelTimer = clock.setTimer(timeoutMs, () => controller.abort(new Deadline("deadline")));
    const decision = review(token, audiences, controller.signal).then((d) => {
      if (flights.get(key) === flight) remember(key, d);
      return d;
    });
    const flight: Flight = { decision, controller, waiters: 0 };
    void decision
      .finally(() => {
        cancelTimer();
        if (flights.get(key) === flight) flights.delete(key);
      })
      .catch(() => {});
    flights.set(key, flight);
    return flight;
  }

  /** Waits for `flight` on behalf of one caller, who may leave early through `signal`. */
  function join(key: string, flight: Flight, signal: AbortSignal | undefined): Promise<Decision> {
    flight.waiters++;
    return new Promise<Decision>((resolve, reject) => {
      let left = false;
      const leave = (): void => {
        left = true;
        reject(new AuthenticationError("token webhook: the request was cancelled"));
        if (--flight.waiters === 0) {
          if (flights.get(key) === flight) flights.delete(key);
          flight.controller.abort(new Error("every caller went away"));
        }
      };
      signal?.addEventListener("abort", leave, { once: true });
      const settle = (): boolean => {
        if (left) return false;
        signal?.removeEventListener("abort", leave);
        flight.waiters--;
        return true;
      };
      flight.decision.then(
        (d) => {
          if (settle()) resolve(d);
        },
        (error: unknown) => {
          if (settle()) reject(error instanceof AuthenticationError ? new AuthenticationError(error.message) : error);
        },
      );
    });
  }

  return {
    async authenticateToken(token: string, audiences: readonly string[], signal?: AbortSignal): Promise<AuthenticationResult> {
      if (signal?.aborted) throw new AuthenticationError("token webhook: the request was cancelled");
      const key = JSON.stringify([await sha256Hex(token), audiences]);
      const cached = cache.get(key);
      if (cached !== undefined) {
        stats.hits++;
        return resultOf(cached);
      }
      stats.misses++;
      if (signal?.aborted) throw new AuthenticationError("token webhook: the request was cancelled");
      const flight = flights.get(key) ?? startFlight(key, token, audiences);
      return resultOf(await join(key, flight, signal));
    },
    cacheStats(): TokenWebhookCacheStats {
      return { entries: cache.size, ...stats };
    },
  };
}

/**
 * The decision a TokenReview `status` states, for a call that asked about `audiences`; a string
 * saying what is wrong when the status is malformed.
 */
function decisionOf(status: unknown, audiences: readonly string[]): Decision | string {
  if (status === undefined || status === null) status = {};
  if (!isRecord(status)) return "status is not an object";
  const authenticated = status["authenticated"] ?? false;
  if (typeof authenticated !== "boolean") return "status.authenticated is not a boolean";
  const error = status["error"] ?? "";
  if (typeof error !== "string") return "status.error is not a string";
  if (!authenticated) return { accepted: false, message: error === "" ? "token webhook: token not authenticated" : `token webhook: ${error}` };

  const u = status["user"];
  if (!isRecord(u)) return "status.user is missing";
  const name = u["username"];
  if (typeof name !== "string" || name === "") return "status.user.username is missing or empty";
  const user: UserInfo = { name, groups: [] };
  const uid = u["uid"] ?? "";
  if (typeof uid !== "string") return "status.user.uid is not a string";
  if (uid !== "") user.uid = uid;
  const groups = u["groups"] ?? [];
  if (!isStringArray(groups)) return "status.user.groups is not a list of strings";
  user.groups = [...groups];
  const extra = u["extra"] ?? {};
  if (!isRecord(extra)) return "status.user.extra is not an object";
  const extras: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(extra)) {
    const values = v ?? [];
    if (!isStringArray(values)) return `status.user.extra[${JSON.stringify(k)}] is not a list of strings`;
    extras[k] = [...values];
  }
  if (Object.keys(extras).length > 0) user.extra = extras;

  const named = status["audiences"] ?? [];
  if (!isStringArray(named)) return "status.audiences is not a list of strings";
  if (audiences.length === 0) return { accepted: true, user };
  const valid = named.length > 0 ? audiences.filter((a, i) => named.includes(a) && audiences.indexOf(a) === i) : [...new Set(audiences)];
  if (valid.length === 0) {
    return { accepted: false, message: `token webhook: the token is valid for ${named.join(", ")}, none of the audiences ${audiences.join(", ")}` };
  }
  return { accepted: true, user, audiences: valid };
}

/** A caller's copy of a decision: a fresh result, or a fresh {@link AuthenticationError}. */
function resultOf(decision: Decision): AuthenticationResult {
  if (!decision.accepted) throw new AuthenticationError(decision.message);
  const u = decision.user;
  const user: UserInfo = { name: u.name, groups: [...u.groups] };
  if (u.uid !== undefined) user.uid = u.uid;
  if (u.extra !== undefined) user.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return decision.audiences === undefined ? { user } : { user, audiences: [...decision.audiences] };
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** The start of a response body, for a log line (at most 200 characters, on one line). */
function snippet(body: Uint8Array): string {
  const text = new TextDecoder().decode(body.subarray(0, 400)).replace(/\s+/g, " ").trim();
  return text === "" ? "" : `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

function nonNegative(name: string, value: number): number {
  if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`token webhook: ${name} must be a non-negative number, got ${value}`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
