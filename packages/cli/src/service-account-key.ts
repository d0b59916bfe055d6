/**
 * The key that signs service-account tokens: a PEM private key (`--service-account-key-file`,
 * else the serving certificate's key) turned into a Web Crypto key for `@orch/server`.
 * @module
 */
import { createPrivateKey } from "node:crypto";

const curves: Readonly<Record<string, string>> = { prime256v1: "P-256", secp384r1: "P-384", secp521r1: "P-521" };

/**
 * Imports the first private key of `pem` (PKCS#8 `PRIVATE KEY`, PKCS#1 `RSA PRIVATE KEY` or
 * SEC 1 `EC PRIVATE KEY`) as an extractable Web Crypto signing key: RSA as `RSASSA-PKCS1-v1_5`
 * with SHA-256 (RS256), ECDSA on P-256, P-384 or P-521 (ES256, ES384, ES512), the keys the
 * reference signs service-account tokens with.
 * @throws Error naming `source` when `pem` holds no private key (a public key or a certificate
 *   alone, an encrypted key) or a key of another type or curve.
 * @example
 * ```ts
 * const key = await importServiceAccountKey(await readFile("sa.key", "utf8"), "sa.key");
 * new APIServer({ serviceAccountTokens: { signingKey: key } });
 * ```
 */
export async function importServiceAccountKey(pem: string, source: string): Promise<CryptoKey> {
  let key;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new Error(`service account key ${source}: no PEM private key: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const der = key.export({ format: "der", type: "pkcs8" });
  if (key.asymmetricKeyType === "rsa") {
    return crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["sign"]);
  }
  if (key.asymmetricKeyType === "ec") {
    const namedCurve = curves[key.asymmetricKeyDetails?.namedCurve ?? ""];
    if (!namedCurve) throw new Error(`service account key ${source}: unknown private key curve, must be 256, 384, or 521`);
    return crypto.subtle.importKey("pkcs8", der, { name: "ECDSA", namedCurve }, true, ["sign"]);
  }
  throw new Error(`service account key ${source}: unsupported key type ${String(key.asymmetricKeyType)}: want RSA or ECDSA`);
}
