/**
 * Loads a webhook kubeconfig file into what `tokenWebhookAuthenticator` of `@orch/authn` needs:
 * the webhook's URL, an `HTTPClient` with its TLS material, and its bearer token.
 * @module
 */
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseWebhookConfig, type HTTPClient, type PEMSource } from "@orch/authn";
import { httpsClient, type HTTPSClientOptions } from "./https-client.js";

/** Options of {@link loadWebhookConfig}. */
export interface LoadWebhookConfigOptions {
  /** Passed to {@link httpsClient}: gives up on a silent connection after this many milliseconds (default 30 000). */
  timeoutMs?: number;
}

/** A loaded webhook kubeconfig: where the webhook is and how to reach it. */
export interface LoadedWebhookConfig {
  /** The webhook's URL. */
  server: string;
  /** An `HTTPClient` over `node:https` with the config's CA, client certificate and server name. */
  http: HTTPClient;
  /** The config user's token, to send as `Authorization: Bearer`. */
  bearerToken?: string;
  /** The TLS material `http` uses (PEM read from the files), for another client of the same server (`httpsFetch`). */
  tls: HTTPSClientOptions;
}

/**
 * Reads the webhook kubeconfig at `path` (YAML or JSON; see `parseWebhookConfig`), reads the
 * CA, client certificate and key files it names (relative paths resolved against the
 * kubeconfig's directory, as the reference does), and builds an {@link httpsClient} with them.
 *
 * What a caller must know: the files are read once, now; a rotated certificate needs a new
 * load. Every error (the file cannot be read or parsed, a PEM file cannot be read) names the
 * kubeconfig file.
 */
export async function loadWebhookConfig(path: string, options: LoadWebhookConfigOptions = {}): Promise<LoadedWebhookConfig> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new Error(`webhook config ${path}: cannot read it: ${messageOf(error)}`, { cause: error });
  }
  const config = parseWebhookConfig(text, path);
  const directory = dirname(file);

  async function pem(source: PEMSource | undefined, field: string): Promise<string | undefined> {
    if (source === undefined) return undefined;
    if (source.data !== undefined) return source.data;
    if (source.file === undefined) return undefined;
    const target = resolve(directory, source.file);
    try {
      return await readFile(target, "utf8");
    } catch (error) {
      throw new Error(`webhook config ${path}: cannot read ${field} ${target}: ${messageOf(error)}`, { cause: error });
    }
  }

  const [ca, cert, key] = await Promise.all([
    pem(config.certificateAuthority, "certificate-authority"),
    pem(config.clientCertificate, "client-certificate"),
    pem(config.clientKey, "client-key"),
  ]);
  const tls: HTTPSClientOptions = {};
  if (ca !== undefined) tls.ca = ca;
  if (cert !== undefined) tls.cert = cert;
  if (key !== undefined) tls.key = key;
  if (config.tlsServerName !== undefined) tls.servername = config.tlsServerName;
  if (config.insecureSkipTLSVerify) tls.insecureSkipTLSVerify = true;
  if (options.timeoutMs !== undefined) tls.timeoutMs = options.timeoutMs;
  const loaded: LoadedWebhookConfig = { server: config.server, http: httpsClient(tls), tls };
  if (config.token !== undefined) loaded.bearerToken = config.token;
  return loaded;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
