/**
 * Bootstrap tokens: `<id>.<secret>` bearer tokens backed by a Secret `bootstrap-token-<id>` in
 * the system namespace, which nodes use to join a cluster (the reference's
 * `plugin/pkg/auth/authenticator/token/bootstrap`). The format of the token Secret (its data
 * keys, the readers of its values and expiration, the token and group patterns) is
 * `@orch/resources`' `bootstrap-token-secret`, which the Secret kind validates with.
 * @module
 */
import type { APIObject } from "@orch/meta";
import {
  bootstrapGroupPattern,
  bootstrapSecretValue,
  bootstrapTokenExpiration,
  bootstrapTokenKeys,
  bootstrapTokenPattern,
  bootstrapTokenSecretName,
} from "@orch/resources";
import { systemClock, type Clock } from "@orch/store";
import { AuthenticationError, type AuthenticationResult, type TokenAuthenticator } from "./authenticator.js";
import type { ObjectGetter } from "./object-getter.js";

/** The user name of token `<id>` is this prefix followed by the id. */
export const bootstrapUserPrefix = "system:bootstrap:";

/** The group of every bootstrap token's user. */
export const bootstrapDefaultGroup = "system:bootstrappers";

/** The id and the secret of a bootstrap token. */
export interface BootstrapToken {
  /** The public part, which names the Secret (`bootstrap-token-<id>`). */
  id: string;
  /** The private part, compared with the Secret's `token-secret`. */
  secret: string;
}

/** The id and secret of `token`, or `undefined` when it does not match {@link bootstrapTokenPattern}. */
export function parseBootstrapToken(token: string): BootstrapToken | undefined {
  const match = bootstrapTokenPattern.exec(token);
  if (!match) return undefined;
  return { id: match[1] as string, secret: match[2] as string };
}

/** Options of {@link bootstrapTokenAuthenticator}. */
export interface BootstrapTokenAuthenticatorOptions {
  /** Reads the token's Secret. */
  getter: ObjectGetter;
  /** The namespace of the token Secrets: `orch-system` (`kube-system` for the reference's domain). */
  namespace: string;
  /** The type a token Secret must have: `bootstrap.orch.io/token` (`bootstrap.kubernetes.io/token`). */
  secretType: string;
  /** The clock the Secret's `expiration` is compared with (default the system's). */
  clock?: Clock;
  /** Receives one line per token that matched a Secret but was not accepted, and why (never the secret). */
  log?: (message: string) => void;
}

/** Whether `a` and `b` are equal, in time that depends only on their lengths. */
function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= (x[i] as number) ^ (y[i] as number);
  return diff === 0;
}

/**
 * A {@link TokenAuthenticator} for bootstrap tokens, as the reference's: a token that does not
 * match {@link bootstrapTokenPattern} is not its kind. Otherwise it reads Secret
 * `bootstrap-token-<id>` in `namespace` (its `data` values base64, as Secrets are stored) and
 * accepts the token as user `system:bootstrap:<id>` only when, in this order: the Secret exists;
 * it has no `deletionTimestamp`; its `type` is `secretType` and it has `data`; `token-secret`
 * equals the token's secret (compared in constant time); `token-id` equals the id; `expiration`,
 * when present, is an RFC 3339 time after now (a malformed one counts as expired);
 * `usage-bootstrap-authentication` is `true`; and every entry of the comma-separated
 * `auth-extra-groups` matches {@link bootstrapGroupPattern}. The groups are
 * `system:bootstrappers` and the extra groups, deduplicated and sorted, as the reference's.
 *
 * Every refusal answers `undefined` (no opinion) and is logged, as in the reference: the bearer
 * authenticator then answers 401 when no other authenticator accepts the token. A getter that
 * rejects (the store cannot answer) throws an {@link AuthenticationError}, as the reference
 * returns the lister's error. Nothing is cached: each call reads the Secret.
 */
export function bootstrapTokenAuthenticator(options: BootstrapTokenAuthenticatorOptions): TokenAuthenticator {
  const { getter, namespace, secretType } = options;
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => {});
  return {
    async authenticateToken(token: string): Promise<AuthenticationResult> {
      const parsed = parseBootstrapToken(token);
      if (!parsed) return undefined;
      const name = bootstrapTokenSecretName(parsed.id);
      let secret: APIObject | undefined;
      try {
        secret = await getter("", "secrets", namespace, name);
      } catch (error) {
        throw new AuthenticationError(
          `bootstrap token ${parsed.id}: reading secret ${namespace}/${name}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!secret) {
        log(`No secret of name ${namespace}/${name} to match bootstrap bearer token`);
        return undefined;
      }
      const refuse = (why: string): undefined => {
        log(`Bootstrap secret ${namespace}/${name} matching bearer token ${why}`);
        return undefined;
      };
      if (secret.metadata?.deletionTimestamp !== undefined) return refuse("is deleted and awaiting removal");
      const data = secret["data"];
      if (secret["type"] !== secretType || typeof data !== "object" || data === null) return refuse(`has invalid type, expected ${secretType}.`);
      const found = secret;
      const get = (key: string): string | undefined => bootstrapSecretValue(found, key);
      const tokenSecret = get(bootstrapTokenKeys.tokenSecret);
      if (tokenSecret === undefined || !constantTimeEqual(tokenSecret, parsed.secret)) return refuse("has invalid value for key token-secret.");
      if (get(bootstrapTokenKeys.tokenId) !== parsed.id) return refuse("has invalid value for key token-id.");
      const expiration = bootstrapTokenExpiration(found);
      if (expiration.kind === "malformed") {
        return refuse(
          expiration.value === undefined
            ? "has an expiration that is not base64: treating as expired."
            : `has an unparseable expiration time (${expiration.value}): treating as expired.`,
        );
      }
      if (expiration.kind === "at" && expiration.at <= clock.now()) return refuse(`has expired (${expiration.value}).`);
      if (get(bootstrapTokenKeys.usageAuthentication) !== "true") return refuse("not marked usage-bootstrap-authentication=true.");
      const extra = get(bootstrapTokenKeys.extraGroups);
      if (extra === undefined) return refuse("has invalid value for key auth-extra-groups: not base64.");
      const groups = new Set([bootstrapDefaultGroup]);
      if (extra !== "") {
        for (const group of extra.split(",")) {
          if (!bootstrapGroupPattern.test(group)) {
            return refuse(
              `has invalid value for key auth-extra-groups: bootstrap group ${JSON.stringify(group)} is invalid (must match ${bootstrapGroupPattern.source}).`,
            );
          }
          groups.add(group);
        }
      }
      return { user: { name: bootstrapUserPrefix + parsed.id, groups: [...groups].sort() } };
    },
  };
}
