/**
 * Client configuration files end to end: a real `orch-apiserver` (static tokens for two users in
 * `system:masters`), reached by `clientFromConfig` of `@orch/node` with the admin kubeconfig it
 * wrote, with relative certificate files, with a `tokenFile` rewritten mid-test, with two files
 * merged through `KUBECONFIG`, and through an HTTP CONNECT proxy; kubectl reads the same files.
 * Bad files fail with errors naming the file and the entry.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientConfigError, type Client } from "@orch/client";
import { clientFromConfig, type ClientFromConfigOptions, type ConfiguredClient } from "@orch/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYAML, stringify as stringifyYAML } from "yaml";
import { startConnectProxy, type ConnectProxy } from "../packages/node/src/internal/connect-proxy.js";
import { adminTLS, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";

const users = {
  first: { token: "first-config-token-0123456789", name: "first-user" },
  second: { token: "second-config-token-0123456789", name: "second-user" },
};

let server: RunningAPIServer;
let dir: string;
let proxy: ConnectProxy;
let caData: string;
const opened: ConfiguredClient[] = [];
const kubectls: Kubectl[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-client-config-e2e-"));
  const lines = Object.values(users).map((u) => `${u.token},${u.name},uid-${u.name},"system:masters"`);
  await writeFile(join(dir, "tokens.csv"), lines.join("\n") + "\n");
  server = await startAPIServer({ flags: ["--token-auth-file", join(dir, "tokens.csv")] });
  proxy = await startConnectProxy();
  const written = parseYAML(await readFile(server.kubeconfigPath, "utf8")) as { clusters: { cluster: { "certificate-authority-data": string } }[] };
  caData = written.clusters[0]!.cluster["certificate-authority-data"];
});

afterAll(async () => {
  for (const c of opened) c.close();
  for (const k of kubectls) await k.close();
  await proxy?.close();
  expect(await server?.stop()).toBe(0);
  await rm(dir, { recursive: true, force: true });
});

async function connect(options: ClientFromConfigOptions): Promise<ConfiguredClient> {
  const configured = await clientFromConfig({ env: {}, ...options });
  opened.push(configured);
  return configured;
}

/** The username of a SelfSubjectReview. */
async function whoami(client: Client): Promise<string | undefined> {
  const review = await client.call<{ status?: { userInfo?: { username?: string } } }>({
    method: "POST",
    path: "/apis/authentication.orch.io/v1/selfsubjectreviews",
    body: { apiVersion: "authentication.orch.io/v1", kind: "SelfSubjectReview" },
  });
  return review.status?.userInfo?.username;
}

async function namespaceNames(client: Client): Promise<string[]> {
  const list = await client.call<{ items: { metadata: { name: string } }[] }>({ method: "GET", path: "/api/v1/namespaces" });
  return list.items.map((n) => n.metadata.name).sort();
}

/** `kubectl --kubeconfig <path> get namespaces -o name` succeeds and lists `default`. */
async function expectKubectlWorks(kubeconfigPath: string): Promise<void> {
  const kubectl = await kubectlFor({ kubeconfigPath });
  kubectls.push(kubectl);
  const res = await kubectl(["get", "namespaces", "-o", "name"]);
  expect(res.stderr).toBe("");
  expect(res.code).toBe(0);
  expect(res.stdout.split("\n")).toContain("namespace/default");
}

/** Writes a kubeconfig of one cluster, user and context into `into`; its path. */
async function writeConfig(
  into: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  await mkdir(into, { recursive: true });
  const path = join(into, "config");
  await writeFile(
    path,
    stringifyYAML({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "orch", cluster: { server: server.url, ...cluster } }],
      users: [{ name: "me", user }],
      contexts: [{ name: "orch", context: { cluster: "orch", user: "me" } }],
      "current-context": "orch",
      ...extra,
    }),
  );
  return path;
}

describe("clientFromConfig against orch-apiserver", () => {
  it("(a) connects with the admin kubeconfig the server wrote (inline certificate data), as kubectl does", async () => {
    const { client, namespace, config } = await connect({ kubeconfig: server.kubeconfigPath });
    expect(namespace).toBe("default");
    expect(config.cluster.certificateAuthority).toHaveProperty("pem");
    expect(await whoami(client)).toBe("admin");
    expect(await namespaceNames(client)).toContain("default");
    await expectKubectlWorks(server.kubeconfigPath);
  });

  it("(b) reads certificate-authority, client-certificate and client-key as paths relative to the file", async () => {
    const tls = await adminTLS(server.dataDir);
    const into = join(dir, "relative");
    await mkdir(join(into, "pki"), { recursive: true });
    await writeFile(join(into, "pki", "ca.crt"), tls.ca);
    await writeFile(join(into, "pki", "admin.crt"), tls.cert);
    await writeFile(join(into, "pki", "admin.key"), tls.key);
    const path = await writeConfig(into, { "certificate-authority": "pki/ca.crt" }, { "client-certificate": "pki/admin.crt", "client-key": "./pki/admin.key" });
    const { client, config } = await connect({ kubeconfig: path });
    expect(config.cluster.certificateAuthority).toEqual({ path: join(into, "pki", "ca.crt") });
    expect(await whoami(client)).toBe("admin");
    await expectKubectlWorks(path);
  });

  it("(c) re-reads a tokenFile rewritten mid-test: the next request after the check interval is the new user", async () => {
    const into = join(dir, "token-file");
    await mkdir(into, { recursive: true });
    await writeFile(join(into, "token"), `${users.first.token}\n`);
    const path = await writeConfig(into, { "certificate-authority-data": caData }, { tokenFile: "token" });
    let clock = 0;
    const { client } = await connect({ kubeconfig: path, now: () => clock });
    expect(await whoami(client)).toBe(users.first.name);
    await expectKubectlWorks(path);
    await writeFile(join(into, "token"), `${users.second.token}\n`);
    clock += 1_000;
    expect(await whoami(client)).toBe(users.second.name);
    await expectKubectlWorks(path);
  });

  it("(c') re-reads a tokenFile at once when the server answers 401, and retries with the new token", async () => {
    const into = join(dir, "token-file-401");
    await mkdir(into, { recursive: true });
    await writeFile(join(into, "token"), "not-a-known-token-0123456789");
    const path = await writeConfig(into, { "certificate-authority-data": caData }, { tokenFile: "token" });
    const { client } = await connect({ kubeconfig: path, now: () => 0 });
    await expect(whoami(client)).rejects.toMatchObject({ status: { code: 401 } });
    await writeFile(join(into, "token"), users.second.token);
    expect(await whoami(client)).toBe(users.second.name);
  });

  it("(d) merges two files listed in KUBECONFIG: first name and first current-context win, paths per file", async () => {
    const one = join(dir, "merge-one");
    const two = join(dir, "merge-two");
    await mkdir(one, { recursive: true });
    await mkdir(two, { recursive: true });
    await writeFile(join(one, "ca.crt"), (await adminTLS(server.dataDir)).ca);
    await writeFile(join(two, "token"), users.first.token);
    const first = join(one, "config");
    const second = join(two, "config");
    await writeFile(
      first,
      stringifyYAML({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "orch", cluster: { server: server.url, "certificate-authority": "ca.crt" } }],
        contexts: [{ name: "merged", context: { cluster: "orch", user: "token-user", namespace: "kube-system" } }],
        "current-context": "merged",
      }),
    );
    await writeFile(
      second,
      stringifyYAML({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "orch", cluster: { server: "https://127.0.0.1:1" } }],
        users: [{ name: "token-user", user: { tokenFile: "token" } }],
        contexts: [{ name: "other", context: { cluster: "orch" } }],
        "current-context": "other",
      }),
    );
    const { client, namespace, config } = await connect({ env: { KUBECONFIG: `${join(dir, "absent")}:${first}:${second}` } });
    expect(config.context).toMatchObject({ name: "merged", source: first });
    expect(config.cluster).toMatchObject({ server: server.url, source: first, certificateAuthority: { path: join(one, "ca.crt") } });
    expect(config.user).toMatchObject({ name: "token-user", source: second, auth: { type: "tokenFile", path: join(two, "token") } });
    expect(namespace).toBe("kube-system");
    expect(await whoami(client)).toBe(users.first.name);
  });

  it("(e) goes through the proxy-url with an HTTP CONNECT tunnel", async () => {
    const tls = await adminTLS(server.dataDir);
    const path = await writeConfig(
      join(dir, "proxied"),
      { "certificate-authority-data": caData, "proxy-url": proxy.url },
      { "client-certificate-data": Buffer.from(tls.cert).toString("base64"), "client-key-data": Buffer.from(tls.key).toString("base64") },
    );
    const before = proxy.connects.length;
    const { client } = await connect({ kubeconfig: path });
    expect(await namespaceNames(client)).toContain("default");
    expect(proxy.connects.slice(before)).toEqual([new URL(server.url).host]);
  });
});

describe("clientFromConfig with a bad file", () => {
  async function errorOf(options: ClientFromConfigOptions): Promise<ClientConfigError> {
    const error = await clientFromConfig({ env: {}, ...options }).then(
      (c) => (c.close(), undefined),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ClientConfigError);
    return error as ClientConfigError;
  }

  it("names the file that is not YAML", async () => {
    const path = join(dir, "not-yaml");
    await writeFile(path, "clusters: [{name: x\n");
    const error = await errorOf({ kubeconfig: path });
    expect(error.message).toMatch(new RegExp(`^${path}: not valid YAML or JSON`));
    expect(error.file).toBe(path);
  });

  it("names the file and the context that is missing", async () => {
    const error = await errorOf({ kubeconfig: server.kubeconfigPath, context: "staging" });
    expect(error.message).toBe(`context "staging" in ${server.kubeconfigPath}: is not defined`);
  });

  it("names the missing CA file, the cluster pointing at it and its file", async () => {
    const path = await writeConfig(join(dir, "missing-ca"), { "certificate-authority": "gone/ca.crt" }, { token: users.first.token });
    const error = await errorOf({ kubeconfig: path });
    expect(error.message).toMatch(
      new RegExp(`^cluster "orch" in ${path}: cannot read certificate-authority ${join(dir, "missing-ca", "gone", "ca.crt")}: ENOENT`),
    );
    expect(error.entry).toBe('cluster "orch"');
  });
});
