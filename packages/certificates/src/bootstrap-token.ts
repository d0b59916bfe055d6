/**
 * Bootstrap tokens as objects (the reference's bootstrap token Secrets): generating a token, the Secret
 * that holds it, and the token a Secret lets sign `cluster-info`. The Secret's format and rules
 * are `@orch/resources`' (the Secret kind validates every token Secret with them); reading a
 * token for authentication belongs to `@orch/authn`.
 * @module
 */
import { parseBootstrapToken, type BootstrapToken } from "@orch/authn";
import { formatTime, type APIObject } from "@orch/meta";
import {
  bootstrapSecretValue,
  bootstrapTokenKeys,
  bootstrapTokenNamespace,
  bootstrapTokenSecretName,
  bootstrapTokenSecretType,
  bootstrapTokenUsages,
  isBootstrapTokenExpired,
} from "@orch/resources";
import { base64OfText } from "./internal/base64.js";

const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";

/** `length` characters of `[a-z0-9]` from the runtime's cryptographic random source, without modulo bias. */
function randomText(length: number): string {
  let text = "";
  while (text.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length))) {
      // 252 is the largest multiple of 36 below 256: larger bytes would favour the first letters.
      if (byte < 252 && text.length < length) text += alphabet[byte % alphabet.length];
    }
  }
  return text;
}

/** A new bootstrap token, `<6 chars>.<16 chars>` of `[a-z0-9]`, from a cryptographic random source. */
export function generateBootstrapToken(): string {
  return `${randomText(6)}.${randomText(16)}`;
}

/** Options of {@link bootstrapTokenSecret}. */
export interface BootstrapTokenSecretOptions {
  /** The product domain (default `orch.io`): it names the type and the namespace. */
  domain?: string;
  /** `description`. */
  description?: string;
  /** `expiration`, ms since the epoch (none by default: the token does not expire). */
  expires?: number;
  /** The usages to enable (default both, as kubeadm's default token). */
  usages?: readonly (typeof bootstrapTokenUsages)[number][];
  /** `auth-extra-groups`, each starting `system:bootstrappers:`. */
  extraGroups?: readonly string[];
}

/**
 * The Secret that holds `token`: `bootstrap-token-<id>` in the system namespace, of the
 * bootstrap token type, with `token-id`, `token-secret` and the options' keys in `data`.
 * @throws Error when `token` is not a bootstrap token.
 */
export function bootstrapTokenSecret(token: string, options: BootstrapTokenSecretOptions = {}): APIObject {
  const parsed = parseBootstrapToken(token);
  if (!parsed) throw new Error("the token must match [a-z0-9]{6}.[a-z0-9]{16}");
  const domain = options.domain ?? "orch.io";
  const values: Record<string, string> = {};
  if (options.description !== undefined) values[bootstrapTokenKeys.description] = options.description;
  values[bootstrapTokenKeys.tokenId] = parsed.id;
  values[bootstrapTokenKeys.tokenSecret] = parsed.secret;
  if (options.expires !== undefined) values[bootstrapTokenKeys.expiration] = formatTime(options.expires);
  for (const usage of options.usages ?? bootstrapTokenUsages) values[bootstrapTokenKeys.usagePrefix + usage] = "true";
  if (options.extraGroups?.length) values[bootstrapTokenKeys.extraGroups] = options.extraGroups.join(",");
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) data[key] = base64OfText(value);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: bootstrapTokenSecretName(parsed.id), namespace: bootstrapTokenNamespace(domain) },
    type: bootstrapTokenSecretType(domain),
    data,
  };
}

/**
 * The token a Secret lets sign the `cluster-info` ConfigMap at `now`, as the reference's
 * bootstrap signer's `validateSecretForSigning`: named `bootstrap-token-<token-id>`, with a
 * `token-secret`, not expired, and `usage-bootstrap-signing` `true`; `undefined` otherwise.
 */
export function signingToken(secret: APIObject, now: number): BootstrapToken | undefined {
  const id = bootstrapSecretValue(secret, bootstrapTokenKeys.tokenId);
  const tokenSecret = bootstrapSecretValue(secret, bootstrapTokenKeys.tokenSecret);
  if (!id || !tokenSecret || secret.metadata?.name !== bootstrapTokenSecretName(id)) return undefined;
  if (isBootstrapTokenExpired(secret, now)) return undefined;
  if (bootstrapSecretValue(secret, bootstrapTokenKeys.usageSigning) !== "true") return undefined;
  return { id, secret: tokenSecret };
}
