/**
 * The format of a bootstrap token Secret (the reference's
 * `k8s.io/cluster-bootstrap` `token/api` and `token/util`): its type, namespace and name, its
 * data keys, the token, id, secret and group patterns, the readers of its base64 values and of
 * its expiration, and its rules, which the Secret kind applies to every Secret of the type.
 * `@orch/authn` authenticates with such Secrets and `@orch/certificates` makes them; both read
 * them through this module.
 * @module
 */
import { FieldPath, invalidField, notSupportedField, parseTime, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { checkBase64, decodeBase64 } from "./internal/base64.js";
import { builtinNamespaces } from "./namespace.js";
import { secretTypes } from "./secret-types.js";
import { serviceAccountClaimKey } from "./token-request.js";

/** The format of a token id, the public part of a bootstrap token: 6 characters of `[a-z0-9]`. */
export const bootstrapTokenIdPattern = /^[a-z0-9]{6}$/;

/** The format of a token secret, the private part of a bootstrap token: 16 characters of `[a-z0-9]`. */
export const bootstrapTokenSecretPattern = /^[a-z0-9]{16}$/;

/** The format of a bootstrap token: a 6-character id, a dot, a 16-character secret, `[a-z0-9]`. */
export const bootstrapTokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

/** The format of an extra group of a bootstrap token (the reference's `BootstrapGroupPattern`). */
export const bootstrapGroupPattern = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** The name of the Secret of token `<id>` is this prefix followed by the id. */
export const bootstrapTokenSecretPrefix = "bootstrap-token-";

/** The data keys of a bootstrap token Secret (the reference's `bootstrapapi` constants). */
export const bootstrapTokenKeys = {
  /** Free text about the token. */
  description: "description",
  /** The token's id, which must match the Secret's name. */
  tokenId: "token-id",
  /** The token's secret. */
  tokenSecret: "token-secret",
  /** When the token expires, RFC 3339 (optional). */
  expiration: "expiration",
  /** The prefix of the usage keys, each `true` when the usage is enabled. */
  usagePrefix: "usage-bootstrap-",
  /** `true` when the token authenticates. */
  usageAuthentication: "usage-bootstrap-authentication",
  /** `true` when the token signs the `cluster-info` ConfigMap. */
  usageSigning: "usage-bootstrap-signing",
  /** Comma-separated groups beyond `system:bootstrappers`, each matching {@link bootstrapGroupPattern}. */
  extraGroups: "auth-extra-groups",
} as const;

/** The usages a token Secret may enable, each under `usage-bootstrap-<usage>` (the reference's `KnownTokenUsages`). */
export const bootstrapTokenUsages = ["authentication", "signing"] as const;

/** The Secret type of bootstrap tokens: `bootstrap.orch.io/token` (`bootstrap.kubernetes.io/token` under `k8s.io`). */
export function bootstrapTokenSecretType(domain: string): string {
  return secretTypes(serviceAccountClaimKey(domain)).bootstrapToken;
}

/** The namespace of bootstrap token Secrets: `<short>-system` (`orch-system`; `kube-system` under `k8s.io`). */
export function bootstrapTokenNamespace(domain: string): string {
  return builtinNamespaces(domain)[1] as string;
}

/** The name of the Secret of token id `id`: `bootstrap-token-<id>`. */
export function bootstrapTokenSecretName(id: string): string {
  return bootstrapTokenSecretPrefix + id;
}

/**
 * The value of `key` in a token Secret's `data` (base64, as Secrets are stored) as UTF-8 text:
 * `""` when the key is absent (the reference's `GetData`), `undefined` when the value is not
 * padded standard base64 (as the server's decoder reads `data`).
 */
export function bootstrapSecretValue(secret: APIObject, key: string): string | undefined {
  const data = secret["data"];
  const value = typeof data === "object" && data !== null ? (data as Record<string, unknown>)[key] : undefined;
  if (value === undefined) return "";
  if (typeof value !== "string" || !checkBase64(value).ok) return undefined;
  return new TextDecoder().decode(decodeBase64(value));
}

/**
 * What a token Secret's `expiration` says: `never` when absent or empty, `at` an RFC 3339 time
 * (`2026-01-01T00:00:00Z`; fractional seconds and `+hh:mm` offsets allowed) in ms since the
 * epoch, `malformed` when it is not base64 (`value` undefined) or not such a time (a date that
 * does not exist, `2026-02-30`, included).
 */
export type BootstrapTokenExpiration = { kind: "never" } | { kind: "at"; at: number; value: string } | { kind: "malformed"; value: string | undefined };

/** The `expiration` of a token Secret; see {@link BootstrapTokenExpiration}. */
export function bootstrapTokenExpiration(secret: APIObject): BootstrapTokenExpiration {
  const value = bootstrapSecretValue(secret, bootstrapTokenKeys.expiration);
  if (value === "") return { kind: "never" };
  if (value === undefined) return { kind: "malformed", value };
  try {
    return { kind: "at", at: parseTime(value), value };
  } catch {
    return { kind: "malformed", value };
  }
}

/**
 * Whether a token Secret has expired at `now` (ms since the epoch), as the reference's
 * `HasExpired`: its `expiration` is at or before `now`, or malformed (treated as expired); a
 * Secret without `expiration` never expires.
 */
export function isBootstrapTokenExpired(secret: APIObject, now: number): boolean {
  const expiration = bootstrapTokenExpiration(secret);
  return expiration.kind === "malformed" || (expiration.kind === "at" && expiration.at <= now);
}

/**
 * The rules of a bootstrap token Secret's `data` (base64, `stringData` already merged), as field
 * errors: `data[token-id]` required, `[a-z0-9]{6}`; `data[token-secret]` required,
 * `[a-z0-9]{16}` (never echoed in an error); `data[expiration]` an RFC 3339 time (one in the past
 * is valid: the token has expired); `data[usage-bootstrap-<usage>]` only `authentication` or
 * `signing`, each `true`; `data[auth-extra-groups]` comma-separated groups each matching
 * {@link bootstrapGroupPattern}. A value that is not base64 is invalid.
 *
 * The Secret kind runs these on create and update of every Secret of the bootstrap token type.
 * It does not hold such a Secret to the system namespace or to the name
 * `bootstrap-token-<token-id>`: elsewhere, or under another name, it is not a token (neither
 * authentication nor the bootstrap signer nor the token cleaner looks at it), as in the reference.
 * @example
 * validateBootstrapTokenData(secret).map(formatFieldError)
 * // ['data[token-id]: Invalid value: "abc": must match [a-z0-9]{6}']
 */
export function validateBootstrapTokenData(secret: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const data = FieldPath.root("data");
  // The text of `key`, or undefined (reported here) when it is not base64: no further rule applies to it.
  const value = (key: string): string | undefined => {
    const text = bootstrapSecretValue(secret, key);
    if (text === undefined) errors.push(invalidField(data.key(key), "<secret data>", "must be base64"));
    return text;
  };
  const id = value(bootstrapTokenKeys.tokenId);
  if (id === "") errors.push(requiredField(data.key(bootstrapTokenKeys.tokenId)));
  else if (id !== undefined && !bootstrapTokenIdPattern.test(id)) errors.push(invalidField(data.key(bootstrapTokenKeys.tokenId), id, "must match [a-z0-9]{6}"));
  const tokenSecret = value(bootstrapTokenKeys.tokenSecret);
  if (tokenSecret === "") errors.push(requiredField(data.key(bootstrapTokenKeys.tokenSecret)));
  else if (tokenSecret !== undefined && !bootstrapTokenSecretPattern.test(tokenSecret)) {
    errors.push(invalidField(data.key(bootstrapTokenKeys.tokenSecret), "<secret data>", "must match [a-z0-9]{16}"));
  }
  const expiration = bootstrapTokenExpiration(secret);
  if (expiration.kind === "malformed") {
    const why = expiration.value === undefined ? "must be base64" : "must be an RFC 3339 time such as 2006-01-02T15:04:05Z";
    errors.push(invalidField(data.key(bootstrapTokenKeys.expiration), expiration.value ?? "<secret data>", why));
  }
  const keys = Object.keys(typeof secret["data"] === "object" && secret["data"] !== null ? secret["data"] : {});
  for (const key of keys.filter((k) => k.startsWith(bootstrapTokenKeys.usagePrefix)).sort()) {
    const usage = key.slice(bootstrapTokenKeys.usagePrefix.length);
    if (!(bootstrapTokenUsages as readonly string[]).includes(usage)) errors.push(notSupportedField(data.key(key), usage, bootstrapTokenUsages));
    else {
      const enabled = value(key);
      if (enabled !== undefined && enabled !== "true") errors.push(invalidField(data.key(key), enabled, 'must be "true" when present'));
    }
  }
  const extra = value(bootstrapTokenKeys.extraGroups);
  if (extra) {
    for (const group of extra.split(",")) {
      if (!bootstrapGroupPattern.test(group))
        errors.push(invalidField(data.key(bootstrapTokenKeys.extraGroups), group, `must match ${bootstrapGroupPattern.source}`));
    }
  }
  return errors;
}

/**
 * Whether a Secret is a bootstrap token of a server of `domain`, as field errors: `type` the
 * bootstrap token type ({@link bootstrapTokenSecretType}); `metadata.namespace` the system
 * namespace ({@link bootstrapTokenNamespace}); its `data` valid
 * ({@link validateBootstrapTokenData}); and, when `data[token-id]` is, the Secret named
 * `bootstrap-token-<token-id>`. Stricter than what the Secret kind enforces (the data only): it
 * says whether a Secret will work as a token.
 * @example
 * validateBootstrapTokenSecret({ ...secret, metadata: { name: "x", namespace: "kube-system" } }, "k8s.io").map(formatFieldError)
 * // ['metadata.name: Invalid value: "x": must be bootstrap-token-abcdef for token-id abcdef']
 */
export function validateBootstrapTokenSecret(secret: APIObject, domain = "orch.io"): FieldError[] {
  const errors: FieldError[] = [];
  const type = bootstrapTokenSecretType(domain);
  if (secret["type"] !== type) errors.push(notSupportedField(FieldPath.root("type"), secret["type"] ?? "", [type]));
  const namespace = bootstrapTokenNamespace(domain);
  if (secret.metadata?.namespace !== namespace)
    errors.push(notSupportedField(FieldPath.root("metadata").child("namespace"), secret.metadata?.namespace ?? "", [namespace]));
  errors.push(...validateBootstrapTokenData(secret));
  const id = bootstrapSecretValue(secret, bootstrapTokenKeys.tokenId);
  const idValid = id !== undefined && bootstrapTokenIdPattern.test(id);
  if (idValid && secret.metadata?.name !== bootstrapTokenSecretName(id)) {
    errors.push(
      invalidField(FieldPath.root("metadata").child("name"), secret.metadata?.name ?? "", `must be ${bootstrapTokenSecretName(id)} for token-id ${id}`),
    );
  }
  return errors;
}
