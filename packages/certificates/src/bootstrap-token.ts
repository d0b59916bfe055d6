/**
 * Bootstrap tokens as objects (spec 2 "Bootstrap token secret"): generating a token, the Secret
 * that holds it, and the rules of such a Secret. Reading a token and its Secret for
 * authentication belongs to `@orch/authn`, whose format and readers this module uses.
 * @module
 */
import {
  bootstrapGroupPattern,
  bootstrapSecretValue,
  bootstrapTokenExpiration,
  bootstrapTokenKeys,
  bootstrapTokenSecretPrefix,
  isBootstrapTokenExpired,
  parseBootstrapToken,
  type BootstrapToken,
} from "@orch/authn";
import { FieldPath, formatTime, invalidField, notSupportedField, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { builtinNamespaces, secretTypes, serviceAccountClaimKey } from "@orch/resources";

const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
const idPattern = /^[a-z0-9]{6}$/;
const secretPattern = /^[a-z0-9]{16}$/;
const usages = ["authentication", "signing"] as const;

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

/** Options of {@link bootstrapTokenSecret}. */
export interface BootstrapTokenSecretOptions {
  /** The product domain (default `orch.io`): it names the type and the namespace. */
  domain?: string;
  /** `description`. */
  description?: string;
  /** `expiration`, ms since the epoch (none by default: the token does not expire). */
  expires?: number;
  /** The usages to enable (default both, as kubeadm's default token). */
  usages?: readonly ("authentication" | "signing")[];
  /** `auth-extra-groups`, each starting `system:bootstrappers:`. */
  extraGroups?: readonly string[];
}

/** Base64 of the UTF-8 bytes of `text`, as a Secret's `data` holds it. */
function base64(text: string): string {
  return btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(""));
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
  for (const usage of options.usages ?? usages) values[bootstrapTokenKeys.usagePrefix + usage] = "true";
  if (options.extraGroups?.length) values[bootstrapTokenKeys.extraGroups] = options.extraGroups.join(",");
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) data[key] = base64(value);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: bootstrapTokenSecretName(parsed.id), namespace: bootstrapTokenNamespace(domain) },
    type: bootstrapTokenSecretType(domain),
    data,
  };
}

/**
 * The rules of a bootstrap token Secret (its `data` base64, `stringData` already merged), as
 * field errors: `type` the bootstrap token type; `metadata.namespace` the system namespace;
 * `data[token-id]` required, `[a-z0-9]{6}`, and the Secret named `bootstrap-token-<token-id>`;
 * `data[token-secret]` required, `[a-z0-9]{16}`; `data[expiration]` an RFC 3339 time;
 * `data[usage-bootstrap-<usage>]` only `authentication` or `signing`, each `true`;
 * `data[auth-extra-groups]` comma-separated groups each matching `system:bootstrappers:[a-z0-9:-]*[a-z0-9]`.
 * A value that is not base64 is invalid.
 */
export function validateBootstrapTokenSecret(secret: APIObject, domain = "orch.io"): FieldError[] {
  const errors: FieldError[] = [];
  const type = bootstrapTokenSecretType(domain);
  if (secret["type"] !== type) errors.push(notSupportedField(FieldPath.root("type"), secret["type"] ?? "", [type]));
  const namespace = bootstrapTokenNamespace(domain);
  if (secret.metadata?.namespace !== namespace) errors.push(notSupportedField(FieldPath.root("metadata").child("namespace"), secret.metadata?.namespace ?? "", [namespace]));
  const data = FieldPath.root("data");
  const value = (key: string): string => {
    const text = bootstrapSecretValue(secret, key);
    if (text === undefined) errors.push(invalidField(data.key(key), "<secret data>", "must be base64"));
    return text ?? "";
  };
  const id = value(bootstrapTokenKeys.tokenId);
  if (id === "") errors.push(requiredField(data.key(bootstrapTokenKeys.tokenId)));
  else if (!idPattern.test(id)) errors.push(invalidField(data.key(bootstrapTokenKeys.tokenId), id, "must match [a-z0-9]{6}"));
  else if (secret.metadata?.name !== bootstrapTokenSecretName(id)) {
    errors.push(invalidField(FieldPath.root("metadata").child("name"), secret.metadata?.name ?? "", `must be ${bootstrapTokenSecretName(id)} for token-id ${id}`));
  }
  const tokenSecret = value(bootstrapTokenKeys.tokenSecret);
  // The token's secret is never echoed back in an error.
  if (tokenSecret === "") errors.push(requiredField(data.key(bootstrapTokenKeys.tokenSecret)));
  else if (!secretPattern.test(tokenSecret)) errors.push(invalidField(data.key(bootstrapTokenKeys.tokenSecret), "<secret data>", "must match [a-z0-9]{16}"));
  const expiration = bootstrapTokenExpiration(secret);
  if (expiration.kind === "malformed") {
    const why = expiration.value === undefined ? "must be base64" : "must be an RFC 3339 time such as 2006-01-02T15:04:05Z";
    errors.push(invalidField(data.key(bootstrapTokenKeys.expiration), expiration.value ?? "<secret data>", why));
  }
  const keys = Object.keys(typeof secret["data"] === "object" && secret["data"] !== null ? secret["data"] : {});
  for (const key of keys.filter((k) => k.startsWith(bootstrapTokenKeys.usagePrefix)).sort()) {
    const usage = key.slice(bootstrapTokenKeys.usagePrefix.length);
    if (!(usages as readonly string[]).includes(usage)) errors.push(notSupportedField(data.key(key), usage, usages));
    else {
      const enabled = value(key);
      if (enabled !== "true") errors.push(invalidField(data.key(key), enabled, 'must be "true" when present'));
    }
  }
  const extra = value(bootstrapTokenKeys.extraGroups);
  if (extra !== "") {
    for (const group of extra.split(",")) {
      if (!bootstrapGroupPattern.test(group)) errors.push(invalidField(data.key(bootstrapTokenKeys.extraGroups), group, `must match ${bootstrapGroupPattern.source}`));
    }
  }
  return errors;
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
