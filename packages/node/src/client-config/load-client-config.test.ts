import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientConfigError } from "@orch/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clientConfigPaths, loadClientConfig } from "./load-client-config.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-load-config-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const one = `
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: https://one, certificate-authority: ca.crt}}]
users: [{name: u, user: {token: one}}]
contexts: [{name: one, context: {cluster: c, user: u, namespace: team}}]
current-context: one
`;
const two = `
clusters: [{name: c, cluster: {server: https://two}}, {name: d, cluster: {server: https://d, certificate-authority: ca.crt}}]
users: [{name: v, user: {tokenFile: token}}]
contexts: [{name: two, context: {cluster: d, user: v}}]
current-context: two
`;

async function files(): Promise<{ a: string; b: string }> {
  await mkdir(join(dir, "a"));
  await mkdir(join(dir, "b"));
  await writeFile(join(dir, "a", "config"), one);
  await writeFile(join(dir, "b", "config"), two);
  return { a: join(dir, "a", "config"), b: join(dir, "b", "config") };
}

describe("clientConfigPaths", () => {
  it("prefers the kubeconfig option, then KUBECONFIG (colon-separated, deduplicated), then ~/.kube/config", () => {
    const env = { KUBECONFIG: "/x:/y::/x", HOME: "/home/me" };
    expect(clientConfigPaths({ kubeconfig: "/k", env })).toEqual([{ path: "/k", required: true }]);
    expect(clientConfigPaths({ env })).toEqual([
      { path: "/x", required: false },
      { path: "/y", required: false },
    ]);
    expect(clientConfigPaths({ env: { HOME: "/home/me" } })).toEqual([{ path: "/home/me/.kube/config", required: false }]);
  });
});

describe("loadClientConfig", () => {
  it("reads the --kubeconfig file and resolves its current context", async () => {
    const { a } = await files();
    const loaded = await loadClientConfig({ kubeconfig: a, env: {} });
    expect(loaded.files).toEqual([a]);
    expect(loaded.resolved.cluster.server).toBe("https://one");
    expect(loaded.resolved.cluster.certificateAuthority).toEqual({ path: join(dir, "a", "ca.crt") });
    expect(loaded.resolved.namespace).toBe("team");
    expect(loaded.resolved.user.auth).toEqual({ type: "token", token: "one" });
  });

  it("merges KUBECONFIG in order, skipping missing files, each entry's paths against its own file", async () => {
    const { a, b } = await files();
    const loaded = await loadClientConfig({ env: { KUBECONFIG: `${join(dir, "missing")}:${a}:${b}` }, context: "two" });
    expect(loaded.files).toEqual([a, b]);
    expect(loaded.config.clusters.get("c")?.server).toBe("https://one");
    expect(loaded.config.currentContext).toEqual({ name: "one", source: a });
    expect(loaded.resolved.cluster.certificateAuthority).toEqual({ path: join(dir, "b", "ca.crt") });
    expect(loaded.resolved.user.auth).toEqual({ type: "tokenFile", path: join(dir, "b", "token") });
  });

  it("reads ~/.kube/config when nothing else is given", async () => {
    await mkdir(join(dir, ".kube"));
    await writeFile(join(dir, ".kube", "config"), one);
    const loaded = await loadClientConfig({ env: { HOME: dir } });
    expect(loaded.files).toEqual([join(dir, ".kube", "config")]);
  });

  it("refuses an explicitly named file that is missing, naming it", async () => {
    const missing = join(dir, "nope");
    const error = await loadClientConfig({ kubeconfig: missing, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientConfigError);
    expect((error as Error).message).toMatch(new RegExp(`^${missing}: cannot read the configuration file: ENOENT`));
  });

  it("refuses when no file of KUBECONFIG exists", async () => {
    await expect(loadClientConfig({ env: { KUBECONFIG: join(dir, "x") } })).rejects.toThrow(`${join(dir, "x")}: no configuration file exists`);
  });

  it("refuses a file that is not YAML, naming it", async () => {
    await writeFile(join(dir, "bad"), "clusters: [unclosed");
    await expect(loadClientConfig({ kubeconfig: join(dir, "bad"), env: {} })).rejects.toThrow(`${join(dir, "bad")}: not valid YAML or JSON`);
  });
});
