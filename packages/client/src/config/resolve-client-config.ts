/**
 * {@link resolveClientConfig}: the context in use of a {@link ClientConfig}, checked and
 * resolved into what a connection needs: the server, its TLS material, a proxy, the default
 * namespace and how the user authenticates.
 * @module
 */
import type { AuthProviderConfig, ExecConfig, ExecInteractiveMode } from "../credentials.js";
import { ClientConfigError, entryName } from "./client-config-error.js";
import type { ClientConfig, ClusterEntry, ContextEntry, EntryOrigin, NamedExtension, UserEntry } from "./client-config.js";

/** PEM material: inline (from a `*-data` field) or a file to read (an absolute or caller-relative path). */
export type PEMSource = { pem: string } | { path: string };

/**
 * How the user proves who it is, beyond a client certificate. When a user sets several, the
 * one kubectl uses wins: `token`, then `tokenFile`, then basic, then `exec` or `auth-provider`.
 */
export type ResolvedAuth =
  | { type: "none" }
  | { type: "token"; token: string }
  | { type: "tokenFile"; path: string }
  | { type: "basic"; username: string; password: string }
  | { type: "exec"; exec: ExecConfig }
  | { type: "authProvider"; authProvider: AuthProviderConfig };

/** The cluster of the context in use, checked. */
export interface ResolvedCluster extends EntryOrigin {
  /** The server URL with a scheme: `https://127.0.0.1:6443` (`https://` is added to a bare `host:port`). */
  server: string;
  /** The CA that verifies the server; absent for the runtime's root CAs. */
  certificateAuthority?: PEMSource;
  /** Skip verification of the server's certificate (never together with a CA). */
  insecureSkipTLSVerify: boolean;
  /** The name the server's certificate must carry, when it is not the URL's host. */
  tlsServerName?: string;
  /** An `http:`, `https:` or `socks5:` proxy URL. */
  proxyURL?: string;
  /** The cluster's extensions (an exec plugin may be handed `client.authentication.<domain>/exec`). */
  extensions: NamedExtension[];
}

/** The user of the context in use, checked; `name` and `source` are absent for a context without a user. */
export interface ResolvedUser extends Partial<EntryOrigin> {
  /** The client certificate and its key, presented in the TLS handshake. */
  clientCertificate?: { certificate: PEMSource; key: PEMSource };
  /** The credentials sent with each request. */
  auth: ResolvedAuth;
}

/** What {@link resolveClientConfig} gives: everything needed to connect as the context says. */
export interface ResolvedClientConfig {
  /** The context in use (name and file). */
  context: ContextEntry;
  /** Its cluster. */
  cluster: ResolvedCluster;
  /** Its user (`auth: { type: "none" }` for anonymous requests). */
  user: ResolvedUser;
  /** The context's namespace, `default` when it names none: what namespaced calls default to. */
  namespace: string;
}

/** Options of {@link resolveClientConfig}. */
export interface ResolveClientConfigOptions {
  /** The context to use (kubectl's `--context`); `current-context` by default. */
  context?: string;
}

const interactiveModes: readonly string[] = ["Never", "IfAvailable", "Always"] satisfies ExecInteractiveMode[];

/**
 * Selects a context (`options.context`, else `current-context`) and checks its cluster and
 * user the way kubectl does before it connects.
 *
 * @throws {@link ClientConfigError} naming the file and the entry, when no context is selected
 *   or it does not exist; its cluster is not named or not defined; its user is named but not
 *   defined; the cluster has no `server` (or one that is not an http(s) URL), a bad `proxy-url`,
 *   both `certificate-authority` and `certificate-authority-data`, or a CA together with
 *   `insecure-skip-tls-verify`; the user has a certificate without a key (or the reverse), a
 *   file and data for the same thing, a token together with a username or password, both
 *   `exec` and `auth-provider`, or an `exec` without `command` or `apiVersion`, with an unnamed
 *   env variable, or with a missing (in `.../v1`) or unknown `interactiveMode`.
 */
export function resolveClientConfig(config: ClientConfig, options: ResolveClientConfigOptions = {}): ResolvedClientConfig {
  const allFiles = config.files.length > 0 ? config.files.join(", ") : undefined;
  const name = options.context ?? config.currentContext?.name;
  if (name === undefined) throw new ClientConfigError(allFiles === undefined ? {} : { file: allFiles }, "no current-context is set and no context was given");
  const context = config.contexts.get(name);
  if (context === undefined) {
    const where =
      options.context === undefined && config.currentContext !== undefined
        ? { file: config.currentContext.source, entry: entryName("context", name) }
        : { file: allFiles ?? "no configuration file", entry: entryName("context", name) };
    throw new ClientConfigError(where, options.context === undefined ? "is the current-context, but no context of this name is defined" : "is not defined");
  }
  const at = { file: context.source, entry: entryName("context", context.name) };
  if (context.cluster === undefined) throw new ClientConfigError(at, "names no cluster");
  const clusterEntry = config.clusters.get(context.cluster);
  if (clusterEntry === undefined) throw new ClientConfigError(at, `cluster ${JSON.stringify(context.cluster)} is not defined`);
  let userEntry: UserEntry | undefined;
  if (context.user !== undefined) {
    userEntry = config.users.get(context.user);
    if (userEntry === undefined) throw new ClientConfigError(at, `user ${JSON.stringify(context.user)} is not defined`);
  }
  return {
    context,
    cluster: resolveCluster(clusterEntry),
    user: userEntry === undefined ? { auth: { type: "none" } } : resolveUser(userEntry),
    namespace: context.namespace ?? "default",
  };
}

function resolveCluster(entry: ClusterEntry): ResolvedCluster {
  const fail = (message: string): never => {
    throw new ClientConfigError({ file: entry.source, entry: entryName("cluster", entry.name) }, message);
  };
  if (entry.server === undefined) return fail("has no server");
  const server = entry.server.includes("://") ? entry.server : `https://${entry.server}`;
  const url = parseURL(server);
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:")) return fail(`server ${JSON.stringify(entry.server)} is not an http(s) URL`);
  const cluster: ResolvedCluster = {
    name: entry.name,
    source: entry.source,
    server,
    insecureSkipTLSVerify: entry.insecureSkipTLSVerify,
    extensions: entry.extensions,
  };
  const ca = pemSource(entry.certificateAuthority, entry.certificateAuthorityData, "certificate-authority", fail);
  if (ca !== undefined) {
    if (entry.insecureSkipTLSVerify) fail("a certificate authority together with insecure-skip-tls-verify is not allowed");
    cluster.certificateAuthority = ca;
  }
  if (entry.tlsServerName !== undefined) cluster.tlsServerName = entry.tlsServerName;
  if (entry.proxyURL !== undefined) {
    const proxy = parseURL(entry.proxyURL);
    if (proxy === undefined || !["http:", "https:", "socks5:"].includes(proxy.protocol) || proxy.hostname === "")
      fail(`proxy-url ${JSON.stringify(entry.proxyURL)} is not an http, https or socks5 URL`);
    cluster.proxyURL = entry.proxyURL;
  }
  return cluster;
}

function resolveUser(entry: UserEntry): ResolvedUser {
  const fail = (message: string): never => {
    throw new ClientConfigError({ file: entry.source, entry: entryName("user", entry.name) }, message);
  };
  const user: ResolvedUser = { name: entry.name, source: entry.source, auth: { type: "none" } };
  const certificate = pemSource(entry.clientCertificate, entry.clientCertificateData, "client-certificate", fail);
  const key = pemSource(entry.clientKey, entry.clientKeyData, "client-key", fail);
  if (certificate !== undefined && key === undefined) fail("client-certificate without client-key");
  if (key !== undefined && certificate === undefined) fail("client-key without client-certificate");
  if (certificate !== undefined && key !== undefined) user.clientCertificate = { certificate, key };

  const hasToken = entry.token !== undefined || entry.tokenFile !== undefined;
  const hasBasic = entry.username !== undefined || entry.password !== undefined;
  if (hasToken && hasBasic) fail("a token and a username or password may not both be set");
  if (entry.exec !== undefined && entry.authProvider !== undefined) fail("exec and auth-provider may not both be set");
  const exec = entry.exec === undefined ? undefined : execConfig(entry.exec, fail);

  // kubectl's order: a token (a static one before a file), basic, then a plugin or provider.
  if (entry.token !== undefined) user.auth = { type: "token", token: entry.token };
  else if (entry.tokenFile !== undefined) user.auth = { type: "tokenFile", path: entry.tokenFile };
  else if (hasBasic) user.auth = { type: "basic", username: entry.username ?? "", password: entry.password ?? "" };
  else if (exec !== undefined) user.auth = { type: "exec", exec };
  else if (entry.authProvider !== undefined)
    user.auth = { type: "authProvider", authProvider: { name: entry.authProvider.name, config: { ...entry.authProvider.config } } };
  return user;
}

function execConfig(entry: NonNullable<UserEntry["exec"]>, fail: (message: string) => never): ExecConfig {
  if (entry.command === undefined) fail("exec: command is required");
  if (entry.apiVersion === undefined) fail("exec: apiVersion is required");
  if (entry.env.some((v) => v.name === "")) fail("exec: every env variable needs a name");
  const command = entry.command as string;
  const apiVersion = entry.apiVersion as string;
  let interactiveMode = entry.interactiveMode;
  if (interactiveMode === undefined) {
    if (apiVersion.endsWith("/v1")) fail(`exec: interactiveMode is required with apiVersion ${apiVersion} (Never, IfAvailable or Always)`);
    interactiveMode = "IfAvailable";
  } else if (!interactiveModes.includes(interactiveMode)) {
    fail(`exec: interactiveMode ${JSON.stringify(interactiveMode)} is not Never, IfAvailable or Always`);
  }
  const exec: ExecConfig = {
    command,
    args: [...entry.args],
    env: entry.env.map((v) => ({ ...v })),
    apiVersion,
    provideClusterInfo: entry.provideClusterInfo,
    interactiveMode: interactiveMode as ExecInteractiveMode,
  };
  if (entry.installHint !== undefined) exec.installHint = entry.installHint;
  return exec;
}

/** A file or data, not both. */
function pemSource(path: string | undefined, pem: string | undefined, field: string, fail: (message: string) => never): PEMSource | undefined {
  if (path !== undefined && pem !== undefined) return fail(`both ${field} and ${field}-data are set`);
  if (path !== undefined) return { path };
  if (pem !== undefined) return { pem };
  return undefined;
}

function parseURL(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
