/**
 * One POST of an AdmissionReview to a webhook: where (the URL as written, or the service
 * resolved), with what TLS setting (the configuration's CA bundle, the host's client
 * certificate, the service's DNS name to verify), with what credentials, bounded by the
 * webhook's `timeoutSeconds` whatever the client does. HTTP clients are made once per distinct
 * TLS setting.
 * @module
 */
import type { HTTPClient } from "@orch/authn";
import type { ServiceReference, WebhookTLS, WebhookTransport } from "../plugin.js";
import type { WebhookCredential, WebhookCredentials } from "./credentials.js";
import { WebhookCallError } from "./errors.js";
import type { CompiledWebhook, WebhookEndpoint } from "./webhooks.js";

/** The default resolution of a service reference: `https://<name>.<namespace>.svc:<port>`. */
export function defaultServiceURL(ref: ServiceReference): string {
  return `https://${ref.name}.${ref.namespace}.svc:${ref.port}`;
}

/** Where one call goes and what it presents. */
interface Target {
  url: string;
  tls: WebhookTLS;
  credential: WebhookCredential | undefined;
}

function withTimeoutParameter(url: string, timeoutMs: number): string {
  // The reference tells the webhook its deadline, in whole seconds rounded up.
  const seconds = Math.ceil(timeoutMs / 1000);
  return `${url}${url.includes("?") ? "&" : "?"}timeout=${seconds}s`;
}

function basic(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return btoa(String.fromCharCode(...bytes));
}

function tlsKey(tls: WebhookTLS): string {
  return JSON.stringify([tls.ca ?? null, tls.cert ?? null, tls.key ?? null, tls.servername ?? null]);
}

/** What a webhook answered with, before its AdmissionReview is checked. */
export type WebhookPost = (hook: CompiledWebhook, review: unknown) => Promise<unknown>;

/**
 * The POST of the webhook plugins over `transport` with `credentials`: resolves with the parsed
 * JSON body of an HTTP 200 answer.
 * @throws WebhookCallError when there is no transport or endpoint, the connection fails, the
 *   time limit passes, the status is not 200, or the body is not JSON.
 */
export function webhookPoster(transport: WebhookTransport | undefined, credentials: WebhookCredentials): WebhookPost {
  const clients = new Map<string, HTTPClient>();
  const clientFor = (tls: WebhookTLS): HTTPClient => {
    const key = tlsKey(tls);
    let client = clients.get(key);
    if (!client) {
      client = (transport as WebhookTransport).client(tls);
      clients.set(key, client);
    }
    return client;
  };

  const targetOf = (hook: CompiledWebhook, endpoint: WebhookEndpoint): Target => {
    const tls: WebhookTLS = {};
    if (typeof hook.caBundle === "string") tls.ca = hook.caBundle;
    let url: string;
    let credential: WebhookCredential | undefined;
    if ("url" in endpoint) {
      url = endpoint.url;
      credential = credentials.forURL(url);
    } else {
      const { service, path } = endpoint;
      url = `${(transport?.resolveService ?? defaultServiceURL)(service).replace(/\/+$/, "")}${path}`;
      tls.servername = `${service.name}.${service.namespace}.svc`;
      credential = credentials.forService(service.name, service.namespace, service.port);
    }
    if (credential?.cert !== undefined && credential.key !== undefined) {
      tls.cert = credential.cert;
      tls.key = credential.key;
    }
    return { url, tls, credential };
  };

  return async (hook, review) => {
    const fail = (reason: string, cause?: unknown): never => {
      throw new WebhookCallError(hook.name, reason, cause === undefined ? undefined : { cause });
    };
    if (!transport) return fail("no webhook transport configured");
    if (!hook.endpoint) return fail("could not get REST client: the webhook has neither a url nor a service");
    if (hook.caBundle instanceof Error) return fail(`could not get REST client: ${hook.caBundle.message}`);
    const target = targetOf(hook, hook.endpoint);
    const url = withTimeoutParameter(target.url, hook.timeoutMs);
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
    if (target.credential?.token !== undefined) headers["Authorization"] = `Bearer ${target.credential.token}`;
    else if (target.credential?.username !== undefined || target.credential?.password !== undefined) {
      headers["Authorization"] = `Basic ${basic(target.credential.username ?? "", target.credential.password ?? "")}`;
    }
    const response = await bounded(hook.timeoutMs, (signal) =>
      clientFor(target.tls)(url, { method: "POST", headers, body: JSON.stringify(review), signal }),
    ).catch((error: unknown) =>
      fail(`failed to call webhook: Post ${JSON.stringify(url)}: ${error instanceof DeadlineExceeded ? error.message : messageOf(error)}`, error),
    );
    const text = new TextDecoder().decode(response.body);
    if (response.status !== 200) {
      const excerpt = text.length > 256 ? `${text.slice(0, 256)}...` : text;
      return fail(`failed to call webhook: the server responded with HTTP ${response.status}${excerpt.trim() ? `: ${excerpt.trim()}` : ""}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      return fail(`failed to call webhook: the response is not JSON: ${messageOf(error)}`, error);
    }
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The time limit of a call passed. */
class DeadlineExceeded extends Error {
  override readonly name = "DeadlineExceeded";
}

/**
 * Runs `call` with a signal that aborts after `ms`, and gives up at that moment even when the
 * call ignores the signal: no webhook holds a request longer than its time limit.
 */
async function bounded<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DeadlineExceeded("context deadline exceeded");
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([call(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
