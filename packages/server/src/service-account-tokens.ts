/**
 * The signer of service-account tokens: the server's implementation of the catalog's
 * `ServiceAccountTokenIssuer` port, over Web Crypto keys and `jose`. It signs as the reference's
 * `serviceaccount.JWTTokenGenerator` does: RS256 for RSA keys, ES256/ES384/ES512 for ECDSA P-256,
 * P-384 and P-521 keys, header `kid` the base64url SHA-256 of the public key's DER (PKIX), and
 * `iss` the configured issuer.
 * @module
 */
import { base64url, SignJWT } from "jose";
import { defaultServiceAccountIssuer, type ServiceAccountTokenClaims, type ServiceAccountTokenIssuer } from "@orch/resources";

/** Options of service-account token issuance (`APIServerOptions.serviceAccountTokens`). */
export interface ServiceAccountTokenOptions {
  /**
   * The `iss` claim (the reference's `--service-account-issuer`). Default
   * `https://orch.default.svc.cluster.local` (`https://kubernetes.default.svc.cluster.local` for
   * domain `k8s.io`).
   */
  issuer?: string;
  /**
   * The audiences of a TokenRequest that names none (the reference's `--api-audiences`).
   * Default: the issuer alone.
   */
  audiences?: readonly string[];
  /**
   * The private key that signs: RSA (`RSASSA-PKCS1-v1_5` with SHA-256) or ECDSA P-256, P-384 or
   * P-521, usable to `sign`; or a function resolving to one, called once, on the first token
   * request. The key must be extractable unless {@link keyId} is given (the key id and the
   * verification key derive from its public half). Default: an ECDSA P-256 key generated on the
   * first token request, which lives as long as the server (its tokens do not outlive it).
   */
  signingKey?: CryptoKey | (() => Promise<CryptoKey>);
  /** The `kid` header; by default the reference's: base64url of the SHA-256 of the public key's DER. */
  keyId?: string;
  /**
   * Extend pod-bound tokens asked for 3607 seconds with only the server's audiences to one year
   * with a `warnafter` claim (the reference's `--service-account-extend-token-expiration`). Default true.
   */
  extendExpiration?: boolean;
  /**
   * Further public keys that verify service-account tokens (the reference's
   * `--service-account-key-file`, several allowed): tokens signed by another server or an
   * earlier key. The signing key's public half always verifies.
   */
  verificationKeys?: readonly CryptoKey[];
  /**
   * Refuse tokens whose ServiceAccount no longer exists or has another uid (the reference's
   * `--service-account-lookup`). Default true.
   */
  lookup?: boolean;
}

/** A key ready to sign: the private key, its public half (when derivable), `alg` and `kid`. */
interface SigningState {
  privateKey: CryptoKey;
  publicKey: CryptoKey | undefined;
  alg: string;
  kid: string;
}

const curves: Readonly<Record<string, string>> = { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" };

/**
 * The JWS algorithm of a signing key, as the reference picks it: RS256 for RSA, ES256/ES384/ES512
 * by the curve of an ECDSA key.
 * @throws TypeError for any other key (the reference supports no other).
 */
export function signingAlgorithm(key: CryptoKey): string {
  const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name?: string } };
  if (algorithm.name === "RSASSA-PKCS1-v1_5" && algorithm.hash?.name === "SHA-256") return "RS256";
  if (algorithm.name === "ECDSA") {
    const alg = curves[algorithm.namedCurve ?? ""];
    if (alg) return alg;
    throw new TypeError("unknown private key curve, must be 256, 384, or 521");
  }
  throw new TypeError(`unsupported service account signing key ${algorithm.name}: want RSA (RSASSA-PKCS1-v1_5, SHA-256) or ECDSA`);
}

/** The public half of an extractable private key. */
async function publicKeyOf(privateKey: CryptoKey): Promise<CryptoKey> {
  const jwk = await crypto.subtle.exportKey("jwk", privateKey);
  const members = jwk.kty === "RSA" ? ["kty", "n", "e"] : ["kty", "crv", "x", "y"];
  const pub = Object.fromEntries(members.map((m) => [m, jwk[m as keyof JsonWebKey]])) as JsonWebKey;
  return crypto.subtle.importKey("jwk", pub, privateKey.algorithm as EcKeyImportParams | RsaHashedImportParams, true, ["verify"]);
}

/** The reference's key id: base64url (unpadded) of the SHA-256 of the public key's DER (PKIX). */
export async function serviceAccountKeyId(publicKey: CryptoKey): Promise<string> {
  const der = await crypto.subtle.exportKey("spki", publicKey);
  return base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", der)));
}

/**
 * Signs service-account tokens for one server. Nothing is generated or imported until the first
 * token is issued, so a server starts as fast with it as without.
 */
export class ServiceAccountTokenSigner implements ServiceAccountTokenIssuer {
  /** The `iss` claim of every token. */
  readonly issuer: string;
  /** The audiences of a request that names none. */
  readonly audiences: readonly string[];
  /** Whether pod-bound kubelet-style requests get extended tokens. */
  readonly extendExpiration: boolean;
  readonly #options: ServiceAccountTokenOptions;
  #state: Promise<SigningState> | undefined;

  /** A signer for a server of `domain` (it names the default issuer). */
  constructor(domain: string, options: ServiceAccountTokenOptions = {}) {
    this.#options = options;
    this.issuer = options.issuer ?? defaultServiceAccountIssuer(domain);
    this.audiences = options.audiences && options.audiences.length > 0 ? [...options.audiences] : [this.issuer];
    this.extendExpiration = options.extendExpiration ?? true;
  }

  #signingState(): Promise<SigningState> {
    this.#state ??= this.#load().catch((error: unknown) => {
      // A key that failed to load may load on the next request (a file fixed, for instance).
      this.#state = undefined;
      throw error;
    });
    return this.#state;
  }

  async #load(): Promise<SigningState> {
    const given = this.#options.signingKey;
    let privateKey: CryptoKey;
    let publicKey: CryptoKey | undefined;
    if (given === undefined) {
      const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
      privateKey = pair.privateKey;
      publicKey = pair.publicKey;
    } else {
      privateKey = typeof given === "function" ? await given() : given;
      if (privateKey.type !== "private" || !privateKey.usages.includes("sign"))
        throw new TypeError("the service account signing key must be a private key usable to sign");
      if (privateKey.extractable) publicKey = await publicKeyOf(privateKey);
    }
    const alg = signingAlgorithm(privateKey);
    const kid = this.#options.keyId ?? (publicKey ? await serviceAccountKeyId(publicKey) : undefined);
    if (kid === undefined) throw new TypeError("the service account signing key is not extractable: give keyId");
    return { privateKey, publicKey, alg, kid };
  }

  /**
   * Signs `claims` with `iss` added (keys sorted, as the reference's encoder prints them) and
   * resolves with the compact JWS; the header is `alg` and `kid` only.
   * @throws TypeError when the configured key cannot sign tokens.
   */
  async issue(claims: ServiceAccountTokenClaims): Promise<string> {
    const state = await this.#signingState();
    const payload = Object.fromEntries(Object.entries({ ...claims, iss: this.issuer }).sort(([a], [b]) => (a < b ? -1 : 1)));
    return new SignJWT(payload).setProtectedHeader({ alg: state.alg, kid: state.kid }).sign(state.privateKey);
  }

  /**
   * The key tokens verify with, and its `kid` and `alg` (for a token authenticator, a JWKS
   * document, or a test). Loads or generates the signing key if no token was issued yet.
   * @throws TypeError when the signing key is not extractable, so its public half is unknown.
   */
  async verificationKey(): Promise<{ key: CryptoKey; kid: string; alg: string }> {
    const state = await this.#signingState();
    if (!state.publicKey) throw new TypeError("the service account signing key is not extractable: its public key is unknown");
    return { key: state.publicKey, kid: state.kid, alg: state.alg };
  }
}
