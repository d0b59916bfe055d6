import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { ClientConfigError, parseClientConfig, resolveClientConfig, type CredentialSource, type ResolvedClientConfig } from "@orch/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConnectProxy, type ConnectProxy } from "../internal/connect-proxy.js";
import { clientCertificate, selfSignedCA, servingCertificate, type Issued } from "../internal/test-pki.js";
import { transportFromConfig } from "./client-from-config.js";

/** What the server saw of one request: the client certificate's CN and the Authorization header. */
interface Seen {
  cn: string | undefined;
  authorization: string | undefined;
}

let dir: string;
let ca: Issued;
let alice: Issued;
let bob: Issued;
let server: Server;
let url: string;
let proxy: ConnectProxy;
const seen: Seen[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-client-from-config-"));
  ca = await selfSignedCA("CN=test-ca");
  const serving = await servingCertificate(ca);
  [alice, bob] = await Promise.all([clientCertificate(ca, "CN=alice"), clientCertificate(ca, "CN=bob")]);
  await writeFile(join(dir, "ca.crt"), ca.cert);
  await writeFile(join(dir, "alice.crt"), alice.cert);
  await writeFile(join(dir, "alice.key"), alice.key);
  server = createServer({ cert: serving.cert, key: serving.key, ca: ca.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const cn = peer && typeof peer.subject?.CN === "string" ? peer.subject.CN : undefined;
    seen.push({ cn, authorization: req.headers.authorization });
    const ok = cn !== undefined || req.headers.authorization === "Bearer good";
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
    res.end(JSON.stringify({ cn: cn ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy = await startConnectProxy();
});

afterAll(async () => {
  await proxy?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await rm(dir, { recursive: true, force: true });
});

function configOf(cluster: string, user: string): ResolvedClientConfig {
  const text = `
clusters: [{name: c, cluster: ${cluster}}]
users: [{name: u, user: ${user}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x`;
  return resolveClientConfig(parseClientConfig(text, join(dir, "config")));
}

async function get(config: ResolvedClientConfig, options: Parameters<typeof transportFromConfig>[1] = {}): Promise<{ status: number; body: string }> {
  const { transport, close } = await transportFromConfig(config, options);
  try {
    const res = await transport.request({ method: "GET", path: "/api" });
    return { status: res.status, body: await res.text() };
  } finally {
    close();
  }
}

describe("transportFromConfig", () => {
  it("trusts the CA file and presents the client certificate files, relative to the config file", async () => {
    seen.length = 0;
    const res = await get(configOf(`{server: "${url}", certificate-authority: ca.crt}`, "{client-certificate: alice.crt, client-key: alice.key}"));
    expect(res).toEqual({ status: 200, body: JSON.stringify({ cn: "alice" }) });
    expect(seen).toEqual([{ cn: "alice", authorization: undefined }]);
  });

  it("sends a static token, with inline CA data", async () => {
    seen.length = 0;
    const caData = Buffer.from(ca.cert).toString("base64");
    expect((await get(configOf(`{server: "${url}", certificate-authority-data: ${caData}}`, "{token: good}"))).status).toBe(200);
    expect(seen).toEqual([{ cn: undefined, authorization: "Bearer good" }]);
  });

  it("connects through an http:// proxy-url with an HTTP CONNECT tunnel, TLS end to end", async () => {
    const before = proxy.connects.length;
    const res = await get(
      configOf(`{server: "${url}", certificate-authority: ca.crt, proxy-url: "${proxy.url}"}`, "{client-certificate: alice.crt, client-key: alice.key}"),
    );
    expect(res.status).toBe(200);
    expect(proxy.connects.slice(before)).toEqual([new URL(url).host]);
  });

  it("presents the client certificate a credential source hands out, on connections of its own", async () => {
    seen.length = 0;
    let current = alice;
    const source: CredentialSource = { credentials: () => Promise.resolve({ clientCertificate: { certificate: current.cert, key: current.key } }) };
    const { transport, close } = await transportFromConfig(
      configOf(`{server: "${url}", certificate-authority: ca.crt}`, "{exec: {command: x, apiVersion: v}}"),
      {
        credentialSourceFor: () => source,
      },
    );
    try {
      await (await transport.request({ method: "GET", path: "/" })).text();
      current = bob;
      await (await transport.request({ method: "GET", path: "/" })).text();
      current = alice;
      await (await transport.request({ method: "GET", path: "/" })).text();
    } finally {
      close();
    }
    expect(seen.map((s) => s.cn)).toEqual(["alice", "bob", "alice"]);
  });

  it("hands the hook the resolved user, cluster and context", async () => {
    const config = configOf(`{server: "${url}", certificate-authority: ca.crt}`, "{token: good}");
    const calls: unknown[] = [];
    await get(config, { credentialSourceFor: (user, cluster, context) => (calls.push([user.name, cluster.name, context.name]), undefined) });
    expect(calls).toEqual([["u", "c", "x"]]);
  });

  it("refuses an auth-provider other than oidc, naming the user and the file", async () => {
    const file = join(dir, "config");
    await expect(transportFromConfig(configOf(`{server: "${url}"}`, "{auth-provider: {name: gcp}}"))).rejects.toThrow(
      `user "u" in ${file}: auth-provider "gcp" is not supported (only "oidc" is)`,
    );
  });

  it("refuses a CA or key file that is missing, naming the file and the entry pointing at it", async () => {
    const file = join(dir, "config");
    const error = await transportFromConfig(configOf(`{server: "${url}", certificate-authority: nope.crt}`, "{token: t}")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientConfigError);
    expect((error as Error).message).toMatch(new RegExp(`^cluster "c" in ${file}: cannot read certificate-authority ${join(dir, "nope.crt")}: ENOENT`));
    await expect(transportFromConfig(configOf(`{server: "${url}"}`, "{client-certificate: alice.crt, client-key: gone.key}"))).rejects.toThrow(
      `user "u" in ${file}: cannot read client-key ${join(dir, "gone.key")}`,
    );
  });

  it("refuses a proxy that is not http://", async () => {
    await expect(transportFromConfig(configOf(`{server: "${url}", proxy-url: "socks5://p:1080"}`, "{token: t}"))).rejects.toThrow(
      "only http:// proxies are supported",
    );
  });
});
