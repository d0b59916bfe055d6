import "reflect-metadata";
import { X509CertificateGenerator } from "@peculiar/x509";
import { describe, expect, it } from "vitest";
import { publicKeysFromPEM } from "./service-account-keys.js";

/** A PEM block of `type` holding `der`. */
function pem(der: ArrayBuffer | Uint8Array, type: string): string {
  const bytes = der instanceof Uint8Array ? der : new Uint8Array(der);
  const base64 = btoa(String.fromCharCode(...bytes));
  return `-----BEGIN ${type}-----\n${base64.replace(/.{1,64}/g, "$&\n")}-----END ${type}-----\n`;
}

/** The DER of a PEM made by `pem` or openssl. */
function der(text: string): Uint8Array {
  const body = text.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
  return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
}

async function spkiOf(key: CryptoKey): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.exportKey("spki", key));
}

const ecdsa = (namedCurve: string) => crypto.subtle.generateKey({ name: "ECDSA", namedCurve }, true, ["sign", "verify"]);
const rsa = () =>
  crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", modulusLength: 2048, publicExponent: Uint8Array.of(1, 0, 1) }, true, [
    "sign",
    "verify",
  ]);

const data = new TextEncoder().encode("signed data");
const ecdsaSign = (curveHash: string) => ({ name: "ECDSA", hash: curveHash });

// Fixed keys generated with openssl 3 (`genrsa -traditional`, `rsa -RSAPublicKey_out`,
// `ecparam -genkey -noout`, `ec -no_public`, `genpkey -algorithm ed25519`): Web Crypto cannot
// write PKCS#1 or SEC 1, and openssl is not available to a pure package's tests.
const rsaPKCS1Private = `-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEA96ViGGUkKRTR/Ko2B+Z2Tn7sEiYU1oX+6IK5ZVlWVTPWmY3e
zqxaNHjuyJwgIuBIzZUJ/iwma/hEFw345x6MGbfuxVqEYIt6gTLAim+DNmBexs2m
LyvzoQ1A1poPEvjwqg9eGQFbIBjRwPk9Ehh+pqgC3zqnUDYiOUh0mdUX22F/ZCka
lG6LsfmT5MTWigmDS78i79pmvLKSz64Hd95vkBoZbmjX7NMI/J/rmI1dDwE+ygNv
GsnAZLKnBf7OjQW1UUe+FbSTD0LTXre5PrM2HGmeLvTkZFvNeXBPFEwOiMXSEzss
8IBMrR6bzLJzjaJpSykSIKwaygm0nhKwl20SWwIDAQABAoIBAHMdbXvph+WQyAur
E3KYrmXOme3Vxdnyb4ulOIjj/j2c2ySFzgxEEapSjKyz5jxQBYeKwBpma3XE8eHF
nO3SRU2vMk6KxP4b19Y2wUmYjGW6ZlQDRDypMZarkngvJNKs5TIn8pWtC67f2qDZ
Ooou2LCfaLZbjWq7vyzhgVIAvBY9UeEPTGzWUO8jMtMKhQ3GNyiePaqMiPvpj/AM
zfaAsjH9o/krUCmepsyYZzMXk7C1om6fNnYBsYI2CQ+hXBOWZtt1EtfSLF2919gr
rg2cWKsUWwlaXQ8eroiHDpKBFwlDllLeWnqwI7tjC45Sx2LBKUSnkDsoUR5ag9QF
qJ6v4AECgYEA/osBUiN7CVLEd/NdQzxYL6Ti93AsB5yBiibb7SDgtqs7Xmn6t8wx
1UYy+HUxP5PalVDawVeq7WPzdUlDxblcVMLG/vrLQLl6xM5gSqrENkDb4GJUk66U
hq60KFUc1ePLYwMRtzBJM1QEJGUh47NnSZcTohOgedMizYD70VQrv2sCgYEA+RBF
hLV/5dJmTYEGB0R0gx+wSQE1d8tUbhdefUUeuYsw1OjfhqybJedfm2CuWAiEnmmM
ZpefkVtOKIv4hBRQJYQMuigLtOPyob19BtX/WZxAPqATn2uYgZ9CaTiZXA2g5B49
hA+4/qEdGN8+GAH1G1ogjmomapbN4ETO1UbQZNECgYEAsQPqPzz9a1Zr2x8bVI66
pSd9z6XqeMCWNYUgnJ+opmAeQWJiQT93yGGxQKf/P7+K2xwHhT16WOyRepcg0ng9
hZSO3vN6NeDHR+ZdgI+RNEmWn0zClJFsKN2F3CaUjwqDfq+7ujGSNmfPGaBbGQbC
ZaLyvFv51b7HDTMN7F0kr1ECgYBBqZaKXEdx0byC5mcud0+4Whxhwt3TzVlfBO42
XIizJg0jtJlpqgvlPFCqaBzOvMAp+222hnbdHZNHgU9tkuVmXp/0XCZp9Ea9eXWC
3dxKRbVyTUWfHADC+7fIgdF8wWMPgSF6taJyDwvayNBYB/wUz/gRU874/vUcEUfu
VpMOYQKBgQD1QocXPKP8SdTZN5g3fec/tKyfNfKNPJwrYTQiOV7VjVbAgyzubD9X
PwvcVUcch9UBBzopPsrw/1UCEItmyZZUInt/oodKSkkMyvQFhpctj8S0K41I06hp
wD7qANIQPurbEPpdseYL1kF1NrzuwOu0I/TgZRHnJl8yHY8JYedsVw==
-----END RSA PRIVATE KEY-----
`;
const rsaPKCS1Public = `-----BEGIN RSA PUBLIC KEY-----
MIIBCgKCAQEA96ViGGUkKRTR/Ko2B+Z2Tn7sEiYU1oX+6IK5ZVlWVTPWmY3ezqxa
NHjuyJwgIuBIzZUJ/iwma/hEFw345x6MGbfuxVqEYIt6gTLAim+DNmBexs2mLyvz
oQ1A1poPEvjwqg9eGQFbIBjRwPk9Ehh+pqgC3zqnUDYiOUh0mdUX22F/ZCkalG6L
sfmT5MTWigmDS78i79pmvLKSz64Hd95vkBoZbmjX7NMI/J/rmI1dDwE+ygNvGsnA
ZLKnBf7OjQW1UUe+FbSTD0LTXre5PrM2HGmeLvTkZFvNeXBPFEwOiMXSEzss8IBM
rR6bzLJzjaJpSykSIKwaygm0nhKwl20SWwIDAQAB
-----END RSA PUBLIC KEY-----
`;
const rsaSPKI = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA96ViGGUkKRTR/Ko2B+Z2
Tn7sEiYU1oX+6IK5ZVlWVTPWmY3ezqxaNHjuyJwgIuBIzZUJ/iwma/hEFw345x6M
GbfuxVqEYIt6gTLAim+DNmBexs2mLyvzoQ1A1poPEvjwqg9eGQFbIBjRwPk9Ehh+
pqgC3zqnUDYiOUh0mdUX22F/ZCkalG6LsfmT5MTWigmDS78i79pmvLKSz64Hd95v
kBoZbmjX7NMI/J/rmI1dDwE+ygNvGsnAZLKnBf7OjQW1UUe+FbSTD0LTXre5PrM2
HGmeLvTkZFvNeXBPFEwOiMXSEzss8IBMrR6bzLJzjaJpSykSIKwaygm0nhKwl20S
WwIDAQAB
-----END PUBLIC KEY-----
`;
const ecP384SEC1 = `-----BEGIN EC PRIVATE KEY-----
MIGkAgEBBDAnbdz/vWK7WtlBmZzlB5zl3FW4T0hxfuKoeXrIWk9Bkn2ieCns+I2E
r21nwHBVf9ugBwYFK4EEACKhZANiAASUHkjcZBNYbBxMI4zadDxqJc2YYqNovtLM
clUeJtYJEpGzpeE1IBHKvqI0x9rFY7t0dOAPSjuaM14BTCtGctDl0OmMezGQiKUi
enLSiHxe/L//6Lx2dU7EvRcHgRe8VJw=
-----END EC PRIVATE KEY-----
`;
const ecP384SEC1NoPublic = `-----BEGIN EC PRIVATE KEY-----
MD4CAQEEMCdt3P+9Yrta2UGZnOUHnOXcVbhPSHF+4qh5eshaT0GSfaJ4Kez4jYSv
bWfAcFV/26AHBgUrgQQAIg==
-----END EC PRIVATE KEY-----
`;
const ecP384SPKI = `-----BEGIN PUBLIC KEY-----
MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAElB5I3GQTWGwcTCOM2nQ8aiXNmGKjaL7S
zHJVHibWCRKRs6XhNSARyr6iNMfaxWO7dHTgD0o7mjNeAUwrRnLQ5dDpjHsxkIil
Inpy0oh8Xvy//+i8dnVOxL0XB4EXvFSc
-----END PUBLIC KEY-----
`;
const ed25519SPKI = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEArWerRl1HUXe6u8e9RNcyvVCe7zQ9UPt6RHSC0uSzGHI=
-----END PUBLIC KEY-----
`;

describe("publicKeysFromPEM", () => {
  it.each([
    ["P-256", "SHA-256"],
    ["P-384", "SHA-384"],
    ["P-521", "SHA-512"],
  ])("reads a PUBLIC KEY block of an ECDSA %s key as a verify-only key that checks the private key's signatures", async (namedCurve, hash) => {
    const pair = await ecdsa(namedCurve);
    const [key, ...rest] = await publicKeysFromPEM(pem(await crypto.subtle.exportKey("spki", pair.publicKey), "PUBLIC KEY"));
    expect(rest).toEqual([]);
    expect(key).toMatchObject({ type: "public", usages: ["verify"], algorithm: { name: "ECDSA", namedCurve } });
    const signature = await crypto.subtle.sign(ecdsaSign(hash), pair.privateKey, data);
    expect(await crypto.subtle.verify(ecdsaSign(hash), key as CryptoKey, signature, data)).toBe(true);
  });

  it("reads a PUBLIC KEY block of an RSA key as an extractable RSASSA-PKCS1-v1_5 SHA-256 key", async () => {
    const pair = await rsa();
    const [key] = await publicKeysFromPEM(pem(await crypto.subtle.exportKey("spki", pair.publicKey), "PUBLIC KEY"));
    expect(key).toMatchObject({ type: "public", extractable: true, usages: ["verify"], algorithm: { name: "RSASSA-PKCS1-v1_5", hash: { name: "SHA-256" } } });
    expect(await spkiOf(key as CryptoKey)).toEqual(await spkiOf(pair.publicKey));
  });

  it("reads an RSA PUBLIC KEY block (PKCS#1) as the same key as its SPKI form", async () => {
    const [key] = await publicKeysFromPEM(rsaPKCS1Public);
    expect(key?.algorithm).toMatchObject({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048 });
    expect(await spkiOf(key as CryptoKey)).toEqual(der(rsaSPKI));
  });

  it("reads the public half of an RSA PRIVATE KEY block (PKCS#1)", async () => {
    const [key] = await publicKeysFromPEM(rsaPKCS1Private);
    expect(key).toMatchObject({ type: "public", usages: ["verify"] });
    expect(await spkiOf(key as CryptoKey)).toEqual(der(rsaSPKI));
  });

  it("reads the public half of an EC PRIVATE KEY block (SEC 1) from its public point", async () => {
    const [key] = await publicKeysFromPEM(ecP384SEC1);
    expect(key).toMatchObject({ type: "public", usages: ["verify"], algorithm: { name: "ECDSA", namedCurve: "P-384" } });
    expect(await spkiOf(key as CryptoKey)).toEqual(der(ecP384SPKI));
  });

  it("derives the public half of an EC PRIVATE KEY block that carries no public point", async () => {
    const [key] = await publicKeysFromPEM(ecP384SEC1NoPublic);
    expect(key).toMatchObject({ type: "public", usages: ["verify"], algorithm: { name: "ECDSA", namedCurve: "P-384" } });
    expect(await spkiOf(key as CryptoKey)).toEqual(der(ecP384SPKI));
  });

  it.each([
    ["ECDSA P-256", () => ecdsa("P-256")],
    ["ECDSA P-521", () => ecdsa("P-521")],
    ["RSA", rsa],
  ])("reads the public half of a PRIVATE KEY block (PKCS#8) of an %s key", async (_what, make) => {
    const pair = await make();
    const [key] = await publicKeysFromPEM(pem(await crypto.subtle.exportKey("pkcs8", pair.privateKey), "PRIVATE KEY"));
    expect(key).toMatchObject({ type: "public", usages: ["verify"] });
    expect(await spkiOf(key as CryptoKey)).toEqual(await spkiOf(pair.publicKey));
  });

  it("reads the subject public key of a CERTIFICATE block", async () => {
    const pair = await ecdsa("P-256");
    const certificate = await X509CertificateGenerator.createSelfSigned({
      serialNumber: "01",
      name: "CN=service-accounts",
      notBefore: new Date("2026-01-01T00:00:00Z"),
      notAfter: new Date("2027-01-01T00:00:00Z"),
      signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
      keys: pair,
    });
    const [key] = await publicKeysFromPEM(certificate.toString("pem"));
    expect(key).toMatchObject({ type: "public", algorithm: { name: "ECDSA", namedCurve: "P-256" } });
    expect(await spkiOf(key as CryptoKey)).toEqual(await spkiOf(pair.publicKey));
  });

  it("reads every key block of a file in order, skipping text and blocks that hold no key (EC PARAMETERS)", async () => {
    const pair = await ecdsa("P-256");
    const file = [
      "# service account keys\n",
      pem(Uint8Array.of(0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07), "EC PARAMETERS"),
      ecP384SEC1,
      "between blocks\n",
      pem(await crypto.subtle.exportKey("spki", pair.publicKey), "PUBLIC KEY"),
      rsaPKCS1Public,
    ].join("");
    const keys = await publicKeysFromPEM(file);
    expect(await Promise.all(keys.map(spkiOf))).toEqual([der(ecP384SPKI), await spkiOf(pair.publicKey), der(rsaSPKI)]);
  });

  it("refuses a key of another type, naming the block", async () => {
    await expect(publicKeysFromPEM(ecP384SPKI + ed25519SPKI)).rejects.toThrow("PEM block 2 (PUBLIC KEY): unsupported key type 1.3.101.112: want RSA or ECDSA");
  });

  it("refuses an ECDSA key on another curve, naming the block", async () => {
    // SPKI of a secp256k1 key: id-ecPublicKey with curve 1.3.132.0.10.
    const spki = Uint8Array.of(
      ...[0x30, 0x56, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a, 0x03, 0x42, 0x00, 0x04],
      ...new Uint8Array(64).fill(1),
    );
    await expect(publicKeysFromPEM(pem(spki, "PUBLIC KEY"))).rejects.toThrow(
      "PEM block 1 (PUBLIC KEY): unsupported elliptic curve 1.3.132.0.10: want P-256, P-384 or P-521",
    );
  });

  it("refuses an encrypted private key, naming the block", async () => {
    const encrypted =
      "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n\nAAAA\n-----END RSA PRIVATE KEY-----\n";
    await expect(publicKeysFromPEM(encrypted)).rejects.toThrow("PEM block 1 (RSA PRIVATE KEY): it is encrypted");
  });

  it("refuses a block whose body is not base64 or not DER, naming the block", async () => {
    await expect(publicKeysFromPEM("-----BEGIN PUBLIC KEY-----\nnot*base64\n-----END PUBLIC KEY-----\n")).rejects.toThrow(
      "PEM block 1 (PUBLIC KEY): its body is not base64",
    );
    await expect(publicKeysFromPEM(pem(Uint8Array.of(0x30, 0x05, 0x02), "CERTIFICATE"))).rejects.toThrow(/^PEM block 1 \(CERTIFICATE\): /);
    await expect(publicKeysFromPEM(pem(Uint8Array.of(0x30, 0x05, 0x02), "EC PRIVATE KEY"))).rejects.toThrow("PEM block 1 (EC PRIVATE KEY): truncated DER");
  });

  it("refuses a file with no key block", async () => {
    await expect(publicKeysFromPEM("")).rejects.toThrow("data does not contain any valid RSA or ECDSA public keys");
    await expect(publicKeysFromPEM(pem(Uint8Array.of(5, 0), "EC PARAMETERS"))).rejects.toThrow("data does not contain any valid RSA or ECDSA public keys");
  });
});
