/**
 * The webhook configuration file: a kubeconfig naming the webhook's URL and the TLS material and
 * token the server presents to it (the reference's `--authentication-token-webhook-config-file`).
 * @module
 */
import { parseDocument } from "yaml";

/** PEM material of a {@link WebhookConfig}: exactly one of `file` and `data` is set. */
export interface PEMSource {
  /** A path to a PEM file, as written in the kubeconfig (relative paths are not resolved). */
  file?: string;
  /** The PEM text itself, decoded from the kubeconfig's base64 `*-data` field. */
  data?: string;
}

/** What a webhook kubeconfig says about reaching the webhook, from its selected context. */
export interface WebhookConfig {
  /** The webhook's URL: an absolute `https:` or `http:` URL. */
  server: string;
  /** The CA that verifies the webhook's serving certificate (default: the runtime's root CAs). */
  certificateAuthority?: PEMSource;
  /** The client certificate presented to the webhook; set exactly when {@link WebhookConfig.clientKey} is. */
  clientCertificate?: PEMSource;
  /** The key of the client certificate; set exactly when {@link WebhookConfig.clientCertificate} is. */
  clientKey?: PEMSource;
  /** A bearer token presented to the webhook. */
  token?: string;
  /** Whether the webhook's serving certificate goes unverified (never with a CA). */
  insecureSkipTLSVerify: boolean;
  /** The name the webhook's serving certificate must carry, when it is not the URL's host. */
  tlsServerName?: string;
}

type Fields = Record<string, unknown>;

interface Named {
  name: string;
  body: Fields;
}

/** User fields of a kubeconfig this package does not support, and what they are. */
const unsupportedUserFields: Readonly<Record<string, string>> = {
  tokenFile: "a token file",
  username: "basic authentication",
  password: "basic authentication",
  exec: "an exec credential plugin",
  "auth-provider": "an auth provider",
  as: "impersonation",
  "as-uid": "impersonation",
  "as-groups": "impersonation",
  "as-user-extra": "impersonation",
};

/**
 * Parses a webhook kubeconfig (YAML or JSON) and picks the cluster and user of its context:
 * `current-context`; when that is absent, the only context; when there are no contexts, the
 * first cluster and the first user (if any).
 *
 * What a caller must know: file paths come back as written, and resolving them (against the
 * kubeconfig's directory, as the reference does) and reading them is the caller's job;
 * `*-data` fields come back decoded. `source` (a file name) prefixes every error message.
 *
 * @throws Error with a clear message for text that does not parse, a config that is not a
 *   kubeconfig, an ambiguous or dangling context, a cluster without an absolute http(s)
 *   `server`, base64 data that does not decode to PEM, a CA or client certificate given both
 *   as a file and as data, a client certificate without its key (or the reverse), a CA with
 *   `insecure-skip-tls-verify`, or a user credential other than a token or client certificate.
 */
export function parseWebhookConfig(text: string, source?: string): WebhookConfig {
  const where = source === undefined ? "webhook config" : `webhook config ${source}`;
  const fail: (message: string) => never = (message) => {
    throw new Error(`${where}: ${message}`);
  };

  const doc = parseDocument(text, { prettyErrors: false });
  const parseError = doc.errors[0];
  if (parseError !== undefined) fail(`not valid YAML or JSON: ${parseError.message}`);
  let root: unknown;
  try {
    root = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    fail(`not valid YAML or JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isFields(root)) return fail("not a kubeconfig: the top level is not a mapping");
  const kind = root["kind"];
  if (kind !== undefined && kind !== null && kind !== "Config") fail(`not a kubeconfig: kind is ${JSON.stringify(kind)}, not "Config"`);

  const clusters = namedList(root, "clusters", "cluster", fail);
  const users = namedList(root, "users", "user", fail);
  const contexts = namedList(root, "contexts", "context", fail);
  const currentContext = optionalString(root, "current-context", "current-context", fail);

  let cluster: Named | undefined;
  let user: Named | undefined;
  if (currentContext !== undefined || contexts.length > 0) {
    const c =
      currentContext !== undefined
        ? contexts.find((x) => x.name === currentContext)
        : contexts.length === 1
          ? contexts[0]
          : fail(`there are ${contexts.length} contexts and no current-context to choose one`);
    if (c === undefined) return fail(`current-context ${JSON.stringify(currentContext)} names no context in contexts`);
    const clusterName = optionalString(c.body, "cluster", `context ${JSON.stringify(c.name)}: cluster`, fail);
    if (clusterName === undefined) return fail(`context ${JSON.stringify(c.name)} names no cluster`);
    cluster = clusters.find((x) => x.name === clusterName);
    if (cluster === undefined) fail(`context ${JSON.stringify(c.name)} names cluster ${JSON.stringify(clusterName)}, which is not in clusters`);
    const userName = optionalString(c.body, "user", `context ${JSON.stringify(c.name)}: user`, fail);
    if (userName !== undefined) {
      user = users.find((x) => x.name === userName);
      if (user === undefined) fail(`context ${JSON.stringify(c.name)} names user ${JSON.stringify(userName)}, which is not in users`);
    }
  } else {
    cluster = clusters[0];
    if (cluster === undefined) fail("there is no cluster");
    user = users[0];
  }

  const cl: Named = cluster;
  const at = `cluster ${JSON.stringify(cl.name)}`;
  const server = optionalString(cl.body, "server", `${at}: server`, fail);
  if (server === undefined) return fail(`${at} has no server`);
  let url: URL | undefined;
  try {
    url = new URL(server);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:"))
    fail(`${at}: server ${JSON.stringify(server)} is not an absolute http(s) URL`);

  const config: WebhookConfig = { server, insecureSkipTLSVerify: false };
  const insecure = cl.body["insecure-skip-tls-verify"];
  if (insecure !== undefined && insecure !== null) {
    if (typeof insecure !== "boolean") fail(`${at}: insecure-skip-tls-verify is not a boolean`);
    config.insecureSkipTLSVerify = insecure;
  }
  const ca = pemSource(cl.body, "certificate-authority", at, fail);
  if (ca !== undefined) {
    if (config.insecureSkipTLSVerify) fail(`${at}: a certificate authority together with insecure-skip-tls-verify is not allowed`);
    config.certificateAuthority = ca;
  }
  const tlsServerName = optionalString(cl.body, "tls-server-name", `${at}: tls-server-name`, fail);
  if (tlsServerName !== undefined) config.tlsServerName = tlsServerName;

  if (user !== undefined) {
    const ut = `user ${JSON.stringify(user.name)}`;
    for (const [field, what] of Object.entries(unsupportedUserFields)) {
      const value = user.body[field];
      if (value !== undefined && value !== null && value !== "")
        fail(`${ut}: ${field} (${what}) is not supported: use token or client-certificate and client-key`);
    }
    const cert = pemSource(user.body, "client-certificate", ut, fail);
    const key = pemSource(user.body, "client-key", ut, fail);
    if (cert !== undefined && key === undefined) fail(`${ut}: client-certificate without client-key`);
    if (key !== undefined && cert === undefined) fail(`${ut}: client-key without client-certificate`);
    if (cert !== undefined) config.clientCertificate = cert;
    if (key !== undefined) config.clientKey = key;
    const token = optionalString(user.body, "token", `${ut}: token`, fail);
    if (token !== undefined) config.token = token;
  }
  return config;
}

/** The entries of a kubeconfig list (`clusters`, `users`, `contexts`): each a name and its body. */
function namedList(root: Fields, list: string, field: string, fail: (message: string) => never): Named[] {
  const value = root[list];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(`${list} is not a list`);
  return value.map((item: unknown, i) => {
    if (!isFields(item)) return fail(`${list}[${i}] is not a mapping`);
    const name = item["name"];
    if (typeof name !== "string") return fail(`${list}[${i}] has no name`);
    const body = item[field] ?? {};
    if (!isFields(body)) return fail(`${list}[${i}] (${JSON.stringify(name)}): ${field} is not a mapping`);
    return { name, body };
  });
}

/** A string field; `undefined` when absent, null or empty. */
function optionalString(fields: Fields, key: string, what: string, fail: (message: string) => never): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") return fail(`${what} is not a string`);
  return value;
}

/** `<field>` (a file path) or `<field>-data` (base64 PEM), at most one of them. */
function pemSource(fields: Fields, field: string, at: string, fail: (message: string) => never): PEMSource | undefined {
  const file = optionalString(fields, field, `${at}: ${field}`, fail);
  const data = optionalString(fields, `${field}-data`, `${at}: ${field}-data`, fail);
  if (file !== undefined && data !== undefined) return fail(`${at}: both ${field} and ${field}-data are set`);
  if (file !== undefined) return { file };
  if (data !== undefined) return { data: decodePEM(data, `${at}: ${field}-data`, fail) };
  return undefined;
}

/** Decodes base64 `value` to PEM text. */
function decodePEM(value: string, what: string, fail: (message: string) => never): string {
  let binary: string;
  try {
    binary = atob(value.replace(/\s+/g, ""));
  } catch {
    return fail(`${what} is not valid base64`);
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return fail(`${what} does not decode to PEM text`);
  }
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) fail(`${what} does not decode to PEM text`);
  return text;
}

function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
