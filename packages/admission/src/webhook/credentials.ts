/**
 * The credentials the server presents to admission webhooks, per webhook host: the plugin
 * configuration is a WebhookAdmissionConfiguration naming a kubeconfig file whose `users`
 * entries are named after hosts (`<svc>.<ns>.svc[:port]`, `host[:port]`, `*.suffix`, `*`), or,
 * for embedders without files, the entries inline (`{ credentials: [...] }`). The lookup is the
 * reference's: the exact `host:port`, then `*.` wildcards longest first, then both again without
 * the port when it is 443, then `*`, then the user of the kubeconfig's current context.
 * @module
 */
import { parse } from "yaml";
import { record } from "../internal/json.js";

/** What the server presents to the webhooks of one host. */
export interface WebhookCredential {
  /** The host the entry is for (`hook.ns.svc`, `hooks.example.com:8443`, `*.example.com`, `*`). */
  name: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** With `password`, sent as `Authorization: Basic`. */
  username?: string;
  /** The password of `username`. */
  password?: string;
  /** PEM client certificate (chain) presented in the TLS handshake. */
  cert?: string;
  /** PEM key of `cert`. */
  key?: string;
}

/** The embedders' inline form of the webhook plugins' configuration. */
export interface WebhookCredentialsConfiguration {
  /** One entry per host (or wildcard); names are unique. */
  credentials: WebhookCredential[];
}

/** The credentials of the webhook plugins, looked up per host. */
export interface WebhookCredentials {
  /** The entry for a webhook reached at `url`; `undefined` when none applies. */
  forURL(url: string): WebhookCredential | undefined;
  /** The entry for a webhook behind the service `name` in `namespace` on `port`. */
  forService(name: string, namespace: string, port: number): WebhookCredential | undefined;
}

type Fail = (message: string) => never;

function optionalString(fields: Record<string, unknown>, key: string, at: string, fail: Fail): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") return fail(`${at}: ${key} is not a string`);
  return value;
}

/** Checks the combinations a credential may not have, as the reference's REST client refuses them. */
function checkCredential(credential: WebhookCredential, at: string, fail: Fail): WebhookCredential {
  if ((credential.cert === undefined) !== (credential.key === undefined)) fail(`${at}: a client certificate needs both the certificate and its key`);
  if (credential.token !== undefined && (credential.username !== undefined || credential.password !== undefined)) {
    fail(`${at}: username/password or bearer token may be set, but not both`);
  }
  return credential;
}

class Lookup implements WebhookCredentials {
  constructor(
    private readonly entries: ReadonlyMap<string, WebhookCredential>,
    private readonly fallback: WebhookCredential | undefined,
  ) {}

  forURL(url: string): WebhookCredential | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    return this.find(`${parsed.hostname}:${parsed.port || "443"}`);
  }

  forService(name: string, namespace: string, port: number): WebhookCredential | undefined {
    return this.find(`${name}.${namespace}.svc:${port}`);
  }

  private exactOrWildcard(target: string): WebhookCredential | undefined {
    const exact = this.entries.get(target);
    if (exact) return exact;
    const steps = target.split(".");
    for (let i = 1; i < steps.length; i++) {
      const wildcard = this.entries.get(`*.${steps.slice(i).join(".")}`);
      if (wildcard) return wildcard;
    }
    return undefined;
  }

  private find(hostPort: string): WebhookCredential | undefined {
    const found = this.exactOrWildcard(hostPort);
    if (found) return found;
    if (hostPort.endsWith(":443")) {
      const withoutPort = this.exactOrWildcard(hostPort.slice(0, -":443".length));
      if (withoutPort) return withoutPort;
    }
    return this.entries.get("*") ?? this.fallback;
  }
}

/** No credentials: every webhook is called anonymously. */
export const noWebhookCredentials: WebhookCredentials = new Lookup(new Map(), undefined);

function inlineCredentials(entries: unknown, fail: Fail): WebhookCredentials {
  if (!Array.isArray(entries)) return fail("credentials must be a list");
  const map = new Map<string, WebhookCredential>();
  entries.forEach((entry, i) => {
    const at = `credentials[${i}]`;
    const fields = record(entry) ?? fail(`${at} is not an object`);
    const name = optionalString(fields, "name", at, fail) ?? fail(`${at}: name is required`);
    const credential: WebhookCredential = { name };
    for (const key of ["token", "username", "password", "cert", "key"] as const) {
      const value = optionalString(fields, key, at, fail);
      if (value !== undefined) credential[key] = value;
    }
    if (map.has(name)) fail(`${at}: a second entry for ${JSON.stringify(name)}`);
    map.set(name, checkCredential(credential, at, fail));
  });
  return new Lookup(map, undefined);
}

/** Reads files a kubeconfig names: relative paths against the kubeconfig's directory. */
type ReadFile = (path: string) => string;

function relativeTo(file: string, path: string): string {
  if (path.startsWith("/")) return path;
  const slash = file.lastIndexOf("/");
  return slash < 0 ? path : `${file.slice(0, slash + 1)}${path}`;
}

function decodeData(value: string, at: string, fail: Fail): string {
  try {
    const binary = atob(value.replace(/\s+/g, ""));
    return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return fail(`${at} is not base64`);
  }
}

/** `<field>` (a file) or `<field>-data` (base64), at most one of them. */
function pem(user: Record<string, unknown>, field: string, at: string, file: string, readFile: ReadFile, fail: Fail): string | undefined {
  const path = optionalString(user, field, at, fail);
  const data = optionalString(user, `${field}-data`, at, fail);
  if (path !== undefined && data !== undefined) fail(`${at}: both ${field} and ${field}-data are set`);
  if (data !== undefined) return decodeData(data, `${at}: ${field}-data`, fail);
  if (path === undefined) return undefined;
  return readOrFail(readFile, relativeTo(file, path), `${at}: ${field}`, fail);
}

function readOrFail(readFile: ReadFile, path: string, what: string, fail: Fail): string {
  try {
    return readFile(path);
  } catch (error) {
    return fail(`${what}: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function kubeconfigUser(name: string, user: Record<string, unknown>, at: string, file: string, readFile: ReadFile, fail: Fail): WebhookCredential {
  for (const unsupported of ["exec", "auth-provider"]) {
    if (user[unsupported] !== undefined && user[unsupported] !== null) fail(`${at}: ${unsupported} is not supported for admission webhooks`);
  }
  const credential: WebhookCredential = { name };
  let token = optionalString(user, "token", at, fail);
  const tokenFile = optionalString(user, "tokenFile", at, fail);
  if (token === undefined && tokenFile !== undefined) token = readOrFail(readFile, relativeTo(file, tokenFile), `${at}: tokenFile`, fail).trim();
  if (token !== undefined) credential.token = token;
  const username = optionalString(user, "username", at, fail);
  const password = optionalString(user, "password", at, fail);
  if (username !== undefined) credential.username = username;
  if (password !== undefined) credential.password = password;
  const cert = pem(user, "client-certificate", at, file, readFile, fail);
  const key = pem(user, "client-key", at, file, readFile, fail);
  if (cert !== undefined) credential.cert = cert;
  if (key !== undefined) credential.key = key;
  return checkCredential(credential, at, fail);
}

/**
 * The credentials of a kubeconfig (`text`, YAML or JSON, read from `file`): one entry per
 * `users` item, files it names read through `readFile` relative to `file`'s directory.
 * @throws Error naming the file for text that is not a kubeconfig or a user that cannot be used.
 */
export function kubeconfigCredentials(text: string, file: string, readFile: ReadFile): WebhookCredentials {
  const fail: Fail = (message) => {
    throw new Error(`kubeconfig ${file}: ${message}`);
  };
  let root: unknown;
  try {
    root = parse(text);
  } catch (error) {
    return fail(`not valid YAML or JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const config = record(root) ?? fail("not a kubeconfig: the top level is not a mapping");
  const users = config["users"] ?? [];
  if (!Array.isArray(users)) return fail("users is not a list");
  const map = new Map<string, WebhookCredential>();
  users.forEach((item, i) => {
    const entry = record(item) ?? fail(`users[${i}] is not a mapping`);
    const name = optionalString(entry, "name", `users[${i}]`, fail) ?? fail(`users[${i}] has no name`);
    const user = record(entry["user"] ?? {}) ?? fail(`users[${i}] (${JSON.stringify(name)}): user is not a mapping`);
    map.set(name, kubeconfigUser(name, user, `user ${JSON.stringify(name)}`, file, readFile, fail));
  });
  return new Lookup(map, currentContextUser(config, map));
}

/** The user of the kubeconfig's current context: the reference's last resort before calling anonymously. */
function currentContextUser(config: Record<string, unknown>, users: ReadonlyMap<string, WebhookCredential>): WebhookCredential | undefined {
  const current = config["current-context"];
  if (typeof current !== "string" || !current || !Array.isArray(config["contexts"])) return undefined;
  for (const item of config["contexts"]) {
    const entry = record(item);
    if (entry?.["name"] !== current) continue;
    const user = record(entry["context"])?.["user"];
    return typeof user === "string" ? users.get(user) : undefined;
  }
  return undefined;
}

/** The `apiVersion`s and kinds a WebhookAdmissionConfiguration may carry. */
function acceptedKinds(domain: string): Record<string, readonly string[]> {
  return {
    [`apiserver.config.${domain}/v1`]: ["WebhookAdmissionConfiguration"],
    [`apiserver.config.${domain}/v1alpha1`]: ["WebhookAdmission", "WebhookAdmissionConfiguration"],
  };
}

/**
 * The credentials of a webhook plugin's configuration: `undefined` (none), a
 * WebhookAdmissionConfiguration (`apiserver.config.<domain>/v1`, or the superseded `v1alpha1`)
 * whose `kubeConfigFile` is read with `readFile`, or the inline
 * {@link WebhookCredentialsConfiguration}.
 * @throws Error prefixed with `plugin` for a configuration that is none of these, a kubeconfig
 *   that cannot be read or used, or a `kubeConfigFile` where no `readFile` is given.
 */
export function webhookCredentials(plugin: string, configuration: unknown, domain: string, readFile: ReadFile | undefined): WebhookCredentials {
  const fail: Fail = (message) => {
    throw new Error(`${plugin} configuration: ${message}`);
  };
  if (configuration === undefined || configuration === null) return noWebhookCredentials;
  const config = record(configuration) ?? fail("not an object");
  if (config["credentials"] !== undefined && config["kind"] === undefined) return inlineCredentials(config["credentials"], fail);
  const kinds = acceptedKinds(domain);
  const apiVersion = config["apiVersion"];
  const allowed = typeof apiVersion === "string" ? kinds[apiVersion] : undefined;
  if (!allowed) return fail(`apiVersion must be apiserver.config.${domain}/v1, not ${JSON.stringify(apiVersion)}`);
  if (typeof config["kind"] !== "string" || !allowed.includes(config["kind"])) {
    return fail(`kind must be ${allowed.join(" or ")}, not ${JSON.stringify(config["kind"])}`);
  }
  const file = config["kubeConfigFile"];
  if (file === undefined || file === null || file === "") return noWebhookCredentials;
  if (typeof file !== "string") return fail("kubeConfigFile is not a string");
  if (!readFile) return fail(`kubeConfigFile ${file} cannot be read in this runtime: give the credentials inline`);
  const text = readOrFail(readFile, file, "kubeConfigFile", fail);
  try {
    return kubeconfigCredentials(text, file, readFile);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}
