import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { selfSignedCA, servingCertificate } from "../internal/test-pki.js";
import { oidcCredentialSource, type OIDCCredentialSourceOptions } from "./oidc-provider.js";

/** Seconds since the epoch of the tests' "now". */
const nowSeconds = 2_000_000_000;
const now = () => nowSeconds * 1000;
const key = new TextEncoder().encode("a test signing key of thirty-two bytes");

/** An id_token expiring `ttl` seconds after the tests' "now" (the client does not verify signatures). */
function idToken(sub: string, ttl: number): Promise<string> {
  return new SignJWT({ sub, exp: nowSeconds + ttl }).setProtectedHeader({ alg: "HS256" }).sign(key);
}

/** One request the test issuer's token endpoint received. */
interface TokenRequest {
  authorization: string | undefined;
  form: Record<string, string>;
}

/** How the test issuer's token endpoint answers. */
interface Behaviour {
  /** Refuse client credentials in the Authorization header (401), as a client_secret_post-only issuer. */
  formOnly: boolean;
  /** Leave id_token out of the answer. */
  noIdToken: boolean;
  /** The refresh_token of the answer, if any. */
  rotateRefreshTo: string | undefined;
}

let server: Server;
let issuerURL: string;
let caPEM: string;
let dir: string;
let discoveries = 0;
let issued = 0;
const tokenRequests: TokenRequest[] = [];
const behaviour: Behaviour = { formOnly: false, noIdToken: false, rotateRefreshTo: undefined };

beforeAll(async () => {
  const ca = await selfSignedCA("CN=oidc-client-test-ca");
  const serving = await servingCertificate(ca);
  caPEM = ca.cert;
  server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        if (req.method === "GET" && req.url === "/.well-known/openid-configuration") {
          discoveries++;
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ issuer: issuerURL, token_endpoint: `${issuerURL}/token`, jwks_uri: `${issuerURL}/keys` }));
          return;
        }
        if (req.method === "POST" && req.url === "/token") {
          const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
          tokenRequests.push({ authorization: req.headers.authorization, form });
          if (behaviour.formOnly && req.headers.authorization !== undefined) {
            res.writeHead(401, { "content-type": "application/json" });
            res.end(JSON.stringify({ error: "invalid_client" }));
            return;
          }
          if (form["grant_type"] !== "refresh_token" || !form["refresh_token"]?.startsWith("refresh-")) {
            res.writeHead(400, { "content-type": "application/json" });
            res.end(JSON.stringify({ error: "invalid_grant" }));
            return;
          }
          issued++;
          const answer: Record<string, unknown> = { access_token: "access", token_type: "Bearer", expires_in: 3600 };
          if (!behaviour.noIdToken) answer["id_token"] = await idToken(`refreshed-${issued}`, 600);
          if (behaviour.rotateRefreshTo !== undefined) answer["refresh_token"] = behaviour.rotateRefreshTo;
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(answer));
          return;
        }
        res.writeHead(404);
        res.end("not found");
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuerURL = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), "orch-oidc-provider-"));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  discoveries = 0;
  issued = 0;
  tokenRequests.length = 0;
  Object.assign(behaviour, { formOnly: false, noIdToken: false, rotateRefreshTo: undefined });
});

function baseConfig(over: Record<string, string> = {}): Record<string, string> {
  return {
    "idp-issuer-url": issuerURL,
    "client-id": "orch-cli",
    "client-secret": "s3cret&x",
    "refresh-token": "refresh-1",
    "idp-certificate-authority-data": Buffer.from(caPEM).toString("base64"),
    ...over,
  };
}

function source(config: Record<string, string>, over: Partial<OIDCCredentialSourceOptions> = {}) {
  const persisted: Record<string, string>[] = [];
  const s = oidcCredentialSource({
    config,
    userName: "carol",
    configFile: join(dir, "kubeconfig"),
    now,
    persist: (c) => {
      persisted.push(c);
      return Promise.resolve();
    },
    ...over,
  });
  return { s, persisted };
}

const subOf = (token: string | undefined) => JSON.parse(Buffer.from(token!.split(".")[1]!, "base64url").toString("utf8")).sub as string;

describe("oidcCredentialSource", () => {
  it("sends the id-token while it has not expired, without asking the issuer", async () => {
    const token = await idToken("current", 300);
    const { s, persisted } = source(baseConfig({ "id-token": token }));
    expect(await s.credentials()).toEqual({ token });
    expect(discoveries + tokenRequests.length).toBe(0);
    expect(persisted).toEqual([]);
  });

  it("refreshes an expired id-token through discovery and the token endpoint, with basic auth, and persists it", async () => {
    behaviour.rotateRefreshTo = "refresh-2";
    const config = baseConfig({ "id-token": await idToken("old", -60) });
    const { s, persisted } = source(config);
    const { token } = await s.credentials();
    expect(subOf(token)).toBe("refreshed-1");
    expect(discoveries).toBe(1);
    expect(tokenRequests).toEqual([
      { authorization: `Basic ${Buffer.from("orch-cli:s3cret%26x").toString("base64")}`, form: { grant_type: "refresh_token", refresh_token: "refresh-1" } },
    ]);
    expect(persisted).toEqual([{ ...config, "id-token": token, "refresh-token": "refresh-2" }]);
    // The new token is used from now on, and the caller's object is left alone.
    expect(await s.credentials()).toEqual({ token });
    expect(tokenRequests).toHaveLength(1);
    expect(config["refresh-token"]).toBe("refresh-1");
  });

  it("treats a token expiring within 10 s as expired, and keeps the refresh-token when no new one is sent", async () => {
    const { s, persisted } = source(baseConfig({ "id-token": await idToken("almost", 5) }));
    expect(subOf((await s.credentials()).token)).toBe("refreshed-1");
    expect(persisted[0]!["refresh-token"]).toBe("refresh-1");
  });

  it("refreshes when there is no id-token yet", async () => {
    const { s } = source(baseConfig());
    expect(subOf((await s.credentials()).token)).toBe("refreshed-1");
  });

  it("shares one refresh among concurrent callers", async () => {
    const { s, persisted } = source(baseConfig({ "id-token": await idToken("old", -60) }));
    const all = await Promise.all(Array.from({ length: 6 }, () => s.credentials()));
    expect(new Set(all.map((c) => c.token)).size).toBe(1);
    expect(tokenRequests).toHaveLength(1);
    expect(persisted).toHaveLength(1);
  });

  it("sends the client credentials in the form when the issuer refuses them in the header, and keeps doing so", async () => {
    behaviour.formOnly = true;
    const { s } = source(baseConfig());
    expect(subOf((await s.credentials()).token)).toBe("refreshed-1");
    expect(tokenRequests.map((r) => [r.authorization !== undefined, r.form["client_id"], r.form["client_secret"]])).toEqual([
      [true, undefined, undefined],
      [false, "orch-cli", "s3cret&x"],
    ]);
    expect(await s.unauthorized!({ token: "refreshed" })).toBe(true);
  });

  it("refreshes after the server refused the id-token with 401, even before it expires", async () => {
    const token = await idToken("revoked", 300);
    const { s } = source(baseConfig({ "id-token": token }));
    expect(await s.credentials()).toEqual({ token });
    expect(await s.unauthorized!({ token })).toBe(true);
    const next = await s.credentials();
    expect(subOf(next.token)).toBe("refreshed-1");
    // A late 401 to the old token leaves the new one in place.
    expect(await s.unauthorized!({ token })).toBe(true);
    expect(await s.credentials()).toEqual(next);
    expect(tokenRequests).toHaveLength(1);
  });

  it("reads the IdP CA from idp-certificate-authority relative to the configuration file", async () => {
    await mkdir(join(dir, "conf"), { recursive: true });
    await writeFile(join(dir, "conf", "idp-ca.crt"), caPEM);
    const { "idp-certificate-authority-data": _, ...config } = baseConfig();
    const { s } = source({ ...config, "idp-certificate-authority": "idp-ca.crt" }, { configFile: join(dir, "conf", "kubeconfig") });
    expect(subOf((await s.credentials()).token)).toBe("refreshed-1");
  });
});

describe("oidcCredentialSource's errors name the file, the user entry and the cause", () => {
  const prefix = () => `getting credentials for user "carol" in ${join(dir, "kubeconfig")}: oidc auth provider: `;

  it("an expired id-token and no refresh-token; a 401 then has nothing to retry with", async () => {
    const token = await idToken("old", -60);
    const { "refresh-token": _, ...config } = baseConfig({ "id-token": token });
    const { s } = source(config);
    await expect(s.credentials()).rejects.toThrow(`${prefix()}no valid id-token, and cannot refresh without refresh-token`);
    expect(await s.unauthorized!({ token })).toBe(false);
  });

  it("a refresh answer without an id_token", async () => {
    behaviour.noIdToken = true;
    const { s, persisted } = source(baseConfig());
    await expect(s.credentials()).rejects.toThrow(
      new RegExp(`^${prefix().replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}the token endpoint .* answered the refresh without an id_token`),
    );
    expect(persisted).toEqual([]);
  });

  it("a refused refresh token, quoting the issuer", async () => {
    const { s } = source(baseConfig({ "refresh-token": "revoked" }));
    await expect(s.credentials()).rejects.toThrow(
      /oidc auth provider: failed to refresh token: the token endpoint .* answered HTTP 400 "{\\"error\\":\\"invalid_grant\\"}"/,
    );
  });

  it("a failed persist: the new token is not used and the next call refreshes again", async () => {
    let fail = true;
    const s = oidcCredentialSource({
      config: baseConfig(),
      userName: "carol",
      configFile: join(dir, "kubeconfig"),
      now,
      persist: () => (fail ? Promise.reject(new Error("read-only file system")) : Promise.resolve()),
    });
    await expect(s.credentials()).rejects.toThrow(`${prefix()}could not persist new tokens: read-only file system`);
    fail = false;
    expect(subOf((await s.credentials()).token)).toBe("refreshed-2");
  });

  it("a missing idp-issuer-url or client-id", async () => {
    const { "idp-issuer-url": _, ...noIssuer } = baseConfig();
    await expect(source(noIssuer).s.credentials()).rejects.toThrow(`${prefix()}idp-issuer-url is required`);
    const { "client-id": __, ...noClient } = baseConfig();
    await expect(source(noClient).s.credentials()).rejects.toThrow(`${prefix()}client-id is required`);
  });

  it("an issuer whose certificate is not trusted", async () => {
    const { "idp-certificate-authority-data": _, ...config } = baseConfig();
    await expect(source(config).s.credentials()).rejects.toThrow(
      new RegExp(`oidc auth provider: cannot reach ${issuerURL}/\\.well-known/openid-configuration: `),
    );
  });
});
