/**
 * {@link parseClientConfig}: one client configuration file (YAML or JSON) into its typed entries.
 * @module
 */
import { parseDocument } from "yaml";
import { posixDirname, posixResolve } from "../internal/posix-path.js";
import { ClientConfigError, entryName } from "./client-config-error.js";
import type { ClientConfig, ClusterEntry, ContextEntry, ExecEntry, NamedExtension, UserEntry } from "./client-config.js";

/** Options of {@link parseClientConfig}. */
export interface ParseClientConfigOptions {
  /**
   * The directory relative paths of the file resolve against (`certificate-authority`,
   * `client-certificate`, `client-key`, `tokenFile`, an `exec` command with a `/`); by default
   * the directory part of `file`. Pass an absolute one for absolute results.
   */
  directory?: string;
}

type Fields = Record<string, unknown>;
type Fail = (entry: string | undefined, message: string) => never;

/**
 * Parses the text of one client configuration file into a {@link ClientConfig} of one file.
 * `file` is the path the caller read it from: every entry remembers it and every error names it.
 *
 * Follows kubectl: an empty file is an empty configuration; `apiVersion` and `kind` may be
 * absent, and when present must be `v1` and `Config`; within one file a later entry of a name
 * replaces an earlier one. Relative paths come back resolved against the file's directory and
 * `*-data` fields come back decoded (PEM text). Consistency (a certificate without its key, a
 * missing server, ...) is checked only for the context in use, by {@link resolveClientConfig}.
 *
 * @throws {@link ClientConfigError} when the text is not YAML or JSON, is not a `Config`, or a
 *   field has the wrong type (`insecure-skip-tls-verify: "yes"`, base64 that is not PEM, ...).
 */
export function parseClientConfig(text: string, file: string, options: ParseClientConfigOptions = {}): ClientConfig {
  const directory = options.directory ?? posixDirname(file);
  const fail: Fail = (entry, message) => {
    throw entry === undefined ? new ClientConfigError({ file }, message) : new ClientConfigError({ file, entry }, message);
  };
  const doc = parseDocument(text, { prettyErrors: false });
  const parseError = doc.errors[0];
  if (parseError !== undefined) fail(undefined, `not valid YAML or JSON: ${parseError.message}`);
  let root: unknown;
  try {
    root = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    fail(undefined, `not valid YAML or JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const empty: ClientConfig = { files: [file], clusters: new Map(), users: new Map(), contexts: new Map() };
  if (root === undefined || root === null) return empty;
  if (!isFields(root)) return fail(undefined, "not a Config: the top level is not a mapping");
  const kind = root["kind"];
  if (kind !== undefined && kind !== null && kind !== "" && kind !== "Config") fail(undefined, `not a Config: kind is ${JSON.stringify(kind)}`);
  const apiVersion = root["apiVersion"];
  if (apiVersion !== undefined && apiVersion !== null && apiVersion !== "" && apiVersion !== "v1")
    fail(undefined, `not a Config: apiVersion is ${JSON.stringify(apiVersion)}, not "v1"`);

  const path = (value: string | undefined): string | undefined => (value === undefined ? undefined : posixResolve(directory, value));
  const clusters = new Map<string, ClusterEntry>();
  for (const { name, body } of namedList(root, "clusters", "cluster", fail)) {
    const at = entryName("cluster", name);
    const s = (key: string) => optionalString(body, key, at, fail);
    const cluster: ClusterEntry = {
      name,
      source: file,
      insecureSkipTLSVerify: optionalBoolean(body, "insecure-skip-tls-verify", at, fail),
      extensions: extensions(body, at, fail),
    };
    assign(cluster, "server", s("server"));
    assign(cluster, "certificateAuthority", path(s("certificate-authority")));
    assign(cluster, "certificateAuthorityData", pemData(body, "certificate-authority-data", at, fail));
    assign(cluster, "tlsServerName", s("tls-server-name"));
    assign(cluster, "proxyURL", s("proxy-url"));
    clusters.set(name, cluster);
  }

  const users = new Map<string, UserEntry>();
  for (const { name, body } of namedList(root, "users", "user", fail)) {
    const at = entryName("user", name);
    const s = (key: string) => optionalString(body, key, at, fail);
    const user: UserEntry = { name, source: file };
    assign(user, "token", s("token"));
    assign(user, "tokenFile", path(s("tokenFile")));
    assign(user, "username", s("username"));
    assign(user, "password", s("password"));
    assign(user, "clientCertificate", path(s("client-certificate")));
    assign(user, "clientCertificateData", pemData(body, "client-certificate-data", at, fail));
    assign(user, "clientKey", path(s("client-key")));
    assign(user, "clientKeyData", pemData(body, "client-key-data", at, fail));
    assign(user, "exec", execEntry(body["exec"], directory, at, fail));
    assign(user, "authProvider", authProvider(body["auth-provider"], at, fail));
    users.set(name, user);
  }

  const contexts = new Map<string, ContextEntry>();
  for (const { name, body } of namedList(root, "contexts", "context", fail)) {
    const at = entryName("context", name);
    const context: ContextEntry = { name, source: file };
    assign(context, "cluster", optionalString(body, "cluster", at, fail));
    assign(context, "user", optionalString(body, "user", at, fail));
    assign(context, "namespace", optionalString(body, "namespace", at, fail));
    contexts.set(name, context);
  }

  const config: ClientConfig = { files: [file], clusters, users, contexts };
  const current = optionalString(root, "current-context", undefined, fail);
  if (current !== undefined) config.currentContext = { name: current, source: file };
  return config;
}

/** Sets `target[key]` only when `value` is defined (optional properties are exact). */
function assign<T, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

/** The items of `clusters`, `users` or `contexts`: each a name and the body under `field`. */
function namedList(root: Fields, list: string, field: string, fail: Fail): { name: string; body: Fields }[] {
  const value = root[list];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(undefined, `${list} is not a list`);
  return value.map((item: unknown, i) => {
    if (!isFields(item)) return fail(undefined, `${list}[${i}] is not a mapping`);
    const name = item["name"];
    if (typeof name !== "string" || name === "") return fail(undefined, `${list}[${i}] has no name`);
    const body = item[field] ?? {};
    if (!isFields(body)) return fail(entryName(field as "cluster", name), `${field} is not a mapping`);
    return { name, body };
  });
}

/** A string field; `undefined` when absent, null or empty. */
function optionalString(fields: Fields, key: string, at: string | undefined, fail: Fail): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") return fail(at, `${key} is not a string`);
  return value;
}

function optionalBoolean(fields: Fields, key: string, at: string, fail: Fail): boolean {
  const value = fields[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") return fail(at, `${key} is not a boolean`);
  return value;
}

function stringList(value: unknown, what: string, at: string, fail: Fail): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === "string")) return fail(at, `${what} is not a list of strings`);
  return value;
}

/** `extensions`: a list of `{name, extension}`. */
function extensions(body: Fields, at: string, fail: Fail): NamedExtension[] {
  const value = body["extensions"];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(at, "extensions is not a list");
  return value.map((item: unknown, i) => {
    if (!isFields(item) || typeof item["name"] !== "string" || item["name"] === "") return fail(at, `extensions[${i}] has no name`);
    return { name: item["name"], extension: item["extension"] ?? null };
  });
}

/** A `*-data` field: base64 that decodes to PEM text. */
function pemData(body: Fields, key: string, at: string, fail: Fail): string | undefined {
  const value = optionalString(body, key, at, fail);
  if (value === undefined) return undefined;
  let binary: string;
  try {
    binary = atob(value.replace(/\s+/g, ""));
  } catch {
    return fail(at, `${key} is not valid base64`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return fail(at, `${key} does not decode to PEM text`);
  }
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) fail(at, `${key} does not decode to PEM text`);
  return text;
}

/** `exec` as written; only types are checked here. */
function execEntry(value: unknown, directory: string, at: string, fail: Fail): ExecEntry | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isFields(value)) return fail(at, "exec is not a mapping");
  const s = (key: string) => optionalString(value, key, at, (entry, message) => fail(entry, `exec: ${message}`));
  const env = value["env"];
  if (env !== undefined && env !== null && !Array.isArray(env)) fail(at, "exec: env is not a list");
  const exec: ExecEntry = {
    args: stringList(value["args"], "exec: args", at, fail),
    env: ((env ?? []) as unknown[]).map((item, i) => {
      if (!isFields(item)) return fail(at, `exec: env[${i}] is not a mapping`);
      const name = item["name"] ?? "";
      const v = item["value"] ?? "";
      if (typeof name !== "string" || typeof v !== "string") return fail(at, `exec: env[${i}] name and value must be strings`);
      return { name, value: v };
    }),
    provideClusterInfo: optionalBoolean(value, "provideClusterInfo", at, (entry, message) => fail(entry, `exec: ${message}`)),
  };
  const command = s("command");
  // kubectl resolves a command only when it is a path (has a separator), not a name looked up in PATH.
  assign(exec, "command", command !== undefined && command.includes("/") ? posixResolve(directory, command) : command);
  assign(exec, "apiVersion", s("apiVersion"));
  assign(exec, "installHint", s("installHint"));
  assign(exec, "interactiveMode", s("interactiveMode"));
  return exec;
}

/** `auth-provider`: a name and a string-to-string config. */
function authProvider(value: unknown, at: string, fail: Fail): UserEntry["authProvider"] {
  if (value === undefined || value === null) return undefined;
  if (!isFields(value)) return fail(at, "auth-provider is not a mapping");
  const name = optionalString(value, "name", at, (entry, message) => fail(entry, `auth-provider: ${message}`));
  if (name === undefined) return fail(at, "auth-provider has no name");
  const config: Record<string, string> = {};
  const raw = value["config"];
  if (raw !== undefined && raw !== null) {
    if (!isFields(raw)) return fail(at, "auth-provider: config is not a mapping");
    for (const [k, v] of Object.entries(raw)) {
      if (typeof v !== "string") return fail(at, `auth-provider: config.${k} is not a string`);
      config[k] = v;
    }
  }
  return { name, config };
}

function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
