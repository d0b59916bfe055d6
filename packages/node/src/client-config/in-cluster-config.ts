/**
 * {@link inClusterConfig}: the configuration of a client running in a pod, from the service
 * environment variables and the mounted service account directory.
 * @module
 */
import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ClientConfigError, type ResolvedClientConfig } from "@orch/client";

/** The service account directories looked at, in order, when none is given. */
export const serviceAccountDirectories: readonly string[] = ["/var/run/secrets/kubernetes.io/serviceaccount", "/var/run/secrets/orch.io/serviceaccount"];

/** Options of {@link inClusterConfig}. */
export interface InClusterConfigOptions {
  /** The environment; `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The service account directory (`token`, `ca.crt`, `namespace`); the first of {@link serviceAccountDirectories} with a token by default. */
  directory?: string;
}

/**
 * The in-cluster configuration, as the reference clients build it: the server is
 * `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT` (or the `ORCH_SERVICE_*` pair),
 * the user's token is the directory's `token` file (re-read when it changes: the kubelet
 * rotates it), the CA its `ca.crt` when present, the namespace its `namespace` (else `default`).
 *
 * @throws `ClientConfigError` (of `@orch/client`) when the variables are not set or no token file exists.
 */
export async function inClusterConfig(options: InClusterConfigOptions = {}): Promise<ResolvedClientConfig> {
  const env = options.env ?? process.env;
  const prefix =
    env["KUBERNETES_SERVICE_HOST"] && env["KUBERNETES_SERVICE_PORT"] ? "KUBERNETES" : env["ORCH_SERVICE_HOST"] && env["ORCH_SERVICE_PORT"] ? "ORCH" : undefined;
  if (prefix === undefined)
    throw new ClientConfigError(
      {},
      "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT (or ORCH_SERVICE_HOST and ORCH_SERVICE_PORT) are not set",
    );
  const host = env[`${prefix}_SERVICE_HOST`]!;
  const port = env[`${prefix}_SERVICE_PORT`]!;
  const candidates =
    options.directory !== undefined ? [options.directory] : prefix === "ORCH" ? [...serviceAccountDirectories].reverse() : serviceAccountDirectories;
  let directory: string | undefined;
  for (const candidate of candidates) {
    if (await exists(join(candidate, "token"))) {
      directory = candidate;
      break;
    }
  }
  if (directory === undefined)
    throw new ClientConfigError({ file: candidates.map((d) => join(d, "token")).join(", ") }, "not running in a cluster: no service account token file exists");
  const ca = join(directory, "ca.crt");
  const namespace = (await readFile(join(directory, "namespace"), "utf8").catch(() => "")).trim();
  const source = directory;
  const resolved: ResolvedClientConfig = {
    context: { name: "in-cluster", source, cluster: "in-cluster", user: "service-account" },
    cluster: { name: "in-cluster", source, server: `https://${host.includes(":") ? `[${host}]` : host}:${port}`, insecureSkipTLSVerify: false, extensions: [] },
    user: { name: "service-account", source, auth: { type: "tokenFile", path: join(directory, "token") } },
    namespace: namespace === "" ? "default" : namespace,
  };
  if (await exists(ca)) resolved.cluster.certificateAuthority = { path: ca };
  return resolved;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
