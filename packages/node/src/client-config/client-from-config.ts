/**
 * {@link transportFromConfig} and {@link clientFromConfig}: a resolved client configuration
 * turned into a working HTTP transport and `Client`: TLS through {@link httpsFetch}, the
 * proxy, and the user's credentials through a `CredentialSource`.
 * @module
 */
import {
  Client,
  ClientConfigError,
  entryName,
  execClusterExtensionName,
  httpTransport,
  staticCredentialSource,
  type ClientCertificate,
  type ClientOptions,
  type ContextEntry,
  type CredentialSource,
  type ResolvedClientConfig,
  type ResolvedCluster,
  type ResolvedUser,
  type Transport,
} from "@orch/client";
import { execCredentialSource } from "../credentials/exec-plugin.js";
import { oidcCredentialSource } from "../credentials/oidc-provider.js";
import { httpsFetch, type HTTPSFetch, type HTTPSFetchOptions } from "../https-fetch.js";
import { persistAuthProviderConfig } from "./persist-auth-provider-config.js";
import { loadClientConfig, type LoadClientConfigOptions } from "./load-client-config.js";
import { readPEM } from "./read-pem.js";
import { tokenFileCredentialSource } from "./token-file-source.js";

/**
 * Builds the credential source of a user (return undefined to keep the default): the hook
 * through which `exec` plugins and `auth-provider`s are plugged in.
 */
export type CredentialSourceFor = (user: ResolvedUser, cluster: ResolvedCluster, context: ContextEntry) => CredentialSource | undefined;

/** Options of {@link transportFromConfig}. */
export interface TransportFromConfigOptions {
  /**
   * Asked first for every user; when it returns undefined the default applies: a static
   * token or basic credentials, a token file re-read when it changes, the `exec` credential
   * plugin ({@link execCredentialSource}), the `oidc` auth provider ({@link oidcCredentialSource},
   * which writes refreshed tokens back to the user's file), no credentials for a user without any.
   */
  credentialSourceFor?: CredentialSourceFor;
  /**
   * The product domain of the server: the `ExecCredential` group is `client.authentication.<domain>`;
   * `orch.io` by default ({@link clientFromConfig} passes the client's `domain`).
   */
  domain?: string;
  /** The clock of token file checks, in milliseconds (`Date.now` by default). */
  now?: () => number;
}

/** A transport and what it holds open. */
export interface ConfiguredTransport {
  /** The HTTP transport to the context's server. */
  transport: Transport;
  /** Closes its connections; requests in flight fail. */
  close(): void;
}

/** How many distinct client certificates from a credential source keep their own connections. */
const certificateFetches = 2;

/**
 * The HTTP transport of a resolved configuration: reads the CA and the client certificate
 * and key (files or inline), connects through `proxy-url` when set (HTTP CONNECT), and
 * sends the user's credentials. A client certificate a credential source hands out gets
 * connections of its own (the last two distinct certificates are kept).
 *
 * @throws `ClientConfigError` (of `@orch/client`) naming the entry and the file when a CA, certificate or
 *   key file cannot be read, the proxy is not `http://`, or the user is an `exec` or
 *   `auth-provider` user and `credentialSourceFor` gives no source for it.
 */
export async function transportFromConfig(resolved: ResolvedClientConfig, options: TransportFromConfigOptions = {}): Promise<ConfiguredTransport> {
  const { cluster, user, context } = resolved;
  const clusterAt = { file: cluster.source, entry: entryName("cluster", cluster.name) };
  const userAt = user.name === undefined ? {} : { file: user.source ?? "", entry: entryName("user", user.name) };
  const tls: HTTPSFetchOptions = {};
  if (cluster.certificateAuthority !== undefined) tls.ca = await readPEM(cluster.certificateAuthority, clusterAt, "certificate-authority");
  if (cluster.insecureSkipTLSVerify) tls.insecureSkipTLSVerify = true;
  if (cluster.tlsServerName !== undefined) tls.servername = cluster.tlsServerName;
  if (cluster.proxyURL !== undefined) {
    if (new URL(cluster.proxyURL).protocol !== "http:")
      throw new ClientConfigError(clusterAt, `proxy-url ${cluster.proxyURL}: only http:// proxies are supported`);
    tls.proxy = cluster.proxyURL;
  }
  const base = { ...tls };
  if (user.clientCertificate !== undefined) {
    base.cert = await readPEM(user.clientCertificate.certificate, userAt, "client-certificate");
    base.key = await readPEM(user.clientCertificate.key, userAt, "client-key");
  }
  const credentials =
    options.credentialSourceFor?.(user, cluster, context) ?? defaultSource(resolved, userAt, { ...options, ...(tls.ca === undefined ? {} : { ca: tls.ca }) });

  const baseFetch = httpsFetch(base);
  const byCertificate = new Map<string, HTTPSFetch>();
  const fetchFor = (certificate: ClientCertificate | undefined): typeof fetch => {
    if (certificate === undefined) return baseFetch;
    const key = `${certificate.certificate}\0${certificate.key}`;
    let found = byCertificate.get(key);
    if (found !== undefined) {
      // Most recently used last, so the oldest is evicted first.
      byCertificate.delete(key);
      byCertificate.set(key, found);
      return found;
    }
    found = httpsFetch({ ...tls, cert: certificate.certificate, key: certificate.key });
    byCertificate.set(key, found);
    for (const [oldKey, old] of byCertificate) {
      if (byCertificate.size <= certificateFetches) break;
      byCertificate.delete(oldKey);
      old.close();
    }
    return found;
  };
  const transport = httpTransport(credentials === undefined ? { baseURL: cluster.server, fetchFor } : { baseURL: cluster.server, fetchFor, credentials });
  return {
    transport,
    close: () => {
      baseFetch.close();
      for (const f of byCertificate.values()) f.close();
      byCertificate.clear();
    },
  };
}

/** The credential source of a user without a hook. */
function defaultSource(
  { user, cluster }: ResolvedClientConfig,
  at: { file?: string; entry?: string },
  options: TransportFromConfigOptions & { ca?: string },
): CredentialSource | undefined {
  const auth = user.auth;
  const configFile = user.source;
  switch (auth.type) {
    case "none":
      return undefined;
    case "token":
      return staticCredentialSource({ token: auth.token });
    case "basic":
      return staticCredentialSource({ basic: { username: auth.username, password: auth.password } });
    case "tokenFile":
      return tokenFileCredentialSource(options.now === undefined ? { path: auth.path, origin: at } : { path: auth.path, origin: at, now: options.now });
    case "exec": {
      const domain = options.domain ?? "orch.io";
      const extension = cluster.extensions.find((e) => e.name === execClusterExtensionName(domain));
      return execCredentialSource({
        exec: auth.exec,
        userName: user.name ?? "",
        domain,
        cluster: {
          server: cluster.server,
          ...(options.ca === undefined ? {} : { certificateAuthorityData: Buffer.from(options.ca).toString("base64") }),
          ...(extension === undefined ? {} : { config: extension.extension }),
        },
        ...(configFile === undefined ? {} : { configFile }),
        ...(options.now === undefined ? {} : { now: options.now }),
      });
    }
    case "authProvider": {
      const { name, config } = auth.authProvider;
      if (name !== "oidc") throw new ClientConfigError(at, `auth-provider ${JSON.stringify(name)} is not supported (only "oidc" is)`);
      const userName = user.name ?? "";
      return oidcCredentialSource({
        config,
        userName,
        ...(configFile === undefined ? {} : { configFile, persist: (next: Record<string, string>) => persistAuthProviderConfig(configFile, userName, next) }),
        ...(options.now === undefined ? {} : { now: options.now }),
      });
    }
  }
}

/** Options of {@link clientFromConfig}. */
export interface ClientFromConfigOptions extends LoadClientConfigOptions, TransportFromConfigOptions {
  /** A configuration already resolved (e.g. {@link inClusterConfig}'s) instead of loading files. */
  config?: ResolvedClientConfig;
  /** Options of the `Client` besides its transport: `domain`, `userAgent`, `onWarning`. */
  client?: Omit<ClientOptions, "transport">;
}

/** What {@link clientFromConfig} gives. */
export interface ConfiguredClient {
  /** The client, over HTTP to the context's server. */
  client: Client;
  /** The context's namespace (`default` when it names none): what namespaced calls default to. */
  namespace: string;
  /** The resolved configuration it was built from. */
  config: ResolvedClientConfig;
  /** Closes its connections. */
  close(): void;
}

/**
 * A ready `Client` from client configuration files, as kubectl would connect: loads them
 * ({@link loadClientConfig}: `kubeconfig`, else `KUBECONFIG`, else `~/.kube/config`), or
 * takes `config`, and builds the transport ({@link transportFromConfig}).
 *
 * @throws `ClientConfigError` (of `@orch/client`) naming the file and entry at fault (see both functions).
 *
 * @example
 * ```ts
 * const { client, namespace, close } = await clientFromConfig({ context: "prod" });
 * const pods = await client.configMaps.list({ namespace });
 * close();
 * ```
 */
export async function clientFromConfig(options: ClientFromConfigOptions = {}): Promise<ConfiguredClient> {
  const config = options.config ?? (await loadClientConfig(options)).resolved;
  const domain = options.domain ?? options.client?.domain;
  const { transport, close } = await transportFromConfig(config, domain === undefined ? options : { ...options, domain });
  const client = new Client({ ...options.client, ...(domain === undefined ? {} : { domain }), transport });
  return { client, namespace: config.namespace, config, close };
}
