/**
 * The admin kubeconfig `orch-apiserver` writes, so kubectl and the official clients connect at
 * once: `kubectl --kubeconfig .orch/kubeconfig get namespaces`.
 * @module
 */
import { chmod, writeFile } from "node:fs/promises";
import { stringify } from "yaml";

/** What a kubeconfig needs to reach the server as the admin. */
export interface KubeconfigInput {
  /** The server URL, `https://127.0.0.1:6443`. */
  server: string;
  /** The CA that signed the serving certificate, PEM. */
  caCert: string;
  /** The client certificate, PEM. */
  clientCert: string;
  /** The client key, PEM. */
  clientKey: string;
  /** Name of the cluster and the context (`orch`). */
  name?: string;
  /** Name of the user entry (`admin`). */
  user?: string;
}

const base64 = (pem: string) => Buffer.from(pem).toString("base64");

/**
 * The kubeconfig document (a `Config` of apiVersion `v1`): one cluster, one user with inline
 * certificate data, one context, selected as `current-context`.
 */
export function kubeconfig(input: KubeconfigInput): Record<string, unknown> {
  const name = input.name ?? "orch";
  const user = input.user ?? "admin";
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: input.server, "certificate-authority-data": base64(input.caCert) } }],
    users: [{ name: user, user: { "client-certificate-data": base64(input.clientCert), "client-key-data": base64(input.clientKey) } }],
    contexts: [{ name, context: { cluster: name, user } }],
    "current-context": name,
    preferences: {},
  };
}

/** Writes {@link kubeconfig} as YAML to `path` with mode 0600 (it holds a private key). */
export async function writeKubeconfig(path: string, input: KubeconfigInput): Promise<void> {
  await writeFile(path, stringify(kubeconfig(input), { lineWidth: 0 }), { mode: 0o600 });
  await chmod(path, 0o600);
}
