/**
 * Client credential sources end to end. A real `orch-apiserver` with a static token file, real
 * plugin executables that print a token or a client certificate signed by the server's CA, and
 * `@orch/client`'s `Client` over `httpTransport` with `execCredentialSource` of `@orch/node`
 * (401 refresh, certificate rotation on a new connection). Then, against `orch-apiserver
 * --domain k8s.io` with an OpenID provider (`support/authentication.ts`): kubectl running the
 * same kind of plugin from a kubeconfig's `users[].user.exec`, and `oidcCredentialSource` and
 * kubectl's own `oidc` auth provider refreshing an expired id-token at a token endpoint.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, httpTransport, type ClientCertificate, type CredentialSource, type ExecConfig, type Transport } from "@orch/client";
import { clientFromConfig, execCredentialSource, httpsFetch, oidcCredentialSource } from "@orch/node";
import type { JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as stringifyYAML } from "yaml";
import { selfSignedCA, servingCertificate } from "../packages/node/src/internal/test-pki.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { oidcClientID, startAuthenticationFixture, staticTokens, type AuthenticationFixture } from "./support/authentication.js";
import { kubectlFor } from "./support/kubectl.js";

const pluginToken = "plugin-token-0123456789abcdef";
const pluginUser = { username: "plugin-user", uid: "uid-plugin", groups: ["plugin-group", "system:authenticated"] };

let dir: string;
let tokenFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-client-credentials-"));
  tokenFile = join(dir, "tokens.csv");
  await writeFile(tokenFile, `${pluginToken},plugin-user,uid-plugin,"plugin-group"\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A plugin at `dir/<name>/plugin` that counts its runs in `dir/<name>/runs` and prints
 * `answer-<run>.json` of its directory, or `answer-last.json` when there is none for the run.
 */
async function sequencePlugin(name: string, answers: unknown[]): Promise<{ path: string; runs: () => Promise<number> }> {
  const home = join(dir, name);
  await mkdir(home, { recursive: true });
  for (const [i, answer] of answers.entries()) await writeFile(join(home, `answer-${i + 1}.json`), JSON.stringify(answer));
  await writeFile(join(home, "answer-last.json"), JSON.stringify(answers.at(-1)));
  const path = join(home, "plugin");
  await writeFile(
    path,
    [
      "#!/bin/sh",
      `echo run >> "${home}/runs"`,
      `n=$(wc -l < "${home}/runs" | tr -d ' ')`,
      `f="${home}/answer-$n.json"`,
      `[ -f "$f" ] || f="${home}/answer-last.json"`,
      `cat "$f"`,
      "",
    ].join("\n"),
  );
  await chmod(path, 0o755);
  const runs = async () => (await readFile(join(home, "runs"), "utf8")).split("\n").filter(Boolean).length;
  return { path, runs };
}

/** A P-256 key and a client certificate for `subject` signed by the CA of `dataDir`, made by openssl. */
function signedClientCertificate(dataDir: string, subject: string, name: string): { certificate: string; key: string } {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const crt = join(dir, `${name}.crt`);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, "extendedKeyUsage=clientAuth\n");
  execFileSync("openssl", ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", subject, "-keyout", key, "-out", csr], {
    stdio: "ignore",
    timeout: 10_000,
  });
  execFileSync(
    "openssl",
    [
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      join(dataDir, "ca.crt"),
      "-CAkey",
      join(dataDir, "ca.key"),
      "-set_serial",
      `0x${randomBytes(8).toString("hex")}`,
      "-days",
      "1",
      "-extfile",
      ext,
      "-out",
      crt,
    ],
    {
      stdio: "ignore",
      timeout: 10_000,
    },
  );
  return { certificate: readFileSync(crt, "utf8"), key: readFileSync(key, "utf8") };
}

/**
 * An HTTP transport with credentials from `source`, trusting `ca`: one keep-alive `httpsFetch`
 * per client certificate (so a new certificate is a new connection), counted by `agents`.
 */
function transportWith(baseURL: string, source: CredentialSource, ca: string): { transport: Transport; agents: () => number } {
  const byCertificate = new Map<string, typeof fetch>();
  const fetchFor = (certificate: ClientCertificate | undefined): typeof fetch => {
    const id = certificate?.certificate ?? "";
    let f = byCertificate.get(id);
    if (!f) {
      f = httpsFetch(certificate ? { ca, cert: certificate.certificate, key: certificate.key } : { ca });
      byCertificate.set(id, f);
    }
    return f;
  };
  return { transport: httpTransport({ baseURL, credentials: source, fetchFor }), agents: () => byCertificate.size };
}

function execConfig(command: string, apiVersion: string): ExecConfig {
  return { command, args: [], env: [], apiVersion, provideClusterInfo: true, interactiveMode: "Never" };
}

describe("a Client over HTTPS with credentials from a plugin (orch.io)", () => {
  let server: RunningAPIServer;
  let ca: string;
  const v1 = "client.authentication.orch.io/v1";

  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--token-auth-file", tokenFile, "--authorization-mode", "AlwaysAllow"] });
    ca = await readFile(join(server.dataDir, "ca.crt"), "utf8");
  });
  afterAll(async () => {
    await server?.stop();
  });

  const clientWith = (source: CredentialSource) => {
    const { transport, agents } = transportWith(server.url, source, ca);
    return { client: new Client({ transport }), agents };
  };
  const whoami = (client: Client) =>
    client.call<{ kind: string; status: { userInfo: unknown } }>({
      method: "POST",
      path: "/apis/authentication.orch.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.orch.io/v1", kind: "SelfSubjectReview" },
    });

  it("authenticates as the user of the token the plugin prints, running it once", async () => {
    const plugin = await sequencePlugin("token", [{ apiVersion: v1, kind: "ExecCredential", status: { token: pluginToken } }]);
    const source = execCredentialSource({ exec: execConfig(plugin.path, v1), userName: "plugin", cluster: { server: server.url }, stdin: undefined });
    const { client } = clientWith(source);
    const review = await whoami(client);
    expect(review.kind).toBe("SelfSubjectReview");
    expect(review.status.userInfo).toEqual(pluginUser);
    const namespaces = await client.namespaces.list();
    expect(namespaces.items.map((n) => n.metadata.name)).toContain("default");
    expect(await plugin.runs()).toBe(1);
  });

  it("runs the plugin again after a 401 and retries with the new token", async () => {
    const plugin = await sequencePlugin("stale", [
      { apiVersion: v1, kind: "ExecCredential", status: { token: "a-token-the-server-does-not-know" } },
      { apiVersion: v1, kind: "ExecCredential", status: { token: pluginToken } },
    ]);
    const source = execCredentialSource({ exec: execConfig(plugin.path, v1), userName: "plugin", stdin: undefined });
    const { client } = clientWith(source);
    expect((await whoami(client)).status.userInfo).toEqual(pluginUser);
    expect(await plugin.runs()).toBe(2);
  });

  it("presents the plugin's client certificate, and the rotated one on a new connection after expiry", async () => {
    const first = signedClientCertificate(server.dataDir, "/CN=cert-user-1/O=cert-group", "first");
    const second = signedClientCertificate(server.dataDir, "/CN=cert-user-2/O=cert-group", "second");
    const expiry = "2030-01-01T00:00:00Z";
    const plugin = await sequencePlugin("certificate", [
      { apiVersion: v1, kind: "ExecCredential", status: { clientCertificateData: first.certificate, clientKeyData: first.key, expirationTimestamp: expiry } },
      { apiVersion: v1, kind: "ExecCredential", status: { clientCertificateData: second.certificate, clientKeyData: second.key } },
    ]);
    let now = Date.parse(expiry) - 3_600_000;
    const source = execCredentialSource({ exec: execConfig(plugin.path, v1), userName: "plugin", stdin: undefined, now: () => now });
    const { client, agents } = clientWith(source);
    expect((await whoami(client)).status.userInfo).toEqual({ username: "cert-user-1", groups: ["cert-group", "system:authenticated"] });
    expect((await whoami(client)).status.userInfo).toEqual({ username: "cert-user-1", groups: ["cert-group", "system:authenticated"] });
    expect(await plugin.runs()).toBe(1);
    now = Date.parse(expiry);
    expect((await whoami(client)).status.userInfo).toEqual({ username: "cert-user-2", groups: ["cert-group", "system:authenticated"] });
    expect(await plugin.runs()).toBe(2);
    expect(agents()).toBe(2);
  });

  it("sends no request when the plugin fails: the error names the user entry and the cause", async () => {
    const plugin = await sequencePlugin("broken", [{ apiVersion: v1, kind: "ExecCredential", status: { clientCertificateData: "only a certificate" } }]);
    const source = execCredentialSource({ exec: execConfig(plugin.path, v1), userName: "plugin", configFile: join(dir, "kubeconfig"), stdin: undefined });
    const { client, agents } = clientWith(source);
    await expect(whoami(client)).rejects.toThrow(
      `getting credentials for user "plugin" in ${join(dir, "kubeconfig")}: exec plugin: returned only clientCertificateData`,
    );
    expect(agents()).toBe(0);
  });
});

/**
 * An HTTPS front of the fixture's OpenID provider with the token endpoint it lacks: any refresh
 * token buys an id_token it signs with `claims`. Records each grant as
 * `<grant_type> <refresh_token> <Authorization header>`.
 */
async function startTokenEndpoint(
  fx: AuthenticationFixture,
  claims: JWTPayload,
): Promise<{ url: string; ca: string; grants: string[]; close: () => Promise<void> }> {
  const ca = await selfSignedCA("CN=token-endpoint-ca");
  const serving = await servingCertificate(ca);
  const grants: string[] = [];
  let url = "";
  const server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        if (req.method === "GET" && req.url === "/.well-known/openid-configuration") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ issuer: url, token_endpoint: `${url}/token` }));
        } else if (req.method === "POST" && req.url === "/token") {
          const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
          grants.push(`${form.get("grant_type")} ${form.get("refresh_token")} ${req.headers.authorization ?? "(no authorization)"}`);
          const idToken = await fx.issuer.sign(fx.issuer.published[0]!, claims);
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ access_token: "unused", token_type: "Bearer", id_token: idToken, refresh_token: `refresh-${grants.length + 1}` }));
        } else {
          res.writeHead(404);
          res.end();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    ca: ca.cert,
    grants,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("kubectl and the Client against orch-apiserver --domain k8s.io", () => {
  let fx: AuthenticationFixture;
  const alice = staticTokens.alice;
  const aliceInfo = { username: alice.username, uid: alice.uid, groups: [...alice.groups, "system:authenticated"] };

  beforeAll(async () => {
    fx = await startAuthenticationFixture();
  });
  afterAll(async () => {
    await fx?.stop();
  });

  /** Writes `dir/<name>/kubeconfig` for the fixture's server with `user` as the current user's entry; its path. */
  async function kubeconfigWith(name: string, user: unknown): Promise<string> {
    const path = join(dir, name, "kubeconfig");
    await mkdir(join(dir, name), { recursive: true });
    await writeFile(
      path,
      stringifyYAML({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "orch", cluster: { server: fx.cluster.server, "certificate-authority-data": fx.cluster.caData } }],
        users: [{ name, user }],
        contexts: [{ name, context: { cluster: "orch", user: name } }],
        "current-context": name,
      }),
    );
    return path;
  }

  /** Writes a kubeconfig whose user is the oidc auth provider of `endpoint`, with an expired id-token and `refresh-1`. */
  async function oidcKubeconfig(name: string, endpoint: { url: string; ca: string }, claims: JWTPayload): Promise<{ kubeconfigPath: string; expired: string }> {
    const now = Math.floor(Date.now() / 1000);
    const expired = await fx.issuer.sign(fx.issuer.published[0]!, { ...claims, iat: now - 7200, exp: now - 3600 });
    const kubeconfigPath = await kubeconfigWith(name, {
      "auth-provider": {
        name: "oidc",
        config: {
          "idp-issuer-url": endpoint.url,
          "client-id": oidcClientID,
          "client-secret": "s3cret",
          "refresh-token": "refresh-1",
          "id-token": expired,
          "idp-certificate-authority-data": Buffer.from(endpoint.ca).toString("base64"),
        },
      },
    });
    return { kubeconfigPath, expired };
  }

  it("kubectl runs an exec plugin from the kubeconfig, lists namespaces and says who it is", async () => {
    const v1 = "client.authentication.k8s.io/v1";
    const plugin = await sequencePlugin("kubectl", [{ apiVersion: v1, kind: "ExecCredential", status: { token: alice.token } }]);
    // A relative command resolves against the kubeconfig's directory.
    const kubectl = await kubectlFor({
      kubeconfigPath: await kubeconfigWith("kubectl", { exec: { apiVersion: v1, command: "./plugin", interactiveMode: "Never" } }),
    });
    try {
      const list = await kubectl(["get", "namespaces", "-o", "name"]);
      expect(list.stderr).toBe("");
      expect(list.stdout.split("\n")).toContain("namespace/default");
      const whoami = await kubectl(["auth", "whoami", "-o", "json"]);
      expect(whoami.stderr).toBe("");
      expect((JSON.parse(whoami.stdout) as { status: { userInfo: unknown } }).status.userInfo).toEqual(aliceInfo);
      expect(await plugin.runs()).toBeGreaterThanOrEqual(1);
    } finally {
      await kubectl.close();
    }
  });

  it("execCredentialSource runs the same plugin under k8s.io for a Client", async () => {
    const v1 = "client.authentication.k8s.io/v1";
    const plugin = await sequencePlugin("client-k8s", [{ apiVersion: v1, kind: "ExecCredential", status: { token: alice.token } }]);
    const source = execCredentialSource({ exec: execConfig(plugin.path, v1), userName: "alice", domain: "k8s.io", stdin: undefined });
    const client = new Client({ domain: "k8s.io", transport: transportWith(fx.server.url, source, fx.serverCA).transport });
    const review = await client.call<{ status: { userInfo: unknown } }>({
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    });
    expect(review.status.userInfo).toEqual(aliceInfo);
  });

  it("oidcCredentialSource refreshes an expired id-token at the provider, and again after a 401, persisting the new tokens", async () => {
    const claims = { email: "erin@example.com", email_verified: true, groups: ["dev"] };
    const endpoint = await startTokenEndpoint(fx, claims);
    try {
      const now = Math.floor(Date.now() / 1000);
      const expired = await fx.issuer.sign(fx.issuer.published[0]!, { ...claims, iat: now - 7200, exp: now - 3600 });
      const persisted: Record<string, string>[] = [];
      const config = {
        "idp-issuer-url": endpoint.url,
        "client-id": oidcClientID,
        "client-secret": "s3cret",
        "refresh-token": "refresh-1",
        "id-token": expired,
        "idp-certificate-authority-data": Buffer.from(endpoint.ca).toString("base64"),
      };
      const persist = (c: Record<string, string>) => {
        persisted.push(c);
        return Promise.resolve();
      };
      const whoami = (source: CredentialSource) =>
        new Client({ domain: "k8s.io", transport: transportWith(fx.server.url, source, fx.serverCA).transport }).call<{ status: { userInfo: unknown } }>({
          method: "POST",
          path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
          body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
        });
      const erin = { username: "erin@example.com", groups: ["oidc:dev", "system:authenticated"] };
      const basic = `Basic ${Buffer.from(`${oidcClientID}:s3cret`).toString("base64")}`;
      expect((await whoami(oidcCredentialSource({ config, userName: "erin", persist }))).status.userInfo).toEqual(erin);
      expect(endpoint.grants).toEqual([`refresh_token refresh-1 ${basic}`]);
      expect(persisted.map((c) => c["refresh-token"])).toEqual(["refresh-2"]);
      // An id-token that has not expired but that the server refuses (an unknown key) is refreshed on the 401.
      const unknownKey = await fx.issuer.newKey("unpublished");
      const refused = await fx.issuer.sign(unknownKey, claims);
      expect(
        (await whoami(oidcCredentialSource({ config: { ...config, "id-token": refused, "refresh-token": "refresh-2" }, userName: "erin", persist }))).status
          .userInfo,
      ).toEqual(erin);
      expect(endpoint.grants).toEqual([`refresh_token refresh-1 ${basic}`, `refresh_token refresh-2 ${basic}`]);
    } finally {
      await endpoint.close();
    }
  });
  it("kubectl's oidc auth provider does the same refresh (client credentials in basic auth) and writes the new tokens back", async () => {
    const claims = { email: "erin@example.com", email_verified: true, groups: ["dev"] };
    const endpoint = await startTokenEndpoint(fx, claims);
    try {
      const { kubeconfigPath, expired } = await oidcKubeconfig("kubectl-oidc", endpoint, claims);
      const kubectl = await kubectlFor({ kubeconfigPath });
      try {
        const whoami = await kubectl(["auth", "whoami", "-o", "json"]);
        expect(whoami.code).toBe(0);
        expect((JSON.parse(whoami.stdout) as { status: { userInfo: unknown } }).status.userInfo).toEqual({
          username: "erin@example.com",
          groups: ["oidc:dev", "system:authenticated"],
        });
      } finally {
        await kubectl.close();
      }
      expect(endpoint.grants).toEqual([`refresh_token refresh-1 Basic ${Buffer.from(`${oidcClientID}:s3cret`).toString("base64")}`]);
      const written = await readFile(kubeconfigPath, "utf8");
      expect(written).toContain("refresh-token: refresh-2");
      expect(written).not.toContain(expired);
    } finally {
      await endpoint.close();
    }
  });
  it("clientFromConfig runs the exec plugin and the oidc auth provider of kubeconfig files like kubectl's, writing refreshed tokens back", async () => {
    const v1 = "client.authentication.k8s.io/v1";
    const plugin = await sequencePlugin("config-exec", [{ apiVersion: v1, kind: "ExecCredential", status: { token: alice.token } }]);
    const whoami = async (kubeconfig: string) => {
      const { client, close } = await clientFromConfig({ kubeconfig, client: { domain: "k8s.io" } });
      try {
        return (
          await client.call<{ status: { userInfo: unknown } }>({
            method: "POST",
            path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
          })
        ).status.userInfo;
      } finally {
        close();
      }
    };
    expect(await whoami(await kubeconfigWith("config-exec", { exec: { apiVersion: v1, command: "./plugin", interactiveMode: "Never" } }))).toEqual(aliceInfo);
    expect(await plugin.runs()).toBe(1);

    const claims = { email: "erin@example.com", email_verified: true, groups: ["dev"] };
    const endpoint = await startTokenEndpoint(fx, claims);
    try {
      const { kubeconfigPath, expired } = await oidcKubeconfig("config-oidc", endpoint, claims);
      expect(await whoami(kubeconfigPath)).toEqual({ username: "erin@example.com", groups: ["oidc:dev", "system:authenticated"] });
      const written = await readFile(kubeconfigPath, "utf8");
      expect(written).toContain("refresh-token: refresh-2");
      expect(written).not.toContain(expired);
    } finally {
      await endpoint.close();
    }
  });
});
