import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { importServiceAccountKey } from "./service-account-key.js";

const privatePem = { format: "pem", type: "pkcs8" } as const;
const publicPem = { format: "pem", type: "spki" } as const;
const ec = (namedCurve: string, type: "pkcs8" | "sec1" = "pkcs8") =>
  generateKeyPairSync("ec", { namedCurve, privateKeyEncoding: { format: "pem", type }, publicKeyEncoding: publicPem });
const rsa = () => generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { format: "pem", type: "pkcs1" }, publicKeyEncoding: publicPem });
const ed25519 = () => generateKeyPairSync("ed25519", { privateKeyEncoding: privatePem, publicKeyEncoding: publicPem });

describe("importServiceAccountKey", () => {
  it.each([
    ["an RSA key in PKCS#1", rsa, { name: "RSASSA-PKCS1-v1_5", hash: { name: "SHA-256" } }],
    ["an ECDSA P-256 key in SEC 1", () => ec("prime256v1", "sec1"), { name: "ECDSA", namedCurve: "P-256" }],
    ["an ECDSA P-384 key in PKCS#8", () => ec("secp384r1"), { name: "ECDSA", namedCurve: "P-384" }],
    ["an ECDSA P-521 key in PKCS#8", () => ec("secp521r1"), { name: "ECDSA", namedCurve: "P-521" }],
  ])("imports %s as an extractable signing key", async (_what, make, algorithm) => {
    const key = await importServiceAccountKey(make().privateKey, "sa.key");
    expect(key).toMatchObject({ type: "private", extractable: true, usages: ["sign"], algorithm });
  });

  it.each([
    ["a public key alone", () => ec("prime256v1").publicKey, /service account key sa.key: no PEM private key/],
    ["no PEM at all", () => "not a key", /service account key sa.key: no PEM private key/],
    ["an Ed25519 key", () => ed25519().privateKey, /service account key sa.key: unsupported key type ed25519: want RSA or ECDSA/],
    ["a secp256k1 key", () => ec("secp256k1").privateKey, /service account key sa.key: unknown private key curve, must be 256, 384, or 521/],
  ])("refuses %s, naming the source", async (_what, make, message) => {
    await expect(importServiceAccountKey(make(), "sa.key")).rejects.toThrow(message);
  });
});
