/**
 * The token webhook over real mutual TLS: a local `node:https` webhook that requires a client
 * certificate of its own client CA, reached through a kubeconfig file with relative paths to the
 * CA, certificate and key files, loaded by `loadWebhookConfig` and asked by
 * `tokenWebhookAuthenticator`.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { AuthenticationError, tokenWebhookAuthenticator } from "@orch/authn";
import { loadWebhookConfig } from "@orch/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientCertificate, selfSignedCA, servingCertificate, type Issued } from "../packages/node/src/internal/test-pki.js";

/** What the webhook saw of one request. */
interface Seen {
  clientCN: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: { apiVersion: string; kind: string; spec: { token: string; audiences?: string[] } };
}

let dir: string;
let servingCA: Issued;
let clientCA: Issued;
let apiserver: Issued;
const servers: Server[] = [];

/** Starts an HTTPS server on 127.0.0.1 that requires a client certificate of `clientCA`. */
async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const serving = await servingCertificate(servingCA);
  const server = createServer({ key: serving.key, cert: serving.cert, ca: clientCA.cert, requestCert: true, rejectUnauthorized: true }, handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/authenticate`;
}

/** Writes a kubeconfig for `server` into the temp dir, with paths relative to it; its path. */
async function kubeconfig(name: string, server: string, withUser = true): Promise<string> {
  const lines = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "  - name: webhook",
    "    cluster:",
    `      server: ${server}`,
    "      certificate-authority: pki/serving-ca.crt",
    "users:",
    "  - name: apiserver",
    "    user:",
    ...(withUser ? ["      client-certificate: pki/apiserver.crt", "      client-key: pki/apiserver.key", "      token: webhook-secret"] : ["      {}"]),
    "contexts:",
    "  - name: webhook",
    "    context:",
    "      cluster: webhook",
    "      user: apiserver",
    "current-context: webhook",
  ];
  const path = join(dir, name);
  await writeFile(path, lines.join("\n") + "\n");
  return path;
}

let seen: Seen[];
let webhookURL: string;

beforeAll(async () => {
  servingCA = await selfSignedCA("CN=webhook-serving-ca");
  clientCA = await selfSignedCA("CN=webhook-client-ca");
  apiserver = await clientCertificate(clientCA, "CN=orch-apiserver");
  dir = await mkdtemp(join(tmpdir(), "orch-token-webhook-"));
  await mkdir(join(dir, "pki"));
  await writeFile(join(dir, "pki", "serving-ca.crt"), servingCA.cert);
  await writeFile(join(dir, "pki", "apiserver.crt"), apiserver.cert);
  await writeFile(join(dir, "pki", "apiserver.key"), apiserver.key);

  seen = [];
  webhookURL = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Seen["body"];
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      const cn: unknown = peer.subject?.CN;
      seen.push({ clientCN: typeof cn === "string" ? cn : undefined, headers: req.headers, body });
      const status =
        body.spec.token === "good-token"
          ? { authenticated: true, user: { username: "alice", uid: "u-1", groups: ["dev"], extra: { team: ["blue"] } }, audiences: ["api"] }
          : { authenticated: false, error: "unknown token" };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: body.apiVersion, kind: "TokenReview", status }));
    });
  });
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("token webhook over mutual TLS, configured by a kubeconfig file", () => {
  it("accepts a good token: the webhook sees the client certificate, the bearer token and the TokenReview", async () => {
    const loaded = await loadWebhookConfig(await kubeconfig("good.yaml", webhookURL));
    expect(loaded.server).toBe(webhookURL);
    expect(loaded.bearerToken).toBe("webhook-secret");
    const authenticator = tokenWebhookAuthenticator({ ...loaded });
    const before = seen.length;
    expect(await authenticator.authenticateToken("good-token", ["api", "other"])).toEqual({
      user: { name: "alice", uid: "u-1", groups: ["dev"], extra: { team: ["blue"] } },
      audiences: ["api"],
    });
    const request = seen[before];
    expect(request?.clientCN).toBe("orch-apiserver");
    expect(request?.headers["authorization"]).toBe("Bearer webhook-secret");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body).toEqual({
      apiVersion: "authentication.orch.io/v1beta1",
      kind: "TokenReview",
      spec: { token: "good-token", audiences: ["api", "other"] },
    });
  });

  it("refuses a bad token with the webhook's error", async () => {
    const loaded = await loadWebhookConfig(await kubeconfig("bad.yaml", webhookURL));
    const authenticator = tokenWebhookAuthenticator({ ...loaded, version: "v1" });
    const before = seen.length;
    await expect(authenticator.authenticateToken("bad-token", [])).rejects.toThrow(new AuthenticationError("token webhook: unknown token"));
    expect(seen[before]?.body.apiVersion).toBe("authentication.orch.io/v1");
    expect(seen[before]?.clientCN).toBe("orch-apiserver");
  });

  it("cannot reach the webhook without the client certificate it requires", async () => {
    const loaded = await loadWebhookConfig(await kubeconfig("no-user.yaml", webhookURL, false));
    const logs: string[] = [];
    const authenticator = tokenWebhookAuthenticator({ ...loaded, log: (m) => logs.push(m) });
    const before = seen.length;
    await expect(authenticator.authenticateToken("good-token", [])).rejects.toThrow(/^token webhook: request failed: /);
    expect(seen.length).toBe(before);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain(`token webhook ${webhookURL}: request failed: `);
  });

  it("refuses the token within about a second when the webhook never answers, with timeoutMs 500", async () => {
    const silent = await listen(() => {});
    const loaded = await loadWebhookConfig(await kubeconfig("silent.yaml", silent));
    const logs: string[] = [];
    const authenticator = tokenWebhookAuthenticator({ ...loaded, timeoutMs: 500, log: (m) => logs.push(m) });
    const started = performance.now();
    await expect(authenticator.authenticateToken("good-token", [])).rejects.toThrow(new AuthenticationError("token webhook: no answer within 500 ms"));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1_500);
    expect(logs).toEqual([`token webhook ${silent}: no answer within 500 ms`]);
  });

  it("names the kubeconfig file when a file it names cannot be read, or when it does not parse", async () => {
    const path = join(dir, "missing-ca.yaml");
    await writeFile(path, `clusters:\n  - name: c\n    cluster:\n      server: ${webhookURL}\n      certificate-authority: pki/nope.crt\n`);
    await expect(loadWebhookConfig(path)).rejects.toThrow(`webhook config ${path}: cannot read certificate-authority ${join(dir, "pki", "nope.crt")}: `);
    const broken = join(dir, "broken.yaml");
    await writeFile(broken, "clusters: [\n");
    await expect(loadWebhookConfig(broken)).rejects.toThrow(`webhook config ${broken}: not valid YAML or JSON: `);
    await expect(loadWebhookConfig(join(dir, "absent.yaml"))).rejects.toThrow(`webhook config ${join(dir, "absent.yaml")}: cannot read it: `);
  });
});
