/**
 * The fixture of the end-to-end authentication tests: an HTTPS OpenID provider and an HTTPS
 * token review webhook (each with a CA of its own), an authenticating proxy's CA and client
 * certificates, a static token file, and an `orch-apiserver --domain k8s.io` started after them
 * with every authentication flag pointing at them. Also raw HTTPS requests with a bearer token,
 * a client certificate or nothing, and kubeconfigs for token users.
 * @module
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";
import { parse as parseYAML, stringify as stringifyYAML } from "yaml";
import { clientCertificate, selfSignedCA, servingCertificate, type Issued } from "../../packages/node/src/internal/test-pki.js";
import { httpsRequestTo, startAPIServer, type RawRequest, type RawResponse, type RunningAPIServer } from "./apiserver.js";

/** The OIDC client id the server is started with (`--oidc-client-id`). */
export const oidcClientID = "orch-e2e";
/** The common name the proxy's certificate must have (`--requestheader-allowed-names`). */
export const proxyName = "front-proxy";
/** The token the webhook accepts, and the user it answers for it. */
export const webhookToken = "webhook-accepted-token";
export const webhookUser = { username: "webhook-user", uid: "webhook-uid", groups: ["webhook-group"] };
/** The static tokens (`--token-auth-file`). */
export const staticTokens = {
  alice: { token: "alice-static-token-0123456789", username: "alice", uid: "uid-alice", groups: ["dev", "ops"] },
  bob: { token: "bob-static-token-0123456789", username: "bob", uid: "uid-bob", groups: [] as string[] },
};

/** One signing key of the OpenID provider. */
export interface OIDCKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/** An HTTPS OpenID provider: discovery and key set, with the keys it publishes settable. */
export interface OIDCIssuer {
  /** `https://127.0.0.1:<port>`: the issuer URL and `iss` of its tokens. */
  readonly url: string;
  /** PEM of the CA that signs its serving certificate. */
  readonly caCert: string;
  /** The keys published now (`/openid/v1/jwks`). */
  published: OIDCKey[];
  /** When (`Date.now()`) each key set request arrived. */
  readonly jwksFetches: number[];
  /** A new RS256 key named `kid` (not published until the test says so). */
  newKey(kid: string): Promise<OIDCKey>;
  /** An id_token for {@link oidcClientID} signed with `key`: `claims` over the defaults (valid for 10 minutes). */
  sign(key: OIDCKey, claims?: JWTPayload): Promise<string>;
  close(): Promise<void>;
}

/** What the webhook received: the TokenReview bodies, in order. */
export interface TokenWebhook {
  readonly url: string;
  readonly caCert: string;
  readonly reviews: { apiVersion: string; kind: string; spec: { token: string; audiences?: string[] } }[];
  close(): Promise<void>;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Starts an OpenID provider over HTTPS on 127.0.0.1, publishing one key `first`. */
export async function startOIDCIssuer(): Promise<OIDCIssuer> {
  const ca = await selfSignedCA("CN=oidc-e2e-ca");
  const serving = await servingCertificate(ca);
  const newKey = async (kid: string): Promise<OIDCKey> => {
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
  };
  const jwksFetches: number[] = [];
  let url = "";
  const issuer: OIDCIssuer = {
    get url() {
      return url;
    },
    caCert: ca.cert,
    published: [await newKey("first")],
    jwksFetches,
    newKey,
    sign(key, claims = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: url, aud: oidcClientID, sub: "oidc-sub", iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: "RS256", kid: key.kid })
        .sign(key.privateKey);
    },
    close: () => closeServer(server),
  };
  const server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const json = (body: unknown): void => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && req.url === "/.well-known/openid-configuration") {
      json({ issuer: url, jwks_uri: `${url}/openid/v1/jwks`, id_token_signing_alg_values_supported: ["RS256"] });
    } else if (req.method === "GET" && req.url === "/openid/v1/jwks") {
      jwksFetches.push(Date.now());
      json({ keys: issuer.published.map((k) => k.jwk) });
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  url = await listen(server);
  return issuer;
}

/** Starts a TokenReview webhook over HTTPS on 127.0.0.1: it accepts {@link webhookToken} only. */
export async function startTokenWebhook(): Promise<TokenWebhook> {
  const ca = await selfSignedCA("CN=webhook-e2e-ca");
  const serving = await servingCertificate(ca);
  const reviews: TokenWebhook["reviews"] = [];
  const server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body: TokenWebhook["reviews"][number];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as TokenWebhook["reviews"][number];
      } catch {
        res.writeHead(400, { "content-type": "text/plain" });
        res.end("not JSON");
        return;
      }
      reviews.push(body);
      const status =
        body.spec?.token === webhookToken ? { authenticated: true, user: webhookUser } : { authenticated: false, error: "webhook does not know this token" };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: body.apiVersion, kind: "TokenReview", status }));
    });
  });
  const url = `${await listen(server)}/authenticate`;
  return { url, caCert: ca.cert, reviews, close: () => closeServer(server) };
}

/** A request of {@link AuthenticationFixture.request}. */
export interface CallOptions {
  method?: string;
  path: string;
  /** Sent as `Authorization: Bearer <token>` (exactly, even when empty). */
  token?: string;
  /** A client certificate to present. */
  cert?: { cert: string; key: string };
  headers?: Record<string, string | string[]>;
  body?: string;
  timeoutMs?: number;
}

/** Everything {@link startAuthenticationFixture} started. */
export interface AuthenticationFixture {
  readonly server: RunningAPIServer;
  readonly issuer: OIDCIssuer;
  readonly webhook: TokenWebhook;
  /** The CA of `--requestheader-client-ca-file`. */
  readonly proxyCA: Issued;
  /** A proxy certificate, CN {@link proxyName}. */
  readonly proxyCert: Issued;
  /** The server's CA (PEM) and the admin's client certificate. */
  readonly serverCA: string;
  readonly admin: { cert: string; key: string };
  /** A scratch dir, removed by `stop()`. */
  readonly dir: string;
  /** One HTTPS request on its own connection, bounded (10 s by default). */
  request(options: CallOptions): Promise<RawResponse>;
  /** POSTs a SelfSubjectReview (`authentication.k8s.io/v1`) with the given credentials. */
  whoami(options?: Omit<CallOptions, "path" | "method" | "body">): Promise<RawResponse>;
  /** Writes a kubeconfig whose user has `token` and no client certificate; its path. */
  tokenKubeconfig(name: string, token: string): Promise<string>;
  /** The cluster's `server` and `certificate-authority-data` from the server's kubeconfig. */
  readonly cluster: { server: string; caData: string };
  /** Stops the server, then the provider and the webhook, and removes the dir; the server's exit code. */
  stop(): Promise<number | null | undefined>;
}

/** The body of every 401: the cause is only in the server's log. */
export const unauthorizedStatus = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "Unauthorized",
  reason: "Unauthorized",
  code: 401,
};

/** One HTTPS request to `url` trusting `ca`, on its own connection (`agent: false`), bounded. */
export function httpsCall(url: string, ca: string, options: CallOptions): Promise<RawResponse> {
  const headers: Record<string, string | string[]> = { ...(options.headers ?? {}) };
  if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`;
  if (options.body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
  const request: RawRequest = { path: options.path, headers };
  if (options.method !== undefined) request.method = options.method;
  if (options.body !== undefined) request.body = options.body;
  if (options.timeoutMs !== undefined) request.timeoutMs = options.timeoutMs;
  return httpsRequestTo(url, { ca, ...(options.cert ?? {}) }, request);
}

/** The `status.userInfo` of a SelfSubjectReview answer. */
export function userInfoOf(response: RawResponse): unknown {
  return (response.json as { status?: { userInfo?: unknown } } | undefined)?.status?.userInfo;
}

/**
 * Waits until the server's stderr after `from` characters contains `text` (the log line of a
 * refusal may reach the pipe a little after the response); the new stderr.
 */
export async function logAfter(server: RunningAPIServer, from: number, text: string, timeoutMs = 3_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = server.stderr().slice(from);
    if (log.includes(text) || Date.now() > deadline) return log;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Starts the OpenID provider and the webhook, writes the token file, the proxy CA and the webhook
 * kubeconfig, then starts `orch-apiserver --domain k8s.io` with every authentication flag
 * (`extraFlags` appended). Everything is stopped by `stop()`, also when the start fails.
 */
export async function startAuthenticationFixture(extraFlags: readonly string[] = []): Promise<AuthenticationFixture> {
  const dir = await mkdtemp(join(tmpdir(), "orch-authn-e2e-"));
  const started: (() => Promise<unknown>)[] = [() => rm(dir, { recursive: true, force: true })];
  let serverStop: (() => Promise<number | null>) | undefined;
  let stopping: Promise<number | null | undefined> | undefined;
  const stopAll = (): Promise<number | null | undefined> =>
    (stopping ??= (async () => {
      const code = await serverStop?.();
      for (const stop of started.reverse()) await stop().catch(() => undefined);
      return code;
    })());
  try {
    const [issuer, webhook, proxyCA] = await Promise.all([startOIDCIssuer(), startTokenWebhook(), selfSignedCA("CN=front-proxy-ca")]);
    started.push(
      () => issuer.close(),
      () => webhook.close(),
    );
    const proxyCert = await clientCertificate(proxyCA, `CN=${proxyName}`);
    const tokens = Object.values(staticTokens).map((t) => `${t.token},${t.username},${t.uid}${t.groups.length > 0 ? `,"${t.groups.join(",")}"` : ""}`);
    await writeFile(join(dir, "tokens.csv"), tokens.join("\n") + "\n");
    await writeFile(join(dir, "proxy-ca.crt"), proxyCA.cert);
    await writeFile(join(dir, "oidc-ca.crt"), issuer.caCert);
    await writeFile(join(dir, "webhook-ca.crt"), webhook.caCert);
    await writeFile(
      join(dir, "webhook.kubeconfig"),
      stringifyYAML({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "webhook", cluster: { server: webhook.url, "certificate-authority": "webhook-ca.crt" } }],
        users: [{ name: "apiserver", user: {} }],
        contexts: [{ name: "webhook", context: { cluster: "webhook", user: "apiserver" } }],
        "current-context": "webhook",
      }),
    );
    const server = await startAPIServer({
      flags: [
        "--domain",
        "k8s.io",
        // These tests are about who the caller is; what it may do is the authorization tests' matter.
        "--authorization-mode",
        "AlwaysAllow",
        "--token-auth-file",
        join(dir, "tokens.csv"),
        "--enable-bootstrap-token-auth",
        "--requestheader-client-ca-file",
        join(dir, "proxy-ca.crt"),
        "--requestheader-allowed-names",
        proxyName,
        "--requestheader-username-headers",
        "X-Remote-User",
        "--requestheader-group-headers",
        "X-Remote-Group",
        "--oidc-issuer-url",
        issuer.url,
        "--oidc-client-id",
        oidcClientID,
        "--oidc-username-claim",
        "email",
        "--oidc-groups-claim",
        "groups",
        "--oidc-groups-prefix",
        "oidc:",
        "--oidc-ca-file",
        join(dir, "oidc-ca.crt"),
        "--authentication-token-webhook-config-file",
        join(dir, "webhook.kubeconfig"),
        "--authentication-token-webhook-version",
        "v1beta1",
        ...extraFlags,
      ],
    });
    serverStop = () => server.stop();
    const [serverCA, cert, key, kubeconfigText] = await Promise.all(
      [join(server.dataDir, "ca.crt"), join(server.dataDir, "admin.crt"), join(server.dataDir, "admin.key"), server.kubeconfigPath].map((f) =>
        readFile(f, "utf8"),
      ),
    );
    const kubeconfig = parseYAML(kubeconfigText!) as { clusters: { cluster: { server: string; "certificate-authority-data": string } }[] };
    const clusterEntry = kubeconfig.clusters[0]!.cluster;
    const cluster = { server: clusterEntry.server, caData: clusterEntry["certificate-authority-data"] };
    const request = (options: CallOptions) => httpsCall(server.url, serverCA!, options);
    return {
      server,
      issuer,
      webhook,
      proxyCA,
      proxyCert,
      serverCA: serverCA!,
      admin: { cert: cert!, key: key! },
      dir,
      cluster,
      request,
      whoami: (options = {}) =>
        request({
          ...options,
          method: "POST",
          path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
          body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
        }),
      async tokenKubeconfig(name, token) {
        const path = join(dir, `${name}.kubeconfig`);
        await writeFile(
          path,
          stringifyYAML({
            apiVersion: "v1",
            kind: "Config",
            clusters: [{ name: "orch", cluster: { server: cluster.server, "certificate-authority-data": cluster.caData } }],
            users: [{ name, user: { token } }],
            contexts: [{ name, context: { cluster: "orch", user: name } }],
            "current-context": name,
          }),
        );
        return path;
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
